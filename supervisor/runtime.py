"""Where processes run: the :class:`Runtime` interface and :class:`LocalRuntime` (local subprocesses).

A process is described by a :class:`ProcessSpec` (what to run, where, with what environment, where its
output goes) so that another runtime (a container per bot) can run the same spec.
"""

from __future__ import annotations

import ctypes
import os
import shlex
import signal
import subprocess
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol


class StartError(Exception):
    """A process could not be started; the message names it, its command and why (``reason``).

    ``error`` is the runtime's own exception (a local process: the OSError of its exec), for hints on how to fix it.
    """

    def __init__(self, name: str, command: str, reason: str, error: Exception | None = None):
        super().__init__(f"cannot start {name} with command {command!r}: {reason}")
        self.reason, self.error = reason, error


@dataclass(frozen=True)
class ProcessSpec:
    name: str                          # for messages: "bot 'heuristic'", "the referee"
    argv: tuple[str, ...]
    log: Path                          # stdout and stderr are appended here
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)   # the whole environment (not added to the parent's)
    stdout_pipe: bool = False          # stdout to the parent (Handle.readline) instead of the log
    # Written to its stdin, which is then closed: how a secret reaches it without its environment or argv,
    # both readable in /proc by any process of the same user (never shown: repr=False).
    stdin: bytes = field(default=b"", repr=False)
    # Secrets by name, each on a pipe of its own that the process inherits: the environment variable NAME_FD
    # gives the pipe's descriptor, from which the process reads the value to its end (LocalRuntime). A container,
    # whose environment no other process of the host can read, gets NAME=value instead (the Docker runtime).
    secrets: dict[str, bytes] = field(default_factory=dict, repr=False)

    @classmethod
    def command(cls, name: str, command: str, log: Path, **kw) -> ProcessSpec:
        """A spec from a shell-like command line (split, never run through a shell)."""
        try:
            argv = tuple(shlex.split(command))
        except ValueError as e:
            raise StartError(name, command, str(e), e) from None
        if not argv:
            raise StartError(name, command, "the command is empty")
        return cls(name, argv, log, **kw)


class Handle(Protocol):
    """A started process."""

    spec: ProcessSpec
    pid: int                           # where the host can see it (memory, signals)

    def poll(self) -> int | None:
        """Its exit code, or None while it runs."""

    def wait(self, timeout: float | None = None) -> int:
        """Wait for it to exit (subprocess.TimeoutExpired after ``timeout``); its exit code."""

    def terminate(self) -> None:
        """Ask it (and what it started) to stop: SIGTERM."""

    def kill(self) -> None:
        """Stop it (and what it started) now: SIGKILL."""

    def readline(self) -> str:
        """One line of its stdout (a spec with stdout_pipe), '' at its end."""

    def log_tail(self, lines: int = 5) -> str:
        """The last lines of its log."""


class Runtime(Protocol):
    def start(self, spec: ProcessSpec) -> Handle:
        """Start ``spec``'s process; StartError when it cannot be."""


def _load_prctl() -> Callable[..., int] | None:
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None


# Loaded here, in the parent: the child of a threaded parent (gRPC's threads) should do little between fork and exec.
_PRCTL = _load_prctl()


def die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGTERM it when its parent dies (even by kill -9), so a
    killed arena or checker leaves no referee or bot behind. A no-op where prctl is missing.

    Linux counts the *thread* that started the child as its parent: start processes from a thread that
    lives as long as they do (the main thread, an event loop's), never from a short-lived worker thread.
    """
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def tail(path: Path, lines: int = 5) -> str:
    try:
        with open(path, errors="replace") as f:
            return "\n".join(line.rstrip("\n") for line in deque(f, lines))
    except OSError:
        return ""


class LogFollower:
    """The lines written to a log since the last look, read without blocking (``tail -f`` by polling): shows a
    process's output as it runs while the log stays its one record, whatever runtime writes it."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self._pos = path.stat().st_size   # only what is written from now on
        except OSError:
            self._pos = 0
        self._partial = b""                   # a line still being written

    def lines(self, last: bool = False) -> list[str]:
        """The complete lines written since the last call; with ``last`` (the writer is gone) an unfinished one too."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self._pos)
                data = f.read()
        except OSError:
            data = b""
        self._pos += len(data)
        *done, self._partial = (self._partial + data).split(b"\n")
        if last and self._partial:
            done.append(self._partial)
            self._partial = b""
        return [line.decode(errors="replace").rstrip("\r") for line in done]


class LocalHandle:
    """A local subprocess in a session of its own (signals reach what it started too)."""

    def __init__(self, spec: ProcessSpec, proc: subprocess.Popen, log: IO[bytes]):
        self.spec, self.proc, self._log = spec, proc, log

    @property
    def pid(self) -> int:
        return self.proc.pid

    def poll(self) -> int | None:
        code = self.proc.poll()
        if code is not None:
            self._log.close()
        return code

    def wait(self, timeout: float | None = None) -> int:
        code = self.proc.wait(timeout)
        self._log.close()
        return code

    def _signal(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def readline(self) -> str:
        return self.proc.stdout.readline().decode(errors="replace") if self.proc.stdout else ""

    def log_tail(self, lines: int = 5) -> str:
        return tail(self.spec.log, lines)


class LocalRuntime:
    """Local subprocesses, each in a new session, that die with this process."""

    def start(self, spec: ProcessSpec) -> LocalHandle:
        spec.log.parent.mkdir(parents=True, exist_ok=True)
        log = open(spec.log, "ab")  # noqa: SIM115 - the handle closes it once the process is gone
        env, inherited = dict(spec.env), []
        try:
            for name, value in spec.secrets.items():   # a few bytes each: the pipe's buffer holds them until read
                r, w = os.pipe()
                inherited.append(r)
                with os.fdopen(w, "wb") as f:
                    f.write(value)
                env[f"{name}_FD"] = str(r)
            proc = subprocess.Popen(spec.argv, cwd=spec.cwd or None, env=env,
                                    stdin=subprocess.PIPE if spec.stdin else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE if spec.stdout_pipe else log, stderr=log,
                                    start_new_session=True, preexec_fn=die_with_parent, pass_fds=inherited)
        except (OSError, ValueError) as e:
            log.close()
            raise StartError(spec.name, shlex.join(spec.argv), str(e), e) from None
        finally:
            for r in inherited:   # the child has its copies; the arena keeps none
                os.close(r)
        if proc.stdin is not None:
            try:  # a few bytes: the pipe's buffer takes them whether or not the process reads them yet
                proc.stdin.write(spec.stdin)
                proc.stdin.close()
            except BrokenPipeError:
                pass  # it died at once: seen by poll() like any other death
        return LocalHandle(spec, proc, log)
