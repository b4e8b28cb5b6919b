"""The arena's processes, on :mod:`supervisor`: a referee on a free loopback port (one per shard, see
``--shards`` in docs/arena.md), and each command bot's processes on every shard (restarted when they die) with
PEPPER_REFEREE and PEPPER_BOT_NAME set and the token on a pipe (PEPPER_TOKEN_FD).

The control token reaches the referee through its stdin (a pipe it reads at start), never its environment or
argv, which any process of the same user can read in /proc. A bot's environment is an allowlist
(:func:`supervisor.inherited_env`) plus what is meant for it: nothing else of the arena's environment."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pepper_proto.v1 import control_pb2_grpc

from supervisor import Handle, ProcessSpec, Runtime, StartError, Supervisor, inherited_env, stop_all

from .errors import ArenaError
from .registry import expand
from .store import Bot

# The default --shards (see default_shards): a referee per CORES_PER_SHARD cores, up to MAX_DEFAULT_SHARDS, for a run
# with at least SHARD_MIN_GAMES games to play; fewer finish in seconds, where starting more processes costs as much as
# it saves. A shard's referee uses one core and its bots most of another even when they are cheap, and each shard
# makes smaller batches of decisions, so a shard pays only with cores to spare (docs/performance.md, "Referee shards").
CORES_PER_SHARD = 2
MAX_DEFAULT_SHARDS = 4
SHARD_MIN_GAMES = 500


def default_shards(pending: int, cpus: int | None = None) -> int:
    """Referee shards when --shards is not given: one per CORES_PER_SHARD cores (at most MAX_DEFAULT_SHARDS) for
    ``pending`` games to play of at least SHARD_MIN_GAMES, else 1 (so 1 on 2 cores). One referee process runs on
    one core, and with cheap bots it is the limit once there are cores to spare beside it and its bots."""
    if pending < SHARD_MIN_GAMES:
        return 1
    return max(1, min(MAX_DEFAULT_SHARDS, (cpus or os.cpu_count() or 1) // CORES_PER_SHARD))


def any_port(address: str) -> str:
    """``address``'s host with port 0 (a free port): where the shards after the first listen."""
    return f"{address.rsplit(':', 1)[0]}:0"


@dataclass(eq=False)
class Shard:
    """One referee of the run (``--shards``), and the games in flight on it; the fleet sends each game to the shard
    with the fewest in flight."""

    index: int
    address: str
    stub: control_pb2_grpc.ControlServiceStub
    in_flight: int = 0
    created: int = 0       # games created on it in this session (replays too)


class BotStartError(ArenaError):
    """A command bot's process could not be started (a missing program, a bad command line); ``why`` says so
    after the bot's name."""

    def __init__(self, bot: Bot, reason: str):
        self.why = (f"cannot be started with command {bot.command!r}: {reason} "
                    f"(fix it with `pepper bot remove {bot.name}` and register it again)")
        super().__init__(f"bot {bot.name!r} {self.why}")


@contextmanager
def _explained(bot: Bot, log: Path) -> Iterator[None]:
    """A bot that cannot be started: say how to fix its registration, in the error and in its log (its one record)."""
    try:
        yield
    except StartError as e:
        error = BotStartError(bot, e.reason)
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"pepper arena: {error}\n")
        raise error from None


