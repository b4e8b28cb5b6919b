"""Per-bot time controls set at registration reach the referee (CreateGameRequest.seat_time_controls) in a real
`pepper arena run`: a referee subprocess, real bot processes, a real SQLite file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.xdist_group("arena")


def pepper(*args: str, db: Path) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                       text=True, timeout=300, stdin=subprocess.DEVNULL, env=os.environ | {"NO_COLOR": "1"})
    assert r.returncode == 0, r.stderr
    return r


def test_a_bots_own_time_controls_apply_to_its_seats_only(tmp_path):
    """Issue 11 item 6: a bot registered with 5 ms per decision and no bank, searching 40 ms a decision, times out;
    its opponents keep the run's 2 s. Before the arena passed registration's time controls, nobody timed out."""
    (tmp_path / "short.toml").write_text('name = "short"\nextends = "iowa"\ndeal_cap = 1\n')
    db = tmp_path / "arena.db"
    pepper("bot", "register", "hasty", "--command", "{python} -m sample_bots montecarlo", "--cwd", str(ROOT),
           "--env", "PEPPER_MC_BUDGET_MS=40", "--deadline-ms", "5", "--time-bank-ms", "0", db=db)
    pepper("bot", "register", "calm", "--command", "{python} -m sample_bots montecarlo", "--cwd", str(ROOT),
           "--env", "PEPPER_MC_BUDGET_MS=40", db=db)
    pepper("arena", "run", "--ruleset", str(tmp_path / "short.toml"), "--bots", "hasty,calm", "--games", "2",
           "--quiet", db=db)
    rows = {r["bot"]: r for r in json.loads(pepper("arena", "table", "--json", db=db).stdout)["short/4p"]}
    assert rows["hasty"]["games"] == rows["calm"]["games"] == 2
    assert rows["hasty"]["timeouts"] > 0 and rows["calm"]["timeouts"] == 0
