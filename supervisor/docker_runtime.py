"""A :class:`~supervisor.Runtime` that runs each process in a Docker container with limits (docs/sandbox.md).

A container gets no network (``--network none``): the one way out is the Unix socket of the referee,
bind-mounted at :data:`SOCKET_IN_CONTAINER`. Its root filesystem is read-only but for a small tmpfs at /tmp;
it runs as a non-root user with every capability dropped and no-new-privileges, under memory, CPU and
process-count limits (:class:`Limits`), under the project's seccomp profile (:mod:`supervisor.seccomp`), in a
cgroup of its own beside the host's processes (not under Docker's one ``/docker`` group, which weighs as much as
a single host process). It sees only what its :class:`Sandbox` mounts (read-only): its own files, copied for
each container into a folder of its own (two containers of one bot share no inode: no lock, no inotify between
them), and the referee's socket.

Every container is labelled with :data:`LABEL` and its owner (this process, by pid and start time). A watchdog
process (:mod:`supervisor.watchdog`, one per owner) removes the owner's containers and folders as soon as the
owner dies, ``kill -9`` included; a runtime also removes those of owners that are gone when it starts. A
container's output is followed into the spec's log by a thread, within the runtime's :class:`LogBudget` (one bot's
output over a run), which also writes why it ended (its exit code, an OOM kill) there, its one record, and
removes it.
"""

from __future__ import annotations

import glob
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import seccomp
from .runtime import ProcessSpec, StartError, tail

LABEL = "pepper.sandbox"                 # on every container this module starts
OWNER_LABEL = "pepper.sandbox.owner"     # "PID:STARTTIME" of the process that started it
SOCKET_IN_CONTAINER = "/run/pepper/referee.sock"
USER = "65534:65534"                     # nobody:nogroup - no account of the host's, no file of the image's
LOG_LIMIT = 64 << 20                     # bytes of output kept per runtime (one bot, one run): a bot cannot fill the disk
FOLDER_PREFIX = "pepper-sandbox-"        # the host folders of the sandbox (in the temporary folder), then the owner
# Each container a cgroup of its own at the top of the hierarchy (with the cgroupfs driver), weighted like a host
# process per core of its limit: under Docker's one /docker group all containers together weigh one host process.
CGROUP_PARENT = "/"
PIDS_HIERARCHY = Path("/sys/fs/cgroup/pids")   # cgroup v1's pids controller, where pids_cgroup makes its groups
DEFAULT_IMAGE = "pepper-python:latest"   # `make images`: Debian's Python, the SDK
NODE_IMAGE = "pepper-node:latest"        # `make images`: the above and Node.js


@dataclass(frozen=True)
class Limits:
    """What one container may use. The defaults fit the sample bots (a search bot: one core, ~60 MiB)."""

    memory_mb: int = 512        # RAM; no swap beyond it: over it the kernel OOM-kills the container
    cpus: float = 1.0           # cores' worth of CPU time (CFS quota)
    pids: int = 64              # processes and threads: a fork bomb stops here
    tmpfs_mb: int = 16          # the writable /tmp, /dev/shm and any volume its image declares (each; in its memory)

    def __post_init__(self):
        if self.memory_mb < 16 or self.cpus <= 0 or self.pids < 8 or self.tmpfs_mb < 1:
            raise ValueError(f"sandbox limits too small to run a bot: {self} (memory_mb >= 16, cpus > 0, pids >= 8, "
                             "tmpfs_mb >= 1)")


@dataclass(frozen=True)
class Mount:
    """A host path shown read-only in the container."""

    source: str
    target: str


@dataclass(frozen=True)
class Sandbox:
    """How a spec runs in a container: its image, limits, the host paths it sees, its working directory."""

    image: str = DEFAULT_IMAGE
    limits: Limits = Limits()
    mounts: tuple[Mount, ...] = ()
    workdir: str | None = "/bot"   # None: the image's own
    socket: str | None = None   # the referee's Unix socket on the host (bind-mounted at SOCKET_IN_CONTAINER)
    labels: dict[str, str] = field(default_factory=dict)