class RefereeProcess:
    """A referee subprocess; it says where it listens on its first line of stdout. Its log is ``referee.log``
    (shard 0) or ``referee-N.log`` (shard N). ``tls``: its certificate and key files (the ladder's)."""

    def __init__(self, log_dir: Path, control_token: str, address: str = "127.0.0.1:0", runtime: Runtime | None = None,
                 unix_socket: str | None = None, shard: int = 0, tls: tuple[str, str] | None = None):
        self.token = control_token
        log = log_dir / ("referee.log" if shard == 0 else f"referee-{shard}.log")
        argv = (sys.executable, "-m", "pepper_cli.referee", "serve", "--address", address, "--control-token-file", "-")
        if unix_socket:  # for sandboxed bots, whose containers have no network
            argv += ("--unix-socket", unix_socket)
        if tls:  # (certificate, key) PEM files: the referee serves TLS only
            argv += ("--tls-cert", tls[0], "--tls-key", tls[1])
        env = {k: v for k, v in os.environ.items() if k != "PEPPER_CONTROL_TOKEN"}
        spec = ProcessSpec("the referee", argv, log, env=env, stdout_pipe=True, stdin=f"{control_token}\n".encode())
        try:
            self.sup = Supervisor(spec, 1, runtime)
        except StartError as e:
            raise ArenaError(f"{e}; see {log}") from None
        line = self.sup.handles[0].readline().strip()
        if not line.startswith("listening on "):
            self.stop()
            raise ArenaError(f"the referee did not start (said {line!r}); see {log}")
        self.address = line.split()[-1]

    @property
    def pid(self) -> int:
        return self.sup.handles[0].pid

    def stop(self) -> None:
        self.sup.stop(grace_s=15.0)


@dataclass
class Crash:
    """A bot process found dead during a run (each death once), and the games in flight on it replayed."""

    bot: str
    exit_code: int | None
    at: float                  # time.monotonic() when the arena noticed it
    shard: int = 0             # the referee shard the process was connected to
    lane: int = 0              # its bot's identity on that shard (arena.twins: the rotation of a block it plays)
    games_replayed: int = 0
    games_forfeited: int = 0   # games lost to it that had been replayed MAX_REPLAYS times already: their forfeit stands
    recorded: bool = False     # stored (Store.record_crash)
    stuck: bool = False        # killed by the arena: it had answered nothing since a request timed out (kill_stuck)

    @property
    def cost_games(self) -> bool:
        """Whether games in flight were lost to it (replayed, or forfeited): such crashes count toward the limit."""
        return bool(self.games_replayed or self.games_forfeited)


