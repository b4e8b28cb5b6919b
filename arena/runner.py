"""Running a tournament: referee, bot processes, scheduling, ratings, storage.

``run(config)`` plays every pending game of the run ``config`` describes:

1. opens the store and finds or creates the run (its plan is stored first, so
   a killed arena resumes where it stopped: see :mod:`arena.store`);
2. starts a referee subprocess on 127.0.0.1 (or uses ``--referee ADDRESS``);
3. registers every bot of the line-ups with the referee and launches the
   command bots (each as ``processes`` processes serving many seats), with
   ``PEPPER_REFEREE``, ``PEPPER_TOKEN`` and ``PEPPER_BOT_NAME`` set; remote
   bots connect by themselves;
4. keeps ``concurrency`` games in flight; each finished game and its
   TrueSkill update are stored in one transaction;
5. restarts a bot process that dies (its games in flight are recorded with a
   disconnect fault by the referee, under the game's failure policy). A game
   whose bot is down (restarting, or a remote bot reconnecting) waits for it;
   only a bot that stays down for minutes ends the run (it stays resumable).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shlex
import signal
import subprocess
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc, game_pb2

from referee.rules import BUILTIN_RULESETS, Ruleset, get_ruleset

from . import schedule
from .ratings import DEFAULT_SIGMA, DEFAULT_TAU, Rater, pool_name, ranks_from_result
from .registry import expand
from .stats import contracts_by_seat
from .store import Bot, Store

SEAT_STATUS = {game_pb2.SEAT_STATUS_OK: "ok", game_pb2.SEAT_STATUS_FAULTED: "faulted",
               game_pb2.SEAT_STATUS_DISCONNECTED: "disconnected", game_pb2.SEAT_STATUS_FORFEITED: "forfeited",
               game_pb2.SEAT_STATUS_ABORTED: "aborted"}
GAME_STATUS = {game_pb2.GAME_STATUS_COMPLETED: "completed", game_pb2.GAME_STATUS_FORFEITED: "forfeited",
               game_pb2.GAME_STATUS_ABORTED: "aborted", game_pb2.GAME_STATUS_RUNNING: "running"}


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGTERM us when the arena dies (even by kill -9),
    so a killed arena leaves no referee or bot behind. A no-op where prctl is missing."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class ArenaError(Exception):
    """The arena cannot go on; the message says what was wrong and what to do."""


class UsageError(ArenaError):
    """The run as asked cannot be played (unknown bot, too few bots for the line-up): found before anything starts."""


# Adaptive mode plans this many games per round (whole matches), whatever --concurrency says: enough to keep
# the referee busy while the next round is chosen on newer ratings. The next round is planned once half a
# round is left in flight.
ADAPTIVE_ROUND_GAMES = 24
# Weight of the uncertainty bonus (the sum of a line-up's sigmas) against TrueSkill match quality (0..1).
UNCERTAINTY_WEIGHT = 0.05


@dataclass
class RunConfig:
    ruleset: str = "iowa"
    players: int | None = None
    games: int = 1000
    seed: int = 1
    lineup: str = "mirrored"          # mirrored | mixed
    duplicate: bool = True
    adaptive: bool = False
    bots: list[str] | None = None     # default: every registered bot
    concurrency: int = 2048
    referee: str | None = None        # use this referee instead of starting one
    listen: str = "127.0.0.1:0"       # where the arena's own referee listens (remote bots connect here)
    control_token: str | None = None
    deadline_ms: int = 2000
    time_bank_ms: int = 10_000
    db: str = "arena.db"
    log_dir: str = "arena-logs"
    bot_env: dict = field(default_factory=dict)  # extra env for every launched bot (e.g. MC budget)
    play_forced: bool = True          # forced moves are played by the referee, not asked (GamePolicy.play_forced)
    tau: float = DEFAULT_TAU          # TrueSkill dynamics (0: bots do not drift; see arena.ratings)
    # How long a bot may lack the connections a game needs before the run ends (it stays resumable): a
    # launched bot is restarted meanwhile; a remote bot's owner may need minutes to restart it.
    bot_down_s: float = 120.0
    remote_down_s: float = 600.0

    def ruleset_obj(self) -> Ruleset:
        """The ruleset: a built-in name or a .toml file (RulesetError names what is wrong)."""
        return get_ruleset(self.ruleset)

    def ruleset_params(self) -> dict | None:
        """A ruleset file's keys (its name filled in), as CreateGame's ruleset_json; None for a built-in."""
        if self.ruleset in BUILTIN_RULESETS:
            return None
        rs = self.ruleset_obj()  # validates the file
        data = tomllib.loads(Path(self.ruleset).read_text(encoding="utf-8"))
        data.setdefault("name", rs.name)
        return data

    def resolved_players(self) -> int:
        rs = self.ruleset_obj()
        if self.players is None:
            return 4 if 4 in rs.player_counts else rs.player_counts[0]
        rs.table(self.players)  # raises RulesetError naming the allowed counts
        return self.players

    def run_key(self, bots: list[str]) -> dict:
        """What identifies a run: the same command (same key) resumes it; a ruleset file by its name and keys."""
        params = self.ruleset_params()
        key = {"ruleset": self.ruleset if params is None else params["name"], "players": self.resolved_players(),
               "games": self.games, "seed": self.seed, "lineup": self.lineup, "duplicate": self.duplicate,
               "adaptive": self.adaptive, "bots": sorted(bots)}
        return key if params is None else key | {"ruleset_params": params}


@dataclass
class Progress:
    total: int
    done: int = 0
    faults: int = 0
    started: float = field(default_factory=time.time)
    in_flight: int = 0


# ----------------------------------------------------------------------------- referee and bots
class RefereeProcess:
    """A referee subprocess on a free loopback port."""

    def __init__(self, log_dir: Path, control_token: str, address: str = "127.0.0.1:0"):
        self.token = control_token
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log = open(log_dir / "referee.log", "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee.service", "serve", "--address", address],
            stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL,
            env=os.environ | {"PEPPER_CONTROL_TOKEN": control_token}, start_new_session=True,
            preexec_fn=_die_with_parent)
        line = self.proc.stdout.readline().decode().strip()
        if not line.startswith("listening on "):
            self.stop()
            raise ArenaError(f"the referee did not start (said {line!r}); see {log_dir / 'referee.log'}")
        self.address = line.split()[-1]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


class BotProcesses:
    """The processes of one command bot, restarted when they die.

    Each process slot keeps its own count of quick deaths: a process that ran for a while
    (STABLE_S) before dying is restarted at once (a bot that crashes now and then, mid-game);
    each death soon after a start doubles that slot's delay (0.25 s up to 8 s), so a process
    that dies on start is not respawned in a hot loop, whatever the other slots do.
    """

    MAX_DELAY_S = 8.0
    STABLE_S = 10.0

    def __init__(self, bot: Bot, address: str, token: str, log_dir: Path, extra_env: dict, at_least: int = 1):
        self.bot, self.address, self.token = bot, address, token
        self.log_path = log_dir / f"bot-{bot.name}.log"
        self.extra_env = extra_env
        self.procs: list[subprocess.Popen] = []
        self.restarts = 0
        self.connected_once = False            # set by the arena once the referee lists a connection of the bot
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        # `at_least`: the seats the bot takes in one game (a connection holds one seat of a game).
        n = max(1, bot.processes, at_least)
        now = time.monotonic()
        self._started = [now] * n              # per slot: when its process was started
        self._quick = [0] * n                  # per slot: deaths in a row soon after a start
        self._due: list[float | None] = [None] * n   # per slot: when to restart it (None: alive, or not yet seen dead)
        for _ in range(n):
            self.procs.append(self._spawn())

    def _spawn(self) -> subprocess.Popen:
        env = os.environ | self.extra_env | self.bot.env | {
            "PEPPER_REFEREE": self.address, "PEPPER_TOKEN": self.token, "PEPPER_BOT_NAME": self.bot.name}
        try:
            return subprocess.Popen(shlex.split(expand(self.bot.command)), cwd=self.bot.cwd or None, env=env,
                                    stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, start_new_session=True,
                                    preexec_fn=_die_with_parent)
        except (OSError, ValueError) as e:
            raise ArenaError(f"cannot start bot {self.bot.name!r} with command {self.bot.command!r}: {e}; "
                             f"fix it with `pepper bot remove {self.bot.name}` and register it again") from None

    def delay(self, quick_deaths: int) -> float:
        """The wait before restarting a slot whose process died ``quick_deaths`` times in a row soon after starting."""
        return 0.0 if quick_deaths <= 1 else min(self.MAX_DELAY_S, 0.25 * 2 ** (quick_deaths - 2))

    def check(self) -> int:
        """Restart the dead processes whose delay is over (never blocks); returns how many were restarted."""
        n = 0
        now = time.monotonic()
        for i, p in enumerate(self.procs):
            if p.poll() is None:
                continue
            if self._due[i] is None:
                self._quick[i] = 1 if now - self._started[i] >= self.STABLE_S else self._quick[i] + 1
                self._due[i] = now + self.delay(self._quick[i])
            if now >= self._due[i]:
                self.procs[i] = self._spawn()
                self._started[i], self._due[i] = now, None
                self.restarts += 1
                n += 1
        return n

    def all_dead(self) -> bool:
        return all(p.poll() is not None for p in self.procs)

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.time() + 5
        for p in self.procs:
            try:
                p.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self._log.close()

    def tail(self, lines: int = 5) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


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
        self.pool = pool_name(self.rs.name, self.players)
        self.table = self.rs.table(self.players)
        params = config.ruleset_params()
        # How CreateGame names the ruleset: a built-in by name, a ruleset file by its keys.
        self.ruleset_source = {"ruleset": self.rs.name} if params is None else {"ruleset_json": json.dumps(params)}
        self._procs: dict[str, BotProcesses] = {}
        self._remote: set[str] = set()
        self._down_since: dict[str, float] = {}   # bot (or "" for the referee) -> when its games began to wait
        self._told: set[str] = set()
        self._wait_lock = asyncio.Lock()

    def check(self) -> list[Bot]:
        """The run's bots, after checking that the run can be played (UsageError otherwise); starts nothing."""
        registered = {b.name: b for b in self.store.bots()}
        names = self.cfg.bots or sorted(registered)
        missing = [n for n in names if n not in registered]
        if missing:
            raise UsageError(f"unknown bot(s): {', '.join(missing)}; registered: {', '.join(sorted(registered)) or 'none'} "
                             "(register with `pepper bot register NAME --command ...`)")
        if len(set(names)) < 2:
            raise UsageError("a tournament needs at least 2 registered bots (see `pepper bot list`)")
        try:
            schedule.lineups(names, self.rs, self.players, self.cfg.lineup)
        except ValueError as e:
            raise UsageError(f"--lineup {self.cfg.lineup}: {e} (--bots {','.join(names)}); "
                             "add bots or use --lineup mirrored") from None
        return [registered[n] for n in dict.fromkeys(names)]

    async def run(self) -> tuple[int, Progress]:
        bots = self.check()
        names = [b.name for b in bots]
        key = self.cfg.run_key(names)
        plan = [] if self.cfg.adaptive else schedule.plan(
            names, self.rs, self.players, self.cfg.games, self.cfg.seed,
            mode=self.cfg.lineup, duplicate=self.cfg.duplicate)
        run_id, _resumed = self.store.find_or_create_run(key, plan)
        log_dir = Path(self.cfg.log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        ref = None
        token = self.cfg.control_token or secrets.token_urlsafe(24)
        if self.cfg.referee:
            address = self.cfg.referee
        else:
            ref = RefereeProcess(log_dir, token, self.cfg.listen)
            address = ref.address
        procs: list[BotProcesses] = []
        channel = grpc.aio.insecure_channel(address, options=[("grpc.max_receive_message_length", 64 << 20)])
        try:
            stub = control_pb2_grpc.ControlServiceStub(channel)
            md = (("authorization", f"Bearer {token}"),)
            need = self._connections_needed(names)
            for b in bots:
                await stub.RegisterBot(control_pb2.RegisterBotRequest(name=b.name, token=b.token), metadata=md)
                if b.kind == "command":
                    procs.append(BotProcesses(b, address, b.token, log_dir, self.cfg.bot_env, need[b.name]))
            self._procs = {p.bot.name: p for p in procs}
            remote = [b.name for b in bots if b.kind == "remote"]
            self._remote = set(remote)
            if remote:
                self.notify(f"waiting for remote bot(s) {', '.join(f'{n} ({need[n]} connection(s))' for n in remote)} "
                            f"to connect to {address} (PEPPER_REFEREE, with the token from `pepper bot token NAME`; "
                            "a connection holds one seat of a game, so a bot needs a connection for each seat it takes)")
            await self._await_connections(stub, md, bots, procs, need, timeout=600.0 if remote else 60.0)
            progress = await self._play(stub, md, run_id, names, procs)
            if not self.store.pending(run_id) and (not self.cfg.adaptive or self.store.planned_count(run_id) >= self.cfg.games):
                self.store.finish_run(run_id)
            return run_id, progress
        except grpc.aio.AioRpcError as e:
            raise ArenaError(f"referee at {address}: {e.code().name}: {e.details()}") from None
        finally:
            for p in procs:
                p.stop()
            await channel.close()
            if ref:
                ref.stop()

    def _connections_needed(self, names: list[str]) -> dict[str, int]:
        """Per bot, the most seats it takes in one game of this pool: the live connections it needs."""
        need = dict.fromkeys(names, 1)
        for seats in schedule.lineups(names, self.rs, self.players, self.cfg.lineup):
            for n in set(seats):
                need[n] = max(need[n], seats.count(n))
        return need

    async def _await_connections(self, stub, md, bots: list[Bot], procs: list[BotProcesses], need: dict[str, int],
                                 timeout: float = 60.0) -> None:
        want = {b.name for b in bots}
        deadline = time.time() + timeout
        seen: dict[str, int] = {}
        while True:
            info = await stub.ListBots(control_pb2.ListBotsRequest(), metadata=md)
            have = {b.name: b.connections for b in info.bots}
            connected = {n for n in want if have.get(n, 0) >= need.get(n, 1)}
            if want <= connected:
                return
            for p in procs:
                if have.get(p.bot.name, 0):
                    p.connected_once = True
                # A launched bot that never connected and keeps dying on start (a bad command, a missing
                # file, an import error) fails now; one that connected before is restarted and waited for.
                if p.all_dead() and not p.connected_once and p.restarts >= 2:
                    codes = ", ".join(str(x.returncode) for x in p.procs)
                    raise ArenaError(f"bot {p.bot.name!r} exited before connecting (exit code {codes}, after "
                                     f"{p.restarts} restart(s)); last lines of {p.log_path}:\n{p.tail()}")
                p.check()
            for n in sorted(self._remote & (want - connected)):
                if have.get(n, 0) != seen.get(n, 0):   # a remote bot's owner sees its connections arrive
                    self.notify(f"remote bot {n}: {have.get(n, 0)} of {need.get(n, 1)} connections")
                seen[n] = have.get(n, 0)
            if time.time() > deadline:
                late = sorted(want - connected)
                counts = ", ".join(f"{n} ({have.get(n, 0)} of {need.get(n, 1)} connections)" for n in late)
                launched = [p for p in procs if p.bot.name in late]
                if launched:
                    p = launched[0]
                    raise ArenaError(f"bot(s) {counts} did not connect within {timeout:.0f}s; bot {p.bot.name!r} was "
                                     f"restarted {p.restarts} time(s); last lines of {p.log_path}:\n{p.tail()}")
                raise ArenaError(
                    f"bot(s) {counts} did not connect within {timeout:.0f}s (a remote bot is started by its owner, one "
                    "process per seat it takes in a game, with PEPPER_REFEREE, PEPPER_BOT_NAME and its token: "
                    + ", ".join(f"`pepper bot token {n}`" for n in late) + ")")
            await asyncio.sleep(0.1)

    # -- creating a game, waiting out a bot that is down -------------------------------------------
    async def _create(self, stub, md, req: control_pb2.CreateGameRequest, seats: list[str]) -> str:
        """CreateGame; while the referee answers UNAVAILABLE (a bot without the live connections the game
        needs: its process restarting, a remote bot reconnecting), restart and wait, then try again."""
        while True:
            try:
                created = await stub.CreateGame(req, metadata=md)
            except grpc.aio.AioRpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                detail = e.details()
            else:
                for n in ("", *set(seats)):
                    self._back(n)
                return created.game_id
            # One task waits at a time; the others then find the bots back and retry at once.
            async with self._wait_lock:
                await self._wait_for(stub, md, seats, detail)

    async def _wait_for(self, stub, md, seats: list[str], detail: str) -> None:
        """Until every bot of ``seats`` has as many live connections as it takes seats (restarting its
        processes meanwhile); ArenaError once one stays short for longer than its limit. A refusal that
        is not about connections (the referee draining) is retried under the key ``""``."""
        delay = 0.05
        while True:
            info = await stub.ListBots(control_pb2.ListBotsRequest(), metadata=md)
            have = {b.name: b.connections for b in info.bots}
            short = sorted(n for n in set(seats) if have.get(n, 0) < seats.count(n))
            now = time.monotonic()
            for n in set(seats) - set(short):
                self._back(n)
            if not short:
                again = "" in self._down_since
                since = self._down_since.setdefault("", now)
                if now - since > self.cfg.bot_down_s:
                    raise ArenaError(self._down_message("", 0, 0, now - since, detail))
                if again:
                    if now - since > 5 and "" not in self._told:
                        self._told.add("")
                        self.notify(f"the referee refuses new games ({detail}); retrying")
                    await asyncio.sleep(0.2)
                return  # CreateGame again
            for n in short:
                since = self._down_since.setdefault(n, now)
                limit = self.cfg.remote_down_s if n in self._remote else self.cfg.bot_down_s
                if now - since > limit:
                    raise ArenaError(self._down_message(n, seats.count(n), have.get(n, 0), now - since, detail))
                if now - since > 5 and n not in self._told:
                    self._told.add(n)
                    self.notify(f"waiting for bot {n!r} to get its connections back "
                                f"({have.get(n, 0)} of {seats.count(n)}); its games wait")
                if n in self._procs:
                    self._procs[n].check()
            await asyncio.sleep(delay)
            delay = min(1.0, delay * 2)

    def _back(self, name: str) -> None:
        """``name`` (a bot, or "" for the referee) is no longer keeping games waiting."""
        self._down_since.pop(name, None)
        self._told.discard(name)

    def _down_message(self, name: str, need: int, have: int, waited: float, detail: str) -> str:
        resume = "run the same command again to resume the run"
        if not name:
            return f"the referee refused new games for {waited:.0f}s: UNAVAILABLE: {detail}; {resume}"
        head = f"bot {name!r} has had {have} of the {need} live connection(s) a game needs for {waited:.0f}s"
        if name in self._procs:
            p = self._procs[name]
            return (f"{head}, although its processes were restarted {p.restarts} time(s) in this run; "
                    f"last lines of {p.log_path}:\n{p.tail()}\n"
                    f"fix the bot, then {resume} (leaving it out with --bots starts a new run)")
        return (f"{head}; its owner must restart it ({need} process(es), token: `pepper bot token {name}`), "
                f"then {resume}")

    # -- adaptive planning ---------------------------------------------------------------------------
    def _next_adaptive(self, names: list[str], run_id: int) -> int:
        """Plan the next round (about ADAPTIVE_ROUND_GAMES games, whole matches) on the ratings as they
        stand: the round's matches are shared among the line-ups in proportion to their score, TrueSkill
        match quality plus an uncertainty bonus. Returns the matches planned."""
        ratings = self.store.ratings(self.pool)
        ups = schedule.lineups(names, self.rs, self.players, self.cfg.lineup)
        mirrored = self.cfg.lineup == "mirrored" and self.table.teams < self.players
        per_match = len(schedule.rotations(ups[0], mirrored)) if self.cfg.duplicate else 1
        planned = self.store.planned_count(run_id)
        left = -(-max(1, self.cfg.games - planned) // per_match)  # matches still to plan
        matches = min(left, max(1, ADAPTIVE_ROUND_GAMES // per_match))
        order = schedule.apportion(ups, [self.lineup_score(ratings, u) for u in ups], matches)
        rows = self.store.db.execute(
            "SELECT match, seats_json FROM planned_games WHERE run_id = ? ORDER BY idx", (run_id,)).fetchall()
        first_match = max((m for m, _ in rows), default=-1) + 1
        played = Counter(schedule.lineup_key(json.loads(s), mirrored) for _, s in dict(rows).items())
        more = schedule.plan(names, self.rs, self.players, matches * per_match, self.cfg.seed,
                             mode=self.cfg.lineup, duplicate=self.cfg.duplicate, first_match=first_match,
                             lineup_order=order, played=played)
        self.store.append_plan(run_id, more)
        return matches

    def lineup_score(self, ratings: dict, seats: list[str]) -> float:
        """Match quality (evenly matched: informative) plus a bonus for the bots' uncertainty."""
        sigma = sum(ratings[b].sigma if b in ratings else DEFAULT_SIGMA for b in set(seats))
        return self.rater.quality(ratings, self._entries(seats)) + UNCERTAINTY_WEIGHT * sigma

    def _entries(self, seats: list[str]) -> list[list[str]]:
        t = self.table
        if t.teams < self.players:
            return [[seats[s] for s in t.team_seats(team)] for team in range(t.teams)]
        return [[b] for b in seats]

    # -- playing -------------------------------------------------------------------------------------
    async def _play(self, stub, md, run_id: int, names: list[str], procs: list[BotProcesses]) -> Progress:
        cfg = self.cfg
        total = cfg.games if cfg.adaptive else self.store.planned_count(run_id)
        # A resumed run starts from the games, and the faults, it stored before.
        progress = Progress(total=total, done=self.store.game_ids(run_id)[0], faults=self.store.run_faults(run_id))
        sem = asyncio.Semaphore(cfg.concurrency)
        finished = asyncio.Event()
        policy = control_pb2.GamePolicy(deadline_ms=cfg.deadline_ms, time_bank_ms=cfg.time_bank_ms,
                                        play_forced=cfg.play_forced)
        errors: list[BaseException] = []

        async def one(idx, seed, seats):
            try:
                req = control_pb2.CreateGameRequest(**self.ruleset_source, players=self.players, seats=seats, seed=seed,
                                                    policy=policy)
                game_id = await self._create(stub, md, req, seats)
                res = (await stub.WaitGame(control_pb2.WaitGameRequest(game_id=game_id), metadata=md)).result
                self._store_result(run_id, idx, seed, seats, res)
                progress.done += 1
                progress.faults += sum(f.illegal + f.malformed + f.timeout + f.disconnect for f in (s.faults for s in res.seats))
            except Exception as e:  # noqa: BLE001 - ends the run, after the loop
                errors.append(e)
            finally:
                progress.in_flight -= 1
                sem.release()
                finished.set()

        tasks: set[asyncio.Task] = set()
        started: set[int] = set()
        # Adaptive: plan the next round once no more than half a round is in flight (newer ratings, a busy referee).
        low_water = max(1, min(cfg.concurrency, ADAPTIVE_ROUND_GAMES)) // 2
        try:
            while not errors:
                queue = [g for g in self.store.pending(run_id) if g[0] not in started]
                if not queue:
                    if not (cfg.adaptive and self.store.planned_count(run_id) < cfg.games):
                        break
                    while progress.in_flight > low_water and not errors:
                        finished.clear()
                        await finished.wait()
                    if not errors:
                        self._next_adaptive(names, run_id)
                    continue
                for idx, _match, _ruleset, _players, seed, seats in queue:
                    await sem.acquire()
                    if errors:
                        sem.release()
                        break
                    for p in procs:
                        p.check()
                    started.add(idx)
                    progress.in_flight += 1
                    t = asyncio.create_task(one(idx, seed, seats))
                    tasks.add(t)
                    t.add_done_callback(tasks.discard)
                    self.on_progress(progress)
            if errors:  # the run ends: games in flight are played again when it resumes
                for t in tasks:
                    t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            for t in tasks:
                t.cancel()
        if errors:
            e = errors[0]
            if isinstance(e, grpc.aio.AioRpcError):
                raise ArenaError(f"referee error: {e.code().name}: {e.details()}; run the same command again to resume")
            raise e
        self.on_progress(progress)
        return progress

    def _store_result(self, run_id: int, idx: int, seed: int, seats: list[str], res) -> None:
        record = json.loads(res.record_json) if res.record_json else {}
        team_of = list(self.table.team_of)
        t = self.table
        # The scores when the game ended (a forfeited game ends early; the table averages completed games only).
        team_scores = list(res.scores) or [0] * t.teams
        scores = [team_scores[team_of[s]] for s in range(self.players)]
        winners = list(res.winning_seats)
        entries = self._entries(seats)
        if t.teams < self.players:
            entry_scores = team_scores
            entry_won = [i in set(res.winners) for i in range(t.teams)]
        else:
            entry_scores = scores
            entry_won = [s in set(winners) for s in range(self.players)]
        new = self.rater.rate(self.store.ratings(self.pool), entries, ranks_from_result(entry_scores, entry_won))
        game = {
            "run_id": run_id, "idx": idx, "pool": self.pool, "ruleset": self.rs.name, "players": self.players,
            "seed": seed, "seats": seats, "status": GAME_STATUS.get(res.status, "unknown"),
            "seat_status": [SEAT_STATUS.get(s.status, "unknown") for s in res.seats],
            "faults": [{"illegal": s.faults.illegal, "malformed": s.faults.malformed, "timeout": s.faults.timeout,
                        "disconnect": s.faults.disconnect} for s in res.seats],
            "scores": scores, "winners": winners, "contracts": contracts_by_seat(record, team_of),
            "latency": [{"p50": s.latency_p50_ms, "p99": s.latency_p99_ms, "decisions": s.decisions} for s in res.seats],
            "duration": res.duration_s, "record": record,
        }
        self.store.record_game(game, new)


def run(config: RunConfig, on_progress=None, notify=None) -> tuple[int, Progress]:
    store = Store(config.db)
    try:
        return asyncio.run(Arena(config, store, on_progress, notify).run())
    finally:
        store.close()


__all__ = ["Arena", "ArenaError", "UsageError", "RunConfig", "Progress", "run", "asdict"]
