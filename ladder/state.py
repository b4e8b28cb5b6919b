"""The ladder's own state (``DIR/ladder.db``): authors and their keys, who owns which bot, and what is paused or
retired. The arena store (``DIR/arena.db``) keeps the bots themselves, their versions, games and ratings.

An author key is ``KEYID.SECRET``: the key id finds the author, and only an HMAC-SHA256 of the whole key (keyed
with the ladder's secret, ``DIR/secrets/``) is stored, compared with :func:`hmac.compare_digest`. A key is shown
once, when it is made; a new invitation replaces an author's key, and revoking refuses it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from .errors import Forbidden, LadderError, NotFound, TooMany, Unauthorized

SCHEMA = """
CREATE TABLE IF NOT EXISTS authors (
    name TEXT PRIMARY KEY, key_id TEXT UNIQUE NOT NULL, key_hmac TEXT NOT NULL,
    created_at REAL NOT NULL, revoked_at REAL);
CREATE TABLE IF NOT EXISTS entries (
    bot TEXT PRIMARY KEY, author TEXT NOT NULL REFERENCES authors(name), status TEXT NOT NULL,
    created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS refusals (at REAL NOT NULL, author TEXT, action TEXT NOT NULL, why TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (at REAL NOT NULL, author TEXT NOT NULL, bot TEXT NOT NULL, kind TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS submissions_by_author ON submissions (author, at);
CREATE TABLE IF NOT EXISTS uploads (
    id INTEGER PRIMARY KEY, bot TEXT NOT NULL, author TEXT NOT NULL, at REAL NOT NULL, status TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '', report TEXT NOT NULL DEFAULT '', version INTEGER);
"""

#: Author names: what a URL path and a log line carry without escaping.
AUTHOR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class Status(StrEnum):
    """A bot's standing on the ladder: scheduled when it is available, held back, or out for good."""

    ACTIVE = "active"
    PAUSED = "paused"
    RETIRED = "retired"


class UploadStatus(StrEnum):
    """Where an upload is: waiting, its image being built, the checker running, then entered or failed."""

    QUEUED = "queued"
    BUILDING = "building"
    CHECKING = "checking"
    ENTERED = "entered"
    FAILED = "failed"


@dataclass(frozen=True)
class Upload:
    """One uploaded folder of a bot (``DIR/uploads/ID``): its status, why (``detail``), the checker's report, and the
    version it became."""

    id: int
    bot: str
    author: str
    at: float
    status: UploadStatus
    detail: str
    report: str
    version: int | None

    @classmethod
    def of_row(cls, row: tuple) -> Upload:
        """An Upload from a row of LadderState._UPLOAD's columns."""
        return cls(*row[:4], UploadStatus(row[4]), *row[5:])

    def public(self, report: bool = False) -> dict:
        out = {"upload": self.id, "bot": self.bot, "at": self.at, "status": str(self.status), "detail": self.detail,
               "version": self.version}
        return {**out, "report": self.report} if report else out


@dataclass(frozen=True)
class Entry:
    bot: str
    author: str
    status: Status


@dataclass(frozen=True)
class Author:
    name: str
    created_at: float
    revoked: bool


class LadderState:
    """The ladder database at ``path``; ``hashing_key`` is the ladder's secret (:meth:`LadderDir.hashing_key`)."""

    def __init__(self, path: str | Path, hashing_key: bytes):
        self.path = Path(path)
        self._key = hashing_key
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def tx(self):
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- authors and keys -----------------------------------------------------------------------------
    def _hmac(self, key: str) -> str:
        return hmac.new(self._key, key.encode(), hashlib.sha256).hexdigest()

    def invite(self, author: str) -> str:
        """A new key for ``author`` (made if new; an existing author's old key stops working). Returns the key."""
        if not AUTHOR_NAME.fullmatch(author):
            raise LadderError(f"author name {author!r}: 1-64 letters, digits, '_', '.' or '-', starting with a letter "
                              "or digit")
        key_id = secrets.token_hex(6)
        key = f"{key_id}.{secrets.token_urlsafe(32)}"
        with self.tx():
            self.db.execute("INSERT INTO authors (name, key_id, key_hmac, created_at) VALUES (?, ?, ?, ?) "
                            "ON CONFLICT (name) DO UPDATE SET key_id = excluded.key_id, key_hmac = excluded.key_hmac, "
                            "revoked_at = NULL", (author, key_id, self._hmac(key), time.time()))
        return key

    def revoke(self, author: str) -> None:
        with self.tx():
            if not self.db.execute("UPDATE authors SET revoked_at = ? WHERE name = ?", (time.time(), author)).rowcount:
                raise NotFound(f"no author named {author!r} (see `pepper ladder admin DIR status`)")

    def author_of_key(self, key: str | None, action: str = "") -> str:
        """The author whose key ``key`` is; Unauthorized (and a refusal counted) when it is missing, unknown or
        revoked. The key itself is never logged or stored."""
        key_id, dot, _ = (key or "").partition(".")
        row = self.db.execute("SELECT name, key_hmac, revoked_at FROM authors WHERE key_id = ?",
                              (key_id,)).fetchone() if dot else None
        if row is None or not hmac.compare_digest(row[1], self._hmac(key)):
            self.refuse(None, action, "unknown key")
            raise Unauthorized("no valid author key: send `Authorization: Bearer KEY` with the key "
                               "`pepper ladder invite` printed")
        if row[2] is not None:
            self.refuse(row[0], action, "revoked key")
            raise Unauthorized(f"author {row[0]!r}: this key was revoked; ask the organizer for a new invitation")
        return row[0]

    def authors(self) -> list[Author]:
        return [Author(n, at, rev is not None)
                for n, at, rev in self.db.execute("SELECT name, created_at, revoked_at FROM authors ORDER BY name")]

    def refuse(self, author: str | None, action: str, why: str) -> None:
        """Count a refused action (the soak bench and ``admin status`` report them)."""
        self.db.execute("INSERT INTO refusals VALUES (?, ?, ?, ?)", (time.time(), author, action, why))

    def refusals(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM refusals").fetchone()[0]

    # -- bots -----------------------------------------------------------------------------------------
    def claim(self, author: str, bot: str, action: str) -> bool:
        """``author`` may act on ``bot``: it is theirs, or new (then it becomes theirs). Returns whether it is new;
        Forbidden (a refusal counted) when it is another author's, or retired."""
        with self.tx():
            row = self.db.execute("SELECT author, status FROM entries WHERE bot = ?", (bot,)).fetchone()
            if row is None:
                self.db.execute("INSERT INTO entries VALUES (?, ?, ?, ?)", (bot, author, Status.ACTIVE.value, time.time()))
                return True
        if row[0] != author:
            self.refuse(author, action, f"bot {bot} is another author's")
            raise Forbidden(f"bot {bot!r} belongs to another author: choose another name")
        if row[1] == Status.RETIRED:
            raise Forbidden(f"bot {bot!r} is retired: a retired name is not entered again; choose another name")
        return False

    def submit(self, author: str, bot: str, kind: str, per_hour: int) -> None:
        """Count an entry of ``bot`` by ``author``; TooMany (a refusal counted) when they have made ``per_hour``
        in the last hour already."""
        now = time.time()
        with self.tx():
            made = self.db.execute("SELECT COUNT(*) FROM submissions WHERE author = ? AND at > ?",
                                   (author, now - 3600)).fetchone()[0]
            if made < per_hour:
                self.db.execute("INSERT INTO submissions VALUES (?, ?, ?, ?)", (now, author, bot, kind))
                return
        self.refuse(author, "enter", "rate limit")
        raise TooMany(f"author {author!r} has entered {made} bots or versions in the last hour, the most this ladder "
                      "takes: try again later")

    def unclaim(self, bot: str) -> None:
        """Undo the :meth:`claim` of a new ``bot`` whose entry then failed."""
        self.db.execute("DELETE FROM entries WHERE bot = ?", (bot,))

    def owned(self, author: str, bot: str, action: str) -> Entry:
        """``bot`` if it is ``author``'s; NotFound, or Forbidden (a refusal counted) when it is another's."""
        e = self.entry(bot)
        if e is None:
            raise NotFound(f"no bot named {bot!r} on this ladder")
        if e.author != author:
            self.refuse(author, action, f"bot {bot} is another author's")
            raise Forbidden(f"bot {bot!r} belongs to another author")
        return e

    def set_status(self, bot: str, status: Status) -> None:
        with self.tx():
            if not self.db.execute("UPDATE entries SET status = ? WHERE bot = ?", (status.value, bot)).rowcount:
                raise NotFound(f"no bot named {bot!r} on this ladder (see `pepper ladder admin DIR status`)")

    def entry(self, bot: str) -> Entry | None:
        row = self.db.execute("SELECT bot, author, status FROM entries WHERE bot = ?", (bot,)).fetchone()
        return None if row is None else Entry(row[0], row[1], Status(row[2]))

    def entries(self, author: str | None = None) -> list[Entry]:
        where, args = ("WHERE author = ?", (author,)) if author else ("", ())
        return [Entry(b, a, Status(s)) for b, a, s in
                self.db.execute(f"SELECT bot, author, status FROM entries {where} ORDER BY bot", args)]

    # -- uploads --------------------------------------------------------------------------------------
    def add_upload(self, author: str, bot: str) -> int:
        with self.tx():
            return self.db.execute("INSERT INTO uploads (bot, author, at, status, detail) VALUES (?, ?, ?, ?, ?)",
                                   (bot, author, time.time(), UploadStatus.QUEUED.value,
                                    "waiting for the builder")).lastrowid

    def set_upload(self, upload: int, status: UploadStatus, detail: str = "", report: str | None = None,
                   version: int | None = None) -> None:
        with self.tx():
            self.db.execute("UPDATE uploads SET status = ?, detail = ?, report = COALESCE(?, report), "
                            "version = COALESCE(?, version) WHERE id = ?", (status.value, detail, report, version, upload))

    _UPLOAD = "SELECT id, bot, author, at, status, detail, report, version FROM uploads"

    def upload(self, upload: int) -> Upload | None:
        row = self.db.execute(f"{self._UPLOAD} WHERE id = ?", (upload,)).fetchone()
        return None if row is None else Upload.of_row(row)

    def uploads(self, author: str | None = None, limit: int = 50) -> list[Upload]:
        """The newest uploads first (``author``: theirs only)."""
        where, args = ("WHERE author = ?", (author,)) if author else ("", ())
        rows = self.db.execute(f"{self._UPLOAD} {where} ORDER BY id DESC LIMIT ?", (*args, limit))
        return [Upload.of_row(r) for r in rows]

    def next_upload(self) -> Upload | None:
        """The oldest upload not done: one a stopped service was building or checking first (it starts again)."""
        row = self.db.execute(f"{self._UPLOAD} WHERE status NOT IN (?, ?) ORDER BY id LIMIT 1",
                              (UploadStatus.ENTERED.value, UploadStatus.FAILED.value)).fetchone()
        return None if row is None else Upload.of_row(row)

    # -- the whole ladder -------------------------------------------------------------------------------
    @property
    def paused(self) -> bool:
        return self.db.execute("SELECT 1 FROM meta WHERE key = 'paused'").fetchone() is not None

    def pause(self, paused: bool) -> None:
        with self.tx():
            if paused:
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('paused', '1')")
            else:
                self.db.execute("DELETE FROM meta WHERE key = 'paused'")


__all__ = ["AUTHOR_NAME", "Author", "Entry", "LadderState", "Status", "Upload", "UploadStatus"]
