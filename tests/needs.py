"""What the suites need from the machine beyond the virtualenv, probed once per process, and the one way a test
says that a need is missing.

CI installs everything (.ci/run), so there a missing need fails the test. On a developer's machine (no Docker,
no Chromium, no Go or C++ toolchain) the test is skipped with the reason, never passed: :func:`require` is the
only way a test bows out for a missing tool. The root conftest prints at the start which suites will be skipped
and why, and at the end how many tests were skipped for each reason.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("PEPPER_CHROMIUM", "/usr/bin/chromium")   # as tests/web/web_harness.py launches it


def in_ci() -> bool:
    """Whether this run is CI's (CI=true), where every need is installed and a missing one is a failure."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _docker() -> str | None:
    from supervisor import StartError
    from supervisor.docker_runtime import client

    try:
        client().close()
    except StartError as e:
        return f"{e.reason}; install and start it: apt-get install docker.io, then dockerd"
    return None


def _compose() -> str | None:
    if (why := _docker()) is not None:
        return why
    r = subprocess.run(["docker", "compose", "version", "--short"], capture_output=True, text=True)
    version = r.stdout.strip().lstrip("v").split("-")[0]
    if r.returncode or tuple(int(x) for x in version.split(".")[:2] if x.isdigit()) < (2, 24):
        return f"`docker compose` is {version or 'missing'}, not 2.24 or newer: run tools/install-compose.sh (as root)"
    return None


def _chromium() -> str | None:
    if Path(CHROMIUM).exists() or ("PEPPER_CHROMIUM" not in os.environ and shutil.which("chromium")):
        return None
    return f"{CHROMIUM} does not exist: apt-get install chromium"


def _kit(kit: str) -> Callable[[], str | None]:
    def probe() -> str | None:
        why = subprocess.run(["make", "-s", "--no-print-directory", "-C", f"sample_bots/{kit}", "missing"], cwd=ROOT,
                             capture_output=True, text=True).stdout.strip()
        return why or None
    return probe


def _node() -> str | None:
    from arena.registry import node_missing

    return node_missing()


def _compiled() -> str | None:
    import referee.rules

    return referee.rules.why_pure()


@dataclass(frozen=True)
class Need:
    """Something a suite needs from the machine: what it is, which tests need it, and its probe (None when present,
    else why it is missing and how to install it)."""

    name: str
    suites: str
    probe: Callable[[], str | None]


NEEDS: dict[str, Need] = {
    "docker": Need("a Docker Engine", "tests/sandbox", _docker),
    "compose": Need("Docker Compose 2.24 or newer", "tests/ray/test_compose_cluster.py", _compose),
    "chromium": Need("Chromium", "tests/web (the browser tests)", _chromium),
    "go": Need("the Go kit's toolchain", "tests/sample_bots/test_starter_kits.py (go)", _kit("go")),
    "cpp": Need("the C++ kit's toolchain", "tests/sample_bots/test_starter_kits.py (cpp)", _kit("cpp")),
    "node": Need("Node.js and the Node bot's packages", "tests/sample_bots/test_node_bot.py and the node bot's "
                 "arena tests", _node),
    "compiled": Need("the compiled engine", "tests/rules/test_compiled_build.py", _compiled),
}


@functools.cache
def missing(key: str) -> str | None:
    """Why ``key`` (a key of :data:`NEEDS`) is missing here, or None; probed once per process."""
    return NEEDS[key].probe()


def require(key: str) -> None:
    """Skip the calling test when ``key`` is missing (fail it under CI=true), with the reason."""
    why = missing(key)
    if why is None:
        return
    message = f"needs {NEEDS[key].name}: {why}"
    if in_ci():
        pytest.fail(f"CI=true but this test {message} (.ci/run installs it)", pytrace=False)
    pytest.skip(message)