class BotProcesses:
    """The processes of one command bot: on each referee shard (``addresses``, one per shard) and for each of its
    identities there (its lanes, :mod:`arena.twins`: one per rotation of a duplicate block) a
    :class:`~supervisor.Supervisor` of its own (per-slot restart backoff), its processes connected to that shard under
    that identity. The bot's registered ``processes`` are shared out over the shards and lanes, each getting at least
    ``at_least`` (the seats the bot takes in one game: a connection holds one seat of a game). One log for them
    all."""

    # Deaths in a row of one process, each soon after its start (Supervisor.STABLE_S), after which the bot is
    # withdrawn from the run rather than restarted again: with the backoff, about 16 s of trying.
    RESTART_BUDGET = 8

    def __init__(self, bot: Bot, addresses: str | Sequence[str], token: str | Mapping[str, str], log_dir: Path,
                 extra_env: dict, at_least: int = 1, runtime: Runtime | Mapping[str, Runtime] | None = None,
                 python: str | None = None):
        """``token``: the bot's token, or its token per identity on the referee (its lanes, in order). ``runtime``
        starts the processes (None: local subprocesses; one per identity where each has its own, as a sandboxed
        bot's socket), and ``python`` is what ``{python}`` in the bot's command
        stands for there (None: this interpreter); a container's runtime comes with its own, and the referee's
        address as seen from inside it (see :class:`arena.sandbox.BotSandbox`)."""
        self.bot = bot
        self.log_path = log_dir / f"bot-{bot.name}.log"
        self.connected_once = False            # set by the arena once the referee lists a connection of the bot
        self.crashes: list[Crash] = []         # its processes' deaths in this run, oldest first
        self.stopped = False                   # stopped by the arena: its processes' deaths are not crashes
        addresses = [addresses] if isinstance(addresses, str) else list(addresses)
        command = expand(bot.command or "", python)
        lanes = {bot.name: token} if isinstance(token, str) else dict(token)
        self.lanes = len(lanes)
        slots = self.slots_per_shard(bot, len(addresses), at_least, self.lanes)
        self.sups: list[Supervisor] = []       # per shard, then per lane: sups[shard * lanes + lane]
        try:
            for address in addresses:
                for name, secret in lanes.items():
                    env = inherited_env() | extra_env | bot.env | {"PEPPER_REFEREE": address, "PEPPER_BOT_NAME": name}
                    with _explained(self.bot, self.log_path):
                        # The token on a pipe (PEPPER_TOKEN_FD), never in the environment: another bot of the run,
                        # the same user, could read that from /proc and take this bot's seats.
                        spec = ProcessSpec.command(f"bot {bot.name!r}", command, self.log_path, cwd=bot.cwd, env=env,
                                                   secrets={"PEPPER_TOKEN": secret.encode()})
                        self.sups.append(Supervisor(spec, slots, runtime[name] if isinstance(runtime, Mapping)
                                                    else runtime))
        except BaseException:
            self.stop()
            raise
        # Per supervisor and slot: the process last found dead (each counted once).
        self._dead: list[list[Handle | None]] = [[None] * slots for _ in self.sups]
        self._killed: set[Handle] = set()      # processes the arena killed as stuck (kill_stuck), until noticed dead

    @staticmethod
    def slots_per_shard(bot: Bot, shards: int, at_least: int = 1, lanes: int = 1) -> int:
        """The processes ``bot`` gets on each of ``shards`` referee shards for each of its ``lanes``: its registered
        ``processes`` shared out, at least ``at_least`` (the seats it takes in one game)."""
        return max(1, -(-bot.processes // (shards * lanes)), at_least)

    @property
    def slots(self) -> int:
        """Its processes, on every shard."""
        return sum(len(sup.handles) for sup in self.sups)

    def notice_crashes(self) -> list[Crash]:
        """The processes found dead since the last look (also added to ``crashes``); never blocks."""
        new: list[Crash] = []
        if self.stopped:
            return new
        for i, sup in enumerate(self.sups):
            # The processes the supervisor already replaced first: one that died after the last look was restarted
            # at once, and is a crash all the same.
            for slot, h in [*sup.take_ended(), *enumerate(sup.handles)]:
                code = h.poll()
                if code is not None and self._dead[i][slot] is not h:
                    self._dead[i][slot] = h
                    new.append(Crash(self.bot.name, code, time.monotonic(), *divmod(i, self.lanes),
                                     stuck=h in self._killed))
                    self._killed.discard(h)
        self.crashes += new
        return new

    @property
    def restarts(self) -> int:
        return sum(sup.restarts for sup in self.sups)

    def check(self) -> int:
        """Restart the dead processes whose delay is over (never blocks); returns how many were restarted. Their
        deaths are noticed first (a restarted slot holds a new process)."""
        self.notice_crashes()
        with _explained(self.bot, self.log_path):
            return sum(sup.check() for sup in self.sups)

    def kill_stuck(self, shard: int, lane: int) -> int:
        """Kill (SIGKILL) the live processes of ``lane`` on ``shard``, found stuck: each of their connections timed out
        and has answered nothing since. Their deaths are crashes (:attr:`Crash.stuck`), restarted as any other by
        :meth:`check`. Returns how many were killed."""
        sup = self.sups[shard * self.lanes + lane]
        live = [h for h in sup.handles if h.poll() is None]
        for h in live:
            self._killed.add(h)
            h.kill()
        return len(live)

    def keeps_crashing(self) -> bool:
        """One of its processes has died soon after its start RESTART_BUDGET times in a row."""
        return any(sup.quick_deaths(i) >= self.RESTART_BUDGET for sup in self.sups for i in range(len(sup.handles)))

    def all_dead(self) -> bool:
        return all(sup.all_dead() for sup in self.sups)

    def exit_codes(self) -> str:
        return ", ".join(str(c) for sup in self.sups for c in sup.exit_codes())

    def stop(self) -> None:
        self.stopped = True
        stop_all(self.sups)   # every shard's at once: one grace period

    def tail(self, lines: int = 5) -> str:
        return self.sups[0].log_tail(lines) if self.sups else ""
