"""The arena's SQLite store: bots, runs, planned matches, games and their seats, ratings.

Durability rules (the arena may be killed with -9 at any moment):

- A run's plan (every match and the seats of each of its games) is written
  before any game starts, in one transaction, keyed by the run's config, so
  running the same command again finds and continues the same run.
- A finished game, its seats, its record and the rating updates it causes are
  written in one ``BEGIN IMMEDIATE`` transaction that also reads the ratings
  it updates, and ``games`` has UNIQUE(run_id, idx): a game is counted once or
  not at all, and two writers never rate from the same stale ratings. Games in
  flight when the arena dies are simply played again.
- WAL journal with synchronous=FULL: a committed game survives a crash.
- Opening a database of an older schema migrates it in place (see
  :mod:`arena.store.migrations`), after a backup copy beside it.

A full disk or an unwritable file raises :class:`StoreError` naming the file
and what to do; nothing already committed is lost. Every SQL statement of the
arena lives in this package.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path

from ..ratings import Rating
from .migrations import LATEST, MIGRATIONS
from .rows import (
    Bot,
    BotKind,
    BotTotals,
    Faults,
    GameIds,
    GameStatus,
    NewGame,
    PlannedGame,
    Seat,
    SeatStatus,
    StoredGame,
)

Plan = list[tuple[int, str, int, int, list[str]]]  # (match, ruleset name, players, seed, seats): arena.schedule.plan


class StoreError(Exception):
    """The results database cannot be used; the message says why and what to do."""


_SEAT_COLUMNS = ("seat, bot, status, illegal, malformed, timeout, disconnect, score, won, contracts_bid, contracts_made, "
                 "fallbacks, decisions, latency_p50_ms, latency_p99_ms")
_GAME_COLUMNS = "id, run_id, idx, pool, ruleset, players, seed, status, duration, finished_at"


def _seat(row: tuple) -> Seat:
    seat, bot, status, illegal, malformed, timeout, disconnect, score, won, bid, made, fallbacks, decisions, p50, p99 = row
    return Seat(seat, bot, SeatStatus(status), Faults(illegal, malformed, timeout, disconnect), score, bool(won),
                bid, made, fallbacks, decisions, p50, p99)


class Store:
    """The results database at ``path``; ``read_only`` for the commands that only read it, so that they work on
    a file the user cannot write (and cannot change it by mistake)."""

    def __init__(self, path: str | Path = "arena.db", *, read_only: bool = False):
        self.path = Path(path)
        try:
            if read_only:
                self._open_read_only()
            else:
                self._open_writable()
        except sqlite3.DatabaseError as e:
            raise StoreError(self._explain(e, reading=read_only)) from None

    def _open_writable(self) -> None:
        folder = self.path.parent
        if not folder.is_dir():  # a mistyped path should not quietly grow a directory tree
            raise StoreError(f"{self.path}: the directory {folder} does not exist; create it first "
                             f"(mkdir -p {folder}) or choose another path with --db")
        if not os.access(folder, os.W_OK) or (self.path.exists() and not os.access(self.path, os.W_OK)):
            raise StoreError(self._cannot_write("it is read-only for this user"))
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self._migrate()
        self.db.execute("PRAGMA foreign_keys=ON")

    def _open_read_only(self) -> None:
        if not self.path.is_file():
            raise StoreError(f"{self.path}: no results database there (run `pepper arena run` first, or pass --db)")
        self.db = self._connect_read_only()
        version = self._version()
        if version > LATEST:
            raise StoreError(self._too_new(version))
        if version < LATEST:  # migrating writes: done by a writable opening, then read as usual
            self.db.close()
            if not self._writable():
                raise StoreError(
                    f"{self.path}: the results database has schema version {version} and must be migrated to "
                    f"version {LATEST} before it can be read, which writes it, and it is read-only here; make the "
                    f"file and its directory writable and run the same command again (the migration keeps a copy "
                    f"of the file as it was beside it), or copy it to a writable place and pass --db COPY")
            Store(self.path).close()
            self.db = self._connect_read_only()

    def _writable(self) -> bool:
        return os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)

    def _connect_read_only(self) -> sqlite3.Connection:
        # A WAL database is read through its -wal and -shm files, which a reader creates if they are missing. Where
        # it cannot (a read-only file or directory) and there is no -wal, every write is checkpointed into the file:
        # read it as immutable, without side files or locks.
        wal = self.path.with_name(self.path.name + "-wal")
        immutable = "&immutable=1" if not wal.exists() and not self._writable() else ""
        uri = f"{self.path.resolve().as_uri()}?mode=ro{immutable}"
        return sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)

    # -- opening: schema version and migrations ---------------------------------------------------
    def _version(self) -> int:
        """The schema version; schema-1 databases predate user_version and say so in ``meta``."""
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version:
            return version
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return 0
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() if "meta" in tables else None
        if row is None or row[0] != "1":
            raise StoreError(f"{self.path}: not an arena database (tables {', '.join(sorted(tables))}, no schema version); "
                             "choose another path with --db")
        return 1

    def _migrate(self) -> None:
        version = self._version()
        if version > LATEST:
            raise StoreError(self._too_new(version))
        if version == LATEST:
            return
        backup = None
        if version:  # a database with data: keep a copy as it was
            backup = self.path.with_name(f"{self.path.name}.schema{version}.bak")
            with sqlite3.connect(backup) as copy:
                self.db.backup(copy)
            copy.close()
        # Table rebuilds need foreign keys off (SQLite's documented procedure); checked before committing.
        self.db.execute("PRAGMA foreign_keys=OFF")
        self.db.execute("BEGIN IMMEDIATE")
        step = None
        try:
            version = self._version()  # another process may have migrated it while we waited for the lock
            for step in MIGRATIONS[version:]:
                step.apply(self.db)
            self.db.execute(f"PRAGMA user_version = {LATEST}")
            bad = self.db.execute("PRAGMA foreign_key_check").fetchall()
            if bad:
                raise sqlite3.IntegrityError(f"foreign key check failed: {bad[:3]}")
            self.db.execute("COMMIT")
        except (sqlite3.DatabaseError, StoreError, ValueError, KeyError, IndexError, TypeError) as e:
            self._rollback()
            kept = f"; a copy from before is at {backup}" if backup else ""
            raise StoreError(f"{self.path}: migration {step.version if step else '?'} ({step.what if step else ''}) "
                             f"failed: {e}; the file is unchanged{kept}. Report this, and use another --db meanwhile"
                             ) from None

    def _too_new(self, version: int) -> str:
        return (f"{self.path}: the results database has schema version {version}, newer than this arena reads "
                f"(up to {LATEST}); upgrade pepper-arena to open it, or use another --db")

    def _cannot_write(self, why: str) -> str:
        return (f"{self.path}: cannot write the results database ({why}), and this command writes it: make the file "
                "and its directory writable (SQLite keeps its -wal and -shm files beside it), or choose a writable "
                "path with --db")

    def _explain(self, e: Exception, *, reading: bool = False) -> str:
        msg = str(e)
        if "full" in msg:
            return f"{self.path}: the disk is full ({msg}); free some space and run the same command again to resume"
        if reading and ("readonly" in msg or "unable to open" in msg):
            return (f"{self.path}: cannot read the results database ({msg}); check that you may read the file and "
                    "its directory, and that its -wal and -shm files beside it, if any, are readable")
        if "readonly" in msg or "unable to open" in msg:
            return self._cannot_write(msg)
        if "disk I/O error" in msg:
            return (f"{self.path}: cannot write the results database ({msg}): the disk may be full, over a file size "
                    "limit or failing; fix that and run the same command again to resume (what was stored is kept), "
                    "or start afresh with another --db")
        if "not a database" in msg or "malformed" in msg:
            return f"{self.path}: not an arena database ({msg}); choose another path with --db"
        return f"{self.path}: database error: {msg}"

    @contextmanager
    def tx(self):
        """One ``BEGIN IMMEDIATE`` transaction: committed on leaving, rolled back on an exception."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except sqlite3.IntegrityError:
            self._rollback()
            raise
        except sqlite3.DatabaseError as e:
            self._rollback()
            raise StoreError(self._explain(e)) from None
        except BaseException:
            self._rollback()
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.DatabaseError as e:
            self._rollback()
            raise StoreError(self._explain(e)) from None

    def _rollback(self) -> None:
        # SQLite already rolls back by itself after some errors (a full disk, for one).
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.db.close()

    # -- meta -----------------------------------------------------------------------------------------
    def flag(self, key: str) -> bool:
        return self.db.execute("SELECT 1 FROM meta WHERE key = ?", (key,)).fetchone() is not None

    def set_flag(self, key: str) -> None:
        with self.tx():
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (key,))

    # -- bots -----------------------------------------------------------------------------------------
    def add_bot(self, name: str, kind: BotKind | str, *, command: str | None = None, cwd: str | None = None,
                env: dict | None = None, processes: int = 1, sample: bool = False, replace: bool = False) -> Bot:
        token = secrets.token_urlsafe(24)
        verb = "INSERT OR REPLACE" if replace else "INSERT"
        try:
            with self.tx():
                self.db.execute(
                    f"{verb} INTO bots (name, kind, command, cwd, env_json, processes, token, sample, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (name, str(BotKind(kind)), command, cwd, json.dumps(env or {}), processes, token, int(sample), time.time()))
        except sqlite3.IntegrityError:
            raise StoreError(f"a bot named {name!r} is already registered; remove it first "
                             f"(pepper bot remove {name}) or choose another name") from None
        return self.bot(name)

    def remove_bot(self, name: str) -> bool:
        with self.tx():
            return self.db.execute("DELETE FROM bots WHERE name = ?", (name,)).rowcount > 0

    _BOT = "SELECT name, kind, command, cwd, env_json, processes, token, sample FROM bots"

    @staticmethod
    def _bot(row: tuple) -> Bot:
        return Bot(row[0], BotKind(row[1]), row[2], row[3], json.loads(row[4]), row[5], row[6], bool(row[7]))

    def bot(self, name: str) -> Bot | None:
        row = self.db.execute(f"{self._BOT} WHERE name = ?", (name,)).fetchone()
        return None if row is None else self._bot(row)

    def bots(self) -> list[Bot]:
        return [self._bot(r) for r in self.db.execute(f"{self._BOT} ORDER BY name")]

    # -- runs and plans -------------------------------------------------------------------------------
    def find_or_create_run(self, config: dict, plan: Plan) -> tuple[int, bool]:
        """The run for ``config`` (created with its ``plan`` if new). Returns (run id, resumed)."""
        key = json.dumps(config, sort_keys=True)
        with self.tx():
            row = self.db.execute("SELECT id FROM runs WHERE key = ?", (key,)).fetchone()
            if row:
                return row[0], True
            cur = self.db.execute("INSERT INTO runs (key, config_json, created_at) VALUES (?, ?, ?)", (key, key, time.time()))
            self._insert_plan(cur.lastrowid, 0, plan)
            return cur.lastrowid, False

    def _insert_plan(self, run_id: int, start: int, plan: Plan) -> None:
        self.db.executemany(
            "INSERT INTO planned_games (run_id, idx, match, ruleset, players, seed, seats_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(run_id, start + i, m, rs, n, seed, json.dumps(seats)) for i, (m, rs, n, seed, seats) in enumerate(plan)])

    def append_plan(self, run_id: int, plan: Plan) -> None:
        """Adaptive runs plan as they go: add matches to the end of a run's plan."""
        with self.tx():
            self._insert_plan(run_id, self.planned_count(run_id), plan)

    def planned(self, run_id: int) -> list[PlannedGame]:
        """Every planned game of a run, in plan order."""
        rows = self.db.execute("SELECT idx, match, ruleset, players, seed, seats_json FROM planned_games "
                               "WHERE run_id = ? ORDER BY idx", (run_id,))
        return [PlannedGame(*r[:5], json.loads(r[5])) for r in rows]

    def pending(self, run_id: int) -> list[PlannedGame]:
        """Planned games of a run without a stored result."""
        rows = self.db.execute(
            "SELECT p.idx, p.match, p.ruleset, p.players, p.seed, p.seats_json FROM planned_games p "
            "LEFT JOIN games g ON g.run_id = p.run_id AND g.idx = p.idx WHERE p.run_id = ? AND g.id IS NULL ORDER BY p.idx",
            (run_id,))
        return [PlannedGame(*r[:5], json.loads(r[5])) for r in rows]

    def planned_count(self, run_id: int) -> int:
        return self.db.execute("SELECT COUNT(*) FROM planned_games WHERE run_id = ?", (run_id,)).fetchone()[0]

    def run_faults(self, run_id: int) -> int:
        """Faults (illegal, malformed, timeout, disconnect) over every seat of a run's stored games."""
        return self.db.execute(
            "SELECT COALESCE(SUM(illegal + malformed + timeout + disconnect), 0) FROM game_seats "
            "WHERE game_id IN (SELECT id FROM games WHERE run_id = ?)", (run_id,)).fetchone()[0]

    def run_decisions(self, run_id: int) -> int:
        """Decisions the bots answered over every seat of a run's stored games."""
        return self.db.execute("SELECT COALESCE(SUM(decisions), 0) FROM game_seats "
                               "WHERE game_id IN (SELECT id FROM games WHERE run_id = ?)", (run_id,)).fetchone()[0]

    def finish_run(self, run_id: int) -> None:
        with self.tx():
            self.db.execute("UPDATE runs SET finished_at = ? WHERE id = ?", (time.time(), run_id))

    # -- games and ratings ----------------------------------------------------------------------------
    def ratings(self, pool: str) -> dict[str, Rating]:
        return {b: Rating(mu, sigma) for b, mu, sigma in
                self.db.execute("SELECT bot, mu, sigma FROM ratings WHERE pool = ? ORDER BY bot", (pool,))}

    def rating_games(self, pool: str, bot: str) -> int:
        """How many rated games ``bot`` has in ``pool``."""
        row = self.db.execute("SELECT games FROM ratings WHERE pool = ? AND bot = ?", (pool, bot)).fetchone()
        return row[0] if row else 0

    def set_ratings(self, pool: str, ratings: dict[str, Rating], games: int = 0) -> None:
        """Set ratings outright (no game, no history): seeding a pool."""
        with self.tx():
            self.db.executemany("INSERT OR REPLACE INTO ratings (pool, bot, mu, sigma, games) VALUES (?, ?, ?, ?, ?)",
                                [(pool, b, r.mu, r.sigma, games) for b, r in ratings.items()])

    def record_game(self, game: NewGame, rate: Callable[[dict[str, Rating]], dict[str, Rating]]) -> int:
        """Store a finished game with the ratings ``rate`` derives from the pool's current ones, in one
        transaction that reads those ratings too. Returns the game id."""
        try:
            with self.tx():
                new = rate(self.ratings(game.pool))
                gid = self.db.execute(
                    "INSERT INTO games (run_id, idx, pool, ruleset, players, seed, status, duration, finished_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game.run_id, game.idx, game.pool, game.ruleset, game.players, game.seed, str(game.status),
                     game.duration, time.time())).lastrowid
                self.db.executemany(
                    f"INSERT INTO game_seats (game_id, pool, {_SEAT_COLUMNS}) VALUES ({', '.join('?' * 17)})",
                    [(gid, game.pool, s.seat, s.bot, str(s.status), *s.faults, s.score, s.won, s.contracts_bid,
                      s.contracts_made, s.fallbacks, s.decisions, s.latency_p50_ms, s.latency_p99_ms) for s in game.seats])
                self.db.execute("INSERT INTO game_records (game_id, record_json) VALUES (?, ?)", (gid, json.dumps(game.record)))
                for bot, r in new.items():
                    self.db.execute(
                        "INSERT INTO ratings (pool, bot, mu, sigma, games) VALUES (?, ?, ?, ?, 1) "
                        "ON CONFLICT (pool, bot) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, games = games + 1",
                        (game.pool, bot, r.mu, r.sigma))
                    self.db.execute("INSERT INTO rating_history (game_id, bot, pool, mu, sigma) VALUES (?, ?, ?, ?, ?)",
                                    (gid, bot, game.pool, r.mu, r.sigma))
                return gid
        except sqlite3.IntegrityError:
            raise StoreError(f"game {game.idx} of run {game.run_id} is already stored; not counting it twice") from None

    def record_crash(self, run_id: int | None, pool: str, bot: str, version: int, exit_code: int | None,
                     games_replayed: int) -> int:
        """Store one death of a bot's process during a run and how many games in flight on it were replayed.
        Returns the crash's id."""
        with self.tx():
            return self.db.execute(
                "INSERT INTO crashes (run_id, pool, bot, version, exit_code, games_replayed, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (run_id, pool, bot, version, exit_code, games_replayed, time.time())).lastrowid

    def rating_history(self, pool: str, bot: str) -> list[tuple[int, Rating]]:
        """(game id, rating after it) for every rated game of ``bot`` in ``pool``, oldest first."""
        rows = self.db.execute("SELECT game_id, mu, sigma FROM rating_history WHERE pool = ? AND bot = ? ORDER BY game_id",
                               (pool, bot))
        return [(gid, Rating(mu, sigma)) for gid, mu, sigma in rows]

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

    def game_ids(self, run_id: int | None = None) -> GameIds:
        """(count, lowest id, highest id) of the stored games, or of one run's."""
        q = "SELECT COUNT(*), MIN(id), MAX(id) FROM games" + (" WHERE run_id = ?" if run_id is not None else "")
        return GameIds(*self.db.execute(q, () if run_id is None else (run_id,)).fetchone())

    def latest_game_ids(self, run_id: int | None = None, limit: int = 5) -> list[int]:
        q = "SELECT id FROM games" + (" WHERE run_id = ?" if run_id is not None else "") + " ORDER BY id DESC LIMIT ?"
        return [r[0] for r in self.db.execute(q, (limit,) if run_id is None else (run_id, limit))]

    def latest_games(self, *, ruleset: str | None = None, players: int | None = None, bot: str | None = None,
                     limit: int = 20) -> tuple[list[StoredGame], int]:
        """The latest games (newest first) matching the filters, and how many match."""
        where, args = [], []
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
        return [r[0] for r in self.db.execute("SELECT DISTINCT pool FROM ratings ORDER BY pool")]

    def totals(self, pool: str) -> list[BotTotals]:
        """Per rated bot of ``pool`` with games there: its rating and its aggregates over the pool's games
        (see :mod:`arena.stats` for what each means). Latency: the median of the seats' per-game p50s and
        the 99th percentile (the value at index int(0.99 n) of the sorted n) of their per-game p99s."""
        rows = self.db.execute("""
            WITH per_game AS (                -- a bot's seats in one game: one result
                SELECT s.bot, MAX(s.won) AS won, g.status = 'completed' AS completed,
                       SUM(s.score) * 1.0 / COUNT(*) AS points
                FROM game_seats s JOIN games g ON g.id = s.game_id
                WHERE s.pool = :pool GROUP BY s.game_id, s.bot),
            games_of AS (
                SELECT bot, COUNT(*) AS games, SUM(won) AS wins, SUM(completed) AS completed,
                       TOTAL(CASE WHEN completed THEN points END) AS points
                FROM per_game GROUP BY bot),
            seats_of AS (
                SELECT bot, SUM(contracts_bid) AS bid, SUM(contracts_made) AS made, SUM(timeout) AS timeouts,
                       SUM(illegal + malformed) AS illegal, SUM(disconnect) AS crashes, SUM(fallbacks) AS fallbacks
                FROM game_seats WHERE pool = :pool GROUP BY bot),
            latencies AS (
                SELECT bot, latency_p50_ms AS p50, latency_p99_ms AS p99,
                       ROW_NUMBER() OVER (PARTITION BY bot ORDER BY latency_p50_ms) AS r50,
                       ROW_NUMBER() OVER (PARTITION BY bot ORDER BY latency_p99_ms) AS r99,
                       COUNT(*) OVER (PARTITION BY bot) AS n
                FROM game_seats WHERE pool = :pool AND latency_p50_ms IS NOT NULL),
            latency_of AS (
                SELECT bot,
                       (MIN(CASE WHEN r50 IN ((n + 1) / 2, (n + 2) / 2) THEN p50 END)
                        + MAX(CASE WHEN r50 IN ((n + 1) / 2, (n + 2) / 2) THEN p50 END)) / 2 AS p50,
                       MAX(CASE WHEN r99 = MIN(n, CAST(0.99 * n AS INTEGER) + 1) THEN p99 END) AS p99
                FROM latencies GROUP BY bot)
            SELECT r.bot, r.mu, r.sigma, g.games, g.wins, g.completed, g.points, s.bid, s.made, s.timeouts, s.illegal,
                   s.crashes, s.fallbacks, l.p50, l.p99
            FROM ratings r JOIN games_of g ON g.bot = r.bot JOIN seats_of s ON s.bot = r.bot
                 LEFT JOIN latency_of l ON l.bot = r.bot
            WHERE r.pool = :pool ORDER BY r.bot""", {"pool": pool})
        return [BotTotals(*r) for r in rows]
