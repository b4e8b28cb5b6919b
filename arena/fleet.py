"""The fleet of a run: its referees (shards, ``--shards``) and its bots' processes and connections, the crash policy
(:mod:`arena.crashes`) and the withdrawal of a broken entrant (it cannot start, never connects, keeps crashing, or
stays down for minutes): its games not yet begun are not played (they stay pending, so the same command plays them
once it is fixed) and the others play on, while 2 bots are left. A command bot runs as ``processes`` processes
serving many seats, shared out over the shards (:mod:`arena.processes`); a remote bot connects by itself.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc

from referee.rules import Ruleset

from . import schedule
from .config import RunConfig
from .crashes import MAX_CRASHES, MAX_REPLAYS, STUCK_S, crash_of, replay_seed
from .errors import ArenaError
from .processes import BotProcesses, BotStartError, Crash, RefereeProcess, Shard, any_port
from .sandbox import BotSandbox
from .store import Bot, BotKind, new_token, token_sha256
from .twins import Seating
from .waits import Waits, remote_hint


class Withdrawn(Exception):
    """A game's bot was withdrawn from the run: the game is not played (it stays pending)."""


class Fleet:
    """The referees and bot processes of one run. ``end_when_short``: a withdrawal that leaves too few bots to fill
    a game ends the run (ArenaError); without it (a cluster node's match) the withdrawal only stops the games of the
    withdrawn bot, and whoever runs the fleet decides. ``on_withdraw`` callables hear each withdrawn bot's name
    (the arena's planner stops planning games for it)."""

    def __init__(self, config: RunConfig, ruleset: Ruleset, players: int, notify: Callable[[str], None], *,
                 end_when_short: bool = True):
        self.cfg = config
        self.rs = ruleset
        self.players = players
        self.notify = notify
        self.end_when_short = end_when_short
        self.on_withdraw: list[Callable[[str], None]] = []
        self.procs: dict[str, BotProcesses] = {}      # the command bots still in the run
        self.launched: dict[str, BotProcesses] = {}   # every command bot launched (withdrawn ones too)
        self.remote: set[str] = set()
        self.entrants: list[str] = []
        self.withdrawn: dict[str, str] = {}           # bot -> why it was withdrawn from this run
        self.shards: list[Shard] = []                 # the run's referees (one unless --shards)
        self.md: tuple = ()
        self.waits = Waits(self)                      # what games wait for: bots short of connections, a referee
        self._stuck_since: dict[tuple[int, str], float] = {}   # (shard, identity): all its connections suspect
        self._watcher: asyncio.Task | None = None
        self._refs: list[RefereeProcess] = []
        self._channels: list[grpc.aio.Channel] = []
        self._sandbox: BotSandbox | None = None
        self.addresses: list[str] = []
        self.seating = Seating()                      # the bots' identities on the referee (arena.twins)

    @property
    def crashes(self) -> list[Crash]:
        """Every crash of the launched bots' processes in this run, bot by bot."""
        return [c for p in self.launched.values() for c in p.crashes]

    # -- starting and stopping -----------------------------------------------------------------------
    async def start(self, bots: list[Bot], shards: int) -> None:
        """Start ``shards`` referees (or reach --referee), register ``bots`` with each, launch the command bots and
        wait for every bot's connections (withdrawing those that never make them). :meth:`stop` undoes it all,
        however far it got."""
        log_dir = Path(self.cfg.log_dir)
        log_dir.mkdir(parents=True, exist_ok=True)
        token = self.cfg.control_token or secrets.token_urlsafe(24)
        self._start_referees(log_dir, token, shards)
        self._channels = [grpc.aio.insecure_channel(a, options=[("grpc.max_receive_message_length", 64 << 20)])
                          for a in self.addresses]
        self.shards = [Shard(i, a, control_pb2_grpc.ControlServiceStub(ch))
                       for i, (a, ch) in enumerate(zip(self.addresses, self._channels))]
        self.md = (("authorization", f"Bearer {token}"),)
        names = [b.name for b in bots]
        need = self.connections_needed(names)
        self.entrants = names
        self.seating = seating_of(self.cfg, self.rs, self.players, bots)
        await self._register(bots, need, log_dir)
        remote = [b.name for b in bots if b.kind is BotKind.REMOTE]
        self.remote = set(remote)
        if remote:
            self.notify(f"waiting for remote bot(s) {', '.join(f'{n} ({need[n]} connection(s))' for n in remote)} "
                        f"to connect to {self.addresses[0]} (PEPPER_REFEREE, with the token from `pepper bot token "
                        "NAME`; a connection holds one seat of a game, so a bot needs a connection for each seat it takes)")
        await self._await_connections(bots, need, timeout=600.0 if remote else 60.0)
        if self.procs:
            self._watcher = asyncio.create_task(self._watch_stuck())

    def _start_referees(self, log_dir: Path, token: str, shards: int) -> None:
        self._sandbox = BotSandbox() if self.cfg.sandbox == "docker" else None   # reaps what a killed run left
        if self.cfg.referee:
            self.addresses = [self.cfg.referee]
            return
        socket = self._sandbox.socket if self._sandbox else None
        for i in range(shards):   # shard 0 where --listen says, the others on the same host's free ports
            self._refs.append(RefereeProcess(log_dir, token, self.cfg.listen if i == 0 else any_port(self.cfg.listen),
                                             unix_socket=socket, shard=i))
        self.addresses = [r.address for r in self._refs]

    async def _register(self, bots: list[Bot], need: dict[str, int], log_dir: Path) -> None:
        for b in bots:
            # The referee gets a token's digest, never the token: a remote bot's as stored, and for a command
            # bot a fresh token of this run's for each of its identities (arena.twins), given to its processes only.
            ids = self.seating.identities(b.name)
            tokens = {n: new_token() for n in ids} if b.kind is BotKind.COMMAND else {}
            # A command bot holds no more connections than the processes started for it on a shard: a second holder
            # of its token is refused, not seated (a remote bot's owner runs as many processes as they like).
            cap = BotProcesses.slots_per_shard(b, len(self.shards), need[b.name], len(ids)) if tokens else 0
            for n in ids:
                digest = token_sha256(tokens[n]) if tokens else b.token_sha256
                for shard in self.shards:  # the same token on every shard
                    req = control_pb2.RegisterBotRequest(   # sandboxed: a socket per identity (BotSandbox.register)
                        name=n, token_sha256=bytes.fromhex(digest), max_connections=cap,
                        own_socket=bool(tokens and self._sandbox and shard.index == 0))
                    answer = await shard.stub.RegisterBot(req, metadata=self.md)
                    if self._sandbox:
                        self._sandbox.register(req, answer, shard.address)
                    if answer.token:  # it ignored token_sha256 and made a token of its own
                        raise ArenaError(f"the referee at {shard.address} does not take bot tokens by digest "
                                         "(RegisterBotRequest.token_sha256, protocol 1.5): run a newer referee")
            if tokens:
                try:
                    p = self._launch(b, tokens, log_dir, need[b.name])
                except BotStartError as e:
                    self.withdraw(b.name, e.why, log_dir / f"bot-{b.name}.log")
                else:
                    self.procs[b.name] = self.launched[b.name] = p

    def _launch(self, bot: Bot, token: dict[str, str], log_dir: Path, at_least: int) -> BotProcesses:
        """``bot``'s processes: on every shard, or in its container (--sandbox docker), where it reaches the one
        referee through the socket mounted there."""
        if self._sandbox is None:
            return BotProcesses(bot, self.addresses, token, log_dir, self.cfg.bot_env, at_least)
        if len(self.addresses) != 1:
            raise ArenaError("--sandbox docker runs one referee shard (its Unix socket): use --shards 1")
        return BotProcesses(bot, [self._sandbox.address], token, log_dir, self.cfg.bot_env, at_least,
                            runtime={n: self._sandbox.runtime(bot, n) for n in token}, python=self._sandbox.python)

    async def stop(self) -> None:
        if self._watcher:
            self._watcher.cancel()
        for p in self.launched.values():
            p.stop()
        for ch in self._channels:
            await ch.close()
        for r in self._refs:
            r.stop()
        if self._sandbox:
            self._sandbox.close()

    # -- connections ---------------------------------------------------------------------------------
    def connections_needed(self, names: list[str]) -> dict[str, int]:
        """Per bot, the most seats it takes in one game of this pool: the live connections it needs."""
        need = dict.fromkeys(names, 1)
        for seats in schedule.lineups(names, self.rs, self.players, self.cfg.lineup):
            for n in set(seats):
                need[n] = max(need[n], seats.count(n))
        return need

    async def _connections(self) -> dict[str, int]:
        """Per bot, its live connections on the shard, and under the identity (lane), where it has the fewest."""
        have: dict[str, int] | None = None
        for s in self.shards:
            info = await s.stub.ListBots(control_pb2.ListBotsRequest(), metadata=self.md)
            # A stuck bot's (suspect) connections take no new game: it is short, never the run ended for it.
            by_id = {b.name: b.connections - b.suspect_connections for b in info.bots}
            got = {n: min(by_id.get(i, 0) for i in self.seating.identities(n)) for n in self.entrants}
            have = got if have is None else {n: min(c, got.get(n, 0)) for n, c in have.items()}
        return have or {}

    async def _await_connections(self, bots: list[Bot], need: dict[str, int], timeout: float = 60.0) -> None:
        deadline = time.time() + timeout
        seen: dict[str, int] = {}
        while True:
            want = {b.name for b in bots} - self.withdrawn.keys()
            have = await self._connections()   # on every shard
            connected = {n for n in want if have.get(n, 0) >= need.get(n, 1)}
            if want <= connected:
                return
            self._tend_unconnected(want, have)
            for n in sorted(self.remote & (want - connected)):
                if have.get(n, 0) != seen.get(n, 0):   # a remote bot's owner sees its connections arrive
                    self.notify(f"remote bot {n}: {have.get(n, 0)} of {need.get(n, 1)} connections")
                seen[n] = have.get(n, 0)
            if time.time() > deadline:
                for n in sorted(want - connected):
                    self.withdraw(n, f"did not connect within {timeout:.0f}s ({have.get(n, 0)} of {need.get(n, 1)} "
                                     "connections)" + ("" if n in self.procs else remote_hint(n, need.get(n, 1))))
                return
            await asyncio.sleep(0.1)

    def _tend_unconnected(self, want: set[str], have: dict[str, int]) -> None:
        for p in list(self.launched.values()):
            if p.bot.name not in want:
                continue
            if have.get(p.bot.name, 0):
                p.connected_once = True
            # A launched bot that never connected and keeps dying on start (a bad command, a missing
            # file, an import error) is withdrawn now; one that connected before is restarted and waited for.
            if p.all_dead() and not p.connected_once and p.restarts >= 2:
                self.withdraw(p.bot.name, f"exited before connecting (exit code {p.exit_codes()}, after "
                                          f"{p.restarts} restart(s))")
            else:
                self.tend(p)

    # -- a stuck process ------------------------------------------------------------------------------
    async def _watch_stuck(self) -> None:
        """Kill, to be restarted, a launched bot's processes whose every connection (of one identity on a shard) has
        timed out and answered nothing since for STUCK_S (a spinning, deadlocked or stopped process): its games in
        flight would play out at a timeout per decision, and new games would wait out the referee's keepalive window.
        Each kill is a crash (:attr:`~arena.processes.Crash.stuck`); a remote bot is only waited for."""
        while True:
            await asyncio.sleep(1.0)
            for shard in self.shards:
                try:
                    info = await shard.stub.ListBots(control_pb2.ListBotsRequest(), metadata=self.md)
                except grpc.aio.AioRpcError:   # a referee stopping: the games' own calls report it
                    continue
                stuck = {b.name for b in info.bots if b.connections and b.suspect_connections == b.connections}
                for n, p in list(self.procs.items()):
                    for lane, ident in enumerate(self.seating.identities(n)):
                        key = (shard.index, ident)
                        if ident not in stuck:
                            self._stuck_since.pop(key, None)
                        elif time.monotonic() - self._stuck_since.setdefault(key, time.monotonic()) > STUCK_S:
                            del self._stuck_since[key]
                            if p.kill_stuck(shard.index, lane % p.lanes):   # announced with the crashes
                                self.tend(p)

    # -- withdrawing a broken entrant ----------------------------------------------------------------
    def withdraw(self, name: str, why: str, log: Path | None = None) -> None:
        """Take ``name`` out of the run (``why`` follows "bot NAME"): stop its processes, say why and where its
        log is; its games that have not begun are not played. ArenaError when the bots left cannot fill a game
        (unless ``end_when_short`` is off)."""
        p = self.procs.pop(name, None)
        if p is not None:
            p.stop()
            log = p.log_path
        self.withdrawn[name] = why
        self.waits.back(name)   # on every shard
        for hear in self.on_withdraw:
            hear(name)
        where = f"; last lines of its log, {log}:\n{p.tail()}" if p else f"; its log: {log}" if log else ""
        message = f"bot {name!r} {why}: it is withdrawn from this run{where}"
        left = [n for n in self.entrants if n not in self.withdrawn]
        try:
            if len(left) < 2:
                raise ValueError(f"{'only ' + left[0] if left else 'no bot'} is left, and a game needs 2 bots")
            schedule.lineups(left, self.rs, self.players, self.cfg.lineup)
        except ValueError as e:
            if not self.end_when_short:
                return
            raise ArenaError(f"{message}\nthe run cannot go on: {e}; fix the bot, then run the same command "
                             "again to resume the run") from None
        self.notify(f"{message}\nthe others play on ({', '.join(left)})")

    def tend(self, p: BotProcesses) -> None:
        """Restart ``p``'s dead processes; withdraw its bot once it can no longer be started, keeps crashing on start,
        or has crashed more than MAX_CRASHES times in the run."""
        try:
            p.check()
        except BotStartError as e:
            self.withdraw(p.bot.name, e.why)
            return
        if p.keeps_crashing():
            self.withdraw(p.bot.name, f"kept crashing: a process died {p.RESTART_BUDGET} times in a row soon after "
                                      f"starting ({p.restarts} restart(s) in this run, exit code {p.exit_codes()})")
        elif len(costly := [c for c in p.crashes if c.cost_games]) > MAX_CRASHES:
            self.withdraw(p.bot.name, f"crashed {len(costly)} times in this run with games in flight, more than the "
                                      f"{MAX_CRASHES} a bot may (those games are replayed; exit codes "
                                      f"{', '.join(str(c.exit_code) for c in costly)})")

    def tend_all(self) -> None:
        for p in list(self.procs.values()):
            self.tend(p)

    def entered(self, seats: list[str]) -> None:
        """Withdrawn when a bot of ``seats`` has been withdrawn from the run."""
        if gone := sorted(self.withdrawn.keys() & set(seats)):
            raise Withdrawn(", ".join(gone))

    # -- playing a game ------------------------------------------------------------------------------
    async def play(self, seed: int, seats: list[str], request: Callable[[int, int], control_pb2.CreateGameRequest],
                   on_replay: Callable[[], None]) -> tuple[int, control_pb2.GameResult]:
        """Play the game of deck ``seed`` and ``seats`` (``request(seed, attempt)`` is its CreateGame) on the shard
        with the fewest games in flight; a game lost to a crash of a bot's process is played again from its start
        on a fresh deck (:func:`~arena.crashes.replay_seed`, ``on_replay`` told), at most MAX_REPLAYS times. Returns
        (the deck seed played, the result); Withdrawn if a bot of it is withdrawn meanwhile."""
        played, attempt = seed, 0
        lane = self.seating.lane(seats)
        while True:
            shard = min(self.shards, key=lambda s: s.in_flight)  # where it is played changes nothing of its result
            shard.in_flight += 1
            try:
                req = request(played, attempt)
                del req.seats[:]
                req.seats.extend(self.seating.seat(seats))   # the bots' identities of its lane
                game_id = await self.waits.create(shard, req, seats, lane)
                created = time.monotonic()
                wait = control_pb2.WaitGameRequest(game_id=game_id)
                res = (await shard.stub.WaitGame(wait, metadata=self.md)).result
            finally:
                shard.in_flight -= 1
            crash = await crash_of(self.launched, res, seats, created, shard.index, lane)
            if crash is None:
                return played, res
            if attempt >= MAX_REPLAYS:   # its forfeit stands; the crash still cost a game (and counts)
                crash.games_forfeited += 1
                return played, res
            crash.games_replayed += 1
            on_replay()
            attempt += 1
            played = replay_seed(seed, attempt)

def seating_of(cfg: RunConfig, ruleset: Ruleset, players: int, bots: list[Bot]) -> Seating:
    """The run's :class:`~arena.twins.Seating`: the bots the arena launches play the games of a duplicate block
    under an identity (and processes) per rotation, unless ``--twins shared``."""
    return Seating.of(ruleset, players, cfg.lineup, cfg.duplicate and cfg.twins == "apart", [b.name for b in bots],
                      [b.name for b in bots if b.kind is BotKind.COMMAND])


__all__ = ["Fleet", "Withdrawn"]
