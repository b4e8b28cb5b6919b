"""The ranked results table, computed from stored games and ratings.

A row is one version of a bot (by default each bot's newest version with games
in the pool; ``all_versions`` for every one) and holds every figure: the TrueSkill rating (mu, sigma, and mu - 3 sigma,
the conservative rating the table is sorted by), games, win %, average points
per game, contracts made %, faults by kind (timeouts, illegal actions, crashes:
lost connections in its games plus the crashes of its processes the arena
recorded, strategy fallbacks) and decision latency p50 and p99. A bot's points in a game
are its seat's (team's) final score, averaged over its seats; average points
count completed games only (a forfeited or aborted game stops early, and its
scores would pull every average towards 0). A fallback is an answer the bot's
SDK played in place of what its strategy gave (an exception, an illegal or
unreadable action): legal on the wire, so the referee sees no illegal move,
but a fault of the bot all the same. Latency: the referee reports p50/p99 per
seat per game; the table shows the median of the per-game p50s and the 99th
percentile of the per-game p99s (an upper-leaning estimate, not a pooled p99).
The aggregates are SQL over the store's per-seat rows (:meth:`Store.totals`).

Two layouts show the rows: :data:`COMPACT` (fits 80 columns: rank, bot,
rating with its interval, games, win %, all faults together) and :data:`WIDE`
(every figure).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import NamedTuple

from .ratings import Rating
from .store import Store


@dataclass
class Row:
    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    games: int
    win_pct: float
    avg_points: float | None
    contracts_made_pct: float | None
    timeouts: int
    illegal: int
    crashes: int
    fallbacks: int
    latency_p50_ms: float | None
    latency_p99_ms: float | None
    version: int = 1
    label: str = ""     # how the table names it: "mybot", or "mybot v3" for a bot with several versions

    @property
    def faults(self) -> int:
        """Every fault of the bot, of any kind."""
        return self.timeouts + self.illegal + self.crashes + self.fallbacks

    def to_dict(self) -> dict:
        """Every figure (JSON and CSV): the bot's name and its version apart, not the label."""
        return {k: v for k, v in asdict(self).items() if k != "label"}


class Column(NamedTuple):
    """A column of a printed table: its header, and its cell for a row."""

    header: str
    cell: Callable[[Row], str]
    left: bool = False   # text, aligned left; numbers are aligned right


def _num(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


_RANK = Column("rank", lambda r: str(r.rank))
_BOT = Column("bot", lambda r: r.label, left=True)
_GAMES = Column("games", lambda r: str(r.games))
_WIN = Column("win %", lambda r: _num(r.win_pct))

COMPACT = (_RANK, _BOT,
           Column("rating", lambda r: _num(r.conservative, 2)),
           Column("mu ± 3sigma", lambda r: f"{r.mu:.2f} ± {3 * r.sigma:.2f}"),
           _GAMES, _WIN,
           Column("faults", lambda r: str(r.faults)))

WIDE = (_RANK, _BOT,
        Column("mu", lambda r: _num(r.mu, 2)),
        Column("sigma", lambda r: _num(r.sigma, 2)),
        Column("mu-3sigma", lambda r: _num(r.conservative, 2)),
        _GAMES, _WIN,
        Column("avg points", lambda r: _num(r.avg_points)),
        Column("contracts made %", lambda r: _num(r.contracts_made_pct)),
        Column("timeouts", lambda r: str(r.timeouts)),
        Column("illegal", lambda r: str(r.illegal)),
        Column("crashes", lambda r: str(r.crashes)),
        Column("fallbacks", lambda r: str(r.fallbacks)),
        Column("p50 ms", lambda r: _num(r.latency_p50_ms, 2)),
        Column("p99 ms", lambda r: _num(r.latency_p99_ms, 2)))


def label(bot: str, version: int, versions: int) -> str:
    """A version's name in a table: the bot's alone while it has one version, else with the version."""
    return bot if versions <= 1 else f"{bot} v{version}"


def table(store: Store, pool: str, *, all_versions: bool = False, as_of: int | None = None) -> list[Row]:
    """The ranked rows of ``pool`` (a key): each bot's newest version with games there, or every version;
    ``as_of``: as they stood at that point of the rating history (:meth:`Store.as_of`)."""
    totals = store.totals(pool, as_of)
    if not all_versions:
        newest = {t.bot: t.version for t in totals}  # ordered by bot, then version
        totals = [t for t in totals if t.version == newest[t.bot]]
    counts = store.version_counts()
    rows = [Row(0, t.bot, t.mu, t.sigma, Rating(t.mu, t.sigma).conservative, t.games, 100.0 * t.wins / t.games,
                t.points / t.completed if t.completed else None,
                100.0 * t.contracts_made / t.contracts_bid if t.contracts_bid else None,
                t.timeouts, t.illegal, t.crashes, t.fallbacks, t.latency_p50_ms, t.latency_p99_ms, t.version,
                label(t.bot, t.version, counts.get(t.bot, 1)))
            for t in totals]
    rows.sort(key=lambda x: -x.conservative)
    for i, row in enumerate(rows, 1):
        row.rank = i
    return rows


__all__ = ["COMPACT", "WIDE", "Column", "Row", "label", "table"]
