"""A machine without a suite's tools (here: no Docker Engine, by pointing DOCKER_HOST nowhere) says at the start
which suites will be skipped and why, ends with the skips counted by reason, and never counts them as passed;
under CI=true the same tests fail. Real pytest runs of real sandbox tests, in subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SANDBOX = ["tests/sandbox/test_sandbox_runtime.py", "-k", "sees_only_its_files or memory"]


def run_without_docker(ci: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_CURRENT_TEST")}
    env["DOCKER_HOST"] = "unix:///nonexistent/docker.sock"
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *SANDBOX],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_a_machine_without_docker_skips_the_sandbox_suite_and_says_so():
    r = run_without_docker(ci=False)
    out = r.stdout
    assert r.returncode == 0, out + r.stderr
    header = "\n".join(out.splitlines()[:2])   # the first lines, before any test ran (pytest -q, as make test runs it)
    assert "needs: these tests will be skipped on this machine:" in header, header
    assert "  tests/sandbox: no Docker Engine: " in header and "apt-get install docker.io" in header, header
    summary = out[out.index("skipped, by reason"):]
    assert "2 skipped, by reason (not passed: they did not run)" in out
    assert summary.splitlines()[1].split(None, 1) == ["2", summary.splitlines()[1].split(None, 1)[1]]
    assert "needs a Docker Engine: " in summary.splitlines()[1], summary
    last = out.strip().splitlines()[-1]
    assert "2 skipped" in last and "passed" not in last, last


def test_under_ci_a_missing_need_fails_instead():
    r = run_without_docker(ci=True)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "needs: these tests will fail (CI=true) on this machine:" in r.stdout
    assert "CI=true but this test needs a Docker Engine" in r.stdout and "skipped" not in r.stdout.splitlines()[-1]
