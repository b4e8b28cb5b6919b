"""An OpenSpiel bot in the arena: registered with `pepper bot register --openspiel`, ranked like any bot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("arena")


def pepper(*args: str, db: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_an_ismcts_entrant_plays_ranked_games_within_the_default_deadlines(tmp_path):
    db = tmp_path / "arena.db"
    # One deal a game keeps the test short; the entrant's search is the same in a whole game.
    (tmp_path / "short.toml").write_text('extends = "iowa"\nname = "iowa-1"\ndeal_cap = 1\n')
    reg = pepper("bot", "register", "ismcts", "--openspiel", "ismcts", db=db)
    assert reg.returncode == 0, reg.stderr
    assert "-m pepper_spiel.entrant --bot ismcts" in reg.stdout
    bad = pepper("bot", "register", "x", "--openspiel", "alphazero", db=db)
    assert bad.returncode == 2 and "expected one of ismcts, mcts, random" in bad.stderr
    run = pepper("arena", "run", "--games", "4", "--bots", "random,ismcts", "--ruleset", "short.toml", "--seed", "2",
                 "--quiet", db=db)
    assert run.returncode == 0, run.stderr
    assert "4/4 games" in run.stdout
    out = pepper("arena", "table", "--json", db=db)
    rows = {r["bot"]: r for pool in json.loads(out.stdout).values() for r in pool}
    assert rows["ismcts"]["games"] == 4
    assert rows["ismcts"]["timeouts"] == rows["ismcts"]["illegal"] == 0
