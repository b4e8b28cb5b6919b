"""The ladder's continuous scheduler: a referee of its own, the bots the ladder state says are entered registered
with it by their tokens' digests, and games among those available now, with at most ``max_in_flight`` in flight.

Every ``SYNC_S`` it reads the stores (bots entered, new versions, paused and retired: the admin command and the
submission API write them from other processes and threads) and the referee's connections (``ListBots``), and
tells the planner (:class:`ladder.planner.LadderPlanner`) who is available: an active bot with the live
connections a game needs. A bot that disconnects mid-game is the referee's fault policy's (the game ends, and is
stored, as it says); it is not scheduled again until it is back.

Durability is the arena store's: a game's plan row is stored before it starts, its result once (UNIQUE run and
index), so a game in flight when the service is killed (or that its drain did not wait for) stays pending and is
played again, on the same deck, once its bots are available; never lost, never stored twice. Games are rated in
the order they are stored (a ladder has no plan order to keep), each version on its own.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc

from arena.commits import GroupCommitter
from arena.config import RunConfig
from arena.context import RunContext
from arena.errors import ArenaError
from arena.processes import RefereeProcess
from arena.sandbox import BotSandbox
from arena.sinks import RatedSink
from arena.store import BotKind, PlannedGame, Store

from .config import LadderConfig, LadderDir
from .launcher import Launcher
from .planner import LadderPlanner
from .state import LadderState, Status

log = logging.getLogger("ladder.scheduler")

SYNC_S = 0.5   # how often the stores and the referee's connections are read
RATE_WINDOW_S = 60.0
FAULT_KINDS = ("illegal", "malformed", "timeout", "disconnect")
RETRY_S = 2.0  # a game the referee refused (a bot gone since the last look) waits this long before it is tried again


@dataclass
class Gauges:
    """What ``/metrics`` reports, kept by the scheduler (read from the web's thread: plain values)."""

    games: int = 0                    # games stored by this service
    in_flight: int = 0
    connected: int = 0                # bots with the connections a game needs
    entered: int = 0                  # active bots entered
    pending: int = 0                  # planned games waiting for their bots (a restart's, or a refused start)
    available: frozenset[str] = frozenset()   # the bots the planner may draw now
    faults: Counter[str] = field(default_factory=Counter)   # by kind, over the seats of the games stored
    recent: deque[float] = field(default_factory=deque)      # when each game of the last RATE_WINDOW_S was stored

    def stored(self, res: control_pb2.GameResult, now: float) -> None:
        self.games += 1
        self.recent.append(now)
        for r in res.seats:
            for kind in FAULT_KINDS:
                self.faults[kind] += getattr(r.faults, kind)

    def rate(self, now: float) -> float:
        """Games stored per second over the last RATE_WINDOW_S (``now`` on the monotonic clock)."""
        while self.recent and self.recent[0] < now - RATE_WINDOW_S:
            self.recent.popleft()
        return len(self.recent) / RATE_WINDOW_S


def run_config(d: LadderDir, cfg: LadderConfig, referee_address: str) -> RunConfig:
    """The arena's run configuration of the ladder: one pool, one game a match, each bot holding its team."""
    return RunConfig(ruleset=cfg.ruleset, players=cfg.players, seed=cfg.seed, lineup="mirrored", duplicate=False,
                     listen=referee_address, deadline_ms=cfg.deadline_ms, time_bank_ms=cfg.time_bank_ms,
                     db=str(d.arena_db), log_dir=str(d.logs))


class Scheduler:
    """The ladder's games, from :meth:`start` (the referee is up) to the end of :meth:`run` (drained)."""

    def __init__(self, d: LadderDir, cfg: LadderConfig, referee_address: str):
        self.dir, self.lcfg = d, cfg
        self.cfg = run_config(d, cfg, referee_address)
        self.store = Store(d.arena_db)
        self.state = LadderState(d.ladder_db, d.hashing_key())
        self.ctx = RunContext(self.cfg, self.store)
        self.ctx.versions = {}
        self.planner = LadderPlanner(self.ctx, cfg.max_per_bot, random.Random())
        self.gauges = Gauges()
        key = {"ladder": cfg.name, "pool": self.ctx.pool, "players": self.ctx.players, "seed": cfg.seed}
        self.run_id, _ = self.store.find_or_create_run(key, self.planner.begin([]))
        self.sink = RatedSink(self.ctx, committer=lambda ctx, then: GroupCommitter(
            ctx.store.path, then=lambda st: self.sink.rate(self.run_id, past_gaps=True, store=st)))
        self.policy = control_pb2.GamePolicy(deadline_ms=cfg.deadline_ms, time_bank_ms=cfg.time_bank_ms, play_forced=True)
        self.referee: RefereeProcess | None = None
        self._registered: dict[str, str] = {}      # bot -> the token digest the referee has
        self._available: set[str] = set()
        self._tasks: set[asyncio.Task] = set()
        # Planned games not stored and not in flight, by plan index: read from the store once (a killed or drained
        # service's), then kept here (this service alone plans games: the lock), with when each may be tried again.
        self._pending: dict[int, PlannedGame] = {}
        self._retry_at: dict[int, float] = {}
        # Set when the referee refused a game since the last sync: who is available is out of date (a bot left),
        # so nothing new is planned until sync has looked again. Without it, refused games free their places at
        # once and the planner fills them again, hundreds of games in a moment, every one refused.
        self._refused = False
        self._wake = asyncio.Event()
        self.sandbox: BotSandbox | None = None      # uploaded bots run there (start(): when the ladder takes uploads)
        self.no_uploads = "" if cfg.uploads else "this ladder takes remote bots only (uploads = false in ladder.toml)"
        self.launcher: Launcher | None = None

    def knows(self, bot: str, digest: str) -> bool:
        """Whether the referee has ``bot``'s token of this digest (read from the web app's threads)."""
        return self._registered.get(bot) == digest

    def nudge(self) -> None:
        """Look at the stores now rather than at the next SYNC_S (from any thread)."""
        self._loop.call_soon_threadsafe(self._wake.set)

    @property
    def address(self) -> str:
        assert self.referee is not None, "start() first"
        return self.referee.address

    async def start(self) -> None:
        """Start the referee (with the sandbox's socket when the ladder takes uploads) and the result writer."""
        self._loop = asyncio.get_running_loop()
        token = secrets.token_urlsafe(24)
        tls = (self.lcfg.tls_cert, self.lcfg.tls_key) if self.lcfg.tls_cert else None
        if self.lcfg.uploads:
            try:
                self.sandbox = await asyncio.to_thread(BotSandbox)
            except ArenaError as e:
                self.no_uploads = f"this ladder's server cannot run uploaded bots: {e}"
                log.warning("uploads are refused", extra={"why": str(e)})
        self.referee = await _start_referee(self.dir.logs, token, self.cfg.listen, tls,
                                            self.sandbox.socket if self.sandbox else None)
        self._channel = _control_channel(self.referee.address, self.lcfg)
        self.stub = control_pb2_grpc.ControlServiceStub(self._channel)
        self.md = (("authorization", f"Bearer {token}"),)
        if self.sandbox is not None:
            self.dir.bot_logs.mkdir(parents=True, exist_ok=True)
            self.launcher = Launcher(self.sandbox, self.referee.address, self.stub, self.md, self.dir.bot_logs,
                                     self.planner.connections_needed())
        await self.sink.open(self.run_id)
        self.sink.rate(self.run_id, past_gaps=True)   # what a killed service stored and did not get to rate
        self._pending = {g.idx: g for g in self.store.pending(self.run_id)}

    async def run(self, stop: asyncio.Event) -> None:
        """Schedule games until ``stop`` is set, then drain: games in flight get ``drain_seconds`` to finish, and
        those that do not stay pending (played again by the next service)."""
        try:
            while not stop.is_set():
                await self.sync()
                await self.dispatch()
                self._wake.clear()
                waits = [asyncio.create_task(e.wait()) for e in (stop, self._wake)]
                await asyncio.wait(waits, timeout=SYNC_S, return_when=asyncio.FIRST_COMPLETED)
                for w in waits:
                    w.cancel()
            log.info("draining", extra={"in_flight": len(self._tasks), "seconds": self.lcfg.drain_seconds})
            if self._tasks:
                await asyncio.wait(set(self._tasks), timeout=self.lcfg.drain_seconds)
        finally:
            for t in self._tasks:
                t.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self.close()

    async def close(self) -> None:
        if self.launcher is not None:
            await self.launcher.close()
            self.launcher = None
        await self.sink.close()
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None
        if self.referee is not None:
            await self._channel.close()
            await asyncio.to_thread(self.referee.stop)
            self.referee = None
        self.store.close()
        self.state.close()

    # -- who is available -------------------------------------------------------------------------------
    async def sync(self) -> None:
        """Register new and changed tokens with the referee, lock out retired bots, and set the planner's entrants
        to the active bots with the connections a game needs (none while the ladder is paused, and not a bot whose
        new version waits for its games of the old one to end)."""
        bots = {b.name: b for b in self.store.bots()}
        entries = {e.bot: e for e in self.state.entries()}
        for name, e in entries.items():
            b = bots.get(name)
            if b is None:
                continue
            digest = b.token_sha256 if e.status is not Status.RETIRED else "retired"
            # An uploaded bot (a command bot) is registered by the launcher at each start of its processes.
            uploaded = b.kind is BotKind.COMMAND and e.status is not Status.RETIRED
            if not uploaded and self._registered.get(name) != digest:
                # A retired bot's name gets a digest of no token: its connections are refused from now on.
                real = digest if e.status is not Status.RETIRED else secrets.token_hex(32)
                await self.stub.RegisterBot(control_pb2.RegisterBotRequest(name=name, token_sha256=bytes.fromhex(real)),
                                            metadata=self.md)
                self._registered[name] = digest
                log.info("registered", extra={"bot": name, "version": b.version, "status": str(e.status)})
            # A game is stored for the versions of ctx.versions: a new version takes over once its bot has no game
            # of the old one in flight, and it gets no new game until then.
            if name not in self.ctx.versions or not self.planner.busy[name]:
                self.ctx.versions[name] = b.version
        changing = {n for n, b in bots.items() if n in self.ctx.versions and self.ctx.versions[n] != b.version}
        if self.launcher is not None:
            uploaded = {n: b for n, b in bots.items() if b.kind is BotKind.COMMAND and n in entries
                        and entries[n].status is Status.ACTIVE}
            started = await self.launcher.sync({n: b for n, b in uploaded.items() if n not in changing},
                                               keep=changing & set(uploaded))
            self._registered.update(started)
        info = await self.stub.ListBots(control_pb2.ListBotsRequest(), metadata=self.md)
        live = {b.name: b.connections - b.suspect_connections for b in info.bots}
        need = self.planner.connections_needed()
        active = {n for n, e in entries.items() if e.status is Status.ACTIVE and n in self._registered}
        connected = {n for n in active if live.get(n, 0) >= need}
        available = set() if self.state.paused else connected - changing
        for n in self._available - available:
            self.planner.remove_entrant(n)
        for n in sorted(available - self._available):
            self.planner.add_entrant(n)
        if available != self._available:
            log.info("available", extra={"bots": sorted(available)})
        self._available = available
        self.gauges.available = frozenset(available)
        self.gauges.connected, self.gauges.entered = len(connected), len(active)
        self._refused = False

    # -- starting games ---------------------------------------------------------------------------------
    async def dispatch(self) -> None:
        """Start the pending games whose bots are available (a restart's first), then new ones up to the cap: as
        many as there were places when it began (games that end meanwhile leave theirs to the next call, after a
        sync), and none after a refusal."""
        now = asyncio.get_running_loop().time()
        self.gauges.pending = len(self._pending)
        for g in sorted(self._pending.values()):
            if len(self._tasks) >= self.lcfg.max_in_flight:
                return
            if (self._retry_at.get(g.idx, 0) <= now and set(g.seats) <= self._available
                    and all(self.planner.busy[n] < self.lcfg.max_per_bot for n in set(g.seats))):
                del self._pending[g.idx]
                self._launch(g)
        for _ in range(self.lcfg.max_in_flight - len(self._tasks)):
            if self._refused:
                return
            plan = self.planner.next_round(self.run_id)
            if not plan:
                return
            await self.sink.append_plan(self.run_id, plan)
            match, ruleset, players, seed, seats = plan[0]
            self._launch(PlannedGame(match, match, ruleset, players, seed, seats))

    def _launch(self, g: PlannedGame) -> None:
        for n in set(g.seats):
            self.planner.busy[n] += 1
        self.gauges.in_flight += 1
        t = asyncio.create_task(self._game(g), name=f"game-{g.idx}")
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    def _retry(self, g: PlannedGame) -> None:
        """``g`` was not played: pending again, tried once RETRY_S has passed and its bots are available."""
        self._pending[g.idx] = g
        self._retry_at[g.idx] = asyncio.get_running_loop().time() + RETRY_S

    async def _game(self, g: PlannedGame) -> None:
        """Play planned game ``g`` and store it; a game the referee will not start (a bot gone since the last look)
        or that fails stays pending, and is tried again once its bots are available."""
        try:
            req = control_pb2.CreateGameRequest(**self.ctx.ruleset_source, players=self.ctx.players, seats=g.seats,
                                                seed=g.seed, policy=self.policy)
            try:
                created = await self.stub.CreateGame(req, metadata=self.md)
                res = (await self.stub.WaitGame(control_pb2.WaitGameRequest(game_id=created.game_id),
                                                metadata=self.md)).result
            except grpc.aio.AioRpcError as e:
                log.info("game not played", extra={"idx": g.idx, "seats": g.seats, "code": e.code().name,
                                                   "why": e.details()})
                self._refused = True
                self._retry(g)
                return
            await self.sink.put(self.run_id, g.idx, g.seed, g.seats, res)
            self.gauges.stored(res, time.monotonic())
            self._retry_at.pop(g.idx, None)
            log.info("game stored", extra={"idx": g.idx, "seats": g.seats, "status": res.status})
        except asyncio.CancelledError:
            raise
        except Exception:   # noqa: BLE001 - one game's failure is logged; it stays pending
            log.exception("game failed", extra={"idx": g.idx})
            self._retry(g)
        finally:
            for n in set(g.seats):
                self.planner.busy[n] -= 1
            self.gauges.in_flight -= 1
            self._wake.set()


def _control_channel(address: str, cfg: LadderConfig) -> grpc.aio.Channel:
    """The service's channel to its own referee: over TLS when the ladder has a certificate, checked against it (the
    certificate is its own root) under ``tls_name``, since the service reaches the referee by its address."""
    host, _, port = address.rpartition(":")
    if host in ("0.0.0.0", "[::]", "::"):
        address = f"127.0.0.1:{port}"
    if not cfg.tls_cert:
        return grpc.aio.insecure_channel(address)
    creds = grpc.ssl_channel_credentials(root_certificates=Path(cfg.tls_cert).read_bytes())
    return grpc.aio.secure_channel(address, creds, options=[("grpc.ssl_target_name_override", cfg.tls_name)])


async def _start_referee(logs: Path, token: str, address: str, tls: tuple[str, str] | None, unix_socket: str | None,
                         wait_s: float = 60.0) -> RefereeProcess:
    """The ladder's referee on ``address`` (and ``unix_socket``: the sandbox's); a killed service's referee may hold
    the port for a while (it drains on its parent's death, 30 s at most), so a refused start is tried again for
    ``wait_s``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        try:
            return await asyncio.to_thread(RefereeProcess, logs, token, address, tls=tls, unix_socket=unix_socket)
        except Exception as e:   # noqa: BLE001 - arena.errors.ArenaError: the port is taken, most likely
            if loop.time() > deadline:
                raise
            log.info("referee not started yet", extra={"why": str(e).splitlines()[0]})
            await asyncio.sleep(0.5)


__all__ = ["RETRY_S", "SYNC_S", "Gauges", "Scheduler", "run_config"]
