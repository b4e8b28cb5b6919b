"""bench/arena.py --quick: games in flight through `pepper arena run` (a smoke test of the 5,000-game measurement)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.xdist_group("arena")


def test_quick_mode_runs_the_arena_through_its_cli_and_reports_games_in_flight():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "arena.py"), "--quick", "--json", "--no-write"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stdout + out.stderr
    r = json.loads(out.stdout)
    assert (r["games"], r["concurrency"], r["exit_status"], r["stored"]) == (200, 200, 0, 200), r
    # The progress lines saw games in flight (all 200 are created at once, through the window of CreateGame calls).
    assert 20 <= r["progress_in_flight_peak"] <= 200 and r["games_per_second"] > 0 and r["seconds"] > 0, r
