"""A :class:`~supervisor.Runtime` that runs each process in a Docker container with limits (docs/sandbox.md).

A container gets no network (``--network none``): the one way out is the Unix socket of the referee,
bind-mounted at :data:`SOCKET_IN_CONTAINER`. Its root filesystem is read-only but for a small tmpfs at /tmp;
it runs as a non-root user with every capability dropped and no-new-privileges, under memory, CPU and
process-count limits (:class:`Limits`). It sees only what its :class:`Sandbox` mounts (read-only): its own files.

Every container is labelled with :data:`LABEL` and its owner (this process, by pid and start time): a runtime
removes the containers of owners that are gone when it starts, so a ``kill -9`` of the arena leaves nothing
behind past its next start. A container's output is followed into the spec's log by a thread, which also writes
why it ended (its exit code, an OOM kill) there, its one record, and removes it.
"""

from __future__ import annotations

import os
import shlex
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .runtime import ProcessSpec, StartError, tail

LABEL = "pepper.sandbox"                 # on every container this module starts
OWNER_LABEL = "pepper.sandbox.owner"     # "PID:STARTTIME" of the process that started it
SOCKET_IN_CONTAINER = "/run/pepper/referee.sock"
USER = "65534:65534"                     # nobody:nogroup - no account of the host's, no file of the image's
LOG_LIMIT = 64 << 20                     # bytes of a container's output kept in its log: a bot cannot fill the disk
DEFAULT_IMAGE = "pepper-python:latest"   # `make images`: Debian's Python, the SDK
NODE_IMAGE = "pepper-node:latest"        # `make images`: the above and Node.js


@dataclass(frozen=True)
class Limits:
    """What one container may use. The defaults fit the sample bots (a search bot: one core, ~60 MiB)."""

    memory_mb: int = 512        # RAM; no swap beyond it: over it the kernel OOM-kills the container
    cpus: float = 1.0           # cores' worth of CPU time (CFS quota)
    pids: int = 64              # processes and threads: a fork bomb stops here
    tmpfs_mb: int = 16          # the writable /tmp (counted in its memory)

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


def reap(docker_client, everything: bool = False) -> int:
    """Remove the labelled containers whose owner is gone (all of them with ``everything``); how many."""
    import docker.errors

    n = 0
    # sparse: the list endpoint's data only. A full list inspects each container after listing them, and fails
    # with NotFound when another owner removes one in between (two runs reaping at once).
    for c in docker_client.containers.list(all=True, filters={"label": LABEL}, sparse=True):
        if everything or not owner_alive((c.attrs.get("Labels") or {}).get(OWNER_LABEL, "")):
            try:
                c.remove(force=True)
                n += 1
            except docker.errors.NotFound:
                pass
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

    def __init__(self, spec: ProcessSpec, container, limits: Limits):
        self.spec, self.container, self.limits = spec, container, limits
        self.pid = int(container.attrs.get("State", {}).get("Pid") or 0)
        self._code: int | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._follow, name=f"log {spec.name}", daemon=True)
        self._thread.start()

    def _follow(self) -> None:
        import docker.errors

        with open(self.spec.log, "ab") as log:
            try:
                kept = 0
                for chunk in self.container.logs(stream=True, follow=True, stdout=True, stderr=True):
                    if kept < LOG_LIMIT:   # past it, read and dropped (the container is not held up)
                        log.write(chunk[:LOG_LIMIT - kept])
                        kept += len(chunk)
                        if kept >= LOG_LIMIT:
                            log.write(f"\npepper sandbox: more output than {LOG_LIMIT:,} bytes; the rest is dropped\n".encode())
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
            self.container.remove(force=True)
        except docker.errors.DockerException:
            pass
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

    def start(self, spec: ProcessSpec) -> DockerHandle:
        import docker.errors
        from docker.types import Mount as DockerMount

        if spec.stdout_pipe or spec.stdin:
            raise StartError(spec.name, shlex.join(spec.argv), "a container takes neither stdin nor a stdout pipe")
        sb, lim = self.sandbox, self.sandbox.limits
        mounts = [DockerMount(m.target, m.source, type="bind", read_only=True) for m in sb.mounts]
        if sb.socket:
            mounts.append(DockerMount(SOCKET_IN_CONTAINER, sb.socket, type="bind", read_only=False))
        env = {k: v for k, v in spec.env.items() if k not in ("PATH", "HOME", "TMPDIR")}
        # A container's environment is seen by its own processes alone: secrets go there (see ProcessSpec.secrets).
        env |= {"HOME": "/tmp", "TMPDIR": "/tmp"} | {k: v.decode() for k, v in spec.secrets.items()}
        spec.log.parent.mkdir(parents=True, exist_ok=True)
        try:
            c = self.client.containers.create(
                sb.image, list(spec.argv), environment=env, working_dir=sb.workdir, user=USER,
                labels={LABEL: "1", OWNER_LABEL: self.owner, **sb.labels},
                network_mode="none", read_only=True, tmpfs={"/tmp": f"rw,noexec,nosuid,nodev,mode=1777,size={lim.tmpfs_mb}m"},
                cap_drop=["ALL"], security_opt=["no-new-privileges"],
                mem_limit=f"{lim.memory_mb}m", memswap_limit=f"{lim.memory_mb}m", nano_cpus=int(lim.cpus * 1e9),
                pids_limit=lim.pids, ipc_mode="private", mounts=mounts, detach=True, stdin_open=False,
                log_config={"type": "json-file", "config": {"max-size": "10m"}})
            c.start()
            c.reload()
        except docker.errors.ImageNotFound as e:
            raise StartError(spec.name, shlex.join(spec.argv),
                             f"no image {sb.image!r} (build the base images with `make images`)", e) from None
        except docker.errors.DockerException as e:
            raise StartError(spec.name, shlex.join(spec.argv), f"docker: {e}", e) from None
        return DockerHandle(spec, c, lim)


def wait_socket(path: str | Path, timeout: float = 10.0) -> None:
    """Wait for a Unix socket to appear (a server binds it as it starts)."""
    deadline = time.monotonic() + timeout
    while not Path(path).is_socket():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no socket at {path} after {timeout:.0f}s")
        time.sleep(0.02)
