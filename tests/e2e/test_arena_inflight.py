"""Thousands of games in flight through `pepper arena run`.

A burst of more than about 1,000 calls at once overflows the gRPC server's queue of calls it has not yet
taken up, and the server cancels some of them at random: the arena used to send one CreateGame per game
in flight all at once, and stopped with `referee error: CANCELLED` although the games were being played.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("arena")

GAMES = 2048  # the run: on the old arena every run of this size failed


def test_thousands_of_one_deal_games_at_once_are_all_played_and_stored(tmp_path: Path):
    (tmp_path / "short.toml").write_text('name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n')
    db = tmp_path / "arena.db"
    run = subprocess.run(
        [sys.executable, "-m", "pepper_cli", "arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic",
         "--games", str(GAMES), "--concurrency", str(GAMES), "--planned", "--seed", "9", "--quiet", "--db", str(db)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "CANCELLED" not in run.stderr
    with sqlite3.connect(db) as c:
        (planned,) = c.execute("SELECT COUNT(*) FROM planned_games").fetchone()
        stored = c.execute("SELECT COUNT(*), COUNT(DISTINCT idx), MIN(idx), MAX(idx) FROM games").fetchone()
        (finished,) = c.execute("SELECT COUNT(*) FROM runs WHERE finished_at IS NOT NULL").fetchone()
    assert planned == GAMES
    assert stored == (GAMES, GAMES, 0, GAMES - 1)   # every planned game stored, once
    assert finished == 1
