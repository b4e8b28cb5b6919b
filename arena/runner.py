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
   disconnect fault by the referee, under the game's failure policy).
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
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import grpc

from referee.gen.pepper.v1 import control_pb2, control_pb2_grpc, game_pb2
from referee.rules import get_ruleset

from . import schedule
from .ratings import DEFAULT_TAU, Rater, pool_name, ranks_from_result
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

    def resolved_players(self) -> int:
        rs = get_ruleset(self.ruleset)
        if self.players is None:
            return 4 if 4 in rs.player_counts else rs.player_counts[0]
        rs.table(self.players)  # raises RulesetError naming the allowed counts
        return self.players

    def run_key(self, bots: list[str]) -> dict:
        """What identifies a run: the same command (same key) resumes it."""
        return {"ruleset": self.ruleset, "players": self.resolved_players(), "games": self.games, "seed": self.seed,
                "lineup": self.lineup, "duplicate": self.duplicate, "adaptive": self.adaptive, "bots": sorted(bots)}


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
    """The processes of one command bot; restarted (with a growing delay) if they die."""

    def __init__(self, bot: Bot, address: str, token: str, log_dir: Path, extra_env: dict, at_least: int = 1):
        self.bot, self.address, self.token = bot, address, token
        self.log_path = log_dir / f"bot-{bot.name}.log"
        self.extra_env = extra_env
        self.procs: list[subprocess.Popen] = []
        self.restarts = 0
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        # `at_least`: the seats the bot takes in one game (a connection holds one seat of a game).
        for _ in range(max(1, bot.processes, at_least)):
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

    def check(self) -> int:
        """Restart dead processes; returns how many were restarted."""
        n = 0
        for i, p in enumerate(self.procs):
            if p.poll() is not None and self.restarts < 100:
                self.restarts += 1
                n += 1
                self.procs[i] = self._spawn()
        return n

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
        self.players = config.resolved_players()
        self.pool = pool_name(config.ruleset, self.players)
        self.table = get_ruleset(config.ruleset).table(self.players)

    def _bots(self) -> list[Bot]:
        registered = {b.name: b for b in self.store.bots()}
        names = self.cfg.bots or sorted(registered)
        missing = [n for n in names if n not in registered]
        if missing:
            raise ArenaError(f"unknown bot(s): {', '.join(missing)}; registered: {', '.join(sorted(registered)) or 'none'} "
                             "(register with `pepper bot register NAME --command ...`)")
        if len(names) < 2:
            raise ArenaError("a tournament needs at least 2 registered bots (see `pepper bot list`)")
        return [registered[n] for n in names]

    async def run(self) -> tuple[int, Progress]:
        bots = self._bots()
        names = [b.name for b in bots]
        key = self.cfg.run_key(names)
        plan = [] if self.cfg.adaptive else schedule.plan(
            names, self.cfg.ruleset, self.players, self.cfg.games, self.cfg.seed,
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
            remote = [b.name for b in bots if b.kind == "remote"]
            if remote:
                self.notify(f"waiting for remote bot(s) {', '.join(f'{n} ({need[n]} connection(s))' for n in remote)} "
                            f"to connect to {address} (PEPPER_REFEREE, with the token from `pepper bot register --remote`; "
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
        for seats in schedule.lineups(names, self.cfg.ruleset, self.players, self.cfg.lineup):
            for n in set(seats):
                need[n] = max(need[n], seats.count(n))
        return need

    async def _await_connections(self, stub, md, bots: list[Bot], procs: list[BotProcesses], need: dict[str, int],
                                 timeout: float = 60.0) -> None:
        want = {b.name for b in bots}
        deadline = time.time() + timeout
        while True:
            info = await stub.ListBots(control_pb2.ListBotsRequest(), metadata=md)
            connected = {b.name for b in info.bots if b.connections >= need.get(b.name, 1)}
            if want <= connected:
                return
            for p in procs:
                if all(x.poll() is not None for x in p.procs):
                    raise ArenaError(f"bot {p.bot.name!r} exited before connecting; last lines of {p.log_path}:\n{p.tail()}")
            if time.time() > deadline:
                have = {b.name: b.connections for b in info.bots}
                late = ", ".join(f"{n} ({have.get(n, 0)} of {need.get(n, 1)} connections)" for n in sorted(want - connected))
                raise ArenaError(f"bot(s) {late} did not connect within {timeout:.0f}s (remote bots must be started by "
                                 "their owners, one process per seat they take in a game; see `pepper bot list` for tokens)")
            await asyncio.sleep(0.1)

    def _next_adaptive(self, names: list[str], run_id: int, matches: int) -> None:
        """Adaptive: plan the next matches by TrueSkill match quality plus uncertainty."""
        ratings = self.store.ratings(self.pool)
        ups = schedule.lineups(names, self.cfg.ruleset, self.players, self.cfg.lineup)

        def score(seats):
            entries = self._entries(seats)
            sigma = sum(ratings[b].sigma if b in ratings else 25 / 3 for b in set(seats))
            return self.rater.quality(ratings, entries) + 0.05 * sigma

        planned = self.store.planned_count(run_id)
        first_match = self.store.db.execute(
            "SELECT COALESCE(MAX(match) + 1, 0) FROM planned_games WHERE run_id = ?", (run_id,)).fetchone()[0]
        best = sorted(ups, key=score, reverse=True)
        order = [best[i % len(best)] for i in range(matches)]
        more = schedule.plan(names, self.cfg.ruleset, self.players, max(1, self.cfg.games - planned), self.cfg.seed,
                             mode=self.cfg.lineup, duplicate=self.cfg.duplicate, first_match=first_match,
                             lineup_order=order)
        # Whole matches only, at most `matches` of them: the next round re-ranks on newer ratings.
        self.store.append_plan(run_id, [g for g in more if g[0] < first_match + matches])

    def _entries(self, seats: list[str]) -> list[list[str]]:
        t = self.table
        if t.teams < self.players:
            return [[seats[s] for s in t.team_seats(team)] for team in range(t.teams)]
        return [[b] for b in seats]

    async def _play(self, stub, md, run_id: int, names: list[str], procs: list[BotProcesses]) -> Progress:
        cfg = self.cfg
        total = cfg.games if cfg.adaptive else self.store.planned_count(run_id)
        done_before = self.store.db.execute("SELECT COUNT(*) FROM games WHERE run_id = ?", (run_id,)).fetchone()[0]
        progress = Progress(total=total, done=done_before)
        sem = asyncio.Semaphore(cfg.concurrency)
        policy = control_pb2.GamePolicy(deadline_ms=cfg.deadline_ms, time_bank_ms=cfg.time_bank_ms,
                                        play_forced=cfg.play_forced)
        errors: list[BaseException] = []

        async def one(idx, match, ruleset, players, seed, seats):
            try:
                req = control_pb2.CreateGameRequest(ruleset=ruleset, players=players, seats=seats, seed=seed, policy=policy)
                created = await stub.CreateGame(req, metadata=md)
                res = (await stub.WaitGame(control_pb2.WaitGameRequest(game_id=created.game_id), metadata=md)).result
                self._store_result(run_id, idx, seed, seats, res)
                progress.done += 1
                progress.faults += sum(f.illegal + f.malformed + f.timeout + f.disconnect for f in (s.faults for s in res.seats))
            except BaseException as e:  # noqa: BLE001 - surfaced after the batch
                errors.append(e)
            finally:
                progress.in_flight -= 1
                sem.release()

        tasks: set[asyncio.Task] = set()
        while True:
            if cfg.adaptive and not self.store.pending(run_id) and self.store.planned_count(run_id) < cfg.games:
                await asyncio.gather(*tasks)  # adapt on the latest ratings
                tasks.clear()
                self._next_adaptive(names, run_id, max(1, cfg.concurrency // 4))
            pending = self.store.pending(run_id)
            if not pending:
                break
            for idx, match, ruleset, players, seed, seats in pending:
                await sem.acquire()
                if errors:
                    break
                for p in procs:
                    p.check()
                progress.in_flight += 1
                t = asyncio.create_task(one(idx, match, ruleset, players, seed, seats))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
                self.on_progress(progress)
            await asyncio.gather(*tasks)
            if errors:
                e = errors[0]
                if isinstance(e, grpc.aio.AioRpcError):
                    raise ArenaError(f"referee error: {e.code().name}: {e.details()}")
                raise e
            self.on_progress(progress)
            if not cfg.adaptive:
                break
        return progress

    def _store_result(self, run_id: int, idx: int, seed: int, seats: list[str], res) -> None:
        record = json.loads(res.record_json) if res.record_json else {}
        team_of = list(self.table.team_of)
        scores = [res.scores[team_of[s]] for s in range(self.players)] if res.scores else [0] * self.players
        winners = list(res.winning_seats)
        entries = self._entries(seats)
        t = self.table
        if t.teams < self.players:
            entry_scores = [res.scores[i] if res.scores else 0 for i in range(t.teams)]
            entry_won = [i in set(res.winners) for i in range(t.teams)]
        else:
            entry_scores = scores
            entry_won = [s in set(winners) for s in range(self.players)]
        new = self.rater.rate(self.store.ratings(self.pool), entries, ranks_from_result(entry_scores, entry_won))
        game = {
            "run_id": run_id, "idx": idx, "pool": self.pool, "ruleset": self.cfg.ruleset, "players": self.players,
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


__all__ = ["Arena", "ArenaError", "RunConfig", "Progress", "run", "asdict"]
