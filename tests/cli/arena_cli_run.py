"""Running `pepper arena ...` as a real subprocess on a one-deal iowa ruleset, for the arena CLI tests."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

SHORT = 'name = "short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run or match


def pepper(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """`pepper arena ARGS --db tmp_path/arena.db`, run in ``tmp_path`` with ``short.toml`` written there."""
    (tmp_path / "short.toml").write_text(SHORT)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | {"NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "pepper_cli", "arena", *args, "--db", str(tmp_path / "arena.db")],
                          cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180, env=env)


def games(tmp_path: Path) -> int:
    """How many games the run's database holds."""
    with sqlite3.connect(tmp_path / "arena.db") as c:
        return c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
