"""bench/ranking.py: its measurement of the rating scale runs and shows the mixed-line-up drift of the unweighted
model, its count of games to the right order reads the checkpoints as documented, and its wall clock times the first
N planned games of a real arena run until the last of them is stored."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from arena.ratings import Rating
from arena.schedule import order_doubt, plan
from arena.store import Faults, GameStatus, NewGame, Seat, SeatStatus, Store
from referee.rules import get_ruleset

_spec = importlib.util.spec_from_file_location("bench_ranking", Path(__file__).resolve().parents[2] / "bench" / "ranking.py")
ranking = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ranking)


def test_the_doubt_score_is_the_mean_doubt_of_the_pairs_a_lineup_sets_against_each_other():
    iowa = get_ruleset("iowa").table(4)
    r = {"a": Rating(30, 3), "b": Rating(26, 4), "c": Rating(26, 4)}
    want = (order_doubt(r, "a", "c", Rating()) + order_doubt(r, "b", "c", Rating())) / 2   # a and b are partners
    assert ranking.lineup_doubt(r, ["a", "c", "b", "c"], iowa, Rating()) == pytest.approx(want)
    assert ranking.lineup_doubt(r, ["b", "c", "b", "c"], iowa, Rating()) == 0.5   # equal ratings: a coin toss


def test_games_to_right_is_the_first_checkpoint_from_which_the_share_holds():
    marks = [[(20, False), (40, True), (60, True)], [(20, True), (40, False), (60, True)],
             [(20, True), (40, True), (60, True)], [(20, True), (40, True), (60, True)],
             [(20, True), (40, True), (60, True)]]
    assert ranking.games_to_right(marks) == 20          # 4 of 5 right at every checkpoint
    assert ranking.games_to_right(marks, share=1.0) == 60
    assert ranking.games_to_right([[(20, False)]] * 5) is None


def test_the_scale_measurement_shows_the_unweighted_drift(capsys, tmp_path):
    """... and writes its results table (bench/results.py), one row per line-up and model with the run's figures."""
    ranking.main(["scale", "--games", "150", "--seeds", "1", "--json", "--results", str(tmp_path / "scale.md")])
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["mixed/unweighted"][0]["mean"] < 20 < 23 < out["mixed/weighted"][0]["mean"] < 27
    assert abs(out["mirrored/weighted"][0]["mean"] - out["mirrored/unweighted"][0]["mean"]) < 1e-9
    text = (tmp_path / "scale.md").read_text()
    assert text.startswith("# Rating scale\n") and "Command: `.venv/bin/python bench/ranking.py scale --games 150 --seeds 1 --json`" in text
    row = next(line for line in text.splitlines() if line.startswith("| mixed | weighted |"))
    assert float(row.split("|")[3]) == pytest.approx(out["mixed/weighted"][0]["mean"], rel=5e-3), row   # 3 significant digits


def test_speed_times_real_arena_runs_and_reports_the_games_in_flight(capsys):
    """`speed` plays real arena runs (referee subprocess, bot processes): games per second per mode, and each run's
    most and mean games in flight (the mean over time, no more than the most)."""
    ranking.main(["speed", "--deal-cap", "1", "--wallclock", "1", "--arena-games", "16", "--modes", "adaptive",
                  "--json", "--no-write"])
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[-1])["adaptive"] > 0
    run = next(line for line in lines if "arena run 1/1, adaptive" in line)
    found = re.search(r"at most (\d+) games in flight, (\d+) on average", run)
    assert found, run
    most, mean = int(found[1]), int(found[2])
    assert 0 < mean <= most <= 16, run
    # The CPU a game took in the referee and bot processes (reaped by the end of the run) and in the arena: a game of
    # one deal between heuristic bots takes milliseconds, not nothing and not seconds.
    cpu = re.search(r"CPU ([0-9.]+) ms a game in the referee and bots and ([0-9.]+) in the arena", run)
    assert cpu and 0.5 < float(cpu[1]) < 2000 and 0 < float(cpu[2]) < 2000, run


