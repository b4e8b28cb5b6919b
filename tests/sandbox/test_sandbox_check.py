"""`pepper bot check --sandbox docker`: the conformance checker drives the bot in its container (the sandbox's user,
the referee on a Unix socket of its own), as a ladder checks an upload."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("sandbox")   # one Docker-heavy test at a time (tests/sandbox)
HERE = Path(__file__).resolve().parent
# Plays as hostile_bot.py does with no attack (random legal actions), only where the sandbox put it: as user 65534,
# with the referee at the container's socket; anywhere else it exits 3 at once.
PROBE = """import os, runpy, sys
if os.getuid() != 65534 or os.environ.get("PEPPER_REFEREE") != "unix:/run/pepper/referee.sock":
    sys.exit(3)
runpy.run_path("bot.py", run_name="__main__")
"""


def _check(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", "bot", "check", *args, "--", "{python}", "probe.py"],
                          cwd=folder, capture_output=True, text=True, timeout=300)


def test_the_checker_runs_the_bot_in_the_sandbox(tmp_path, images):
    tmp_path.chmod(0o755)   # the sandbox's user reads the folder
    shutil.copy(HERE / "hostile_bot.py", tmp_path / "bot.py")
    (tmp_path / "probe.py").write_text(PROBE)
    boxed = _check(tmp_path, "--sandbox", "docker")
    assert boxed.returncode == 0, boxed.stdout + boxed.stderr
    assert "0 failed" in boxed.stdout.splitlines()[-1]
    # The same bot out of the sandbox is not where it expects to be: it exits, and the checker says it crashed.
    local = _check(tmp_path, "--only", "connect")
    assert local.returncode == 1 and "crash" in local.stdout
    assert _check(tmp_path, "--sandbox", "podman").returncode == 2
