"""The store's games, ratings, blocks and crashes (a part of :class:`arena.store.Store`)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping

from ..evidence import game_pairs
from ..ratings import Rating
from .rows import BlockRow, BotTotals, Faults, GameIds, GameStatus, NewGame, Seat, SeatStatus, StoredGame

_SEAT_COLUMNS = ("seat, bot, version, status, illegal, malformed, timeout, disconnect, score, won, contracts_bid, contracts_made, "
                 "fallbacks, decisions, latency_p50_ms, latency_p99_ms")
_GAME_COLUMNS = "id, run_id, idx, pool, ruleset, players, seed, status, duration, finished_at"


def _seat(row: tuple) -> Seat:
    seat, bot, version, status, illegal, malformed, timeout, disconnect, score, won, bid, made, fallbacks, decisions, \
        p50, p99 = row
    return Seat(seat, bot, SeatStatus(status), Faults(illegal, malformed, timeout, disconnect), score, bool(won),
                bid, made, fallbacks, decisions, p50, p99, version)


class GameTables:
    """Finished games stored (unrated, then rated in plan order), the pool's ratings and their history, duplicate
    blocks, crashes, and the queries of the table and the game lists."""

    db: sqlite3.Connection   # the Store's connection; ``tx`` its transactions (arena.store.store.Store)

    # -- games and ratings ----------------------------------------------------------------------------
    # Ratings are per (pool, bot, version); one game seats one version of each of its bots, so within a game,
    # a pool's ratings are keyed by bot name (what arena.ratings.Rater works with).
    def ratings(self, pool: str, versions: Mapping[str, int] | None = None) -> dict[str, Rating]:
        """The ratings in ``pool`` of the given version of each bot, or of each bot's newest rated version."""
        rows = self.db.execute("SELECT bot, version, mu, sigma FROM ratings WHERE pool = ? ORDER BY bot, version", (pool,))
        if versions is None:
            return {b: Rating(mu, sigma) for b, _, mu, sigma in rows}  # the newest version comes last
        return {b: Rating(mu, sigma) for b, v, mu, sigma in rows if versions.get(b) == v}

    def rating_games(self, pool: str, bot: str, version: int = 1) -> int:
        """How many rated games version ``version`` of ``bot`` has in ``pool``."""
        row = self.db.execute("SELECT games FROM ratings WHERE pool = ? AND bot = ? AND version = ?",
                              (pool, bot, version)).fetchone()
        return row[0] if row else 0

    def record_games(self, games: Iterable[NewGame]) -> int:
        """Store a run's finished games (one match's, say), unrated, in one transaction; a game whose plan index is
        already stored is dropped, not counted twice (a match played again after a lost node or a straggler's
        cancellation may come back twice). Returns how many were stored."""
        return sum(self.record_group(games))

    def record_group(self, games: Iterable[NewGame]) -> list[bool]:
        """:meth:`record_games`, telling for each game whether it was stored (False: its plan index was already)."""
        stored = []
        with self.tx():
            for game in games:
                new = game.idx is None or not self.db.execute("SELECT 1 FROM games WHERE run_id = ? AND idx = ?",
                                                              (game.run_id, game.idx)).fetchone()
                if new:
                    self._insert_game(game, lambda current: {})
                stored.append(new)
        return stored

    def _insert_game(self, game: NewGame, rate: Callable[[dict[str, Rating]], dict[str, Rating]]) -> int:
        """Inside a transaction: a finished game, its seats, record, block and ratings. Returns the game id."""
        versions = {s.bot: s.version for s in game.seats}
        new = rate(self.ratings(game.pool, versions))
        gid = self.db.execute(
            "INSERT INTO games (run_id, idx, pool, ruleset, players, seed, status, duration, finished_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game.run_id, game.idx, game.pool, game.ruleset, game.players, game.seed, str(game.status),
             game.duration, time.time())).lastrowid
        self.db.executemany(
            f"INSERT INTO game_seats (game_id, pool, {_SEAT_COLUMNS}) VALUES ({', '.join('?' * 18)})",
            [(gid, game.pool, s.seat, s.bot, s.version, str(s.status), *s.faults, s.score, s.won,
              s.contracts_bid, s.contracts_made, s.fallbacks, s.decisions, s.latency_p50_ms, s.latency_p99_ms)
             for s in game.seats])
        self.db.execute("INSERT INTO game_records (game_id, record_json) VALUES (?, ?)", (gid, json.dumps(game.record)))
        self._add_to_block(gid, game)
        self._write_ratings(gid, game.pool, versions, new)
        return gid

    def _write_ratings(self, game_id: int, pool: str, versions: Mapping[str, int], new: Mapping[str, Rating]) -> None:
        """Inside a transaction: the ratings after game ``game_id`` and their history rows."""
        for bot, r in new.items():
            self.db.execute(
                "INSERT INTO ratings (pool, bot, version, mu, sigma, games) VALUES (?, ?, ?, ?, ?, 1) "
                "ON CONFLICT (pool, bot, version) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                "games = games + 1", (pool, bot, versions.get(bot, 1), r.mu, r.sigma))
            self.db.execute("INSERT INTO rating_history (game_id, bot, version, pool, mu, sigma) "
                            "VALUES (?, ?, ?, ?, ?, ?)", (game_id, bot, versions.get(bot, 1), pool, r.mu, r.sigma))

    # Rating in plan order: the arena stores each game as it finishes, unrated, and rates the stored games
    # in the order of the run's plan, so that the same command and seed give the same table whatever order the games
    # finished in. A game is rated once it and every game planned before it are stored.
    def unrated(self, run_id: int, *, past_gaps: bool = False, start: int = 0) -> list[StoredGame]:
        """The run's stored games not rated yet, in plan order: those planned before its first game without a stored
        result, or every one (``past_gaps``: games left unplayed, a withdrawn bot's, hold up none). ``start``: a
        plan index below which every game is known to be rated (so that a long run's calls stay cheap)."""
        gap = "" if past_gaps else (
            " AND idx < COALESCE((SELECT MIN(p.idx) FROM planned_games p LEFT JOIN games g2 ON g2.run_id = p.run_id "
            "AND g2.idx = p.idx WHERE p.run_id = ? AND p.idx >= ? AND g2.id IS NULL), 1 << 62)")
        return self._games("WHERE run_id = ? AND idx >= ? AND NOT EXISTS (SELECT 1 FROM rating_history h "
                           f"WHERE h.game_id = games.id){gap} ORDER BY idx",
                           (run_id, start) if past_gaps else (run_id, start, run_id, start))

    def rate_games(self, games: Iterable[StoredGame],
                   rate: Callable[[StoredGame, dict[str, Rating]], dict[str, Rating]]) -> int:
        """Rate stored games in order, each with the ratings ``rate(game, current)`` derives from the current ratings
        of the versions that played it, read inside the one transaction that writes them all (one disk sync for a
        batch: what lets a driver that commits many matches a second keep up); a game rated already is skipped.
        Returns how many were rated."""
        rated = 0
        with self.tx():
            for game in games:
                if self.db.execute("SELECT 1 FROM rating_history WHERE game_id = ?", (game.id,)).fetchone():
                    continue
                versions = {s.bot: s.version for s in game.seats}
                self._write_ratings(game.id, game.pool, versions, rate(game, self.ratings(game.pool, versions)))
                rated += 1
        return rated

    def _add_to_block(self, gid: int, game: NewGame) -> None:
        """Inside _insert_game's transaction: the game's pairwise results into its block (its run's match)."""
        if game.run_id is None or game.idx is None:
            return
        row = self.db.execute("SELECT match FROM planned_games WHERE run_id = ? AND idx = ?",
                              (game.run_id, game.idx)).fetchone()
        if row is None:
            return
        team_of = game.team_of or tuple(range(len(game.seats)))
        pairs = game_pairs([(s.bot, s.version) for s in game.seats], [s.score for s in game.seats],
                           [s.won for s in game.seats], team_of)
        self.db.executemany(
            "INSERT INTO block_scores VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) "
            "ON CONFLICT (run_id, match, bot, version, opponent, opponent_version) DO UPDATE SET games = games + 1, "
            "score = score + excluded.score, score_sq = score_sq + excluded.score_sq, "
            "margin = margin + excluded.margin, margin_sq = margin_sq + excluded.margin_sq",
            [(game.run_id, row[0], game.pool, *p.a, *p.b, p.score, p.score ** 2, p.margin, p.margin ** 2) for p in pairs])

    def blocks(self, pool: str, run_id: int | None = None, from_match: int = 0,
               as_of: int | None = None) -> list[BlockRow]:
        """Every side's block rows in ``pool`` (or in one run of it, from its match ``from_match`` on), by run and
        match, each with the games its block has in the plan; ``as_of`` (from :meth:`as_of`): only the blocks whose
        every planned game was rated by that point of the rating history."""
        cond, args = ("AND b.run_id = ? AND b.match >= ?", (pool, run_id, from_match)) if run_id is not None \
            else ("", (pool,))
        cond_p, args_p = ("AND match >= ?", (from_match,)) if run_id is not None else ("", ())
        cut, args_c = ("", ()) if as_of is None else ("""
            JOIN (SELECT g.run_id, p.match, COUNT(*) AS rated FROM games g
                  JOIN planned_games p ON p.run_id = g.run_id AND p.idx = g.idx
                  WHERE g.id IN (SELECT game_id FROM rating_history WHERE pool = ? AND rowid <= ?)
                  GROUP BY g.run_id, p.match) r ON r.run_id = b.run_id AND r.match = b.match AND r.rated = p.n""",
                                                      (pool, as_of))
        rows = self.db.execute(f"""
            WITH planned AS (
                SELECT run_id, match, COUNT(*) AS n FROM planned_games
                WHERE run_id IN (SELECT DISTINCT run_id FROM block_scores b WHERE b.pool = ? {cond}) {cond_p}
                GROUP BY run_id, match)
            SELECT b.run_id, b.match, b.bot, b.version, b.opponent, b.opponent_version, b.games, p.n,
                   b.score, b.score_sq, b.margin, b.margin_sq
            FROM block_scores b JOIN planned p USING (run_id, match) {cut} WHERE b.pool = ? {cond}
            ORDER BY b.run_id, b.match, b.bot, b.version, b.opponent, b.opponent_version""",
            args + args_p + args_c + args)
        return [BlockRow(*r) for r in rows]

    def record_crash(self, run_id: int, pool: str, bot: str, version: int, exit_code: int | None,
                     games_replayed: int) -> int:
        """Record a crash of a process of ``bot`` (version ``version``) during run ``run_id`` in ``pool``: it
        counts once among the bot's faults, however many games in flight were replayed. Returns its id."""
        with self.tx():
            return self.db.execute(
                "INSERT INTO crashes (run_id, pool, bot, version, exit_code, games_replayed, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", (run_id, pool, bot, version, exit_code, games_replayed, time.time())
            ).lastrowid

    def rating_history(self, pool: str, bot: str, version: int = 1) -> list[tuple[int, Rating]]:
        """(game id, rating after it) for every rated game of version ``version`` of ``bot`` in ``pool``, in the
        order they were rated (plan order: a game that finished early waits for the ones planned before it, so
        its id can be the higher one); the last is the bot's rating."""
        rows = self.db.execute("SELECT game_id, mu, sigma FROM rating_history WHERE pool = ? AND bot = ? AND version = ? "
                               "ORDER BY rowid", (pool, bot, version))
        return [(gid, Rating(mu, sigma)) for gid, mu, sigma in rows]

    def as_of(self, run_id: int, games: int) -> int | None:
        """Where the rating history stood once the first ``games`` planned games of run ``run_id`` were rated (games
        are rated in plan order): :meth:`totals`'s ``as_of``. None when none of them is rated yet."""
        return self.db.execute("SELECT MAX(h.rowid) FROM rating_history h JOIN games g ON g.id = h.game_id "
                               "WHERE g.run_id = ? AND g.idx < ?", (run_id, games)).fetchone()[0]

    def rated_count(self, run_id: int, games: int) -> int:
        """How many of the first ``games`` planned games of run ``run_id`` are rated."""
        return self.db.execute("SELECT COUNT(*) FROM games g WHERE g.run_id = ? AND g.idx < ? AND EXISTS "
                               "(SELECT 1 FROM rating_history h WHERE h.game_id = g.id)", (run_id, games)).fetchone()[0]

    def ratings_after(self, pool: str, run_id: int, games: int,
                      versions: Mapping[str, int] | None = None) -> dict[str, Rating]:
        """The ratings in ``pool`` of the given versions (or each bot's newest rated one) as they stood once the
        first ``games`` planned games of run ``run_id`` were rated (before any: before the run's first update); a
        version with no history in the pool has its stored rating (a pool seeded by :meth:`set_ratings`)."""
        if versions is None:
            versions = dict(self.db.execute("SELECT bot, MAX(version) FROM ratings WHERE pool = ? GROUP BY bot", (pool,)))
        cut = self.as_of(run_id, games) if games else None
        if cut is None:
            first = self.db.execute("SELECT MIN(h.rowid) FROM rating_history h JOIN games g ON g.id = h.game_id "
                                    "WHERE g.run_id = ?", (run_id,)).fetchone()[0]
            if first is None:
                return self.ratings(pool, versions)
            cut = first - 1
        out = {b: r for b, r in self.ratings(pool, versions).items()
               if not self.db.execute("SELECT 1 FROM rating_history WHERE pool = ? AND bot = ? AND version = ?",
                                      (pool, b, versions.get(b))).fetchone()}
        rows = self.db.execute("SELECT bot, version, mu, sigma FROM rating_history WHERE rowid IN (SELECT MAX(rowid) "
                               "FROM rating_history WHERE pool = ? AND rowid <= ? GROUP BY bot, version)", (pool, cut))
        out |= {b: Rating(mu, sigma) for b, v, mu, sigma in rows if versions.get(b) == v}
        return out

    def pool_runs(self, pool: str) -> list[int]:
        """The runs with games in ``pool``, oldest first."""
        return [r[0] for r in self.db.execute("SELECT DISTINCT run_id FROM games WHERE pool = ? AND run_id IS NOT NULL "
                                              "ORDER BY run_id", (pool,))]

    def _games(self, where: str, args: Iterable) -> list[StoredGame]:
        games = self.db.execute(f"SELECT {_GAME_COLUMNS} FROM games {where}", tuple(args)).fetchall()
        if not games:
            return []
        ids = [g[0] for g in games]
        seats: dict[int, list[Seat]] = {}
        for gid, *row in self.db.execute(f"SELECT game_id, {_SEAT_COLUMNS} FROM game_seats WHERE game_id IN "
                                         f"({', '.join('?' * len(ids))}) ORDER BY game_id, seat", ids):
            seats.setdefault(gid, []).append(_seat(tuple(row)))
        return [StoredGame(*g[:7], GameStatus(g[7]), g[8], g[9], tuple(seats.get(g[0], ()))) for g in games]

    def game(self, game_id: int) -> StoredGame | None:
        found = self._games("WHERE id = ?", (game_id,))
        return found[0] if found else None

    def record(self, game_id: int) -> dict | None:
        """A game's full record (it replays exactly)."""
        row = self.db.execute("SELECT record_json FROM game_records WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def block_records(self, run_id: int, match: int) -> list[tuple[tuple[tuple[str, int], ...], dict]]:
        """The stored games of one block (run ``run_id``'s match ``match``) in plan order: each as the (bot, version)
        in every seat and its record, for the deal-by-deal statistics (:mod:`arena.deals_evidence`)."""
        ids = [r[0] for r in self.db.execute(
            "SELECT g.id FROM games g JOIN planned_games p ON p.run_id = g.run_id AND p.idx = g.idx "
            "WHERE g.run_id = ? AND p.match = ? ORDER BY g.idx", (run_id, match))]
        out = []
        for gid in ids:
            sides = tuple(self.db.execute("SELECT bot, version FROM game_seats WHERE game_id = ? ORDER BY seat", (gid,)))
            record = self.record(gid)
            if record is not None:
                out.append((sides, record))
        return out

    def game_ids(self, run_id: int | None = None) -> GameIds:
        """(count, lowest id, highest id) of the stored games, or of one run's."""
        q = "SELECT COUNT(*), MIN(id), MAX(id) FROM games" + (" WHERE run_id = ?" if run_id is not None else "")
        return GameIds(*self.db.execute(q, () if run_id is None else (run_id,)).fetchone())

    def latest_game_ids(self, run_id: int | None = None, limit: int = 5) -> list[int]:
        q = "SELECT id FROM games" + (" WHERE run_id = ?" if run_id is not None else "") + " ORDER BY id DESC LIMIT ?"
        return [r[0] for r in self.db.execute(q, (limit,) if run_id is None else (run_id, limit))]

    def latest_games(self, *, ruleset: str | None = None, players: int | None = None, bot: str | None = None,
                     pools: list[str] | None = None, limit: int = 20) -> tuple[list[StoredGame], int]:
        """The latest games (newest first) matching the filters, and how many match."""
        where, args = [], []
        if pools is not None:
            where.append(f"pool IN ({', '.join('?' * len(pools))})")
            args.extend(pools)
        if ruleset is not None:
            where.append("ruleset = ?")
            args.append(ruleset)
        if players is not None:
            where.append("players = ?")
            args.append(players)
        if bot is not None:
            where.append("id IN (SELECT game_id FROM game_seats WHERE bot = ?)")
            args.append(bot)
        cond = (" WHERE " + " AND ".join(where)) if where else ""
        total = self.db.execute(f"SELECT COUNT(*) FROM games{cond}", args).fetchone()[0]
        return self._games(f"{cond} ORDER BY id DESC LIMIT ?", (*args, limit)), total

    def pools(self) -> list[str]:
        """The keys of the pools with ratings (see :class:`arena.ratings.Pool`)."""
        return [r[0] for r in self.db.execute("SELECT DISTINCT pool FROM ratings ORDER BY pool")]

    def newest_game(self, pool: str) -> int:
        """The id of ``pool``'s newest game (0 for none)."""
        return self.db.execute("SELECT COALESCE(MAX(id), 0) FROM games WHERE pool = ?", (pool,)).fetchone()[0]

    def totals(self, pool: str, as_of: int | None = None) -> list[BotTotals]:
        """Per rated version of a bot in ``pool`` with games there: its rating and its aggregates over its games
        (see :mod:`arena.stats` for what each means). Latency: the median of the seats' per-game p50s and
        the 99th percentile (the value at index int(0.99 n) of the sorted n) of their per-game p99s.

        ``as_of`` (from :meth:`as_of`): the ratings as they stood at that point of the rating history, and the
        aggregates over the games rated by then (the crashes are all the pool's)."""
        rows = self.db.execute("""
            WITH counted AS (                 -- the games the table counts: all, or those rated by as_of
                SELECT id FROM games WHERE pool = :pool AND (:as_of IS NULL OR id IN (
                    SELECT game_id FROM rating_history WHERE pool = :pool AND rowid <= :as_of))),
            rated AS (                        -- the ratings: current, or each version's last update by as_of
                SELECT pool, bot, version, mu, sigma FROM ratings WHERE pool = :pool AND :as_of IS NULL
                UNION ALL
                SELECT pool, bot, version, mu, sigma FROM rating_history WHERE rowid IN (
                    SELECT MAX(rowid) FROM rating_history WHERE pool = :pool AND rowid <= :as_of GROUP BY bot, version)),
            per_game AS (                     -- a bot's seats in one game: one result
                SELECT s.bot, s.version, MAX(s.won) AS won, g.status = 'completed' AS completed,
                       SUM(s.score) * 1.0 / COUNT(*) AS points
                FROM game_seats s JOIN games g ON g.id = s.game_id
                WHERE s.pool = :pool AND s.game_id IN counted GROUP BY s.game_id, s.bot, s.version),
            games_of AS (
                SELECT bot, version, COUNT(*) AS games, SUM(won) AS wins, SUM(completed) AS completed,
                       TOTAL(CASE WHEN completed THEN points END) AS points
                FROM per_game GROUP BY bot, version),
            crashes_of AS (
                SELECT bot, version, COUNT(*) AS crashes FROM crashes WHERE pool = :pool GROUP BY bot, version),
            seats_of AS (
                SELECT bot, version, SUM(contracts_bid) AS bid, SUM(contracts_made) AS made, SUM(timeout) AS timeouts,
                       SUM(illegal + malformed) AS illegal, SUM(disconnect) AS disconnects, SUM(fallbacks) AS fallbacks
                FROM game_seats WHERE pool = :pool AND game_id IN counted GROUP BY bot, version),
            latencies AS (
                SELECT bot, version, latency_p50_ms AS p50, latency_p99_ms AS p99,
                       ROW_NUMBER() OVER (PARTITION BY bot, version ORDER BY latency_p50_ms) AS r50,
                       ROW_NUMBER() OVER (PARTITION BY bot, version ORDER BY latency_p99_ms) AS r99,
                       COUNT(*) OVER (PARTITION BY bot, version) AS n
                FROM game_seats WHERE pool = :pool AND latency_p50_ms IS NOT NULL AND game_id IN counted),
            latency_of AS (
                SELECT bot, version,
                       (MIN(CASE WHEN r50 IN ((n + 1) / 2, (n + 2) / 2) THEN p50 END)
                        + MAX(CASE WHEN r50 IN ((n + 1) / 2, (n + 2) / 2) THEN p50 END)) / 2 AS p50,
                       MAX(CASE WHEN r99 = MIN(n, CAST(0.99 * n AS INTEGER) + 1) THEN p99 END) AS p99
                FROM latencies GROUP BY bot, version)
            SELECT r.bot, r.version, r.mu, r.sigma, g.games, g.wins, g.completed, g.points, s.bid, s.made, s.timeouts,
                   s.illegal, s.disconnects + COALESCE(c.crashes, 0), s.fallbacks, l.p50, l.p99
            FROM rated r JOIN games_of g USING (bot, version) JOIN seats_of s USING (bot, version)
                 LEFT JOIN latency_of l USING (bot, version) LEFT JOIN crashes_of c USING (bot, version)
            WHERE r.pool = :pool ORDER BY r.bot, r.version""", {"pool": pool, "as_of": as_of})
        return [BotTotals(*r) for r in rows]
