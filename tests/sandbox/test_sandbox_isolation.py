"""Hostile containers against each other and the host, with a real Docker Engine: partners sharing an inode, an
image's VOLUME, a --dockerfile build reaching the host, a bot flooding its log, the kernel calls the seccomp
profile denies, and what /proc tells a container about the host."""

from __future__ import annotations

import errno
import http.server
import json
import threading
import time
from pathlib import Path

import pytest

from arena.errors import ArenaError
from arena.imagebuild import BUILD_CGROUP
from arena.sandbox import BotSandbox, resolve_image
from arena.store import BotKind, Store
from supervisor import ProcessSpec, StartError, Supervisor
from supervisor.docker_runtime import PIDS_HIERARCHY, DockerRuntime, Mount, Sandbox

HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.usefixtures("images"), pytest.mark.xdist_group("sandbox")]

# One partner holds a read lock on its bot file; the other asks the kernel whether a write lock would conflict.
HOLD = ("import fcntl, time; f = open('/bot/bot.py'); fcntl.lockf(f, fcntl.LOCK_SH); print('locked', flush=True); "
        "time.sleep(30)")
ASK = ("import fcntl, struct; f = open('/bot/bot.py'); "
       "r = fcntl.fcntl(f, fcntl.F_GETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 0, 0)); "
       "print('lock seen' if struct.unpack('hhqqi', r)[0] != fcntl.F_UNLCK else 'no lock', flush=True)")


