"""The tournament loop: referee, bot processes, scheduling, ratings, storage.

``run(config)`` plays every pending game of the run ``config`` describes:

1. opens the store and finds or creates the run (its plan is stored first, so
   a killed arena resumes where it stopped: see :mod:`arena.store`);
2. starts a referee subprocess on 127.0.0.1, or one per shard (``--shards N``,
   :func:`default_shards`), or uses ``--referee ADDRESS``;
3. registers every bot of the line-ups with the referee(s) (by its token's
   SHA-256; a command bot gets a fresh token for each run) and launches the
   command bots (each as ``processes`` processes serving many seats, shared
   out over the shards, see :mod:`arena.processes`); remote bots connect by
   themselves;
4. keeps ``concurrency`` games in flight (by default from the bots' processes
   and the cores, at most the games to play: :func:`default_concurrency`), each
   sent to the shard with the fewest games in flight; the finished games
   (converted by :mod:`arena.results`) are committed in groups off the event
   loop (:mod:`arena.commits`), and a game counts, and the progress moves,
   once its group is committed; the stored games get their TrueSkill updates
   in plan order, each once every game planned before it is stored, in the
   transaction of the group that makes it ready;
5. restarts a bot process that dies; the games in flight on it (ended by the
   referee with a disconnect) are replayed from their start on a fresh deck,
   and the crash is stored once (see "Crashes" in docs/arena.md). A game
   whose bot is down (restarting, or a remote bot reconnecting) waits for it.
6. withdraws a broken entrant (it cannot start, never connects, keeps
   crashing, or stays down for minutes) with a message naming its log: its
   games not yet begun are not played (they stay pending, so the same command
   plays them once it is fixed) and the others play on, while 2 bots are left.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc

from . import deals, registry, results, schedule, stats
from .commits import GroupCommitter
from .config import RunConfig
from .errors import ArenaError, UsageError
from .evidence import Block, head_to_head
from .processes import BotProcesses, BotStartError, Crash, RefereeProcess
from .ratings import Rater, Rating
from .sandbox import BotSandbox
from .store import Bot, BotKind, PlannedGame, Store, new_token, token_sha256

# Adaptive mode plans this many games per round (whole matches), whatever --concurrency says, each round on the
# ratings after the games planned up to ADAPTIVE_LAG_GAMES games before it (in plan order, whatever order they finished
# in: the same ones at any --concurrency, so the plan is too). Small rounds follow the ratings closely; the lag is what
# the arena may keep in flight while it plans (at the start at most 72 games, about 50 on average: the rounds run in a
# convoy). A longer lag from the start costs games (128: 160 games to the right order instead of 120,
# bench/ranking.py), a shorter one speed: a decision costs more in the small batches of few games in flight (docs/arena.md,
# "How many games a ranking needs").
ADAPTIVE_ROUND_GAMES = 8
ADAPTIVE_LAG_GAMES = 64
# Past its start the lag grows with the run, to half the games planned, up to ADAPTIVE_LAG_MAX, and a round to an
# eighth of the lag: the early rounds, which decide most, follow the ratings closely (the ranking benchmark's 120
# games to the right order are the same as with a fixed lag of 64), and a long run keeps more games in flight: 1,000
# whole iowa games went at 0.64 of a planned run's speed (about 135 games in flight on average), 0.48 with the fixed
# lag. A function of the plan's length only, so the plan stays deterministic.
ADAPTIVE_LAG_MAX = 256


def adaptive_lag(planned: int) -> int:
    """The planned games that the next adaptive round is not chosen on (they may still be in flight), after ``planned``."""
    return min(ADAPTIVE_LAG_MAX, max(ADAPTIVE_LAG_GAMES, planned // 2))


def adaptive_round(planned: int) -> int:
    """The games of the next adaptive round (whole matches, at least one), after ``planned`` planned games."""
    return max(ADAPTIVE_ROUND_GAMES, adaptive_lag(planned) // 8)


# Weight of the uncertainty bonus (the sum of a line-up's sigmas) against TrueSkill match quality (0..1): the
# score adaptive runs used before the order-doubt score (schedule.lineup_doubt); bench/ranking.py compares them.
UNCERTAINTY_WEIGHT = 0.05
# CreateGame calls in flight at once, whatever --concurrency says. A gRPC server queues the calls that arrive
# faster than it takes them up (the Python server takes one at a time, between the referee's other work), and
# past about 1,000 queued calls it cancels new ones at random: the caller gets CANCELLED with no details. So
# games are created through this window; each game's WaitGame follows its CreateGame, paced by it.
CREATE_WINDOW = 100


# How often the arena reports progress (Arena.on_progress) while no game finishes, so that rate and ETA move.
PROGRESS_TICK_S = 1.0
# The default --concurrency (see default_concurrency): games in flight per bot process, and at least per core.
# Measured on 2 cores (docs/arena.md, "Concurrency"): throughput is flat from 64 to 512 games in flight, lower
# below (half at 32 for iowa) and above (a third lower with 2,000 one-deal games at once), and the more in flight
# the later the first game finishes.
GAMES_PER_PROCESS = 32
GAMES_PER_CORE = 64
# The default --shards (see default_shards): a referee per CORES_PER_SHARD cores, up to MAX_DEFAULT_SHARDS, for a run
# with at least SHARD_MIN_GAMES games to play; fewer finish in seconds, where starting more processes costs as much as
# it saves. A shard's referee uses one core and its bots most of another even when they are as cheap as
# bench/lean_bot.py; and a shard costs CPU per decision (smaller batches): on 2 cores two shards were slower than one
# with the lean bots (docs/performance.md, "Referee shards").
CORES_PER_SHARD = 2
MAX_DEFAULT_SHARDS = 4
SHARD_MIN_GAMES = 500
# Crash policy (docs/arena.md, "Crashes"). A game in flight on a command bot's process that dies is played again
# from its start on a fresh deck (replay_seed), at most MAX_REPLAYS times: then its forfeit stands.
MAX_REPLAYS = 2
# A bot whose processes die with games in flight more than this many times in one run is withdrawn from it, so its
# games are not replayed forever, however long each process lived. (A process that dies on start has nothing in
# flight: the restart budget of BotProcesses and the bot's down time limit deal with it.)
MAX_CRASHES = 5
# A disconnect is put down to a process death the arena noticed from this long before the game was created
# (the referee may seat a connection whose process just died) to this long after the game ended.
CRASH_GRACE_S = 2.0
# A crash is stored once the games in flight on its process have come back (they end within milliseconds of it).
CRASH_SETTLE_S = 3.0


def default_concurrency(pending: int, processes: int, cpus: int | None = None) -> int:
    """Games in flight when --concurrency is not given: enough to keep every bot process and the referee busy
    (GAMES_PER_PROCESS per bot process, at least GAMES_PER_CORE per core), never more than the games to play,
    so that games finish (and are stored, and show in the progress) from the start of the run."""
    cores = cpus or os.cpu_count() or 1
    return max(1, min(pending, max(GAMES_PER_PROCESS * processes, GAMES_PER_CORE * cores)))


def default_shards(pending: int, cpus: int | None = None) -> int:
    """Referee shards when --shards is not given: one per CORES_PER_SHARD cores (at most MAX_DEFAULT_SHARDS) for
    ``pending`` games to play of at least SHARD_MIN_GAMES, else 1 (so 1 on 2 cores). One referee process runs on
    one core, and with cheap bots it is the limit once there are cores to spare beside it and its bots."""
    if pending < SHARD_MIN_GAMES:
        return 1
    return max(1, min(MAX_DEFAULT_SHARDS, (cpus or os.cpu_count() or 1) // CORES_PER_SHARD))


def _any_port(address: str) -> str:
    """``address``'s host with port 0 (a free port): where the shards after the first listen."""
    return f"{address.rsplit(':', 1)[0]}:0"


