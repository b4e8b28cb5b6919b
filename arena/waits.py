"""What a run's games wait for before they can be created, per referee shard: a bot short of the live connections a
game needs (its process restarting, a remote bot reconnecting, a stuck process being killed and restarted), or a
referee refusing new games; and when a wait turns into a withdrawal or the end of the run. The fleet
(:mod:`arena.fleet`) creates every game through :meth:`Waits.create`."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

import grpc
from pepper_proto.v1 import control_pb2

from .errors import ArenaError
from .processes import Shard

if TYPE_CHECKING:
    from .fleet import Fleet

# CreateGame calls in flight at once, whatever --concurrency says. A gRPC server queues the calls that arrive
# faster than it takes them up (the Python server takes one at a time, between the referee's other work), and
# past about 1,000 queued calls it cancels new ones at random: the caller gets CANCELLED with no details. So
# games are created through this window; each game's WaitGame follows its CreateGame, paced by it.
CREATE_WINDOW = 100


class Waits:
    """The games of a :class:`~arena.fleet.Fleet` waiting on its shards, and for what."""

    def __init__(self, fleet: Fleet):
        self.fleet = fleet
        # (shard, bot or "" for the referee) -> when its games on that shard began to wait
        self._down_since: dict[tuple[int, str], float] = {}
        self._told: set[tuple[int, str]] = set()
        self._lock = asyncio.Lock()
        self._window = asyncio.Semaphore(CREATE_WINDOW)

    async def create(self, shard: Shard, req: control_pb2.CreateGameRequest, seats: list[str], lane: int) -> str:
        """CreateGame on ``shard``; while its referee answers UNAVAILABLE (a bot without the live connections the
        game needs: its process restarting, a remote bot reconnecting), restart and wait, then try again."""
        while True:
            self.fleet.entered(seats)
            try:
                async with self._window:
                    created = await shard.stub.CreateGame(req, metadata=self.fleet.md)
            except grpc.aio.AioRpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                detail = e.details()
            else:
                for n in ("", *set(seats)):
                    self.back(n, shard.index)
                shard.created += 1
                return created.game_id
            # One task waits at a time; the others then find the bots back and retry at once.
            async with self._lock:
                await self._wait_for(shard, seats, lane, detail)

    async def _wait_for(self, shard: Shard, seats: list[str], lane: int, detail: str) -> None:
        """Until every bot of ``seats`` has as many live connections on ``shard`` (under its identity of ``lane``) as
        it takes seats (restarting its processes meanwhile); a bot that stays short for longer than its limit, or
        keeps crashing, is withdrawn (Withdrawn). A refusal that is not about connections (the referee draining) is
        retried under the key ``""``, and ends the run (ArenaError) after its limit."""
        delay = 0.05
        while True:
            self.fleet.entered(seats)
            info = await shard.stub.ListBots(control_pb2.ListBotsRequest(), metadata=self.fleet.md)
            # A stuck bot's (suspect) connections take no new game: it is short, never the run ended for it.
            by_id = {b.name: b.connections - b.suspect_connections for b in info.bots}
            have = {n: by_id.get(self.fleet.seating.identity(n, lane), 0) for n in set(seats)}
            short = sorted(n for n in set(seats) if have.get(n, 0) < seats.count(n))
            for n in set(seats) - set(short):
                self.back(n, shard.index)
            if not short:
                await self._referee_refused(shard, detail)
                return  # CreateGame again
            for n in short:
                self._short(shard, n, seats.count(n), have.get(n, 0))
                self.fleet.entered(seats)
            await asyncio.sleep(delay)
            delay = min(1.0, delay * 2)

    async def _referee_refused(self, shard: Shard, detail: str) -> None:
        now = time.monotonic()
        again = (shard.index, "") in self._down_since
        since = self._down_since.setdefault((shard.index, ""), now)
        if now - since > self.fleet.cfg.bot_down_s:
            raise ArenaError(f"the referee{self._where(shard)} refused new games for {now - since:.0f}s: UNAVAILABLE: "
                             f"{detail}; run the same command again to resume the run")
        if again:
            if now - since > 5 and (shard.index, "") not in self._told:
                self._told.add((shard.index, ""))
                self.fleet.notify(f"the referee{self._where(shard)} refuses new games ({detail}); retrying")
            await asyncio.sleep(0.2)

    def _short(self, shard: Shard, n: str, need: int, have: int) -> None:
        """Bot ``n`` has ``have`` of the ``need`` connections a game on ``shard`` waits for."""
        now = time.monotonic()
        since = self._down_since.setdefault((shard.index, n), now)
        limit = self.fleet.cfg.remote_down_s if n in self.fleet.remote else self.fleet.cfg.bot_down_s
        if now - since > limit:
            self.fleet.withdraw(n, self._down_message(n, need, have, now - since))
        if now - since > 5 and (shard.index, n) not in self._told:
            self._told.add((shard.index, n))
            self.fleet.notify(f"waiting for bot {n!r} to get its connections{self._where(shard)} back "
                        f"({have} of {need}); its games wait")
        if n in self.fleet.procs:
            self.fleet.tend(self.fleet.procs[n])

    def _where(self, shard: Shard) -> str:
        return f" at {shard.address}" if len(self.fleet.shards) > 1 else ""

    def back(self, name: str, shard: int | None = None) -> None:
        """``name`` (a bot, or "" for the referee) is no longer keeping games waiting on ``shard`` (None: on any)."""
        if not self._down_since and not self._told:  # the usual case, at every game created
            return
        for key in [k for k in self._down_since if k[1] == name and shard in (None, k[0])]:
            del self._down_since[key]
        self._told -= {k for k in self._told if k[1] == name and shard in (None, k[0])}

    def _down_message(self, name: str, need: int, have: int, waited: float) -> str:
        head = f"has had {have} of the {need} live connection(s) a game needs for {waited:.0f}s"
        if name in self.fleet.procs:
            return f"{head}, although its processes were restarted {self.fleet.procs[name].restarts} time(s) in this run"
        return head + remote_hint(name, need)



def remote_hint(name: str, need: int) -> str:
    return (f"; its owner starts it, {need} process(es) with PEPPER_REFEREE, PEPPER_BOT_NAME and the token "
            f"`pepper bot token {name}`")


__all__ = ["CREATE_WINDOW", "Waits", "remote_hint"]