def wait_for(path: Path, text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = path.read_text() if path.exists() else ""
        if text in seen:
            return seen
        time.sleep(0.1)
    raise AssertionError(f"{text!r} not in {path} after {timeout} s: {seen!r}")


def test_partners_share_no_inode_a_lock_carries_nothing(docker_client, tmp_path):
    (tmp_path / "bot.py").write_text("# the bot\n")
    rt = DockerRuntime(Sandbox(mounts=(Mount(str(tmp_path / "bot.py"), "/bot/bot.py"),)), docker_client)
    holder = rt.start(ProcessSpec("holder", ("python3", "-c", HOLD), tmp_path / "holder.log"))
    try:
        wait_for(tmp_path / "holder.log", "locked")
        asker = rt.start(ProcessSpec("asker", ("python3", "-c", ASK), tmp_path / "asker.log"))
        assert asker.wait(60) == 0, (tmp_path / "asker.log").read_text()
        assert "no lock" in (tmp_path / "asker.log").read_text()
    finally:
        holder.kill()
        holder.wait(30)
    assert not holder.folder or not Path(holder.folder).exists()   # its copy went with it


def test_an_image_with_a_volume_is_refused_and_a_volume_gets_no_host_disk(docker_client, tmp_path):
    (tmp_path / "Dockerfile").write_text("FROM pepper-python:latest\nVOLUME /data\n")
    with pytest.raises(ArenaError, match="declares VOLUME /data"):
        resolve_image("volumed", dockerfile=str(tmp_path), docker_client=docker_client)
    # An image registered before the check: its volume is a bounded tmpfs, and nothing is left on the host.
    volumes = {v.name for v in docker_client.volumes.list()}
    try:
        rt = DockerRuntime(Sandbox(image="pepper-bot-volumed:latest", workdir=None), docker_client)
        fill = "open('/data/fill', 'wb').write(b'x' * (64 << 20))"
        for i in range(2):
            h = rt.start(ProcessSpec("filler", ("python3", "-c", fill), tmp_path / f"fill{i}.log"))
            assert h.wait(60) == 1
            assert "No space left on device" in (tmp_path / f"fill{i}.log").read_text()
        assert {v.name for v in docker_client.volumes.list()} <= volumes
    finally:
        docker_client.images.remove("pepper-bot-volumed:latest", force=True)


class Hits(http.server.BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_GET(self):   # noqa: N802 - the standard library's name
        Hits.seen.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"reached")

    def log_message(self, *args):
        pass


def test_a_dockerfile_build_reaches_no_server_on_the_host(docker_client, tmp_path):
    servers = []
    for host in ("127.0.0.1", "172.17.0.1"):   # the host's loopback, and the Docker bridge's address on this machine
        s = http.server.ThreadingHTTPServer((host, 0), Hits)
        threading.Thread(target=s.serve_forever, daemon=True).start()
        servers.append(s)
    urls = [f"http://{s.server_address[0]}:{s.server_address[1]}/build" for s in servers]
    fetch = (f"import urllib.request\nfor u in {urls!r}:\n    try:\n        print(u, urllib.request.urlopen(u, timeout=3).read())\n"
             "    except OSError as e:\n        print(u, 'blocked:', e)\n")
    (tmp_path / "Dockerfile").write_text(f"FROM pepper-python:latest\nRUN {json.dumps(['python3', '-c', fetch])}\n"
                                         'CMD ["python3", "-c", "pass"]\n')
    try:
        resolve_image("fetcher", dockerfile=str(tmp_path), docker_client=docker_client)
    finally:
        for s in servers:
            s.shutdown()
            s.server_close()
        docker_client.images.remove("pepper-bot-fetcher:latest", force=True)
    assert Hits.seen == []


def test_a_bot_flooding_its_log_is_not_restarted_past_its_budget(docker_client, tmp_path, monkeypatch):
    from supervisor import docker_runtime

    monkeypatch.setattr(docker_runtime, "LOG_LIMIT", 200_000)
    rt = DockerRuntime(Sandbox(), docker_client)
    spec = ProcessSpec("flood", ("python3", "-c", "print('x' * 150_000)"), tmp_path / "flood.log")
    sup = Supervisor(spec, 1, rt)
    deadline = time.monotonic() + 60
    with pytest.raises(StartError, match="log budget of 200,000 bytes"):
        while time.monotonic() < deadline:
            sup.check()
            time.sleep(0.1)
    log = (tmp_path / "flood.log").read_text()
    assert sup.restarts == 1 and len(log) < 201_000 and "over its budget" in log, (sup.restarts, len(log))


def test_the_kernel_calls_a_bot_has_no_use_for_are_denied(docker_client, tmp_path):
    rt = DockerRuntime(Sandbox(mounts=(Mount(str(HERE / "kernel_probe.py"), "/bot/kernel_probe.py"),)), docker_client)
    h = rt.start(ProcessSpec("kernel", ("python3", "kernel_probe.py"), tmp_path / "kernel.log"))
    assert h.wait(60) == 0, (tmp_path / "kernel.log").read_text()
    seen = json.loads((tmp_path / "kernel.log").read_text().splitlines()[0])
    assert seen.pop("thread") == "started" and seen.pop("socket AF_UNIX") == 0
    assert {k: v for k, v in seen.items() if v not in (errno.EPERM, errno.ENOSYS)} == {}


PROC = "print(open('/proc/self/mountinfo').read()); print(open('/proc/self/cgroup').read()); print(open('/proc/net/unix').read())"


def test_proc_names_no_host_folder_of_the_bot(docker_client, tmp_path):
    (tmp_path / "bot.py").write_text("# the bot\n")
    rt = DockerRuntime(Sandbox(mounts=(Mount(str(tmp_path / "bot.py"), "/bot/bot.py"),)), docker_client)
    h = rt.start(ProcessSpec("proc", ("python3", "-c", PROC), tmp_path / "proc.log"))
    assert h.wait(60) == 0
    seen = (tmp_path / "proc.log").read_text()
    assert str(tmp_path) not in seen.replace(str(tmp_path / "proc.log"), "")
    cgroups = [line for line in seen.splitlines() if line.count(":") == 2 and line.split(":")[0].isdigit()]
    assert cgroups and all(line.endswith(":/") for line in cgroups), cgroups


def test_a_file_linked_from_outside_the_bots_folder_is_refused(docker_client, tmp_path):
    (tmp_path / "bot").mkdir()
    (tmp_path / "secret").write_text("the host's\n")
    (tmp_path / "bot" / "bot.py").write_text("# the bot\n")
    (tmp_path / "bot" / "data.txt").symlink_to(tmp_path / "secret")
    st = Store(str(tmp_path / "arena.db"))
    st.add_bot("linker", BotKind.COMMAND, command="{python} bot.py", cwd=str(tmp_path / "bot"), files=["bot.py", "data.txt"])
    bot = st.bot("linker")
    st.close()
    sb = BotSandbox(docker_client)
    try:
        with pytest.raises(ArenaError, match="outside its folder"):
            sb.mounts(bot)
    finally:
        sb.close()


def test_a_dockerfile_build_is_stopped_at_its_total_time_limit(docker_client, tmp_path):
    # It prints nothing while it sleeps: the limit without output (600 s) would not end it for 10 minutes.
    sleep = ["python3", "-c", "import time; print('sleeping', flush=True); time.sleep(120)"]
    (tmp_path / "Dockerfile").write_text(f"FROM pepper-python:latest\nRUN {json.dumps(sleep)}\n")

    def steps() -> list[str]:   # the build's RUN container
        return [c.short_id for c in docker_client.containers.list(all=True, sparse=True, filters={"ancestor": "pepper-python"})
                if "time.sleep(120)" in (c.attrs.get("Command") or "")]

    errors: list[BaseException] = []
    seen: set[str] = set()

    def register() -> None:
        try:
            resolve_image("sleeper", dockerfile=str(tmp_path), docker_client=docker_client, build_time_s=8)
        except ArenaError as e:
            errors.append(e)

    t0 = time.monotonic()
    builder = threading.Thread(target=register)
    builder.start()
    while builder.is_alive():
        seen.update(steps())
        time.sleep(0.3)
    assert time.monotonic() - t0 < 20 and len(errors) == 1, errors
    assert "the build took longer than 8 s in all, its limit: stopped" in str(errors[0])
    assert seen, "the build never reached its RUN step"
    deadline = time.monotonic() + 15   # the Engine stops the build whose client is gone
    while steps() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not steps()
    assert not docker_client.images.list(name="pepper-bot-sleeper")


def test_a_dockerfile_builds_processes_are_bounded(docker_client, tmp_path):
    # A RUN step that starts 100 processes: the build succeeds only if the 40th cannot be started.
    fork = ("import os, sys, time\nfor i in range(100):\n    try:\n        if os.fork() == 0:\n            time.sleep(5)\n"
            "            os._exit(0)\n    except OSError as e:\n        print('fork', i, 'failed:', e)\n        sys.exit(0)\n"
            "sys.exit('forked 100 processes')\n")
    (tmp_path / "Dockerfile").write_text(f"FROM pepper-python:latest\nRUN {json.dumps(['python3', '-c', fork])}\n"
                                         'CMD ["python3", "-c", "pass"]\n')
    shared = PIDS_HIERARCHY / BUILD_CGROUP
    if shared.is_dir():   # what builds before this one left: no bound on the group they all share
        (shared / "pids.max").write_text("max\n")
    try:
        resolve_image("forker", dockerfile=str(tmp_path), docker_client=docker_client, build_pids=40)
    finally:
        docker_client.images.remove("pepper-bot-forker:latest", force=True)
    # The bound was the build's own: a group of its own, removed after it; builds at once do not share or reset it.
    if shared.is_dir():
        assert (shared / "pids.max").read_text().strip() == "max"
        assert not [p for p in shared.iterdir() if p.is_dir()]