def _start_time(pid: int) -> str | None:
    """A process's start time (field 22 of /proc/PID/stat): with the pid, names it even after pid reuse."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None


def owner_id(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return f"{pid}:{_start_time(pid)}"


def owner_alive(owner: str) -> bool:
    pid, _, started = owner.partition(":")
    return pid.isdigit() and _start_time(int(pid)) == started


def folder_prefix(owner: str) -> str:
    """The start of the name of every host folder an owner's containers use (the watchdog removes them)."""
    return os.path.join(tempfile.gettempdir(), FOLDER_PREFIX + owner.replace(":", "-") + "-")


def private_copy(mounts: tuple[Mount, ...], folder: str) -> list[Mount]:
    """``mounts`` with each source copied under ``folder`` (links inside a copied folder stay links: they resolve in
    the container, never to a host file). Named by index, so that /proc/self/mountinfo names no host folder."""
    out = []
    for i, m in enumerate(mounts):
        dest = os.path.join(folder, str(i))
        if os.path.isdir(m.source):
            shutil.copytree(m.source, dest, symlinks=True)
        else:
            shutil.copy2(m.source, dest)
        out.append(Mount(dest, m.target))
    return out


class LogBudget:
    """Bytes of output that may still be written to one bot's log in a run, shared by all its containers."""

    def __init__(self, limit: int):
        self.limit, self.used = limit, 0
        self._lock = threading.Lock()

    def take(self, n: int) -> int:
        """Up to ``n`` bytes of what is left (0 once it is spent)."""
        with self._lock:
            granted = max(0, min(n, self.limit - self.used))
            self.used += granted
            return granted

    @property
    def spent(self) -> bool:
        return self.used >= self.limit


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # where `supervisor` imports from
_watchdogs: dict[int, subprocess.Popen] = {}
_watchdog_lock = threading.Lock()


def start_watchdog() -> None:
    """Start this process's watchdog once (:mod:`supervisor.watchdog`): when this process dies, however it dies,
    the watchdog removes its containers and folders. In a session of its own: a signal to this process's group
    leaves it up to clean after it. Its output goes nowhere: it would hold open a pipe its owner's reader waits on
    (should it fail, the next runtime's start reaps what it left)."""
    with _watchdog_lock:
        if os.getpid() in _watchdogs and _watchdogs[os.getpid()].poll() is None:
            return
        _watchdogs[os.getpid()] = subprocess.Popen(
            [sys.executable, "-m", "supervisor.watchdog", owner_id()], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            env=os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [_ROOT, os.environ.get("PYTHONPATH")]))})


def client():
    """A client of the local Docker Engine (DOCKER_HOST or /var/run/docker.sock); StartError when there is none."""
    import docker
    import docker.errors

    try:
        c = docker.from_env(timeout=60)
        c.ping()
    except docker.errors.DockerException as e:
        raise StartError("the Docker Engine", "docker", f"{e} (is dockerd running? docs/sandbox.md)", e) from None
    return c


def reap(docker_client, everything: bool = False, owner: str | None = None) -> int:
    """Remove the labelled containers whose owner is gone (all of them with ``everything``; only ``owner``'s, gone or
    not, with ``owner``), their anonymous volumes, and the folders of the owners that are gone; how many containers."""
    import docker.errors

    def remove(c) -> int:
        try:
            c.remove(force=True, v=True)
            return 1
        except docker.errors.NotFound:
            return 0
        except docker.errors.APIError as e:   # 409: another reaper (a watchdog, another run) is removing it
            if e.status_code == 409:
                return 0
            raise

    # sparse: the list endpoint's data only. A full list inspects each container after listing them, and fails
    # with NotFound when another owner removes one in between (two runs reaping at once).
    label = f"{OWNER_LABEL}={owner}" if owner else LABEL
    doomed = [c for c in docker_client.containers.list(all=True, filters={"label": label}, sparse=True)
              if everything or owner or not owner_alive((c.attrs.get("Labels") or {}).get(OWNER_LABEL, ""))]
    n = 0
    if doomed:   # the containers first (they run), then their folders; each in parallel (each waits on the disk)
        with ThreadPoolExecutor(min(8, len(doomed))) as pool:
            n = sum(pool.map(remove, doomed))
    owners = {(c.attrs.get("Labels") or {}).get(OWNER_LABEL, "") for c in doomed} | ({owner} if owner else set())
    if folders := [f for its in owners for f in glob.glob(glob.escape(folder_prefix(its)) + "*")]:
        with ThreadPoolExecutor(min(8, len(folders))) as pool:
            list(pool.map(lambda f: shutil.rmtree(f, ignore_errors=True), folders))
    return n


