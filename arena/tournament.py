"""The tournament loop: an :class:`Arena` composes a run of its parts and dispatches its games.

``run(config)`` plays every pending game of the run ``config`` describes:

1. opens the store and finds or creates the run (its plan is stored first, so a killed arena resumes where it
   stopped: see :mod:`arena.store`); the plan, and the rounds that follow it, are the planner's
   (:mod:`arena.planners`: fixed, adaptive; :mod:`arena.match`: a sequential test);
2. starts the fleet (:mod:`arena.fleet`): the referee(s), the bots' processes and their connections;
3. keeps ``concurrency`` games in flight (by default from the bots' processes and the cores, at most the games to
   play: :func:`default_concurrency`), each played by the fleet (which replays a game lost to a crash
   and withdraws a broken entrant: its games not yet begun stay pending, and the others play on);
4. hands each finished game to the result sink (:mod:`arena.sinks`): committed in groups off the event loop, and
   rated in plan order; a game counts, and the progress moves, once it is committed. An adaptive run's next round
   is planned once the games it is chosen on are stored and rated.

Variants compose an Arena from other parts rather than subclass it: ``pepper arena match`` gives it a sequential
planner (:mod:`arena.match`), and a cluster node a fixed plan and a collecting sink (:mod:`arena.distributed`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
from pepper_proto.v1 import control_pb2

from . import deals, registry, schedule
from .config import RunConfig
from .context import RunContext
from .crashes import record_crashes
from .errors import ArenaError, UsageError
from .fleet import Fleet, Withdrawn, seating_of
from .planners import Planner, default_planner
from .processes import Crash, default_shards
from .progress import PROGRESS_TICK_S, Progress
from .sinks import RatedSink, ResultSink
from .store import Bot, BotKind, PlannedGame, Store
from .twins import REFEREE_NAME_MAX

# The default --concurrency (see default_concurrency): games in flight per bot process, and at least per core:
# enough to keep each process's batches of decisions full; more in flight only makes the first game finish later
# (docs/arena.md, "Concurrency", has the throughput at each setting).
GAMES_PER_PROCESS = 32
GAMES_PER_CORE = 64


def default_concurrency(pending: int, processes: int, cpus: int | None = None) -> int:
    """Games in flight when --concurrency is not given: enough to keep every bot process and the referee busy
    (GAMES_PER_PROCESS per bot process, at least GAMES_PER_CORE per core), never more than the games to play,
    so that games finish (and are stored, and show in the progress) from the start of the run."""
    cores = cpus or os.cpu_count() or 1
    return max(1, min(pending, max(GAMES_PER_PROCESS * processes, GAMES_PER_CORE * cores)))


@dataclass(eq=False)
class _Session:
    """One session of a run in the loop: its progress, the games it started, and what ends it."""

    run_id: int
    progress: Progress
    concurrency: int
    policy: control_pb2.GamePolicy
    sem: asyncio.Semaphore
    finished: asyncio.Event = field(default_factory=asyncio.Event)   # a game ended (or an error): look again
    errors: list[BaseException] = field(default_factory=list)        # the first ends the run, after the loop
    tasks: set[asyncio.Task] = field(default_factory=set)
    started: set[int] = field(default_factory=set)                   # plan indexes started (or skipped) in it
    # The faults as the ranked table counts them (Store.run_table_faults): of the games stored, and the crashes
    # stored before this session; progress.faults adds this session's crashes with games in flight.
    seat_faults: int = 0

    def crashed(self, crashes: list[Crash]) -> None:
        """The run's bots' processes have crashed ``crashes`` in this session: those with games in flight are faults
        (a process that dies on start, with none, is the bot's withdrawal's business)."""
        self.progress.crashes = len(crashes)
        self.progress.faults = self.seat_faults + sum(1 for c in crashes if c.cost_games)

    async def until(self, ready: Callable[[], bool]) -> None:
        """Wait, game by game, until ``ready()`` (or an error)."""
        while not ready() and not self.errors:
            self.finished.clear()
            await self.finished.wait()


# ----------------------------------------------------------------------------- the run
class Arena:
    """A run: its ``planner`` (by default the config's, :func:`arena.planners.default_planner`), its result ``sink``
    (by default :class:`~arena.sinks.RatedSink`), both made from the run's :class:`~arena.context.RunContext`, and
    its :class:`~arena.fleet.Fleet` (``end_when_short``: see there)."""

    def __init__(self, config: RunConfig, store: Store, on_progress: Callable[[Progress], None] | None = None,
                 notify: Callable[[str], None] | None = None, *,
                 planner: Callable[[RunContext], Planner] | None = None,
                 sink: Callable[[RunContext], ResultSink] | None = None, end_when_short: bool = True):
        self.cfg = config
        self.store = store
        self.notify = notify or (lambda msg: None)
        self.on_progress = on_progress or (lambda p: None)
        self.ctx = RunContext(config, store)
        self.planner = (planner or default_planner)(self.ctx)
        self.sink = (sink or RatedSink)(self.ctx)
        self.fleet = Fleet(config, self.ctx.rs, self.ctx.players, self.notify, end_when_short=end_when_short)
        self.fleet.on_withdraw.append(self.planner.remove_entrant)
        self._clocks: dict[str, tuple[int | None, int | None]] = {}  # bot -> its own (deadline, bank) from registration
        self._flying: set[int] = set()            # plan indexes of the games in flight (the rounds wait for them)

    @property
    def pool(self) -> str:
        return self.ctx.pool

    @property
    def versions(self) -> dict[str, int] | None:
        return self.ctx.versions

    def check(self) -> list[Bot]:
        """The run's bots, after checking that the run can be played (UsageError otherwise); starts nothing."""
        registered = {b.name: b for b in self.store.bots()}
        names = self.cfg.bots or sorted(registered)
        missing = [n for n in names if n not in registered]
        if missing:
            raise UsageError(f"unknown bot(s): {', '.join(missing)}; registered: {', '.join(sorted(registered)) or 'none'} "
                             "(register with `pepper bot register NAME --command ...`)")
        if self.cfg.sandbox not in ("none", "docker"):
            raise UsageError(f"--sandbox {self.cfg.sandbox!r}: expected none or docker")
        if self.cfg.sandbox == "docker" and self.cfg.referee:
            raise UsageError("--sandbox docker needs the arena's own referee (its Unix socket): drop --referee")
        if (self.cfg.shards or 1) > 1:
            if self.cfg.referee:
                raise UsageError(f"--shards {self.cfg.shards}: --referee ADDRESS is one referee, and the arena starts "
                                 "no shards of its own: drop --shards (or --referee)")
            if self.cfg.sandbox == "docker":
                raise UsageError(f"--shards {self.cfg.shards}: --sandbox docker runs one referee (the Unix socket "
                                 "mounted in each bot's container): drop --shards")
            if remote := [n for n in names if n in registered and registered[n].kind is BotKind.REMOTE]:
                raise UsageError(f"--shards {self.cfg.shards}: remote bot(s) {', '.join(remote)} connect to one "
                                 "referee (PEPPER_REFEREE): drop --shards")
        if self.cfg.twins not in ("apart", "shared"):
            raise UsageError(f"--twins {self.cfg.twins!r}: expected apart or shared")
        boxed = [n for n in names if n in registered and registered[n].image]
        if boxed and self.cfg.sandbox != "docker":
            raise UsageError(f"bot(s) {', '.join(boxed)} run in their Docker image: add --sandbox docker")
        if len(set(names)) < 2:
            raise UsageError("a tournament needs at least 2 registered bots (see `pepper bot list`)")
        try:
            schedule.lineups(names, self.ctx.rs, self.ctx.players, self.cfg.lineup)
        except ValueError as e:
            raise UsageError(f"--lineup {self.cfg.lineup}: {e} (--bots {','.join(names)}); "
                             "add bots or use --lineup mirrored") from None
        seating = seating_of(self.cfg, self.ctx.rs, self.ctx.players, [registered[n] for n in dict.fromkeys(names)])
        if long := seating.too_long():
            raise UsageError(f"bot(s) {', '.join(long)}: a name of more than {REFEREE_NAME_MAX - 4} characters leaves "
                             "no room for the identity of each rotation of a duplicate block (docs/sandbox.md, "
                             "\"Twins\"): register the bot under a shorter name, or run with --twins shared")
        if self.cfg.deals:
            try:
                self.ctx.deals = deals.load(self.cfg.deals, self.ctx.rs, self.ctx.players)
            except deals.DealSetError as e:
                raise UsageError(str(e)) from None
        return [registered[n] for n in dict.fromkeys(names)]

    def open_run(self) -> tuple[int, list[Bot]]:
        """Check the run, settle its bots' versions, and find or create it with its plan (the planner's). Returns
        (run id, its bots); starts nothing."""
        bots = registry.current_versions(self.store, self.check(), self.notify)
        names = [b.name for b in bots]
        self.ctx.versions = {b.name: b.version for b in bots}
        self._clocks = {b.name: (b.deadline_ms, b.time_bank_ms) for b in bots if (b.deadline_ms, b.time_bank_ms) != (None, None)}
        key = self.cfg.run_key(names)
        if self.ctx.deals:  # the deals themselves, not the file's name: a changed file is a new run
            key["deals"] = deals.key(self.ctx.deals)
        run_id, _resumed = self.store.find_or_create_run(key, self.planner.begin(names))
        return run_id, bots

    async def run(self) -> tuple[int, Progress]:
        run_id, bots = self.open_run()
        return run_id, await self.play(run_id, bots)

    async def play(self, run_id: int, bots: list[Bot]) -> Progress:
        """Play the opened run ``run_id`` (:meth:`open_run`) with ``bots``: start the fleet, dispatch every game
        the planner plans, stop the fleet."""
        try:
            try:
                await self.fleet.start(bots, self._shard_count(run_id, bots))
                progress = await self._play(run_id)
            except grpc.aio.AioRpcError as e:
                raise ArenaError(f"referee at {', '.join(self.fleet.addresses)}: {e.code().name}: {e.details()}") from None
            self._finish(run_id, progress)
            return progress
        finally:
            await self.fleet.stop()

    def _shard_count(self, run_id: int, bots: list[Bot]) -> int:
        """The referee shards this run starts: --shards, else :func:`default_shards` of the games it has to play
        (1 with --sandbox docker or a remote bot, which reach one referee)."""
        if self.cfg.shards:
            return self.cfg.shards
        if self.cfg.sandbox == "docker" or any(b.kind is BotKind.REMOTE for b in bots):
            return 1
        return default_shards(self.planner.to_play(run_id))

    def _finish(self, run_id: int, progress: Progress) -> None:
        pending = self.store.pending(run_id)
        if not pending and self.planner.finished(run_id):
            self.store.finish_run(run_id)
        if withdrawn := self.fleet.withdrawn:
            progress.withdrawn = sorted(withdrawn)
            progress.not_played = sum(1 for g in pending if withdrawn.keys() & set(g.seats))
            self.notify(f"withdrawn from this run: {', '.join(progress.withdrawn)}; {progress.not_played} planned "
                        "game(s) with them not played (fix them, then run the same command again to play those)")

    # -- the loop ------------------------------------------------------------------------------------
    def _session(self, run_id: int) -> _Session:
        cfg = self.cfg
        # A resumed run starts from the games, and the faults, it stored before.
        done = self.store.game_ids(run_id).count
        slots = sum(p.slots for p in self.fleet.launched.values()) + len(self.fleet.remote)
        concurrency = cfg.concurrency or default_concurrency(self.planner.to_play(run_id), slots)
        faults = self.store.run_table_faults(run_id)
        progress = Progress(total=self.planner.total(run_id), done=done, resumed=done, faults=faults,
                            concurrency=concurrency)
        policy = control_pb2.GamePolicy(deadline_ms=cfg.deadline_ms, time_bank_ms=cfg.time_bank_ms,
                                        play_forced=cfg.play_forced)
        return _Session(run_id, progress, concurrency, policy, asyncio.Semaphore(concurrency), seat_faults=faults)

    async def _play(self, run_id: int) -> Progress:
        s = self._session(run_id)
        self.sink.rate(run_id)  # games a killed session stored and did not get to rate
        await self.sink.open(run_id)
        ticker = asyncio.create_task(self._tick(s))
        self.on_progress(s.progress)
        try:
            await self._dispatch(s)
            if s.errors:  # the run ends: games in flight are played again when it resumes
                for t in s.tasks:
                    t.cancel()
            await asyncio.gather(*s.tasks, return_exceptions=True)
        finally:
            ticker.cancel()
            for t in s.tasks:
                t.cancel()
            try:  # every game finished is committed before the run returns, whatever ends it
                await self.sink.close()
            except Exception as e:  # noqa: BLE001 - the database: ends the run, unless something else did first
                s.errors.append(e)
        if s.errors:
            e = s.errors[0]
            if isinstance(e, grpc.aio.AioRpcError):
                raise ArenaError(f"referee error: {e.code().name}: {e.details()}; run the same command again to resume")
            raise e
        self.sink.rate(run_id, past_gaps=True)
        for p in self.fleet.launched.values():
            p.notice_crashes()
        self._record_crashes(run_id, settled=False)
        s.crashed(self.fleet.crashes)
        self.on_progress(s.progress)
        return s.progress

    async def _dispatch(self, s: _Session) -> None:
        """Start the games to play: those of the plan without a stored result, then each round the planner plans (read
        from where the plan was last read: a round costs no read of the whole plan), until it plans no more."""
        unplayed = {g.idx for g in self.store.pending(s.run_id)}
        known = len(self.ctx.planned(s.run_id))
        seen = 0
        while not s.errors:
            plan = self.ctx.planned(s.run_id)
            queue = [g for g in plan[seen:] if (g.idx in unplayed or g.idx >= known) and g.idx not in s.started]
            seen = len(plan)
            if queue:
                await self._start(s, queue)
            elif not await self._plan_round(s, len(plan)):
                return

    async def _start(self, s: _Session, queue: list[PlannedGame]) -> None:
        for g in queue:
            if self.fleet.withdrawn.keys() & set(g.seats):  # not played (it stays pending)
                s.started.add(g.idx)
                continue
            await s.sem.acquire()
            if s.errors:
                s.sem.release()
                return
            self.fleet.tend_all()
            s.started.add(g.idx)
            self._flying.add(g.idx)
            s.progress.fly(+1)
            t = asyncio.create_task(self._game(s, g))
            s.tasks.add(t)
            t.add_done_callback(s.tasks.discard)

    async def _plan_round(self, s: _Session, planned: int) -> bool:
        """Plan the planner's next round, once the games it is chosen on are stored and rated; False when no round
        follows (or the planner stops the run)."""
        p = self.planner
        if not p.more(s.run_id, planned):
            return False
        # Plan the next round once it fits in the games in flight (the lag and a round at most), or once no more than
        # half a round is in flight when --concurrency is below a round.
        lag, rnd = p.window(planned)
        low_water = max(min(s.concurrency, lag + rnd) - rnd, max(1, min(s.concurrency, rnd)) // 2)
        await s.until(lambda: s.progress.in_flight <= low_water)
        basis = p.basis(planned)
        await s.until(lambda: not any(i < basis for i in self._flying))   # the rounds the next is chosen on
        self.sink.rate(s.run_id)
        if not s.errors and (why := p.stop_reason(s.run_id)):
            s.progress.stopped = why
            return False
        if not s.errors:
            await self.sink.append_plan(s.run_id, p.next_round(s.run_id))
        return True

    async def _game(self, s: _Session, g: PlannedGame) -> None:
        """Play planned game ``g`` on the fleet and hand its result to the sink."""
        try:
            controls = self._time_controls(g.seats)
            given = deals.for_match(self.ctx.deals, g.match)

            def request(seed: int, attempt: int) -> control_pb2.CreateGameRequest:
                # A replay is dealt a fresh deck: the deal set's decks too give way to the replay's seed.
                decks = [control_pb2.Deck(cards=d) for d in given.decks] if given and not attempt else []
                return control_pb2.CreateGameRequest(**self.ctx.ruleset_source, players=self.ctx.players, seats=g.seats,
                                                     seed=seed, policy=s.policy, seat_time_controls=controls, decks=decks)

            def replayed() -> None:
                s.progress.replayed += 1

            played, res = await self.fleet.play(g.seed, g.seats, request, replayed)
            await self.sink.put(s.run_id, g.idx, played, g.seats, res)
            self._flying.discard(g.idx)
            self.planner.stored(s.run_id)
            s.progress.done += 1
            s.seat_faults += sum(r.faults.timeout + r.faults.illegal + r.faults.malformed + r.fallbacks for r in res.seats)
            s.crashed(self.fleet.crashes)
        except Withdrawn:  # a bot of the game was withdrawn: the game is not played
            self._flying.discard(g.idx)
        except Exception as e:  # noqa: BLE001 - ends the run, after the loop
            s.errors.append(e)
        finally:
            s.progress.fly(-1)
            s.sem.release()
            s.finished.set()
            self.on_progress(s.progress)

    async def _tick(self, s: _Session) -> None:
        """Rate and ETA move, and settled crashes are stored, while no game finishes."""
        while not s.errors:
            await asyncio.sleep(PROGRESS_TICK_S)
            s.crashed(self.fleet.crashes)
            try:
                self._record_crashes(s.run_id, settled=True)
            except Exception as e:  # noqa: BLE001 - the database: ends the run, after the loop
                s.errors.append(e)
                s.finished.set()
            self.on_progress(s.progress)

    def _record_crashes(self, run_id: int, *, settled: bool) -> None:
        """Store each crash once (``settled``: only those whose games in flight have come back)."""
        def record(c) -> None:
            self.store.record_crash(run_id, self.ctx.pool, c.bot, self.ctx.version(c.bot), c.exit_code, c.games_replayed)
        record_crashes(self.fleet.launched.values(), record, self.notify, settled=settled)

    def _time_controls(self, seats: list[str]) -> list[control_pb2.TimeControl]:
        """Each seat's own time controls, from its bot's registration (none set: the run's, for every seat)."""
        if not self._clocks.keys() & set(seats):
            return []
        return [control_pb2.TimeControl(**{k: v for k, v in zip(("deadline_ms", "time_bank_ms"), self._clocks.get(n, ()))
                                           if v is not None}) for n in seats]


def run(config: RunConfig, on_progress=None, notify=None) -> tuple[int, Progress]:
    store = Store(config.db)
    try:
        return asyncio.run(Arena(config, store, on_progress, notify).run())
    finally:
        store.close()


__all__ = ["Arena", "ArenaError", "Progress", "RunConfig", "UsageError", "default_concurrency", "run"]
