"""A bot's image built from its Dockerfile (``pepper bot register/update --dockerfile``), bounded (docs/sandbox.md).

The build runs on the Engine's classic builder with no network, bounded memory and CPU weight, and two bounds of
time: BUILD_SILENCE_S without output (the client's read timeout) and BUILD_TIME_S in all. The Engine stops a build
whose client hangs up, so the client runs in a child process (``python -m arena.imagebuild``), killed at the total
limit. Its RUN steps' processes
and threads together are held to BUILD_PIDS by a pids cgroup (v1) that the Engine nests the steps' containers under
(``cgroupparent``; docker-py's ``images.build`` does not pass it, hence the Engine API's ``/build`` here); where
this process cannot make that cgroup (not root, cgroup v2, the systemd cgroup driver) the build's processes are
not bounded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from supervisor.docker_runtime import client

from .errors import ArenaError

# No network (a RUN step reaches nothing, the host's services included), 1 GiB of memory and no swap, half a CPU's
# weight: the Engine API's /build parameters.
BUILD_LIMITS = {"networkmode": "none", "memory": 1 << 30, "memswap": 1 << 30, "cpushares": 512}
BUILD_SILENCE_S = 600      # without output
BUILD_TIME_S = 1800        # in all
BUILD_PIDS = 512           # processes and threads of its RUN steps, all together
BUILD_CGROUP = "pepper-build"
PIDS_HIERARCHY = Path("/sys/fs/cgroup/pids")   # cgroup v1's pids controller


def pids_cgroup(dc, pids: int) -> str | None:
    """The cgroup parent for a build's containers, its ``pids.max`` set to ``pids``; None where it cannot be made."""
    info = dc.info()
    if info.get("CgroupDriver") != "cgroupfs" or str(info.get("CgroupVersion", "1")) != "1":
        return None
    try:
        group = PIDS_HIERARCHY / BUILD_CGROUP
        group.mkdir(exist_ok=True)
        (group / "pids.max").write_text(f"{pids}\n")
    except OSError:
        return None
    return f"/{BUILD_CGROUP}"


def build(context: Path, dockerfile: str, tag: str, *, docker_client=None, total_s: float = BUILD_TIME_S,
          pids: int = BUILD_PIDS) -> str:
    """Build ``context``'s ``dockerfile`` as ``tag``: the image's id (``sha256:...``); ArenaError saying what went
    wrong (with the build's last lines)."""
    where = f"--dockerfile {context / dockerfile}"
    cgroup = pids_cgroup(docker_client or client(), pids)
    job = json.dumps({"context": str(context), "dockerfile": dockerfile, "tag": tag, "cgroup": cgroup})
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


def _build(context: str, dockerfile: str, tag: str, cgroup: str | None) -> tuple[str, str]:
    """In the child process: the build, streamed; ("built", image id) or ("failed", why and its last lines)."""
    import docker.errors
    import requests
    from docker.utils import tar

    try:
        dc = client()
        ignore = Path(context, ".dockerignore")
        exclude = [ln.strip() for ln in ignore.read_text().splitlines() if ln.strip() and not ln.startswith("#")] \
            if ignore.is_file() else None
        params = {"t": tag, "dockerfile": dockerfile, "rm": 1, "forcerm": 1, **BUILD_LIMITS}
        if cgroup:
            params["cgroupparent"] = cgroup
        lines: list[str] = []
        with tar(context, exclude=exclude, dockerfile=(dockerfile, None)) as body:
            r = dc.api.post(f"{dc.api.base_url}/v{dc.api.api_version}/build", params=params, data=body,
                            headers={"Content-Type": "application/x-tar"}, stream=True, timeout=BUILD_SILENCE_S)
            if r.status_code >= 400:   # a parameter the Engine refuses: it says which
                return "failed", f"docker: {r.status_code}: {r.text.strip()}"
            image_id = ""
            for raw in r.iter_lines():
                item = json.loads(raw)
                if "error" in item:
                    return "failed", "the build failed: " + "\n".join([item["error"].rstrip(), *lines[-10:]])
                image_id = (item.get("aux") or {}).get("ID", image_id)
                if item.get("stream", "").strip():
                    lines.append(item["stream"].rstrip())
        return ("built", image_id) if image_id else ("failed", "the Engine named no image: " + "\n".join(lines[-10:]))
    except requests.exceptions.ConnectionError as e:   # a read timed out: no output for BUILD_SILENCE_S
        return "failed", f"the build said nothing for {BUILD_SILENCE_S} s, its limit: stopped ({e})"
    except (docker.errors.DockerException, requests.exceptions.RequestException, OSError, ValueError) as e:
        return "failed", f"docker: {e}"


if __name__ == "__main__":
    print(json.dumps(_build(**json.loads(sys.argv[1]))), flush=True)
