"""The store's bots and their versions (a part of :class:`arena.store.Store`)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable

from .errors import StoreError
from .rows import Bot, BotKind, BotVersion, Build, new_token, token_sha256


class BotTables:
    """Registering bots, their versions and their tokens."""

    db: sqlite3.Connection   # the Store's connection; ``tx`` its transactions (arena.store.store.Store)

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

    def remote_versions(self) -> set[tuple[str, int]]:
        """(bot, version) of every version registered as a remote bot (its processes not the arena's)."""
        return set(self.db.execute("SELECT bot, version FROM bot_versions WHERE kind = ?", (BotKind.REMOTE.value,)))

    def version_counts(self) -> dict[str, int]:
        """Per bot name (registered or not any more), how many versions it has had."""
        return dict(self.db.execute("SELECT bot, MAX(version) FROM bot_versions GROUP BY bot"))