def _game(run_id: int, idx: int) -> NewGame:
    seats = tuple(Seat(s, bot, SeatStatus.OK, Faults(), 42 if s % 2 == 0 else 10, s % 2 == 0)
                  for s, bot in enumerate(["a", "b", "a", "b"]))
    return NewGame(run_id, idx, "iowa/4p", "iowa", 4, 1, GameStatus.COMPLETED, 0.1, seats, {"format": "pepper-game/1"})


def test_the_time_to_the_first_n_planned_games_is_that_of_the_last_of_them_stored(tmp_path):
    """Games are stored out of plan order: the time to the first N planned games is the latest finished_at among plan
    indexes below N (not that of the N-th game stored, nor of plan index N-1), and None until all N are stored."""
    st = Store(tmp_path / "arena.db")
    run, _ = st.find_or_create_run({"ruleset": "iowa", "players": 4, "games": 8, "seed": 1},
                                   plan(["a", "b"], "iowa", 4, 8, seed=1))
    other, _ = st.find_or_create_run({"ruleset": "iowa", "players": 4, "games": 8, "seed": 2},
                                     plan(["a", "b"], "iowa", 4, 8, seed=2))
    finished = {2: 101.0, 0: 102.0, 5: 103.0, 1: 104.0, 3: 105.0, 4: 106.0}   # plan index -> finished_at, stored in this order
    for idx, at in finished.items():
        assert st.record_group([_game(run, idx)]) == [True]
        [gid] = st.latest_game_ids(limit=1)
        st.db.execute("UPDATE games SET finished_at = ? WHERE id = ?", (at, gid))
    st.record_group([_game(other, 0)])       # another run's game, stored last of all
    [gid] = st.latest_game_ids(limit=1)
    st.db.execute("UPDATE games SET finished_at = 200.0 WHERE id = ?", (gid,))
    st.db.commit()
    to = ranking.seconds_to_first
    assert to(st, run, 1, 100.0) == 2.0          # plan index 0, stored second
    assert to(st, run, 2, 100.0) == 4.0          # index 1 is the last of 0 and 1 stored (after index 5)
    assert to(st, run, 3, 100.0) == 4.0          # index 2 was stored first of all
    assert to(st, run, 6, 100.0) == 6.0
    assert to(st, run, 7, 100.0) is None         # index 6 is not stored
    assert to(st, other, 1, 100.0) == 100.0
    st.close()


def test_the_paired_ratio_is_the_median_of_each_rounds_ratio_leaving_out_rounds_without_a_time():
    assert ranking.paired_ratio([1.0, 3.0, 2.0, None], [2.0, 3.0, 8.0, 4.0]) == 0.5       # 0.5, 1.0, 0.25
    assert ranking.paired_ratio([1.0, None], [None, 2.0]) is None


def test_ranking_wallclock_times_the_first_n_planned_games_of_a_real_arena_run(capsys):
    """`ranking --wallclock 1` with N (20 games: one checkpoint, a two-bot ladder far apart) above --arena-games (16): the
    run is lengthened to N with a note, its line gives its time to N, and the JSON carries that time (from the start of
    play, so under the whole run's) beside N / the run's mean games per second."""
    ranking.main(["ranking", "--seeds", "1", "--max-games", "20", "--rates", "0,1", "--modes", "adaptive",
                  "--deal-cap", "1", "--wallclock", "1", "--arena-games", "16", "--json", "--no-write"])
    lines = capsys.readouterr().out.splitlines()
    r = json.loads(lines[-1])["adaptive"]
    assert r["games"] == 20 and r["arena_games"] == 20, r
    assert any(line.startswith("note: --arena-games 16 is fewer than the 20 games adaptive needs") for line in lines)
    run = next(line for line in lines if "arena run 1/1, adaptive" in line)
    found = re.search(r"first 20 planned games stored ([0-9.]+) s into play \(start-up ([0-9.]+) s\)", run)
    assert found, run
    [one] = r["arena_runs"]
    assert r["seconds"] == one["seconds_to_first"]["20"] and abs(float(found[1]) - r["seconds"]) < 0.01
    assert abs(r["seconds_by_rate"] - 20 / r["arena_rate"]) < 1e-9 and r["seconds_runs"] == [r["seconds"]]
    assert 0 < r["seconds"] < one["games"] / one["rate"] - one["startup_s"] + 1e-6, r   # within the run, start-up out


