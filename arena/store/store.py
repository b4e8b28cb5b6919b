"""The arena's SQLite store: bots and their versions, runs, planned matches, games and their seats, ratings.

Durability rules (the arena may be killed with -9 at any moment):

- A run's plan (every match and the seats of each of its games) is written
  before any game starts, in one transaction, keyed by the run's config, so
  running the same command again finds and continues the same run.
- A finished game, its seats and its record are written in one transaction
  (the arena's writer stores several in one, :mod:`arena.commits`), and
  ``games`` has UNIQUE(run_id, idx): a game is counted once or not at all.
  Games in flight when the arena dies are simply played again.
- The arena rates a run's games in plan order (:meth:`Store.unrated`,
  :meth:`Store.rate_game`): each update in one ``BEGIN IMMEDIATE``
  transaction that reads the ratings it updates and checks that the game is
  not rated yet, so two writers never rate from the same stale ratings and a
  game is rated once. (:meth:`Store.record_game` can still store a game with
  its rating in one transaction.)
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
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import contextmanager
from pathlib import Path

from ..evidence import game_pairs
from ..ratings import Rating
from .migrations import LATEST, MIGRATIONS
from .rows import (
    BlockRow,
    Bot,
    BotKind,
    BotTotals,
    BotVersion,
    Build,
    Faults,
    GameIds,
    GameStatus,
    NewGame,
    PlannedGame,
    Seat,
    SeatStatus,
    StoredGame,
    new_token,
    token_sha256,
)

Plan = list[tuple[int, str, int, int, list[str]]]  # (match, ruleset name, players, seed, seats): arena.schedule.plan


class StoreError(Exception):
    """The results database cannot be used; the message says why and what to do."""


_SEAT_COLUMNS = ("seat, bot, version, status, illegal, malformed, timeout, disconnect, score, won, contracts_bid, contracts_made, "
                 "fallbacks, decisions, latency_p50_ms, latency_p99_ms")
_GAME_COLUMNS = "id, run_id, idx, pool, ruleset, players, seed, status, duration, finished_at"


def _seat(row: tuple) -> Seat:
    seat, bot, version, status, illegal, malformed, timeout, disconnect, score, won, bid, made, fallbacks, decisions, \
        p50, p99 = row
    return Seat(seat, bot, SeatStatus(status), Faults(illegal, malformed, timeout, disconnect), score, bool(won),
                bid, made, fallbacks, decisions, p50, p99, version)


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
        """One ``BEGIN IMMEDIATE`` transaction: committed on leaving, rolled back on an exception. Inside another
        one it joins it (committed or rolled back with it): a group of calls in one transaction, one disk sync."""
        if self.db.in_transaction:
            yield
            return
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

    # -- bots and their versions ----------------------------------------------------------------------
    # A name's versions are a line, 1, 2, ...; its latest is the one the arena launches. They outlive the name:
    # a name removed and registered again with another build gets a new version, not the old one's ratings.
    def add_bot(self, name: str, kind: BotKind | str, *, command: str | None = None, cwd: str | None = None,
                env: dict | None = None, processes: int = 1, sample: bool = False, replace: bool = False,
                files: Iterable[str] | None = None, digest: str | None = None, deadline_ms: int | None = None,
                time_bank_ms: int | None = None, token: str | None = None, image: str | None = None,
                limits: dict[str, float] | None = None) -> Bot:
        """Register ``name`` (StoreError if it is registered, unless ``replace``) as its latest version when that
        is this build, else as a new version. Only ``token``'s digest is kept (by default a fresh token's, which
        nobody knows: a command bot gets its token per run)."""
        build = Build(BotKind(kind), command, cwd, dict(env or {}), processes, None if files is None else tuple(files),
                      digest, deadline_ms, time_bank_ms, image, dict(limits or {}))
        try:
            with self.tx():
                verb = "INSERT OR REPLACE" if replace else "INSERT"
                self.db.execute(f"{verb} INTO bots (name, token_sha256, sample, created_at) VALUES (?, ?, ?, ?)",
                                (name, token_sha256(token or new_token()), int(sample), time.time()))
                self._version_of(name, build)
        except sqlite3.IntegrityError:
            raise StoreError(f"a bot named {name!r} is already registered; change it with `pepper bot update {name} "
                             f"...` (a new version), or remove it first (pepper bot remove {name})") from None
        return self.bot(name)

    def update_bot(self, name: str, build: Build) -> tuple[Bot, bool]:
        """Make ``build`` the registered bot ``name``'s latest version. Returns (the bot, whether that is a new
        version: False when the latest one is this build). A latest version from before versions, its files
        unrecorded, takes this build's files and digest rather than a new number."""
        with self.tx():
            if self.db.execute("SELECT 1 FROM bots WHERE name = ?", (name,)).fetchone() is None:
                raise StoreError(f"no bot named {name!r} (see `pepper bot list`)")
            new = self._version_of(name, build)
        return self.bot(name), new

    def _version_of(self, name: str, build: Build) -> bool:
        """Inside a transaction: make ``build`` the latest version of ``name``; True when it is a new one."""
        latest = self._latest_build(name)
        if latest is not None:
            version, old = latest
            if old.same(build):
                if old.digest is None and build.digest is not None:  # recorded at last
                    self.db.execute("UPDATE bot_versions SET files_json = ?, digest = ? WHERE bot = ? AND version = ?",
                                    (json.dumps(build.files), build.digest, name, version))
                return False
        self.db.execute(
            "INSERT INTO bot_versions (bot, version, kind, command, cwd, env_json, processes, files_json, digest, "
            "deadline_ms, time_bank_ms, created_at, image, limits_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (name, 1 if latest is None else latest[0] + 1, str(build.kind), build.command, build.cwd,
             json.dumps(build.env), build.processes, None if build.files is None else json.dumps(build.files),
             build.digest, build.deadline_ms, build.time_bank_ms, time.time(), build.image,
             json.dumps(build.limits) if build.limits else None))
        return True

    _BUILD = "kind, command, cwd, env_json, processes, files_json, digest, deadline_ms, time_bank_ms, image, limits_json"

    @staticmethod
    def _build(row: tuple) -> Build:
        kind, command, cwd, env, processes, files, digest, deadline, bank, image, limits = row
        return Build(BotKind(kind), command, cwd, json.loads(env), processes,
                     None if files is None else tuple(json.loads(files)), digest, deadline, bank, image,
                     json.loads(limits) if limits else {})

    def _latest_build(self, name: str) -> tuple[int, Build] | None:
        row = self.db.execute(f"SELECT version, {self._BUILD} FROM bot_versions WHERE bot = ? ORDER BY version DESC "
                              "LIMIT 1", (name,)).fetchone()
        return None if row is None else (row[0], self._build(row[1:]))

    def set_token(self, name: str, token: str) -> bool:
        """Make ``token`` the registered bot ``name``'s token (its digest); False when there is no such bot."""
        with self.tx():
            return self.db.execute("UPDATE bots SET token_sha256 = ? WHERE name = ?",
                                   (token_sha256(token), name)).rowcount > 0

    def remove_bot(self, name: str) -> bool:
        """Unregister ``name``; its versions, games and ratings stay."""
        with self.tx():
            return self.db.execute("DELETE FROM bots WHERE name = ?", (name,)).rowcount > 0

    _BOT = (f"SELECT b.name, b.token_sha256, b.sample, v.version, v.{_BUILD.replace(', ', ', v.')} FROM bots b "
            "JOIN bot_versions v ON v.bot = b.name "
            "AND v.version = (SELECT MAX(version) FROM bot_versions WHERE bot = b.name)")

    def _bot(self, row: tuple) -> Bot:
        name, token, sample, version, *build = row
        b = self._build(tuple(build))
        return Bot(name, b.kind, b.command, b.cwd, b.env, b.processes, token, bool(sample), version, b.digest, b.files,
                   b.deadline_ms, b.time_bank_ms, b.image, b.limits)

    def bot(self, name: str) -> Bot | None:
        """A registered bot, as its latest version."""
        row = self.db.execute(f"{self._BOT} WHERE b.name = ?", (name,)).fetchone()
        return None if row is None else self._bot(row)

    def bots(self) -> list[Bot]:
        return [self._bot(r) for r in self.db.execute(f"{self._BOT} ORDER BY b.name")]

    def versions(self, name: str) -> list[BotVersion]:
        """Every version of ``name`` (registered or not any more), oldest first, with its ratings by pool."""
        pools: dict[int, dict[str, tuple[int, float, float]]] = {}
        for version, pool, games, mu, sigma in self.db.execute(
                "SELECT version, pool, games, mu, sigma FROM ratings WHERE bot = ? ORDER BY pool", (name,)):
            pools.setdefault(version, {})[pool] = (games, mu, sigma)
        rows = self.db.execute(f"SELECT version, created_at, {self._BUILD} FROM bot_versions WHERE bot = ? "
                               "ORDER BY version", (name,))
        return [BotVersion(v, at, self._build(tuple(b)), pools.get(v, {})) for v, at, *b in rows]

    def version_counts(self) -> dict[str, int]:
        """Per bot name (registered or not any more), how many versions it has had."""
        return dict(self.db.execute("SELECT bot, MAX(version) FROM bot_versions GROUP BY bot"))

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

    def run_config(self, run_id: int) -> dict | None:
        """The settings a run was created with (its key), or None for no such run."""
        row = self.db.execute("SELECT config_json FROM runs WHERE id = ?", (run_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def _insert_plan(self, run_id: int, start: int, plan: Plan) -> None:
        self.db.executemany(
            "INSERT INTO planned_games (run_id, idx, match, ruleset, players, seed, seats_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(run_id, start + i, m, rs, n, seed, json.dumps(seats)) for i, (m, rs, n, seed, seats) in enumerate(plan)])

    def append_plan(self, run_id: int, plan: Plan) -> None:
        """Adaptive runs plan as they go: add matches to the end of a run's plan."""
        with self.tx():
            self._insert_plan(run_id, self.planned_count(run_id), plan)

    def planned(self, run_id: int, start: int = 0) -> list[PlannedGame]:
        """Every planned game of a run, in plan order (from plan index ``start``: what an adaptive run has planned
        since it last looked, without reading the whole plan again)."""
        rows = self.db.execute("SELECT idx, match, ruleset, players, seed, seats_json FROM planned_games "
                               "WHERE run_id = ? AND idx >= ? ORDER BY idx", (run_id, start))
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

    def set_ratings(self, pool: str, ratings: dict[str, Rating], games: int = 0,
                    versions: Mapping[str, int] | None = None) -> None:
        """Set ratings outright (no game, no history): seeding a pool. Version 1 of each bot unless ``versions``."""
        versions = versions or {}
        with self.tx():
            self.db.executemany("INSERT OR REPLACE INTO ratings (pool, bot, version, mu, sigma, games) "
                                "VALUES (?, ?, ?, ?, ?, ?)",
                                [(pool, b, versions.get(b, 1), r.mu, r.sigma, games) for b, r in ratings.items()])

    def record_game(self, game: NewGame, rate: Callable[[dict[str, Rating]], dict[str, Rating]]) -> int:
        """Store a finished game with the ratings ``rate`` derives from the current ratings of the versions that
        played it, in one transaction that reads those ratings too. Returns the game id."""
        try:
            with self.tx():
                return self._insert_game(game, rate)
        except sqlite3.IntegrityError:
            raise StoreError(f"game {game.idx} of run {game.run_id} is already stored; not counting it twice") from None

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

    # Rating in plan order (issue 13): the arena stores each game as it finishes, unrated, and rates the stored games
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

    def rate_game(self, game: StoredGame, rate: Callable[[dict[str, Rating]], dict[str, Rating]]) -> bool:
        """Rate a stored game with the ratings ``rate`` derives from the current ratings of the versions that played
        it, in one transaction that reads those ratings too; False (and nothing changes) if it is rated already."""
        versions = {s.bot: s.version for s in game.seats}
        with self.tx():
            if self.db.execute("SELECT 1 FROM rating_history WHERE game_id = ?", (game.id,)).fetchone():
                return False
            self._write_ratings(game.id, game.pool, versions, rate(self.ratings(game.pool, versions)))
        return True

    def rate_games(self, games: Iterable[StoredGame],
                   rate: Callable[[StoredGame, dict[str, Rating]], dict[str, Rating]]) -> int:
        """:meth:`rate_game` for several games in order, in one transaction (one disk sync for a batch: what lets
        a driver that commits many matches a second keep up); a game rated already is skipped. Returns how many
        were rated."""
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
        """Inside record_game's transaction: the game's pairwise results into its block (its run's match)."""
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

    def blocks(self, pool: str, run_id: int | None = None, from_match: int = 0) -> list[BlockRow]:
        """Every side's block rows in ``pool`` (or in one run of it, from its match ``from_match`` on), by run and
        match, each with the games its block has in the plan."""
        cond, args = ("AND b.run_id = ? AND b.match >= ?", (pool, run_id, from_match)) if run_id is not None \
            else ("", (pool,))
        cond_p, args_p = ("AND match >= ?", (from_match,)) if run_id is not None else ("", ())
        rows = self.db.execute(f"""
            WITH planned AS (
                SELECT run_id, match, COUNT(*) AS n FROM planned_games
                WHERE run_id IN (SELECT DISTINCT run_id FROM block_scores b WHERE b.pool = ? {cond}) {cond_p}
                GROUP BY run_id, match)
            SELECT b.run_id, b.match, b.bot, b.version, b.opponent, b.opponent_version, b.games, p.n,
                   b.score, b.score_sq, b.margin, b.margin_sq
            FROM block_scores b JOIN planned p USING (run_id, match) WHERE b.pool = ? {cond}
            ORDER BY b.run_id, b.match, b.bot, b.version, b.opponent, b.opponent_version""", args + args_p + args)
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
