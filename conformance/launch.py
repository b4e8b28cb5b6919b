"""Launching the bot under test through the process supervisor: its own session, its output in a log file
(and on screen with ``-v``), gone when the checker is.

:class:`BotProcess` is the one place the checker starts, watches and stops a process; it runs it on a
:class:`supervisor.Runtime` (local processes unless another runtime is given). The hints read only the
command, the exit code and the output.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import shlex
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from supervisor import STOP_GRACE_S, Handle, LocalRuntime, LogFollower, ProcessSpec, Runtime, inherited_env

_MISSING_MODULE_RE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([^']+)'")
_SDK_HINT = "does the script start the SDK (`main(MyBot())` under `if __name__ == '__main__':`)?"
_PYTHON_HINT = (f"is this the project's Python? use {{python}} or .venv/bin/python (the checker runs {sys.executable}), "
                "or install the SDK in yours: pip install ./sdk/python")
_POLL_S = 0.02      # how often a wait looks at the process: the handle never blocks the event loop
_ECHO_S = 0.05      # how often ``-v`` shows the new lines of the log


class BotProcess:
    """The bot's process. ``echo`` (``-v``) also gets each line of its output, read from its log."""

    def __init__(self, command: list[str], log: Path, echo: Callable[[str], None] | None = None,
                 runtime: Runtime | None = None):
        self.command, self.log, self.echo = command, log, echo
        self.runtime = runtime or LocalRuntime()
        self.handle: Handle | None = None
        self.exit_code: int | None = None
        self._follower: LogFollower | None = None
        self._echoing: asyncio.Task | None = None

    async def start(self, env: Mapping[str, str]) -> None:
        """Start the command on the event loop's thread, so that the bot dies with it (supervisor.StartError: it
        cannot be started)."""
        env = dict(env)
        token = env.pop("PEPPER_TOKEN", None)   # as the arena launches it: the token on a pipe (PEPPER_TOKEN_FD)
        spec = ProcessSpec("the bot", tuple(self.command), self.log, env={**inherited_env(), **env, "PYTHONUNBUFFERED": "1"},
                           secrets={} if token is None else {"PEPPER_TOKEN": token.encode()})
        if self.echo:
            self._follower = LogFollower(self.log)
        self.handle = self.runtime.start(spec)
        if self.echo:
            self._echoing = asyncio.create_task(self._echo_lines())

    async def _echo_lines(self) -> None:
        while not self.exited():
            self._show(last=False)
            await asyncio.sleep(_ECHO_S)
        self._show(last=True)

    def _show(self, last: bool) -> None:
        for line in self._follower.lines(last):
            self.echo(line)

    def drain(self) -> None:
        """With ``echo``: show the rest of an exited bot's output (its log already has all of it)."""
        if self._follower is not None and self.exited():
            if self._echoing is not None:
                self._echoing.cancel()
            self._show(last=True)

    def exited(self) -> bool:
        if self.handle is None or (code := self.handle.poll()) is None:
            return False
        self.exit_code = code
        return True

    async def _wait(self, timeout: float) -> bool:
        """Up to ``timeout`` seconds for the bot to exit, polling; True when it has."""
        deadline = time.monotonic() + timeout
        while not self.exited():
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(_POLL_S)
        return True

    async def reap(self, timeout: float) -> None:
        """Give a dying bot ``timeout`` seconds to be reaped, so its exit code is known."""
        if self.handle is not None:
            await self._wait(timeout)

    def crash_reason(self) -> str:
        rc = self.exit_code
        how = f"killed by signal {-rc}" if rc is not None and rc < 0 else f"exited with code {rc}"
        return f"crash: the bot {how}"

    async def terminate(self, timeout: float) -> bool:
        """SIGTERM to the bot (and what it started); True when it exits within ``timeout`` seconds."""
        self.handle.terminate()
        return await self._wait(timeout)

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL: the bot and anything it started are gone."""
        if self.handle is not None and not self.exited():
            self.handle.terminate()
            if not await self._wait(STOP_GRACE_S):
                self.handle.kill()
                await self._wait(5)
        if self._echoing is not None:
            self._echoing.cancel()

    def tail(self, n: int = 15) -> list[str]:
        try:
            return self.log.read_text(errors="replace").splitlines()[-n:]
        except OSError:
            return []


def startup_hint(tail: list[str], exit_code: int | None) -> str:
    """Why a bot may have died before connecting, from the end of its output and its exit code ("" if unclear)."""
    for line in reversed(tail):
        m = _MISSING_MODULE_RE.search(line)
        if m:
            try:
                ours = importlib.util.find_spec(m[1].split(".")[0]) is not None
            except (ImportError, ValueError):
                ours = False
            if ours:   # the checker's Python has it: the bot runs another one
                return f" ({m[0]}): {_PYTHON_HINT}"
            return (f" ({m[0]}): is it installed for the bot's Python, and is the bot started from its own folder? "
                    f"(the project's Python: {{python}} or .venv/bin/python)")
        if "PEPPER_TOKEN" in line and "PEPPER_TOKEN_FD" not in line:   # a bot written for the token in its environment
            return (" (it looked for PEPPER_TOKEN: a launched bot's token is on the pipe whose descriptor "
                    "PEPPER_TOKEN_FD names; read it to its end: docs/protocol.md, \"Environment\")")
    if exit_code == 0:
        return f": {_SDK_HINT}"
    return ""


def launch_hint(command: list[str], e: Exception | None) -> str:
    """A hint for a command that cannot be started (``e``: why, as the runtime said it: an OSError for a local process)."""
    prog = command[0]
    if prog.endswith(".py"):
        return f" (run a Python file with an interpreter: pepper bot check -- {{python}} {shlex.join(command)})"
    if isinstance(e, FileNotFoundError) and Path(prog).name.startswith("python"):
        return f" (use {{python}}, the checker's own interpreter {sys.executable}, or .venv/bin/python)"
    if isinstance(e, FileNotFoundError) and os.sep not in prog:
        return f" (is {prog} installed and on PATH?)"
    return ""