def exit_reason(state: dict, limits: Limits) -> str:
    """Why a container stopped, from its inspected State: for its log."""
    code = state.get("ExitCode")
    if state.get("OOMKilled"):
        return f"OOM killed: over its memory limit of {limits.memory_mb} MiB (exit code {code})"
    if code is not None and code > 128:
        try:
            name = signal.Signals(code - 128).name
        except ValueError:
            name = f"signal {code - 128}"
        return f"killed by {name} (exit code {code})"
    err = state.get("Error")
    return f"exited with code {code}" + (f" ({err})" if err else "")


class DockerHandle:
    """A started container. ``poll`` never calls the daemon: the log thread sets the exit code when it ends."""

    def __init__(self, spec: ProcessSpec, container, limits: Limits, budget: LogBudget, folder: str | None = None):
        self.spec, self.container, self.limits, self.budget, self.folder = spec, container, limits, budget, folder
        self.pid = int(container.attrs.get("State", {}).get("Pid") or 0)
        self._code: int | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._follow, name=f"log {spec.name}", daemon=True)
        self._thread.start()

    def _follow(self) -> None:
        import docker.errors

        with open(self.spec.log, "ab") as log:
            try:
                flooded = False
                for chunk in self.container.logs(stream=True, follow=True, stdout=True, stderr=True):
                    if flooded:
                        continue   # read and dropped until it is gone
                    kept = self.budget.take(len(chunk))
                    log.write(chunk[:kept])
                    if kept < len(chunk):   # its bot's output is over budget: a fault, and no restart
                        flooded = True
                        log.write(f"\npepper sandbox: the bot's output in this run is over its budget of "
                                  f"{self.budget.limit:,} bytes: the rest is dropped and the container stopped\n".encode())
                        self._kill("SIGKILL")
                    log.flush()
                result = self.container.wait(timeout=30)
                self.container.reload()
                state = self.container.attrs.get("State", {})
                code = int(result.get("StatusCode", state.get("ExitCode", -1)))
                reason = exit_reason(state, self.limits)
            except (docker.errors.DockerException, OSError, ValueError) as e:
                # Gone already (reaped by another start) or the daemon died: it is not running any more.
                code, reason = -1, f"lost: {e}"
            log.write(f"pepper sandbox: container {self.container.short_id} {reason}\n".encode())
        try:
            self.container.remove(force=True, v=True)
        except docker.errors.DockerException:
            pass
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
        self._code = code
        self._done.set()

    def poll(self) -> int | None:
        return self._code

    def wait(self, timeout: float | None = None) -> int:
        import subprocess

        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired(shlex.join(self.spec.argv), timeout or 0.0)
        return self._code  # type: ignore[return-value]

    def _kill(self, sig: str) -> None:
        import docker.errors

        if self._code is None:
            try:
                self.container.kill(signal=sig)
            except docker.errors.DockerException:
                pass  # it has stopped meanwhile

    def terminate(self) -> None:
        self._kill("SIGTERM")

    def kill(self) -> None:
        self._kill("SIGKILL")

    def readline(self) -> str:
        raise NotImplementedError("a container's stdout goes to its log")

    def log_tail(self, lines: int = 5) -> str:
        return tail(self.spec.log, lines)


