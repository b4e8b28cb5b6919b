"""`pepper arena run` plans adaptive rounds by default, `--planned` the whole round robin up front:
real subprocesses (referee, bot processes), a real SQLite file, one-deal games."""

from __future__ import annotations

import json
import sqlite3

import pytest
from arena_cli_run import pepper

from arena.planners import ADAPTIVE_LAG_GAMES, ADAPTIVE_ROUND_GAMES

pytestmark = pytest.mark.xdist_group("arena")


def _runs(tmp_path) -> list[tuple[dict, int, int]]:
    """Each run's settings, planned games and stored games."""
    with sqlite3.connect(tmp_path / "arena.db") as c:
        return [(json.loads(cfg), c.execute("SELECT COUNT(*) FROM planned_games WHERE run_id = ?", (i,)).fetchone()[0],
                 c.execute("SELECT COUNT(*) FROM games WHERE run_id = ?", (i,)).fetchone()[0])
                for i, cfg in c.execute("SELECT id, config_json FROM runs ORDER BY id").fetchall()]


def test_a_run_is_adaptive_by_default_and_planned_on_request(tmp_path):
    games = ADAPTIVE_LAG_GAMES + 2 * ADAPTIVE_ROUND_GAMES   # past the lag: rounds chosen on ratings too
    args = ("run", "--ruleset", "short.toml", "--bots", "heuristic,random", "--games", str(games), "--quiet")
    out = pepper(tmp_path, *args)
    assert out.returncode == 0, out.stdout + out.stderr
    ((cfg, planned, stored),) = _runs(tmp_path)
    assert cfg["adaptive"] is True and planned == stored == games
    again = pepper(tmp_path, *args)   # the same command: the same run, nothing more to play
    assert again.returncode == 0 and len(_runs(tmp_path)) == 1, again.stdout + again.stderr
    planned_run = pepper(tmp_path, *args[:-2], "16", "--planned", "--quiet")   # --games 16
    assert planned_run.returncode == 0, planned_run.stdout + planned_run.stderr
    (_, (cfg, planned, stored)) = _runs(tmp_path)
    assert cfg["adaptive"] is False and planned == stored == 16
