"""The ranked results table, computed from stored games and ratings.

Columns: rank, bot, mu, sigma, mu - 3 sigma, games, win %, average points per
game, contracts made %, timeouts, illegal actions, crashes, decision latency
p50 and p99. A bot's points in a game are its seat's (team's) final score,
averaged over its seats; average points count completed games only (a
forfeited or aborted game stops early, and its scores would pull every
average towards 0). Latency: the referee reports p50/p99 per seat per
game; the table shows the median of the per-game p50s and the 99th
percentile of the per-game p99s (an upper-leaning estimate, not a pooled p99).
"""

from __future__ import annotations

import statistics
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


def _pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def table(store: Store, pool: str) -> list[Row]:
    ratings = store.ratings(pool)
    acc: dict[str, dict] = {}
    for g in store.games(pool):
        seats = g["seats"]
        winners = set(g["winners"])
        for bot in dict.fromkeys(seats):
            mine = [s for s, b in enumerate(seats) if b == bot]
            a = acc.setdefault(bot, {"games": 0, "wins": 0, "points": 0.0, "completed": 0, "won": 0, "made": 0,
                                     "timeouts": 0, "illegal": 0, "crashes": 0, "p50": [], "p99": []})
            a["games"] += 1
            a["wins"] += bool(winners & set(mine))
            if g["status"] == "completed":
                a["completed"] += 1
                a["points"] += sum(g["scores"][s] for s in mine) / len(mine)
            for s in mine:
                won, made = g["contracts"][s]
                a["won"] += won
                a["made"] += made
                f = g["faults"][s]
                a["timeouts"] += f.get("timeout", 0)
                a["illegal"] += f.get("illegal", 0) + f.get("malformed", 0)
                a["crashes"] += f.get("disconnect", 0)
                lat = g["latency"][s]
                if lat and lat.get("p50") is not None:
                    a["p50"].append(lat["p50"])
                    a["p99"].append(lat["p99"])
    rows = []
    for bot, r in ratings.items():
        a = acc.get(bot)
        if not a:
            continue
        rows.append(Row(0, bot, r.mu, r.sigma, r.conservative, a["games"], 100.0 * a["wins"] / a["games"],
                        a["points"] / a["completed"] if a["completed"] else None, (100.0 * a["made"] / a["won"]) if a["won"] else None,
                        a["timeouts"], a["illegal"], a["crashes"],
                        statistics.median(a["p50"]) if a["p50"] else None, _pct(a["p99"], 0.99)))
    rows.sort(key=lambda x: -x.conservative)
    for i, row in enumerate(rows, 1):
        row.rank = i
    return rows


def contracts_by_seat(record: dict, team_of: list[int]) -> list[list[int]]:
    """[contracts won, contracts made] per seat, from a finished game record.

    A contract counts as made when the bidding side scored points on the deal
    (made or ceded to it); every ruleset scores a failed contract negative.
    """
    out = [[0, 0] for _ in team_of]
    for d in record.get("deals", []):
        c = d.get("contract")
        if not c:
            continue
        b = c["bidder"]
        out[b][0] += 1
        out[b][1] += d["points"][team_of[b]] > 0
    return out


__all__ = ["COLUMNS", "Row", "table", "contracts_by_seat", "Rating"]