class DockerRuntime:
    """Each spec in a new container of ``sandbox`` (:class:`Sandbox`); the spec's cwd is ignored (the sandbox's
    workdir is used) and its environment is the container's whole environment (the image's PATH aside)."""

    def __init__(self, sandbox: Sandbox, docker_client=None, reap_first: bool = True):
        self.sandbox = sandbox
        self.client = docker_client or client()
        self.owner = owner_id()
        self.reaped = reap(self.client) if reap_first else 0
        self.log_budget = LogBudget(LOG_LIMIT)   # read here: a test may lower LOG_LIMIT
        self._volumes: list[str] | None = None   # the image's declared volumes, once looked up
        self._cgroup_parent: str | None = None
        if CGROUP_PARENT and self.client.info().get("CgroupDriver") == "cgroupfs":   # systemd's takes slices only
            self._cgroup_parent = CGROUP_PARENT
        start_watchdog()

    def volumes(self) -> list[str]:
        """The volumes the sandbox's image declares (``VOLUME``): each gets a bounded tmpfs, never host disk."""
        if self._volumes is None:
            cfg = self.client.images.get(self.sandbox.image).attrs.get("Config") or {}
            self._volumes = sorted(cfg.get("Volumes") or {})
        return self._volumes

    def start(self, spec: ProcessSpec) -> DockerHandle:
        import docker.errors
        from docker.types import Mount as DockerMount

        command = shlex.join(spec.argv)
        if spec.stdout_pipe or spec.stdin:
            raise StartError(spec.name, command, "a container takes neither stdin nor a stdout pipe")
        if self.log_budget.spent:
            raise StartError(spec.name, command, f"its output in this run went over its log budget of "
                                                 f"{self.log_budget.limit:,} bytes: not restarted")
        sb, lim = self.sandbox, self.sandbox.limits
        env = {k: v for k, v in spec.env.items() if k not in ("PATH", "HOME", "TMPDIR")}
        # A container's environment is seen by its own processes alone: secrets go there (see ProcessSpec.secrets).
        env |= {"HOME": "/tmp", "TMPDIR": "/tmp"} | {k: v.decode() for k, v in spec.secrets.items()}
        spec.log.parent.mkdir(parents=True, exist_ok=True)
        folder = tempfile.mkdtemp(prefix=os.path.basename(folder_prefix(self.owner)))
        try:
            copies = private_copy(sb.mounts, folder)
        except OSError as e:
            shutil.rmtree(folder, ignore_errors=True)
            raise StartError(spec.name, command, f"cannot copy its files: {e}", e) from None
        try:
            mounts = [DockerMount(m.target, m.source, type="bind", read_only=True) for m in copies]
            if sb.socket:
                mounts.append(DockerMount(SOCKET_IN_CONTAINER, sb.socket, type="bind", read_only=False))
            bounded = f"rw,noexec,nosuid,nodev,mode=1777,size={lim.tmpfs_mb}m"
            c = self.client.containers.create(
                sb.image, list(spec.argv), environment=env, working_dir=sb.workdir, user=USER,
                labels={LABEL: "1", OWNER_LABEL: self.owner, **sb.labels},
                network_mode="none", read_only=True, tmpfs={v: bounded for v in [*self.volumes(), "/tmp"]},
                cap_drop=["ALL"], security_opt=["no-new-privileges", seccomp.security_opt()],
                mem_limit=f"{lim.memory_mb}m", memswap_limit=f"{lim.memory_mb}m", nano_cpus=int(lim.cpus * 1e9),
                cpu_shares=max(2, int(1024 * lim.cpus)), cgroup_parent=self._cgroup_parent, cgroupns="private",
                pids_limit=lim.pids, ipc_mode="private", shm_size=f"{lim.tmpfs_mb}m", mounts=mounts, detach=True,
                stdin_open=False, log_config={"type": "json-file", "config": {"max-size": "10m"}})
        except docker.errors.ImageNotFound as e:
            shutil.rmtree(folder, ignore_errors=True)
            raise StartError(spec.name, command, f"no image {sb.image!r} (build the base images with `make images`)",
                             e) from None
        except docker.errors.DockerException as e:
            shutil.rmtree(folder, ignore_errors=True)
            raise StartError(spec.name, command, f"docker: {e}", e) from None
        try:
            c.start()
            c.reload()
        except docker.errors.DockerException as e:
            try:
                c.remove(force=True, v=True)
            except docker.errors.DockerException:
                pass
            shutil.rmtree(folder, ignore_errors=True)
            raise StartError(spec.name, command, f"docker: {e}", e) from None
        return DockerHandle(spec, c, lim, self.log_budget, folder)


