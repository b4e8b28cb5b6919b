"""Launching the bot under test: its own process group, its output in a log file (and on screen with ``-v``).

:class:`BotProcess` is the one place the checker starts, watches and stops a
process, so that a shared process supervisor can take its place; the hints
read only the command, the exit code and the output.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import shlex
import signal
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

_MISSING_MODULE_RE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([^']+)'")
_SDK_HINT = "does the script start the SDK (`main(MyBot())` under `if __name__ == '__main__':`)?"
_PYTHON_HINT = (f"is this the project's Python? use {{python}} or .venv/bin/python (the checker runs {sys.executable}), "
                "or install the SDK in yours: pip install ./sdk/python")


class BotProcess:
    """The bot's process. ``echo`` (``-v``) also gets each line of its output."""

    def __init__(self, command: list[str], log: Path, echo: Callable[[str], None] | None = None):
        self.command, self.log, self.echo = command, log, echo
        self.proc: asyncio.subprocess.Process | None = None
        self.exit_code: int | None = None
        self._logf = None
        self._tee: asyncio.Task | None = None

    async def start(self, env: Mapping[str, str]) -> None:
        """Start the command (OSError: it cannot be started)."""
        env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
        self._logf = open(self.log, "wb")
        out = asyncio.subprocess.PIPE if self.echo else self._logf
        err = asyncio.subprocess.STDOUT if self.echo else self._logf
        self.proc = await asyncio.create_subprocess_exec(*self.command, env=env, stdin=asyncio.subprocess.DEVNULL,
                                                         stdout=out, stderr=err, start_new_session=True)
        if self.echo:   # the log still gets every line (the hints read it)
            self._tee = asyncio.create_task(self._copy(self.proc.stdout))

    async def _copy(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            self._logf.write(line)
            self._logf.flush()
            self.echo(line.decode(errors="replace").rstrip("\n"))

    async def drain(self, timeout: float = 2.0) -> None:
        """With ``echo``: wait until the output of an exited bot is all in the log (the pipe closes when it exits)."""
        if self._tee is not None and self.exited():
            try:
                await asyncio.wait_for(asyncio.shield(self._tee), timeout)
            except TimeoutError:
                pass

    def exited(self) -> bool:
        if self.proc is None or self.proc.returncode is None:
            return False
        self.exit_code = self.proc.returncode
        return True

    async def reap(self, timeout: float) -> None:
        """Give a dying bot ``timeout`` seconds to be reaped, so its exit code is known."""
        if self.proc is not None and self.proc.returncode is None:
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                pass

    def crash_reason(self) -> str:
        rc = self.exit_code
        how = f"killed by signal {-rc}" if rc is not None and rc < 0 else f"exited with code {rc}"
        return f"crash: the bot {how}"

    async def terminate(self, timeout: float) -> bool:
        """SIGTERM to the bot's process group; True when it exits within ``timeout`` seconds."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
            return True
        except TimeoutError:
            return False

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL: the bot and anything it started are gone."""
        if self.proc is not None and self.proc.returncode is None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    await asyncio.wait_for(self.proc.wait(), 5)
                    break
                except TimeoutError:
                    continue
        if self._tee is not None:
            self._tee.cancel()
        if self._logf is not None:
            self._logf.close()

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
    if exit_code == 0:
        return f": {_SDK_HINT}"
    return ""


def launch_hint(command: list[str], e: OSError) -> str:
    """A hint for a command that cannot be started."""
    prog = command[0]
    if prog.endswith(".py"):
        return f" (run a Python file with an interpreter: pepper bot check -- {{python}} {shlex.join(command)})"
    if isinstance(e, FileNotFoundError) and Path(prog).name.startswith("python"):
        return f" (use {{python}}, the checker's own interpreter {sys.executable}, or .venv/bin/python)"
    if isinstance(e, FileNotFoundError) and os.sep not in prog:
        return f" (is {prog} installed and on PATH?)"
    return ""
