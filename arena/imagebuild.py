"""A bot's image built from its Dockerfile (``pepper bot register/update --dockerfile``), bounded (docs/sandbox.md).

The build runs on the Engine's classic builder (:func:`supervisor.docker_runtime.build_image`) with no network,
bounded memory and CPU weight, and two bounds of time: BUILD_SILENCE_S without output (the client's read timeout)
and BUILD_TIME_S in all. The Engine stops a build whose client hangs up, so the client runs in a child process
(``python -m arena.imagebuild``), killed at the total limit. Its RUN steps' processes and threads together are held
to BUILD_PIDS by a pids cgroup the Engine nests the steps' containers under; where this process cannot make that
cgroup (not root, cgroup v2, the systemd cgroup driver) the legacy builder takes no pids limit and they are not
bounded.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

from supervisor.docker_runtime import BuildFailed, build_image, client, pids_cgroup, remove_cgroup

from .errors import ArenaError

# No network (a RUN step reaches nothing, the host's services included), 1 GiB of memory and no swap, half a CPU's
# weight, intermediate containers removed: the Engine API's /build parameters.
BUILD_LIMITS = {"networkmode": "none", "memory": 1 << 30, "memswap": 1 << 30, "cpushares": 512, "rm": 1, "forcerm": 1}
BUILD_SILENCE_S = 600      # without output
BUILD_TIME_S = 1800        # in all
BUILD_PIDS = 512           # processes and threads of its RUN steps, all together
BUILD_CGROUP = "pepper-build"


def build(context: Path, dockerfile: str, tag: str, *, docker_client=None, total_s: float = BUILD_TIME_S,
          pids: int = BUILD_PIDS) -> str:
    """Build ``context``'s ``dockerfile`` as ``tag``: the image's id (``sha256:...``); ArenaError saying what went
    wrong (with the build's last lines)."""
    where = f"--dockerfile {context / dockerfile}"
    params = dict(BUILD_LIMITS)
    # A group of its own under BUILD_CGROUP: builds at once (two arena runs, a ladder's uploads) neither share nor
    # reset each other's bound.
    group = f"{BUILD_CGROUP}/{secrets.token_hex(6)}"
    if cgroup := pids_cgroup(docker_client or client(), group, pids):
        params["cgroupparent"] = cgroup
    try:
        return _run(where, params, context, dockerfile, tag, total_s)
    finally:
        if cgroup:
            remove_cgroup(group)


def _run(where: str, params: dict, context: Path, dockerfile: str, tag: str, total_s: float) -> str:
    """Build in a child process (killed at ``total_s``: the Engine stops a build whose client is gone)."""
    job = json.dumps({"context": str(context), "dockerfile": dockerfile, "tag": tag, "params": params,
                      "silence_s": BUILD_SILENCE_S})
    child = subprocess.Popen([sys.executable, "-m", "arena.imagebuild", job], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        out, err = child.communicate(timeout=total_s)
    except subprocess.TimeoutExpired:
        child.kill()   # the Engine stops the build whose client is gone
        child.communicate()
        raise ArenaError(f"{where}: the build took longer than {total_s:g} s in all, its limit: stopped (a longer "
                         "build: build the image yourself and register it with --image)") from None
    try:
        outcome, detail = json.loads(out)
    except ValueError:
        raise ArenaError(f"{where}: the build's client failed (exit code {child.returncode}): {err.strip()}") from None
    if outcome != "built":
        raise ArenaError(f"{where}: {detail}")
    return detail


def _build(job: dict) -> tuple[str, str]:
    """In the child process: ("built", the image's id) or ("failed", why)."""
    try:
        return "built", build_image(**job)
    except BuildFailed as e:
        return "failed", str(e)


if __name__ == "__main__":
    print(json.dumps(_build(json.loads(sys.argv[1]))), flush=True)
