"""Case 2 end to end: a command bot that answers every decision with the biggest malformed text the referee's
inbound limit lets through cannot block `pepper arena run`. The `pepper` CLI, a real referee subprocess, real bot
subprocesses (the attacker: big_answer_bot.py), a real SQLite file.

On the old code (answers kept whole in fault details, a 4 MiB inbound limit) one game's result passed the 32 MiB
send limit: WaitGame failed with RESOURCE_EXHAUSTED and the run exited 1, again on every resume.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.service.config import ServerConfig

ROOT = Path(__file__).resolve().parents[2]
ATTACKER = Path(__file__).resolve().parent / "big_answer_bot.py"
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
GAMES = 8
SMALL = 2_000_000   # bytes: the database and each log stay under this
pytestmark = pytest.mark.xdist_group("arena")


def pepper(*args: str, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, env=os.environ | {"COLUMNS": "200"})


def count(db: Path, sql: str) -> int:
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchone()[0]


def sizes(tmp: Path) -> dict[str, int]:
    """Bytes of the database (with its WAL) and of each file in arena-logs/."""
    files = [*tmp.glob("arena.db*"), *(tmp / "arena-logs").rglob("*")]
    return {str(f.relative_to(tmp)): f.stat().st_size for f in files if f.is_file()}


def test_a_bot_sending_huge_malformed_answers_cannot_block_a_run_or_its_resume(tmp_path):
    db = tmp_path / "arena.db"
    (tmp_path / "short.toml").write_text(SHORT)
    # Every answer as big as the inbound limit lets through (3.8 MB under the old 4 MiB limit).
    size = min(3_800_000, (ServerConfig().max_receive_bytes or 4 * 1024 * 1024) - 4096)
    command = f"{{python}} {ATTACKER} {10**9} {size}"
    assert pepper("bot", "register", "attacker", "--command", command, "--cwd", str(ROOT), db=db).returncode == 0
    args = ("arena", "run", "--ruleset", "short.toml", "--bots", "attacker,random", "--games", str(GAMES),
            "--seed", "3", "--quiet")
    run = pepper(*args, db=db)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]   # the old code: 1 (RESOURCE_EXHAUSTED)
    assert count(db, "SELECT COUNT(*) FROM planned_games") == GAMES and count(db, "SELECT COUNT(*) FROM games") == GAMES
    # Each of the attacker's answers was malformed, and counted: in the seats' rows and in the table.
    malformed = count(db, "SELECT SUM(malformed) FROM game_seats WHERE bot = 'attacker'")
    assert malformed >= GAMES and count(db, "SELECT SUM(malformed) FROM game_seats WHERE bot = 'random'") == 0
    table = pepper("arena", "table", "--json", db=db)
    assert table.returncode == 0, table.stderr
    rows = {r["bot"]: r for r in json.loads(table.stdout)["iowa-short/4p"]}
    assert rows["attacker"]["games"] == GAMES and rows["attacker"]["illegal"] == malformed, rows
    assert rows["random"]["illegal"] == 0, rows
    # What the run keeps of the attacker's bytes stays small.
    assert max(len(r) for (r,) in sqlite3.connect(db).execute("SELECT record_json FROM game_records")) < 100_000
    assert all(n < SMALL for n in sizes(tmp_path).values()), sizes(tmp_path)
    # The same command again: the run is finished, nothing is played twice.
    again = pepper(*args, db=db)
    assert again.returncode == 0, again.stdout + again.stderr[-3000:]
    assert count(db, "SELECT COUNT(*) FROM runs") == 1 and count(db, "SELECT COUNT(*) FROM games") == GAMES