@dataclass(eq=False)
class Shard:
    """One referee of the run (``--shards``), and the games in flight on it; the tournament loop sends each game to
    the shard with the fewest in flight."""

    index: int
    address: str
    stub: control_pb2_grpc.ControlServiceStub
    in_flight: int = 0
    created: int = 0       # games created on it in this session (replays too)


def replay_seed(seed: int, attempt: int) -> int:
    """The deck seed of a game's ``attempt``-th replay after a crash: a fresh deck (the same one would let a bot
    that saved what it saw replay knowing the deal), derived from the planned seed like the plan's own seeds."""
    return random.Random(f"{seed}/replay/{attempt}").randrange(1 << 31)


def _duration(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


@dataclass
class Progress:
    """Where a run stands; the arena updates it as each game finishes and calls ``on_progress`` then, and every
    PROGRESS_TICK_S meanwhile."""

    total: int
    done: int = 0                                       # stored games of the run, those of earlier sessions too
    faults: int = 0
    started: float = field(default_factory=time.monotonic)
    in_flight: int = 0
    most_in_flight: int = 0                             # the most games in flight at once in this session
    concurrency: int = 0                                # the games in flight the arena keeps (--concurrency)
    resumed: int = 0                                    # games stored before this session (a resumed run)
    replayed: int = 0                                   # games played again because a bot process crashed
    crashes: int = 0                                    # bot process crashes noticed in this session
    withdrawn: list[str] = field(default_factory=list)  # bots withdrawn from the run (see Arena._withdraw)
    not_played: int = 0                                 # planned games left unplayed because a bot of theirs was withdrawn
    stopped: str | None = None                          # --until-confident: why the run stopped (Arena._confident)
    flight_seconds: float = 0.0                         # the integral of in_flight over time (see mean_in_flight)
    _flight_first: float = 0.0                          # when the first game started
    _flight_since: float | None = None                  # when in_flight last changed

    def fly(self, delta: int, now: float | None = None) -> None:
        """``delta`` games more (or fewer) in flight, at ``now`` (time.monotonic())."""
        now = time.monotonic() if now is None else now
        if self._flight_since is None:
            self._flight_first = now
        else:
            self.flight_seconds += self.in_flight * (now - self._flight_since)
        self._flight_since = now
        self.in_flight += delta
        self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def mean_in_flight(self, now: float | None = None) -> float:
        """The mean games in flight over time, from the first game's start to ``now``: an adaptive run keeps fewer
        than its most, as it waits for the games its next round is chosen on (a straggler among them holds it up)."""
        if self._flight_since is None:
            return 0.0
        now = time.monotonic() if now is None else now
        area = self.flight_seconds + self.in_flight * (now - self._flight_since)
        return area / max(1e-9, now - self._flight_first)

    def rate(self) -> float:
        """Games finished per second in this session."""
        return (self.done - self.resumed) / max(1e-6, time.monotonic() - self.started)

    def eta(self) -> str:
        """The time until every planned game is played at the rate so far ("1m12s"); "-" before the first game finishes."""
        rate = self.rate()
        return _duration((self.total - self.done) / rate) if rate > 0 else "-"

    def line(self, label: str) -> str:
        """One plain line: ``iowa/4p: 120/1000 games (12%), 12.3 games/s, ETA 1m12s, 3 faults, 40 in flight``."""
        pct = 100 * self.done // max(1, self.total)
        extra = f", {self.crashes} crashes ({self.replayed} games replayed)" if self.crashes else ""
        return (f"{label}: {self.done}/{self.total} games ({pct}%), {self.rate():.1f} games/s, "
                f"ETA {self.eta()}, {self.faults} faults{extra}, {self.in_flight} in flight")


class Withdrawn(Exception):
    """A game's bot was withdrawn from the run: the game is not played (it stays pending)."""


# ----------------------------------------------------------------------------- the run
class Arena:
    def __init__(self, config: RunConfig, store: Store, on_progress: Callable[[Progress], None] | None = None,
                 notify: Callable[[str], None] | None = None):
        self.cfg = config
        self.notify = notify or (lambda msg: None)
        self.store = store
        self.on_progress = on_progress or (lambda p: None)
        self.rater = Rater(tau=config.tau)
        self.rs = config.ruleset_obj()
        self.players = config.resolved_players()
        self.pool = config.pool().key              # by the ruleset's content, not its name
        self.table = self.rs.table(self.players)
        params = config.ruleset_params()
        # How CreateGame names the ruleset: a built-in by name, a ruleset file by its keys.
        self.ruleset_source = {"ruleset": self.rs.name} if params is None else {"ruleset_json": json.dumps(params)}
        self._procs: dict[str, BotProcesses] = {}   # the command bots still in the run
        self._launched: dict[str, BotProcesses] = {}  # every command bot launched (withdrawn ones too)
        self._remote: set[str] = set()
        # (shard, bot or "" for the referee) -> when its games on that shard began to wait
        self._down_since: dict[tuple[int, str], float] = {}
        self._told: set[tuple[int, str]] = set()
        self.shards: list[Shard] = []               # the run's referees (one unless --shards)
        self._wait_lock = asyncio.Lock()
        self._create_window = asyncio.Semaphore(CREATE_WINDOW)
        self._entrants: list[str] = []
        self._withdrawn: dict[str, str] = {}      # bot -> why it was withdrawn from this run
        self.versions: dict[str, int] | None = None  # bot -> its version this run plays (None: each bot's newest)
        self._clocks: dict[str, tuple[int | None, int | None]] = {}  # bot -> its own (deadline, bank) from registration
        self._flying: set[int] = set()            # plan indexes of the games in flight (see _rate_in_order)
        self._rated_below = 0                      # every planned game below this index is rated
        self._commits: GroupCommitter | None = None  # the writer of finished games while _play runs
        self._round: schedule.Plan | None = None    # an adaptive round planned and not stored yet (_append_plan)
        self.deals: list[deals.Deal] | None = None  # --deals: the deal set the matches are dealt from
        self.plan: schedule.Plan | None = None     # a given plan instead of the config's (see open_run)
        self._plan_rows: list[PlannedGame] = []    # the run's plan as far as read (see _planned)

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
        boxed = [n for n in names if n in registered and registered[n].image]
        if boxed and self.cfg.sandbox != "docker":
            raise UsageError(f"bot(s) {', '.join(boxed)} run in their Docker image: add --sandbox docker")
        if len(set(names)) < 2:
            raise UsageError("a tournament needs at least 2 registered bots (see `pepper bot list`)")
        try:
            schedule.lineups(names, self.rs, self.players, self.cfg.lineup)
        except ValueError as e:
            raise UsageError(f"--lineup {self.cfg.lineup}: {e} (--bots {','.join(names)}); "
                             "add bots or use --lineup mirrored") from None
        if self.cfg.deals:
            try:
                self.deals = deals.load(self.cfg.deals, self.rs, self.players)
            except deals.DealSetError as e:
                raise UsageError(str(e)) from None
        return [registered[n] for n in dict.fromkeys(names)]

    def open_run(self) -> tuple[int, list[Bot]]:
        """Check the run, settle its bots' versions, and find or create it with its plan (``plan``, when set:
        that plan instead of the config's, as a match played on a cluster node; see :mod:`arena.distributed`).
        Returns (run id, its bots); starts nothing."""
        bots = registry.current_versions(self.store, self.check(), self.notify)
        names = [b.name for b in bots]
        self.versions = {b.name: b.version for b in bots}
        self._clocks = {b.name: (b.deadline_ms, b.time_bank_ms) for b in bots if (b.deadline_ms, b.time_bank_ms) != (None, None)}
        key = self.cfg.run_key(names)
        if self.deals:  # the deals themselves, not the file's name: a changed file is a new run
            key["deals"] = deals.key(self.deals)
        plan = self.plan if self.plan is not None else [] if self.cfg.adaptive else schedule.plan(
            names, self.rs, self.players, self.cfg.games, self.cfg.seed,
            mode=self.cfg.lineup, duplicate=self.cfg.duplicate, deal_seeds=self._deal_seeds())
        run_id, _resumed = self.store.find_or_create_run(key, plan)
        return run_id, bots

    async def run(self) -> tuple[int, Progress]:
        run_id, bots = self.open_run()
        names = [b.name for b in bots]
        log_dir = Path(self.cfg.log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        refs: list[RefereeProcess] = []
        token = self.cfg.control_token or secrets.token_urlsafe(24)
        sandbox = BotSandbox() if self.cfg.sandbox == "docker" else None   # reaps what a killed run left
        if self.cfg.referee:
            addresses = [self.cfg.referee]
        else:
            try:  # shard 0 where --listen says, the others on the same host's free ports
                for i in range(self._shard_count(run_id, bots)):
                    refs.append(RefereeProcess(log_dir, token, self.cfg.listen if i == 0 else _any_port(self.cfg.listen),
                                               unix_socket=sandbox.socket if sandbox else None, shard=i))
            except BaseException:
                for r in refs:
                    r.stop()
                if sandbox:
                    sandbox.close()
                raise
            addresses = [r.address for r in refs]
        address = addresses[0]
        procs: list[BotProcesses] = []
        channels = [grpc.aio.insecure_channel(a, options=[("grpc.max_receive_message_length", 64 << 20)])
                    for a in addresses]
        try:
            shards = [Shard(i, a, control_pb2_grpc.ControlServiceStub(ch)) for i, (a, ch) in enumerate(zip(addresses, channels))]
            self.shards = shards
            md = (("authorization", f"Bearer {token}"),)
            need = self._connections_needed(names)
            self._entrants = names
            for b in bots:
                # The referee gets a token's digest, never the token: a remote bot's as stored, and for a command
                # bot a fresh token of this run's, which only its processes are given.
                token = new_token() if b.kind is BotKind.COMMAND else None
                digest = token_sha256(token) if token else b.token_sha256
                for shard in shards:  # the same token on every shard
                    answer = await shard.stub.RegisterBot(
                        control_pb2.RegisterBotRequest(name=b.name, token_sha256=bytes.fromhex(digest)), metadata=md)
                    if answer.token:  # it ignored token_sha256 and made a token of its own
                        raise ArenaError(f"the referee at {shard.address} does not take bot tokens by digest "
                                         "(RegisterBotRequest.token_sha256, protocol 1.5): run a newer referee")
                if token:
                    try:
                        procs.append(BotProcesses(b, addresses, token, log_dir, self.cfg.bot_env, need[b.name],
                                                  sandbox=sandbox))
                    except BotStartError as e:
                        self._withdraw(b.name, e.why, log_dir / f"bot-{b.name}.log")
            self._procs = {p.bot.name: p for p in procs}
            self._launched = dict(self._procs)
            remote = [b.name for b in bots if b.kind is BotKind.REMOTE]
            self._remote = set(remote)
            if remote:
                self.notify(f"waiting for remote bot(s) {', '.join(f'{n} ({need[n]} connection(s))' for n in remote)} "
                            f"to connect to {address} (PEPPER_REFEREE, with the token from `pepper bot token NAME`; "
                            "a connection holds one seat of a game, so a bot needs a connection for each seat it takes)")
            await self._await_connections(shards, md, bots, procs, need, timeout=600.0 if remote else 60.0)
            progress = await self._play(shards, md, run_id, names, procs)
            pending = self.store.pending(run_id)
            if not pending and (not self.cfg.adaptive or self.store.planned_count(run_id) >= self.cfg.games):
                self.store.finish_run(run_id)
            if self._withdrawn:
                progress.withdrawn = sorted(self._withdrawn)
                progress.not_played = sum(1 for g in pending if self._withdrawn.keys() & set(g.seats))
                self.notify(f"withdrawn from this run: {', '.join(progress.withdrawn)}; {progress.not_played} planned "
                            "game(s) with them not played (fix them, then run the same command again to play those)")
            return run_id, progress
        except grpc.aio.AioRpcError as e:
            raise ArenaError(f"referee at {', '.join(addresses)}: {e.code().name}: {e.details()}") from None
        finally:
            for p in procs:
                p.stop()
            for ch in channels:
                await ch.close()
            for r in refs:
                r.stop()
            if sandbox:
                sandbox.close()

    def _shard_count(self, run_id: int, bots: list[Bot]) -> int:
        """The referee shards this run starts: --shards, else :func:`default_shards` of the games it has to play
        (1 with --sandbox docker or a remote bot, which reach one referee)."""
        if self.cfg.shards:
            return self.cfg.shards
        if self.cfg.sandbox == "docker" or any(b.kind is BotKind.REMOTE for b in bots):
            return 1
        pending = (self.cfg.games - self.store.game_ids(run_id).count) if self.cfg.adaptive else len(self.store.pending(run_id))
        return default_shards(pending)

    def _dispatch(self, shards: list[Shard]) -> Shard:
        """The shard a game goes to: the one with the fewest games in flight (the first of those). Where a game is
        played changes nothing of its result: it is dealt and seated by the plan."""
        return min(shards, key=lambda s: s.in_flight)

    @staticmethod
    async def _connections(shards: list[Shard], md) -> dict[str, int]:
        """Per bot, its live connections on the shard where it has the fewest."""
        have: dict[str, int] | None = None
        for s in shards:
            info = await s.stub.ListBots(control_pb2.ListBotsRequest(), metadata=md)
            got = {b.name: b.connections for b in info.bots}
            have = got if have is None else {n: min(c, got.get(n, 0)) for n, c in have.items()}
        return have or {}

    def _connections_needed(self, names: list[str]) -> dict[str, int]:
        """Per bot, the most seats it takes in one game of this pool: the live connections it needs."""
        need = dict.fromkeys(names, 1)
        for seats in schedule.lineups(names, self.rs, self.players, self.cfg.lineup):
            for n in set(seats):
                need[n] = max(need[n], seats.count(n))
        return need

    async def _await_connections(self, shards: list[Shard], md, bots: list[Bot], procs: list[BotProcesses],
                                 need: dict[str, int], timeout: float = 60.0) -> None:
        deadline = time.time() + timeout
        seen: dict[str, int] = {}
        while True:
            want = {b.name for b in bots} - self._withdrawn.keys()
            have = await self._connections(shards, md)   # on every shard
            connected = {n for n in want if have.get(n, 0) >= need.get(n, 1)}
            if want <= connected:
                return
            for p in procs:
                if p.bot.name not in want:
                    continue
                if have.get(p.bot.name, 0):
                    p.connected_once = True
                # A launched bot that never connected and keeps dying on start (a bad command, a missing
                # file, an import error) is withdrawn now; one that connected before is restarted and waited for.
                if p.all_dead() and not p.connected_once and p.restarts >= 2:
                    self._withdraw(p.bot.name, f"exited before connecting (exit code {p.exit_codes()}, after "
                                               f"{p.restarts} restart(s))")
                else:
                    self._tend(p)
            for n in sorted(self._remote & (want - connected)):
                if have.get(n, 0) != seen.get(n, 0):   # a remote bot's owner sees its connections arrive
                    self.notify(f"remote bot {n}: {have.get(n, 0)} of {need.get(n, 1)} connections")
                seen[n] = have.get(n, 0)
            if time.time() > deadline:
                for n in sorted(want - connected):
                    self._withdraw(n, f"did not connect within {timeout:.0f}s ({have.get(n, 0)} of {need.get(n, 1)} "
                                      "connections)" + ("" if n in self._procs else self._remote_hint(n, need.get(n, 1))))
                return
            await asyncio.sleep(0.1)

    # -- withdrawing a broken entrant ----------------------------------------------------------------
    def _withdraw(self, name: str, why: str, log: Path | None = None) -> None:
        """Take ``name`` out of the run (``why`` follows "bot NAME"): stop its processes, say why and where its
        log is; its games that have not begun are not played. ArenaError when the bots left cannot fill a game."""
        p = self._procs.pop(name, None)
        if p is not None:
            p.stop()
            log = p.log_path
        self._withdrawn[name] = why
        self._back(name)   # on every shard
        where = f"; last lines of its log, {log}:\n{p.tail()}" if p else f"; its log: {log}" if log else ""
        message = f"bot {name!r} {why}: it is withdrawn from this run{where}"
        left = [n for n in self._entrants if n not in self._withdrawn]
        try:
            if len(left) < 2:
                raise ValueError(f"{'only ' + left[0] if left else 'no bot'} is left, and a game needs 2 bots")
            schedule.lineups(left, self.rs, self.players, self.cfg.lineup)
        except ValueError as e:
            raise ArenaError(f"{message}\nthe run cannot go on: {e}; fix the bot, then run the same command "
                             "again to resume the run") from None
        self.notify(f"{message}\nthe others play on ({', '.join(left)})")

    def _tend(self, p: BotProcesses) -> None:
        """Restart ``p``'s dead processes; withdraw its bot once it can no longer be started, keeps crashing on start,
        or has crashed more than MAX_CRASHES times in the run."""
        try:
            p.check()
        except BotStartError as e:
            self._withdraw(p.bot.name, e.why)
            return
        if p.keeps_crashing():
            self._withdraw(p.bot.name, f"kept crashing: a process died {p.RESTART_BUDGET} times in a row soon after "
                                       f"starting ({p.restarts} restart(s) in this run, exit code {p.exit_codes()})")
        elif len(costly := [c for c in p.crashes if c.cost_games]) > MAX_CRASHES:
            self._withdraw(p.bot.name, f"crashed {len(costly)} times in this run with games in flight, more than the "
                                       f"{MAX_CRASHES} a bot may (those games are replayed; exit codes "
                                       f"{', '.join(str(c.exit_code) for c in costly)})")

    def _entered(self, seats: list[str]) -> None:
        """Withdrawn when a bot of ``seats`` has been withdrawn from the run."""
        if gone := sorted(self._withdrawn.keys() & set(seats)):
            raise Withdrawn(", ".join(gone))

    @staticmethod
    def _remote_hint(name: str, need: int) -> str:
        return (f"; its owner starts it, {need} process(es) with PEPPER_REFEREE, PEPPER_BOT_NAME and the token "
                f"`pepper bot token {name}`")

    # -- creating a game, waiting out a bot that is down -------------------------------------------
    async def _create(self, shard: Shard, md, req: control_pb2.CreateGameRequest, seats: list[str]) -> str:
        """CreateGame on ``shard``; while its referee answers UNAVAILABLE (a bot without the live connections the
        game needs: its process restarting, a remote bot reconnecting), restart and wait, then try again."""
        while True:
            self._entered(seats)
            try:
                async with self._create_window:
                    created = await shard.stub.CreateGame(req, metadata=md)
            except grpc.aio.AioRpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                detail = e.details()
            else:
                for n in ("", *set(seats)):
                    self._back(n, shard.index)
                shard.created += 1
                return created.game_id
            # One task waits at a time; the others then find the bots back and retry at once.
            async with self._wait_lock:
                await self._wait_for(shard, md, seats, detail)

    async def _wait_for(self, shard: Shard, md, seats: list[str], detail: str) -> None:
        """Until every bot of ``seats`` has as many live connections on ``shard`` as it takes seats (restarting its
        processes meanwhile); a bot that stays short for longer than its limit, or keeps crashing, is withdrawn
        (Withdrawn). A refusal that is not about connections (the referee draining) is retried under the key
        ``""``, and ends the run (ArenaError) after its limit."""
        delay = 0.05
        where = f" at {shard.address}" if len(self.shards) > 1 else ""
        while True:
            self._entered(seats)
            info = await shard.stub.ListBots(control_pb2.ListBotsRequest(), metadata=md)
            have = {b.name: b.connections for b in info.bots}
            short = sorted(n for n in set(seats) if have.get(n, 0) < seats.count(n))
            now = time.monotonic()
            for n in set(seats) - set(short):
                self._back(n, shard.index)
            if not short:
                again = (shard.index, "") in self._down_since
                since = self._down_since.setdefault((shard.index, ""), now)
                if now - since > self.cfg.bot_down_s:
                    raise ArenaError(f"the referee{where} refused new games for {now - since:.0f}s: UNAVAILABLE: "
                                     f"{detail}; run the same command again to resume the run")
                if again:
                    if now - since > 5 and (shard.index, "") not in self._told:
                        self._told.add((shard.index, ""))
                        self.notify(f"the referee{where} refuses new games ({detail}); retrying")
                    await asyncio.sleep(0.2)
                return  # CreateGame again
            for n in short:
                since = self._down_since.setdefault((shard.index, n), now)
                limit = self.cfg.remote_down_s if n in self._remote else self.cfg.bot_down_s
                if now - since > limit:
                    self._withdraw(n, self._down_message(n, seats.count(n), have.get(n, 0), now - since))
                if now - since > 5 and (shard.index, n) not in self._told:
                    self._told.add((shard.index, n))
                    self.notify(f"waiting for bot {n!r} to get its connections{where} back "
                                f"({have.get(n, 0)} of {seats.count(n)}); its games wait")
                if n in self._procs:
                    self._tend(self._procs[n])
                self._entered(seats)
            await asyncio.sleep(delay)
            delay = min(1.0, delay * 2)

    def _back(self, name: str, shard: int | None = None) -> None:
        """``name`` (a bot, or "" for the referee) is no longer keeping games waiting on ``shard`` (None: on any)."""
        if not self._down_since and not self._told:  # the usual case, at every game created
            return
        for key in [k for k in self._down_since if k[1] == name and shard in (None, k[0])]:
            del self._down_since[key]
        self._told -= {k for k in self._told if k[1] == name and shard in (None, k[0])}

    def _down_message(self, name: str, need: int, have: int, waited: float) -> str:
        head = f"has had {have} of the {need} live connection(s) a game needs for {waited:.0f}s"
        if name in self._procs:
            return f"{head}, although its processes were restarted {self._procs[name].restarts} time(s) in this run"
        return head + self._remote_hint(name, need)

    # -- adaptive planning ---------------------------------------------------------------------------
    def _next_adaptive(self, names: list[str], run_id: int) -> int:
        """Plan the next round (:func:`adaptive_round` games, whole matches) on the ratings after all but the last
        :func:`adaptive_lag` planned games (:func:`schedule.adaptive_order`): every line-up keeps a floor of matches, and
        the rest go to the line-ups whose bots the table may have the wrong way round (:meth:`lineup_scores`), among
        those of bots with about as many matches as the least-played one. Returns the matches planned."""
        names = [n for n in names if n not in self._withdrawn]
        ups = schedule.lineups(names, self.rs, self.players, self.cfg.lineup)
        mirrored = self.cfg.lineup == "mirrored" and self.table.teams < self.players
        per_match = len(schedule.rotations(ups[0], mirrored)) if self.cfg.duplicate else 1
        plan = self._planned(run_id)
        planned = len(plan)
        # On the ratings after the games planned up to the lag, whatever has finished meanwhile: the same command and
        # seed plan the same rounds (_play waits for those games first).
        ratings = self.store.ratings_after(self.pool, run_id, self._adaptive_basis(run_id), self.versions)
        left = -(-max(1, self.cfg.games - planned) // per_match)  # matches still to plan
        matches = min(left, max(1, self._adaptive_window(planned)[1] // per_match))
        match_seats = {g.match: g.seats for g in plan}  # the last game's seats of each match
        first_match = max(match_seats, default=-1) + 1
        played = Counter(schedule.lineup_key(s, mirrored) for s in match_seats.values())
        counts = [played[schedule.lineup_key(u, mirrored)] for u in ups]
        bot_counts = Counter(b for seats in match_seats.values() for b in set(seats))
        scores = self.lineup_scores(ratings, names, ups)
        order = [ups[i] for i in schedule.adaptive_order(scores, counts, matches, members=[sorted(set(u)) for u in ups],
                                                         bot_counts={n: bot_counts[n] for n in names})]
        more = schedule.plan(names, self.rs, self.players, matches * per_match, self.cfg.seed,
                             mode=self.cfg.lineup, duplicate=self.cfg.duplicate, first_match=first_match,
                             lineup_order=order, played=played, deal_seeds=self._deal_seeds())
        self._append_plan(run_id, more)
        return matches

    def _append_plan(self, run_id: int, more: schedule.Plan) -> None:
        """Store an adaptive round's games: at once, or, while a run plays, by :meth:`_play` through the group
        writer (a commit of the loop's would wait for the disk and for the writer's lock: 18 ms a round on the loaded 2-core
        machine)."""
        if self._commits is None:
            self.store.append_plan(run_id, more)
        else:
            self._round = more

    def _planned(self, run_id: int) -> list[PlannedGame]:
        """The run's plan so far, in plan order: the store's rows read only from where they were last read (each
        adaptive round adds a few; reading the whole plan at every round made planning grow with the run)."""
        self._plan_rows.extend(self.store.planned(run_id, start=len(self._plan_rows)))
        return self._plan_rows

    def _adaptive_window(self, planned: int) -> tuple[int, int]:
        """The lag and the round's games of the next adaptive round, after ``planned`` planned games."""
        return adaptive_lag(planned), adaptive_round(planned)

    def _adaptive_basis(self, run_id: int) -> int:
        """The planned games the next adaptive round is chosen on: all but the last :func:`adaptive_lag` (those that
        may still be in flight when it is planned)."""
        planned = len(self._planned(run_id))
        return max(0, planned - self._adaptive_window(planned)[0])

    def separations(self, run_id: int) -> list[tuple[str, str, bool]] | None:
        """The table's adjacent pairs (upper, lower, significantly apart at 95%) as of the adaptive basis (the
        planned games before the rounds in flight, all stored and rated; None before any): by their head-to-head
        blocks where they have two or more, else their ratings, as the leaderboard marks ties
        (:func:`stats.separation`). A function of the plan only, not of the order games finished in."""
        basis = self._adaptive_basis(run_id)
        if basis == 0:
            return None
        names = [n for n in self._entrants if n not in self._withdrawn]
        rated = self.store.ratings_after(self.pool, run_id, basis, self.versions)
        ratings = {n: rated.get(n, Rating()) for n in names}
        planned = self._planned(run_id)
        done = {g.match for g in planned[:basis]} - ({planned[basis].match} if basis < len(planned) else set())
        blocks: dict[tuple[str, str], list[Block]] = {}
        for b in self.store.blocks(self.pool):
            if (b.games == b.planned and (b.run_id != run_id or b.match in done)
                    and self._version(b.bot) == b.version and self._version(b.opponent) == b.opponent_version):
                blocks.setdefault((b.bot, b.opponent), []).append(Block(b.games, b.score, b.score_sq, b.margin, b.margin_sq))
        order = sorted(names, key=lambda n: -ratings[n].conservative)
        return [(a, b, stats.separation(ratings[a], ratings[b], head_to_head(a, b, blocks.get((a, b), [])))[1])
                for a, b in zip(order, order[1:])]

    def _confident(self, run_id: int) -> str | None:
        """--until-confident: why the run stops now (every adjacent pair of the table separated), or None."""
        pairs = self.separations(run_id)
        if not pairs or not all(sig for _, _, sig in pairs):
            return None
        basis = self._adaptive_basis(run_id)
        return (f"every adjacent pair of the table is significantly apart (95%) after the first {basis} planned games "
                f"({' > '.join([pairs[0][0]] + [b for _, b, _ in pairs])}); the games planned after them are "
                f"played too: {self.store.planned_count(run_id)} of the --games {self.cfg.games} cap")

    def _deal_seeds(self) -> list[int | None] | None:
        return [d.seed for d in self.deals] if self.deals else None

    def decided(self, run_id: int) -> bool:
        """Whether an adaptive run has seen enough before its planned games run out (arena.match: its SPRT)."""
        return False

    def lineup_scores(self, ratings: dict, names: list[str], ups: list[list[str]]) -> list[float]:
        """How much a game of each line-up of ``ups`` may set the table right: the doubt about the order of the bots it
        sets against each other that the table has next to each other (:func:`schedule.table_doubt`)."""
        doubt = schedule.table_doubt(ratings, names, Rating())
        return [schedule.lineup_table_doubt(doubt, u, self.table) for u in ups]

    # -- playing -------------------------------------------------------------------------------------
    async def _play(self, shards: list[Shard], md, run_id: int, names: list[str], procs: list[BotProcesses]) -> Progress:
        cfg = self.cfg
        total = cfg.games if cfg.adaptive else self.store.planned_count(run_id)
        # A resumed run starts from the games, and the faults, it stored before.
        done = self.store.game_ids(run_id).count
        concurrency = cfg.concurrency or default_concurrency(
            (total - done) if cfg.adaptive else len(self.store.pending(run_id)),
            sum(p.slots for p in procs) + len(self._remote))
        progress = Progress(total=total, done=done, resumed=done, faults=self.store.run_faults(run_id),
                            concurrency=concurrency)
        self._rate_in_order(run_id)  # games a killed session stored and did not get to rate
        sem = asyncio.Semaphore(concurrency)
        finished = asyncio.Event()
        policy = control_pb2.GamePolicy(deadline_ms=cfg.deadline_ms, time_bank_ms=cfg.time_bank_ms,
                                        play_forced=cfg.play_forced)
        errors: list[BaseException] = []

        async def one(idx, seed, seats, match):
            try:
                played, attempt = seed, 0
                controls = self._time_controls(seats)
                given = deals.for_match(self.deals, match)
                while True:
                    # A replay is dealt a fresh deck: the deal set's decks too give way to the replay's seed.
                    decks = [control_pb2.Deck(cards=d) for d in given.decks] if given and not attempt else []
                    req = control_pb2.CreateGameRequest(**self.ruleset_source, players=self.players, seats=seats,
                                                        seed=played, policy=policy, seat_time_controls=controls,
                                                        decks=decks)
                    shard = self._dispatch(shards)
                    shard.in_flight += 1
                    try:
                        game_id = await self._create(shard, md, req, seats)
                        created = time.monotonic()
                        res = (await shard.stub.WaitGame(control_pb2.WaitGameRequest(game_id=game_id), metadata=md)).result
                    finally:
                        shard.in_flight -= 1
                    crash = await self._crash_of(res, seats, created, shard.index)
                    if crash is None:
                        break
                    if attempt >= MAX_REPLAYS:   # its forfeit stands; the crash still cost a game (and counts)
                        crash.games_forfeited += 1
                        break
                    # Lost to a crash of a bot's process: played again from its start, on a fresh deck.
                    crash.games_replayed += 1
                    progress.replayed += 1
                    attempt += 1
                    played = replay_seed(seed, attempt)
                await self._store_result(run_id, idx, played, seats, res)
                progress.done += 1
                progress.faults += sum(f.illegal + f.malformed + f.timeout + f.disconnect for f in (s.faults for s in res.seats))
            except Withdrawn:  # a bot of the game was withdrawn: the game is not played
                self._flying.discard(idx)
            except Exception as e:  # noqa: BLE001 - ends the run, after the loop
                errors.append(e)
            finally:
                progress.fly(-1)
                sem.release()
                finished.set()
                self.on_progress(progress)

        async def tick():  # rate and ETA move, and settled crashes are stored, while no game finishes
            while not errors:
                await asyncio.sleep(PROGRESS_TICK_S)
                progress.crashes = sum(len(p.crashes) for p in procs)
                try:
                    self._record_crashes(run_id, procs, settled=True)
                except Exception as e:  # noqa: BLE001 - the database: ends the run, after the loop
                    errors.append(e)
                    finished.set()
                self.on_progress(progress)

        tasks: set[asyncio.Task] = set()
        started: set[int] = set()
        # The games to play: those of the plan without a stored result, then each adaptive round as it is planned
        # (read from where the plan was last read: a round costs no read of the whole plan).
        unplayed = {g.idx for g in self.store.pending(run_id)}
        known = len(self._planned(run_id))
        seen = 0
        # Finished games are committed in groups by one writer, in its own thread, and rated in plan order in the
        # same transactions (see arena.commits): after each group every game that can be rated is.
        self._commits = self.committer(run_id)
        await self._commits.start()
        ticker = asyncio.create_task(tick())
        self.on_progress(progress)
        try:
            while not errors:
                plan = self._planned(run_id)
                queue = [g for g in plan[seen:] if (g.idx in unplayed or g.idx >= known) and g.idx not in started]
                seen = len(plan)
                if not queue:
                    if not (cfg.adaptive and len(plan) < cfg.games) or self.decided(run_id):
                        break
                    # Plan the next round once it fits in the games in flight (the lag and a round at most), or once
                    # no more than half a round is in flight when --concurrency is below a round.
                    lag, rnd = self._adaptive_window(len(plan))
                    low_water = max(min(concurrency, lag + rnd) - rnd, max(1, min(concurrency, rnd)) // 2)
                    while progress.in_flight > low_water and not errors:
                        finished.clear()
                        await finished.wait()
                    basis = self._adaptive_basis(run_id)
                    while any(i < basis for i in self._flying) and not errors:  # the rounds the next is chosen on
                        finished.clear()
                        await finished.wait()
                    self._rate_in_order(run_id)
                    if cfg.until_confident and not errors and (why := self._confident(run_id)):
                        progress.stopped = why
                        break
                    if not errors:
                        self._next_adaptive(names, run_id)
                        more, self._round = self._round, None
                        if more is not None:
                            await self._commits.call(lambda store, more=more: store.append_plan(run_id, more))
                    continue
                for g in queue:
                    if self._withdrawn.keys() & set(g.seats):  # not played (it stays pending)
                        started.add(g.idx)
                        continue
                    await sem.acquire()
                    if errors:
                        sem.release()
                        break
                    for p in list(self._procs.values()):
                        self._tend(p)
                    started.add(g.idx)
                    self._flying.add(g.idx)
                    progress.fly(+1)
                    t = asyncio.create_task(one(g.idx, g.seed, g.seats, g.match))
                    tasks.add(t)
                    t.add_done_callback(tasks.discard)
            if errors:  # the run ends: games in flight are played again when it resumes
                for t in tasks:
                    t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            ticker.cancel()
            for t in tasks:
                t.cancel()
            commits, self._commits = self._commits, None
            try:  # every game finished is committed before the run returns, whatever ends it
                await commits.close()
            except Exception as e:  # noqa: BLE001 - the database: ends the run, unless something else did first
                errors.append(e)
        if errors:
            e = errors[0]
            if isinstance(e, grpc.aio.AioRpcError):
                raise ArenaError(f"referee error: {e.code().name}: {e.details()}; run the same command again to resume")
            raise e
        self._rate_in_order(run_id, past_gaps=True)
        for p in procs:
            p.notice_crashes()
        self._record_crashes(run_id, procs, settled=False)
        progress.crashes = sum(len(p.crashes) for p in procs)
        self.on_progress(progress)
        return progress

    # -- crashes -------------------------------------------------------------------------------------
    async def _crash_of(self, res: control_pb2.GameResult, seats: list[str], created: float,
                        shard: int = 0) -> Crash | None:
        """The crash of a command bot's process on ``shard`` that made a game there end with a disconnect, or None
        (no disconnect, a remote bot's, or a command bot's whose processes all lived: those stand). A process's
        sockets close as it exits, so its death may be noticed a moment after the referee reports the disconnect:
        waited for."""
        gone = [self._launched[seats[s]] for s, r in enumerate(res.seats)
                if r.faults.disconnect and seats[s] in self._launched]
        deadline = time.monotonic() + CRASH_GRACE_S
        while gone:
            for p in gone:
                p.notice_crashes()
                if crash := next((c for c in p.crashes if c.shard == shard and c.at >= created - CRASH_GRACE_S), None):
                    return crash
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        return None

    def _record_crashes(self, run_id: int, procs: list[BotProcesses], *, settled: bool) -> None:
        """Store each crash once (``settled``: only those whose games in flight have come back)."""
        now = time.monotonic()
        for p in procs:
            for c in p.crashes:
                if not c.recorded and (not settled or now - c.at > CRASH_SETTLE_S):
                    self.store.record_crash(run_id, self.pool, c.bot, self._version(c.bot), c.exit_code, c.games_replayed)
                    c.recorded = True
                    costly = [k for k in p.crashes if k.cost_games]
                    count = (f"crash {costly.index(c) + 1} with games in flight, of the {MAX_CRASHES} a bot may have in "
                             "a run" if c in costly else "no game in flight on it: not counted")
                    lost = f", {c.games_forfeited} lost (replayed {MAX_REPLAYS} times already)" if c.games_forfeited else ""
                    self.notify(f"bot {c.bot!r}: a process crashed (exit code {c.exit_code}, {count}); {c.games_replayed} "
                                f"game(s) in flight on it replayed from their start{lost}; its log: {p.log_path}")

    def _time_controls(self, seats: list[str]) -> list[control_pb2.TimeControl]:
        """Each seat's own time controls, from its bot's registration (none set: the run's, for every seat)."""
        if not self._clocks.keys() & set(seats):
            return []
        return [control_pb2.TimeControl(**{k: v for k, v in zip(("deadline_ms", "time_bank_ms"), self._clocks.get(n, ()))
                                           if v is not None}) for n in seats]

    def _version(self, bot: str) -> int:
        """The version of ``bot`` this run plays."""
        return (self.versions or {}).get(bot, 1)

    def committer(self, run_id: int) -> GroupCommitter:
        """The writer of the run's finished games: each group, and the ratings it makes ready, in one transaction."""
        return GroupCommitter(self.store.path, then=lambda store: self._rate_in_order(run_id, store=store))

    async def _store_result(self, run_id: int, idx: int, seed: int, seats: list[str], res: control_pb2.GameResult) -> None:
        """Store a finished game (unrated: rated in plan order, :meth:`_rate_in_order`); returns once it is committed."""
        game = results.new_game(res, self.table, run_id=run_id, idx=idx, pool=self.pool, ruleset=self.rs.name,
                                seed=seed, seats=seats, versions=self.versions)
        await self._commits.commit(game)
        self._flying.discard(idx)

    def _rate_in_order(self, run_id: int, *, past_gaps: bool = False, store: Store | None = None) -> None:
        """Rate the run's stored games in plan order, each once every game planned before it is stored (or every
        stored one, ``past_gaps``: at the end of a session, past the games a withdrawn bot left unplayed), so that
        the same command and seed give the same ratings whatever order the games finished in. ``store``: the
        connection to do it on (the group writer's, inside its transaction), by default the arena's."""
        store = store or self.store
        games = store.unrated(run_id, past_gaps=past_gaps, start=0 if past_gaps else self._rated_below)

        def rate(g, current):
            seats = [s.bot for s in sorted(g.seats, key=lambda s: s.seat)]
            return self.rater.rate(current, results.entries(self.table, seats), results.stored_ranks(g.seats, self.table))

        if games:  # in one transaction
            store.rate_games(games, rate)
            if not past_gaps:  # rated without a gap: every game before the next one is rated
                self._rated_below = games[-1].idx + 1


def run(config: RunConfig, on_progress=None, notify=None) -> tuple[int, Progress]:
    store = Store(config.db)
    try:
        return asyncio.run(Arena(config, store, on_progress, notify).run())
    finally:
        store.close()


__all__ = ["ADAPTIVE_LAG_GAMES", "ADAPTIVE_ROUND_GAMES", "CREATE_WINDOW", "Arena", "ArenaError", "Progress", "RunConfig", "Shard", "UsageError",
           "default_shards", "run"]
