"""Fixtures for the sandbox's tests: a real Docker Engine and the images `make images` builds (built here once
per test run, under a lock: xdist's workers share them).

Without a Docker Engine the tests are skipped on a developer's machine, but fail under CI=true: CI must run them
(.ci/run installs and starts Docker)."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import needs
import pytest

ROOT = Path(__file__).resolve().parents[2]
SDK_PYTHON = ROOT / ".venv-sdk" / "bin" / "python"


@pytest.fixture(scope="session")
def docker_client():
    from supervisor.docker_runtime import client

    needs.require("docker")
    return client()


@pytest.fixture(scope="session")
def images(docker_client) -> None:
    """Build the sandbox's images once per test run (images/build.sh; the base image once per machine)."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID", str(os.getppid()))
    stamp = Path("/tmp/pepper-images.built")
    with open("/tmp/pepper-images.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (stamp.exists() and stamp.read_text() == run_id):
            python = str(SDK_PYTHON if SDK_PYTHON.exists() else sys.executable)
            r = subprocess.run([str(ROOT / "images" / "build.sh"), python], capture_output=True, text=True, timeout=900)
            if r.returncode:
                pytest.fail(f"images/build.sh failed ({r.returncode}):\n{r.stdout}\n{r.stderr}", pytrace=False)
            stamp.write_text(run_id)


@pytest.fixture
def bot_dockerfile(tmp_path):
    """Makes ``tmp_path/NAME``: a build context whose Dockerfile puts hostile_bot.py (with no $PEPPER_HOSTILE: a
    random bot) on pepper-python as /app/bot.py, run by its CMD; returns its path."""
    def make(name: str) -> Path:
        ctx = tmp_path / name
        ctx.mkdir()
        shutil.copy(Path(__file__).resolve().parent / "hostile_bot.py", ctx / "bot.py")
        (ctx / "Dockerfile").write_text('FROM pepper-python:latest\nCOPY bot.py /app/bot.py\nWORKDIR /app\n'
                                        'CMD ["python3", "bot.py"]\n')
        return ctx
    return make
