"""The processes of the ladder's uploaded bots: each active one running, in the sandbox, as the version the
scheduler rates it as, restarted when it dies, stopped when it is paused, retired or replaced.

Each start gives the bot a fresh token, registered with the referee with a Unix socket of the bot's own
(``RegisterBotRequest.own_socket``: its containers have no network and see that socket only), and handed to its
processes on a pipe. The token is kept nowhere else, so a new service starts every uploaded bot afresh.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path

from pepper_proto.v1 import control_pb2

from arena.processes import BotProcesses
from arena.sandbox import BotSandbox
from arena.store import Bot, new_token, token_sha256

log = logging.getLogger("ladder.launcher")


@dataclass
class Running:
    version: int
    processes: BotProcesses


class Launcher:
    """Keeps the uploaded bots' processes as :meth:`sync` is told (``stub``, ``md``: the referee's control API)."""

    def __init__(self, sandbox: BotSandbox, referee: str, stub, md, logs: Path, at_least: int):
        self.sandbox, self.referee, self.stub, self.md = sandbox, referee, stub, md
        self.logs, self.at_least = logs, at_least
        self.running: dict[str, Running] = {}
        self.withdrawn: set[tuple[str, int]] = set()   # (bot, version) that kept crashing: not started again

    async def sync(self, want: dict[str, Bot], keep: set[str]) -> dict[str, str]:
        """Run the bots of ``want`` (name -> the version to run), leave those of ``keep`` as they are (a new version
        waiting for the old one's games to end), and stop the rest. Returns the token digests the referee was given
        for the bots started now."""
        for name in [n for n, r in self.running.items()
                     if n not in keep and (n not in want or want[n].version != r.version)]:
            await self.stop(name)
        started = {}
        for name, bot in want.items():   # what still runs is at its version (or kept): the rest is started
            if name not in self.running and name not in keep and (name, bot.version) not in self.withdrawn:
                started[name] = await self._start(bot)
        for name, r in list(self.running.items()):
            r.processes.check()   # restarts the dead ones (with a backoff)
            if r.processes.keeps_crashing():
                log.warning("withdrawn: it keeps crashing", extra={"bot": name, "version": r.version,
                                                                   "exit_codes": r.processes.exit_codes()})
                self.withdrawn.add((name, r.version))
                await self.stop(name)
        return started

    async def _start(self, bot: Bot) -> str:
        token = new_token()
        req = control_pb2.RegisterBotRequest(name=bot.name, token_sha256=bytes.fromhex(token_sha256(token)),
                                             own_socket=True)
        answer = await self.stub.RegisterBot(req, metadata=self.md)
        self.sandbox.register(req, answer, self.referee)
        processes = await asyncio.to_thread(
            BotProcesses, bot, [self.sandbox.address], {bot.name: token}, self.logs, {}, self.at_least,
            runtime={bot.name: self.sandbox.runtime(bot)}, python=self.sandbox.python)
        self.running[bot.name] = Running(bot.version, processes)
        log.info("started", extra={"bot": bot.name, "version": bot.version, "processes": processes.slots})
        return token_sha256(token)

    async def stop(self, name: str) -> None:
        r = self.running.pop(name, None)
        if r is not None:
            await asyncio.to_thread(r.processes.stop)
            log.info("stopped", extra={"bot": name, "version": r.version})

    async def close(self) -> None:
        await asyncio.gather(*(self.stop(n) for n in list(self.running)))


__all__ = ["Launcher"]
