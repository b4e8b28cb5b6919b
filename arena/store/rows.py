"""The store's typed rows: what goes in and what comes out, never a dict of columns."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import NamedTuple

from referee.rules.status import GameStatus, SeatStatus


def new_token() -> str:
    """A fresh bot token: 24 random bytes (32 characters)."""
    return secrets.token_urlsafe(24)


def token_sha256(token: str) -> str:
    """What the store keeps of a bot token, and the referee compares (RegisterBotRequest.token_sha256, as hex): a
    plain SHA-256 is enough because the tokens are random (new_token), so there is nothing to guess them from."""
    return hashlib.sha256(token.encode()).hexdigest()


class BotKind(StrEnum):
    COMMAND = "command"   # launched by the arena
    REMOTE = "remote"     # its owner runs it; it connects with its token


@dataclass(frozen=True)
class Build:
    """What one version of a bot is: registering a name again with another build makes a new version."""

    kind: BotKind
    command: str | None = None
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    processes: int = 1
    files: tuple[str, ...] | None = None   # the paths its digest covers (None: not recorded yet)
    digest: str | None = None              # sha256 over those files (arena.registry.files_digest)
    deadline_ms: int | None = None         # its own time per decision (None: the run's)
    time_bank_ms: int | None = None        # its own time bank (None: the run's)
    # The sandbox (docs/sandbox.md): the image it runs in (its id, sha256:..., which is also its digest; None: the
    # project's base image with its files), and its limits there (memory_mb, cpus, pids; absent: the defaults).
    image: str | None = None
    limits: dict[str, float] = field(default_factory=dict)

    def same(self, other: Build) -> bool:
        """The same build, files aside where either has not recorded them (a version from before versions)."""
        if None in (self.digest, other.digest):
            return replace(self, files=None, digest=None) == replace(other, files=None, digest=None)
        return self == other


@dataclass(frozen=True)
class Bot:
    """A registered bot, as its latest version."""

    name: str
    kind: BotKind
    command: str | None
    cwd: str | None
    env: dict[str, str]
    processes: int
    token_sha256: str          # hex SHA-256 of its token (token_sha256()); the token itself is kept nowhere
    sample: bool
    version: int = 1
    digest: str | None = None
    files: tuple[str, ...] | None = None
    deadline_ms: int | None = None
    time_bank_ms: int | None = None
    image: str | None = None
    limits: dict[str, float] = field(default_factory=dict)

    @property
    def build(self) -> Build:
        return Build(self.kind, self.command, self.cwd, self.env, self.processes, self.files, self.digest,
                     self.deadline_ms, self.time_bank_ms, self.image, self.limits)


class BotVersion(NamedTuple):
    """One version of a bot, for `pepper bot versions`: its build, and its games and rating in each pool."""

    version: int
    created_at: float
    build: Build
    pools: dict[str, tuple[int, float, float]]   # pool key -> (rated games, mu, sigma)


class Faults(NamedTuple):
    """One seat's faults by kind (the referee's FaultCounts)."""

    illegal: int = 0
    malformed: int = 0
    timeout: int = 0
    disconnect: int = 0

    @property
    def total(self) -> int:
        return sum(self)


@dataclass(frozen=True)
class Seat:
    """How one seat of a game fared."""

    seat: int
    bot: str
    status: SeatStatus
    faults: Faults
    score: int                       # its team's score when the game ended
    won: bool
    contracts_bid: int = 0           # contracts it won in the auction
    contracts_made: int = 0
    fallbacks: int = 0               # answers its SDK marked as a strategy fallback (protocol 1.2)
    decisions: int = 0
    latency_p50_ms: float | None = None
    latency_p99_ms: float | None = None
    version: int = 1                 # the bot's version that played it


@dataclass(frozen=True)
class NewGame:
    """A finished game, as the arena hands it to the store (with its full record)."""

    run_id: int | None
    idx: int | None
    pool: str
    ruleset: str
    players: int
    seed: int
    status: GameStatus
    duration: float
    seats: tuple[Seat, ...]
    record: dict
    team_of: tuple[int, ...] | None = None   # each seat's team (None: each seat its own, a free-for-all table)


@dataclass(frozen=True)
class StoredGame:
    """A stored game without its record (:meth:`Store.record` reads that)."""

    id: int
    run_id: int | None
    idx: int | None
    pool: str
    ruleset: str
    players: int
    seed: int
    status: GameStatus
    duration: float
    finished_at: float
    seats: tuple[Seat, ...]

    @property
    def bots(self) -> list[str]:
        return [s.bot for s in self.seats]

    @property
    def scores(self) -> list[int]:
        return [s.score for s in self.seats]

    @property
    def winners(self) -> list[int]:
        return [s.seat for s in self.seats if s.won]

    def summary(self) -> dict:
        """The JSON form `pepper arena games --json` prints."""
        return {"id": self.id, "run_id": self.run_id, "pool": self.pool, "ruleset": self.ruleset, "players": self.players,
                "seats": self.bots, "versions": [s.version for s in self.seats], "status": str(self.status), "scores": self.scores, "winners": self.winners,
                "duration": self.duration, "finished_at": self.finished_at}


class PlannedGame(NamedTuple):
    idx: int            # position in the run's plan
    match: int          # games of one match share the deck seed, seats rotated
    ruleset: str
    players: int
    seed: int
    seats: list[str]    # bot name per seat


class GameIds(NamedTuple):
    count: int
    lowest: int | None
    highest: int | None


class BotTotals(NamedTuple):
    """One bot's aggregates over a pool's games: what the ranked table shows beside its rating."""

    bot: str
    version: int
    mu: float
    sigma: float
    games: int
    wins: int
    completed: int
    points: float                    # sum over completed games of its seats' mean score
    contracts_bid: int
    contracts_made: int
    timeouts: int
    illegal: int                     # illegal and malformed answers
    crashes: int                     # lost connections in its games, and crashes of its processes (table crashes)
    fallbacks: int                   # answers its SDK replaced by a legal fallback (its strategy failed)
    latency_p50_ms: float | None     # median of its seats' per-game p50s
    latency_p99_ms: float | None     # 99th percentile of its seats' per-game p99s


class BlockRow(NamedTuple):
    """One side's results against another over one block (a run's match), as the store keeps them
    (:mod:`arena.evidence`)."""

    run_id: int
    match: int
    bot: str
    version: int
    opponent: str
    opponent_version: int
    games: int                       # games of the block stored, with both sides on opposite teams
    planned: int                     # games the block has in the run's plan: complete when games == planned
    score: float                     # sum of the side's per-game score against the opponent
    score_sq: float
    margin: float                    # sum of its points minus the opponent's
    margin_sq: float

    @property
    def complete(self) -> bool:
        return self.games >= self.planned
