"""Every suite: at the start, which suites this machine will skip and why (tests/needs.py); at the end, how many
tests were skipped for each reason. A skip is never counted as a pass."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import needs
import pytest

ROOT = Path(__file__).resolve().parents[1]
SDK_PYTHON = ROOT / ".venv-sdk" / "bin" / "python"


def pytest_sessionstart(session) -> None:
    """Printed whatever the verbosity (`make test` runs pytest -q, which shows no report header)."""
    config = session.config
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or getattr(config, "workerinput", None) is not None:   # an xdist worker: the controller says it
        return
    for line in _needs_lines():
        reporter.write_line(line)


def _needs_lines() -> list[str]:
    absent = [(need, why) for key, need in needs.NEEDS.items() if (why := needs.missing(key)) is not None]
    if not absent:
        return ["needs: everything is here (" + ", ".join(n.name for n in needs.NEEDS.values()) + ")"]
    verdict = "fail (CI=true)" if needs.in_ci() else "be skipped"
    return [f"needs: these tests will {verdict} on this machine:"] + [
        f"  {need.suites}: no {need.name.removeprefix('a ').removeprefix('the ')}: {why}" for need, why in absent]


def _reason(report) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter) -> None:
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    by_reason = Counter(_reason(r) for r in skipped)
    terminalreporter.write_sep("=", f"{len(skipped)} skipped, by reason (not passed: they did not run)")
    for reason, n in by_reason.most_common():
        terminalreporter.write_line(f"{n:5d}  {reason}")


# -- the sandbox (tests/sandbox, and the ladder's uploads) ------------------------------------------------------------
# A real Docker Engine and the images `make images` builds (built here once per test run, under a lock: xdist's
# workers share them). Without a Docker Engine these tests are skipped on a developer's machine, but fail under
# CI=true: CI must run them (.ci/run installs and starts Docker).

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
