"""bench/ladder.py's soak in a quick mode: a real service under churn, killed with -9 once, loses no game, stores
none twice, refuses every unauthorized action it is sent, and enters the bot uploaded meanwhile (checked in the
Docker sandbox)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sandbox")]   # its upload: one Docker-heavy test at a time


def test_the_soak_loses_nothing_and_refuses_every_unauthorized_action(images):
    out = subprocess.run([sys.executable, "bench/ladder.py", "--soak", "8", "--bots", "4", "--kills", "1", "--uploads",
                          "1"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    figures = dict(line.split(":", 1) for line in out.stdout.splitlines()[1:])
    assert int(figures["games played"]) > 0
    assert int(figures["lost"]) == 0 and int(figures["stored twice"]) == 0
    refused, tried = figures["refused unauthorized actions"].replace("(of", "").replace("tried)", "").split()
    assert refused == tried
    assert "service" in figures["peak memory"] and "MiB" in figures["peak memory"]
    assert figures["uploads"].split()[:4] == ["1", "entered", "(of", "1"]
    assert int(figures["uploads"].split("played ")[1].split()[0]) > 0
