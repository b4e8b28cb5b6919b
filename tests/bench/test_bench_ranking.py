"""bench/ranking.py: its measurement of the rating scale runs and shows the mixed-line-up drift of the unweighted
model, and its count of games to the right order reads the checkpoints as documented."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

_spec = importlib.util.spec_from_file_location("bench_ranking", Path(__file__).resolve().parents[2] / "bench" / "ranking.py")
ranking = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ranking)


def test_games_to_right_is_the_first_checkpoint_from_which_the_share_holds():
    marks = [[(20, False), (40, True), (60, True)], [(20, True), (40, False), (60, True)],
             [(20, True), (40, True), (60, True)], [(20, True), (40, True), (60, True)],
             [(20, True), (40, True), (60, True)]]
    assert ranking.games_to_right(marks) == 20          # 4 of 5 right at every checkpoint
    assert ranking.games_to_right(marks, share=1.0) == 60
    assert ranking.games_to_right([[(20, False)]] * 5) is None


def test_the_scale_measurement_shows_the_unweighted_drift(capsys):
    ranking.main(["scale", "--games", "150", "--seeds", "1", "--json"])
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["mixed/unweighted"][0]["mean"] < 20 < 23 < out["mixed/weighted"][0]["mean"] < 27
    assert abs(out["mirrored/weighted"][0]["mean"] - out["mirrored/unweighted"][0]["mean"]) < 1e-9


def test_speed_times_real_arena_runs_and_reports_the_games_in_flight(capsys):
    """`speed` plays real arena runs (referee subprocess, bot processes): games per second per mode, and each run's
    most and mean games in flight (the mean over time, no more than the most)."""
    ranking.main(["speed", "--deal-cap", "1", "--wallclock", "1", "--arena-games", "16", "--modes", "adaptive",
                  "--json"])
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[-1])["adaptive"] > 0
    run = next(line for line in lines if "arena run 1/1, adaptive" in line)
    found = re.search(r"at most (\d+) games in flight, (\d+) on average", run)
    assert found, run
    most, mean = int(found[1]), int(found[2])
    assert 0 < mean <= most <= 16, run
