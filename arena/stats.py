"""The ranked results table, computed from stored games and ratings.

Columns: rank, bot, mu, sigma, mu - 3 sigma, games, win %, average points per
game, contracts made %, timeouts, illegal actions, crashes, decision latency
p50 and p99. A bot's points in a game are its seat's (team's) final score,
averaged over its seats; average points count completed games only (a
forfeited or aborted game stops early, and its scores would pull every
average towards 0). Latency: the referee reports p50/p99 per seat per
game; the table shows the median of the per-game p50s and the 99th
percentile of the per-game p99s (an upper-leaning estimate, not a pooled p99).
The aggregates are SQL over the store's per-seat rows (:meth:`Store.totals`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

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
    latency_p50_ms: float | None
    latency_p99_ms: float | None

    def to_dict(self) -> dict:
        return asdict(self)


COLUMNS = ["rank", "bot", "mu", "sigma", "mu-3sigma", "games", "win %", "avg points", "contracts made %",
           "timeouts", "illegal", "crashes", "p50 ms", "p99 ms"]


def table(store: Store, pool: str) -> list[Row]:
    rows = [Row(0, t.bot, t.mu, t.sigma, Rating(t.mu, t.sigma).conservative, t.games, 100.0 * t.wins / t.games,
                t.points / t.completed if t.completed else None,
                100.0 * t.contracts_made / t.contracts_bid if t.contracts_bid else None,
                t.timeouts, t.illegal, t.crashes, t.latency_p50_ms, t.latency_p99_ms)
            for t in store.totals(pool)]
    rows.sort(key=lambda x: -x.conservative)
    for i, row in enumerate(rows, 1):
        row.rank = i
    return rows


__all__ = ["COLUMNS", "Row", "table"]
