"""The container runtime (supervisor.docker_runtime) with a real Docker Engine: what a process in the sandbox can
see and do, how its end is reported in its log, and that a killed owner's containers are reaped."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from supervisor import ProcessSpec
from supervisor.docker_runtime import LABEL, DockerRuntime, Limits, Mount, Sandbox, owner_id

HERE = Path(__file__).resolve().parent
# One group with the other sandbox tests: a runtime's start reaps the containers of owners that are gone, so run
# beside test_sandbox_register it would remove the killed arena's containers that test expects to find.
pytestmark = [pytest.mark.usefixtures("images"), pytest.mark.xdist_group("sandbox")]


def sandbox(**kw) -> Sandbox:
    return Sandbox(mounts=(Mount(str(HERE / "probe.py"), "/bot/probe.py"),), **kw)


def run(docker_client, tmp_path, argv, env=None, timeout=60, **kw):
    rt = DockerRuntime(sandbox(**kw), docker_client)
    h = rt.start(ProcessSpec("probe", tuple(argv), tmp_path / "probe.log", env=env or {}))
    code = h.wait(timeout)
    return code, (tmp_path / "probe.log").read_text()


def test_a_container_sees_only_its_files_and_no_network(docker_client, tmp_path):
    listener = socket.socket()   # a TCP port on the host's loopback, as the referee's control port
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    secret = tmp_path / "arena.db"
    secret.write_text("every bot's token")
    env = {"PROBE_TCP": f"127.0.0.1:{listener.getsockname()[1]},172.17.0.1:{listener.getsockname()[1]}",
           "PROBE_FILES": f"{secret},/proc/1/root/etc/shadow", "PEPPER_TOKEN": "its-own-token", "PROBE_FORK": "1"}
    code, log = run(docker_client, tmp_path, ["python3", "probe.py"], env, limits=Limits(pids=32))
    listener.close()
    assert code == 0, log
    seen = json.loads(log.splitlines()[0])
    assert (seen["uid"], seen["gid"]) == (65534, 65534)
    assert int(seen["cap_eff"], 16) == 0 and seen["no_new_privs"] == "1"
    assert seen["interfaces"] == ["lo"]                                  # --network none
    assert all(v.startswith(("OSError", "ConnectionRefusedError", "TimeoutError")) for v in seen["tcp"].values()), seen["tcp"]
    assert all(v.startswith(("FileNotFoundError", "PermissionError")) for v in seen["files"].values()), seen["files"]
    assert seen["write_root"].startswith("OSError: Read-only") and seen["write_bot"].startswith(("OSError", "Permission"))
    assert seen["write_tmp"] == "written"
    # Its own process only (a pid namespace of its own): no host process's environment, its token in its own.
    assert list(seen["environs"]) == ["1"] and "its-own-token" in seen["environs"]["1"]
    assert 0 < seen["forks"] < 32                                         # the pids limit stopped the forks
    assert log.rstrip().endswith("exited with code 0")


def test_over_its_memory_it_is_oom_killed_and_its_log_says_so(docker_client, tmp_path):
    code, log = run(docker_client, tmp_path, ["python3", "-c", "b = b'x' * (4 << 30)"], limits=Limits(memory_mb=64))
    assert code == 137, log
    assert "OOM killed: over its memory limit of 64 MiB" in log


def test_a_spinning_container_is_killed_and_removed(docker_client, tmp_path):
    rt = DockerRuntime(sandbox(), docker_client)
    h = rt.start(ProcessSpec("spin", ("python3", "-c", "while True: pass"), tmp_path / "spin.log"))
    time.sleep(0.5)
    assert h.poll() is None
    h.kill()
    assert h.wait(30) == 137
    assert "killed by SIGKILL" in (tmp_path / "spin.log").read_text()
    assert not docker_client.containers.list(all=True, filters={"id": h.container.id}, sparse=True)


STARTER = """
import sys, time
from pathlib import Path
from supervisor import ProcessSpec
from supervisor.docker_runtime import DockerRuntime, Sandbox
h = DockerRuntime(Sandbox(), reap_first=False).start(ProcessSpec("spinner", ("python3", "-c", "while True: pass"), Path(sys.argv[1])))
print(h.container.id, h.folder, flush=True)
time.sleep(300)
"""


def test_the_containers_and_folders_of_a_killed_owner_go_with_it(docker_client, tmp_path):
    p = subprocess.Popen([sys.executable, "-c", STARTER, str(tmp_path / "s.log")], stdout=subprocess.PIPE, text=True)
    cid, folder = p.stdout.readline().split()
    assert docker_client.containers.get(cid).status == "running" and Path(folder).is_dir()
    os.kill(p.pid, signal.SIGKILL)   # no cleanup of its own: its watchdog removes what it started
    p.wait()
    # The watchdog removes the container, then the folder: wait for both.
    def left() -> bool:
        return bool(docker_client.containers.list(all=True, filters={"id": cid}, sparse=True)) or Path(folder).exists()

    deadline = time.monotonic() + 10
    while left() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not docker_client.containers.list(all=True, filters={"id": cid}, sparse=True)
    assert not Path(folder).exists()


def test_the_containers_of_a_gone_owner_are_reaped_at_the_next_start(docker_client):
    """Should a watchdog die too: the next runtime's start removes what it left."""
    gone = docker_client.containers.run("pepper-python:latest", ["python3", "-c", "import time; time.sleep(300)"],
                                        detach=True, labels={LABEL: "1", "pepper.sandbox.owner": "999999999:0"})
    mine = docker_client.containers.run("pepper-python:latest", ["python3", "-c", "import time; time.sleep(300)"], detach=True,
                                        labels={LABEL: "1", "pepper.sandbox.owner": owner_id()})
    try:
        DockerRuntime(Sandbox(), docker_client)
        # Gone once this runtime has started (its own reap, or that of a runtime another test started meanwhile:
        # every start reaps the containers of every gone owner).
        assert not docker_client.containers.list(all=True, filters={"id": gone.id}, sparse=True)
        assert docker_client.containers.get(mine.id).status == "running"   # a live owner's: kept
    finally:
        mine.remove(force=True)


def test_a_container_cannot_fill_the_disk_through_its_log(docker_client, tmp_path, monkeypatch):
    from supervisor import docker_runtime

    monkeypatch.setattr(docker_runtime, "LOG_LIMIT", 10_000)
    code, log = run(docker_client, tmp_path, ["python3", "-c", "while True: print('x' * 100_000)"])
    assert code == 137   # stopped at its budget, not left flooding
    assert len(log) < 11_000 and "over its budget" in log and "killed by SIGKILL" in log, log[-300:]