def test_ranking_counts_the_games_to_the_order_by_points_and_by_trueskill(capsys):
    """`ranking`: each mode's games to the right order under the table's order (the points rating of its complete
    blocks; the naive baseline by TrueSkill on game results, as a harness without blocks has it) and under the
    other, from the same games. On these seeds the points rating is right sooner than TrueSkill in the duplicate
    modes (deterministic: the games are seeded and played in process)."""
    ranking.main(["ranking", "--seeds", "3", "--max-games", "200", "--modes", "adaptive,mirrored,naive", "--json",
                  "--no-write"])
    res = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert [res[m]["order"] for m in ("adaptive", "mirrored", "naive")] == ["points", "points", "trueskill"]
    for mode in ("adaptive", "mirrored"):
        by = res[mode]["games_by_order"]
        assert res[mode]["games"] == by["points"] < by["trueskill"], res[mode]
    assert res["naive"]["games"] == res["naive"]["games_by_order"]["trueskill"]
    assert res["adaptive"]["ratio_games"] == res["adaptive"]["games"] / res["naive"]["games"]


def test_given_games_to_the_right_order_skip_the_seeds_and_time_only(capsys):
    """`--games-to-right MODE=N` takes each mode's N from an earlier run and only plays the arena runs (no seed is
    played in process: a mode not given is not timed); a malformed value is refused with the expected form."""
    ranking.main(["ranking", "--games-to-right", "adaptive=12", "--modes", "adaptive,naive", "--deal-cap", "1",
                  "--wallclock", "1", "--arena-games", "12", "--json", "--no-write"])
    lines = capsys.readouterr().out.splitlines()
    res = json.loads(lines[-1])
    assert list(res) == ["adaptive"] and res["adaptive"]["games"] == 12 and res["adaptive"]["seconds"] > 0, res
    assert not any("seeds" in line for line in lines), lines
    with pytest.raises(SystemExit):
        ranking.main(["ranking", "--games-to-right", "adaptive=many", "--wallclock", "1", "--no-write"])
    assert "expected MODE=N" in capsys.readouterr().err


def test_variance_compares_the_block_statistics_and_ends_with_the_ratios_line(capsys, tmp_path):
    """`variance`, quick: every statistic's separation on the same blocks (the block score's multiplier over itself
    is 1), an equal pair's interval coverage, the match's tests on the same blocks and their resampled error rates;
    the results table, the plot and, as the last line, the three ratios."""
    ranking.main(["variance", "--configs", "iowa:4:2,pepper-30:3:2", "--pairs", "0:0.4,0.3:0.3", "--blocks", "12",
                  "--matches", "2", "--max-blocks", "8", "--error-runs", "10", "--max-error-blocks", "300",
                  "--order-seeds", "2", "--order-max-games", "60", "--order-wallclock", "0",
                  "--results", str(tmp_path / "variance.md"), "--svg", str(tmp_path / "variance.svg")])
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"variance: order_games_ratio=(\d+\.\d\d|n/a) order_time_ratio=n/a "
                        r"sprt_games_ratio=(\d+\.\d\d|n/a)", lines[-1]), lines[-2:]
    text = (tmp_path / "variance.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| iowa | 4 | 2 | 12 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[4] == "1.00" and all(float(c) > 0 for c in cells[5:]), row
    assert "| pepper-30 | 3 | mix30-mix30b |" in text and "| score GSPRT | " in text
    assert "## Games to the table's exact order in 80% of 2 seeds, fine ladder mix00, mix10" in text
    assert re.search(r"^\| naive \(the baseline\) \| trueskill \| ", text, re.M) and "| adaptive | points | " in text, text
    svg = (tmp_path / "variance.svg").read_text()
    assert svg.startswith("<svg") and svg.count("<rect") >= 2 * 5 and "pepper-30" in svg
