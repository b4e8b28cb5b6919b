"""Read-only queries for browsing a store (``pepper web``): games by run, version and status, each game's
duplicate twins, runs, fault examples, latency distributions, what changed. They only read, over the store's
own connection; the store's SQL stays in ``arena/store/``.

Duplicate twins: a run's plan (``planned_games``) puts the games of one *match* (one line-up on one deck
seed, seats rotated: :mod:`arena.schedule`) under one ``match`` number; a stored game knows its run and its
place in the plan (``games.run_id``, ``games.idx``). Games of the same run and match are twins.
"""

from __future__ import annotations

from typing import NamedTuple

from .rows import StoredGame
from .store import Store


class GameFilter(NamedTuple):
    pools: list[str] | None = None
    bot: str | None = None
    version: int | None = None       # with ``bot``: only that version's games
    run: int | None = None
    status: str | None = None


def games(store: Store, f: GameFilter, *, limit: int = 50, before: int | None = None) -> tuple[list[StoredGame], int]:
    """Up to ``limit`` + 1 games matching ``f``, newest first (ids below ``before``: the next page; one more than
    asked says there is a next page), and how many match in all."""
    where, args = [], []
    if f.pools is not None:
        where.append(f"pool IN ({', '.join('?' * len(f.pools))})")
        args.extend(f.pools)
    if f.bot is not None:
        if f.version is not None:
            where.append("id IN (SELECT game_id FROM game_seats WHERE bot = ? AND version = ?)")
            args += [f.bot, f.version]
        else:
            where.append("id IN (SELECT game_id FROM game_seats WHERE bot = ?)")
            args.append(f.bot)
    if f.run is not None:
        where.append("run_id = ?")
        args.append(f.run)
    if f.status is not None:
        where.append("status = ?")
        args.append(f.status)
    cond = (" WHERE " + " AND ".join(where)) if where else ""
    total = store.db.execute(f"SELECT COUNT(*) FROM games{cond}", args).fetchone()[0]
    page = where + (["id < ?"] if before is not None else [])
    page_cond = (" WHERE " + " AND ".join(page)) if page else ""
    return store._games(f"{page_cond} ORDER BY id DESC LIMIT ?", (*args, *([before] if before is not None else []), limit + 1)), total


def twins(store: Store, game_ids: list[int]) -> dict[int, list[int]]:
    """Per game id, the ids of its stored duplicate twins (the other games of its run's match), ascending."""
    if not game_ids:
        return {}
    rows = store.db.execute(f"""
        SELECT g.id, g2.id FROM games g
        JOIN planned_games p ON p.run_id = g.run_id AND p.idx = g.idx
        JOIN planned_games p2 ON p2.run_id = p.run_id AND p2.match = p.match AND p2.idx != p.idx
        JOIN games g2 ON g2.run_id = p2.run_id AND g2.idx = p2.idx
        WHERE g.id IN ({', '.join('?' * len(game_ids))}) ORDER BY g2.id""", game_ids)
    out: dict[int, list[int]] = {gid: [] for gid in game_ids}
    for gid, twin in rows:
        out[gid].append(twin)
    return out


def runs(store: Store) -> list[tuple[int, float, float | None, int]]:
    """(id, created at, finished at or None, stored games) of every run, newest first."""
    return store.db.execute("SELECT r.id, r.created_at, r.finished_at, (SELECT COUNT(*) FROM games g WHERE g.run_id = r.id) "
                            "FROM runs r ORDER BY r.id DESC").fetchall()


def faulted_games(store: Store, bot: str, version: int, limit: int = 5) -> list[tuple[int, int, str, int, int, int, int]]:
    """Examples of a version's faults: (game id, seat, seat status, illegal, malformed, timeout, disconnect), newest
    first, for games where it had any."""
    return store.db.execute(
        "SELECT game_id, seat, status, illegal, malformed, timeout, disconnect FROM game_seats WHERE bot = ? AND version = ? "
        "AND illegal + malformed + timeout + disconnect > 0 ORDER BY game_id DESC LIMIT ?", (bot, version, limit)).fetchall()


def latencies(store: Store, bot: str, version: int, pool: str) -> list[float]:
    """A version's per-game median decision times (ms) in ``pool``: its latency distribution."""
    return [r[0] for r in store.db.execute(
        "SELECT latency_p50_ms FROM game_seats WHERE bot = ? AND version = ? AND pool = ? AND latency_p50_ms IS NOT NULL "
        "ORDER BY latency_p50_ms", (bot, version, pool))]


def change_mark(store: Store) -> tuple[int, int, int, int]:
    """What changes when the store gains a game, a rating, a crash or a finished run: (newest game id, newest crash
    id, newest rating row, finished runs). A game is stored first and rated once the games planned before it are
    stored, so the rating moves alone."""
    return store.db.execute("SELECT (SELECT COALESCE(MAX(id), 0) FROM games), (SELECT COALESCE(MAX(id), 0) FROM crashes), "
                            "(SELECT COALESCE(MAX(rowid), 0) FROM rating_history), "
                            "(SELECT COUNT(finished_at) FROM runs)").fetchone()


def unplayed_twins(store: Store, game_id: int) -> int:
    """How many games of ``game_id``'s duplicate match its run still has to play (0 once the run is finished: a
    finished run plays nothing more). While there are any, the game's cards and its seed (which deals every deal
    of its twins) are withheld from every reader: web pages, the JSON API, the CLI."""
    return withheld(store, [game_id]).get(game_id, 0)


def withheld(store: Store, game_ids: list[int]) -> dict[int, int]:
    """:func:`unplayed_twins` of many games at once: the games among ``game_ids`` with twins still to play."""
    if not game_ids:
        return {}
    return dict(store.db.execute(f"""
        SELECT g.id, COUNT(*) FROM games g
        JOIN runs r ON r.id = g.run_id AND r.finished_at IS NULL
        JOIN planned_games p ON p.run_id = g.run_id AND p.idx = g.idx
        JOIN planned_games p2 ON p2.run_id = p.run_id AND p2.match = p.match AND p2.idx != p.idx
        WHERE g.id IN ({', '.join('?' * len(game_ids))})
          AND NOT EXISTS (SELECT 1 FROM games g2 WHERE g2.run_id = p2.run_id AND g2.idx = p2.idx)
        GROUP BY g.id""", game_ids).fetchall())


def pool_history(store: Store, pool: str) -> list[tuple[int, str, int, float, float]]:
    """(game id, bot, version, mu, sigma) of every rating of ``pool``, in the order they were rated (plan order:
    :meth:`arena.store.Store.rating_history`): every bot's history on one axis."""
    return store.db.execute("SELECT game_id, bot, version, mu, sigma FROM rating_history WHERE pool = ? ORDER BY rowid",
                            (pool,)).fetchall()