class BuildFailed(Exception):
    """A build that made no image: why, with its last lines of output."""


def pids_cgroup(docker_client, name: str, pids: int) -> str | None:
    """A cgroup parent ``/name`` for containers, its cgroup v1 ``pids.max`` set to ``pids`` (what the Engine's
    cgroupfs driver nests their cgroups under, so the bound holds for all of them together); None where this process
    cannot make it (not root, cgroup v2, the systemd cgroup driver)."""
    info = docker_client.info()
    if info.get("CgroupDriver") != "cgroupfs" or str(info.get("CgroupVersion", "1")) != "1":
        return None
    try:
        group = PIDS_HIERARCHY / name
        group.mkdir(parents=True, exist_ok=True)
        (group / "pids.max").write_text(f"{pids}\n")
    except OSError:
        return None
    return f"/{name}"


def remove_cgroup(name: str, wait_s: float = 5.0) -> bool:
    """Remove the pids cgroup ``/name`` of :func:`pids_cgroup` once its containers' groups are gone (the Engine removes
    them a moment after the containers): tried for ``wait_s``, then left (a process still in it)."""
    group, deadline = PIDS_HIERARCHY / name, time.monotonic() + wait_s
    while True:
        try:
            for sub in sorted((p for p in group.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                sub.rmdir()   # an empty container group the Engine left
            group.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)


def build_image(context: str, dockerfile: str, tag: str, params: dict, silence_s: float) -> str:
    """Build ``context``'s ``dockerfile`` as ``tag`` on the Engine's classic builder, with the Engine API's /build and
    its query ``params`` (``cgroupparent`` among them, which docker-py's ``images.build`` does not pass), reading at
    most ``silence_s`` seconds without output: the image's id (``sha256:...``); BuildFailed."""
    import docker.errors
    from docker.utils import tar

    ignore = Path(context, ".dockerignore")
    exclude = ([ln.strip() for ln in ignore.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
               if ignore.is_file() else None)
    lines: list[str] = []
    try:
        dc = client()
        with tar(context, exclude=exclude, dockerfile=(dockerfile, None)) as body:
            r = dc.api.post(f"{dc.api.base_url}/v{dc.api.api_version}/build", data=body, stream=True,
                            params={"t": tag, "dockerfile": dockerfile, **params},
                            headers={"Content-Type": "application/x-tar"}, timeout=silence_s)
            if r.status_code >= 400:   # a parameter the Engine refuses: it says which
                raise BuildFailed(f"docker: {r.status_code}: {r.text.strip()}")
            image_id = ""
            for raw in r.iter_lines():
                item = json.loads(raw)
                if "error" in item:
                    raise BuildFailed("the build failed: " + "\n".join([item["error"].rstrip(), *lines[-10:]]))
                image_id = (item.get("aux") or {}).get("ID", image_id)
                if item.get("stream", "").strip():
                    lines.append(item["stream"].rstrip())
    except (StartError, docker.errors.DockerException) as e:
        raise BuildFailed(f"docker: {e}") from None
    except OSError as e:   # requests' errors too: a read that waited silence_s for output among them
        raise BuildFailed(f"the build failed or said nothing for {silence_s:g} s, its limit: {e}") from None
    if not image_id:
        raise BuildFailed("the Engine named no image: " + "\n".join(lines[-10:]))
    return image_id


def wait_socket(path: str | Path, timeout: float = 10.0) -> None:
    """Wait for a Unix socket to appear (a server binds it as it starts)."""
    deadline = time.monotonic() + timeout
    while not Path(path).is_socket():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no socket at {path} after {timeout:.0f}s")
        time.sleep(0.02)
