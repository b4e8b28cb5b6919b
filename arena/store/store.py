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
  :meth:`Store.rate_games`): each batch in one ``BEGIN IMMEDIATE``
  transaction that reads the ratings it updates and checks that each game is
  not rated yet, so two writers never rate from the same stale ratings and a
  game is rated once.
- WAL journal with synchronous=FULL: a committed game survives a crash.
- Opening a database of an older schema migrates it in place (see
  :mod:`arena.store.migrations`), after a backup copy beside it.

A full disk or an unwritable file raises :class:`StoreError` naming the file
and what to do; nothing already committed is lost. Every SQL statement of the
arena lives in this package: :class:`Store` opens the database, and its
tables' statements are in :mod:`.bots` (bots and their versions), :mod:`.runs`
(runs and their plans) and :mod:`.games` (games, ratings, blocks, crashes).
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path

from .bots import BotTables
from .errors import StoreError
from .games import GameTables
from .migrations import LATEST, MIGRATIONS
from .runs import Plan, RunTables


class Store(BotTables, RunTables, GameTables):
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


__all__ = ["Plan", "Store", "StoreError"]
