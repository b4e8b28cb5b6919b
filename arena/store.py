"""The arena's SQLite store: bots, runs, planned matches, games, ratings.

Durability rules (the arena may be killed with -9 at any moment):

- A run's plan (every match and the seats of each of its games) is written
  before any game starts, in one transaction, keyed by the run's config, so
  running the same command again finds and continues the same run.
- A finished game and the rating updates it causes are written in one
  transaction, and ``games`` has UNIQUE(run_id, idx): a game is counted once
  or not at all. Games in flight when the arena dies are simply played again.
- WAL journal with synchronous=FULL: a committed game survives a crash.

A full disk or an unwritable file raises :class:`StoreError` naming the file
and what to do; nothing already committed is lost.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from .ratings import Rating

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('command', 'remote')),
    command TEXT,                      -- launched by the arena (kind = command)
    cwd TEXT,
    env_json TEXT NOT NULL DEFAULT '{}',
    processes INTEGER NOT NULL DEFAULT 1,
    token TEXT NOT NULL,               -- per-bot credential presented to the referee
    sample INTEGER NOT NULL DEFAULT 0, -- registered by default (a sample bot)
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,          -- canonical JSON of the config: the same command resumes the same run
    config_json TEXT NOT NULL,
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE IF NOT EXISTS planned_games (
    run_id INTEGER NOT NULL REFERENCES runs (id),
    idx INTEGER NOT NULL,              -- position in the run's plan
    match INTEGER NOT NULL,            -- games of one match share the deck seed, seats rotated
    ruleset TEXT NOT NULL,
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats_json TEXT NOT NULL,          -- bot name per seat
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    run_id INTEGER REFERENCES runs (id),
    idx INTEGER,
    pool TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats_json TEXT NOT NULL,
    status TEXT NOT NULL,              -- completed | forfeited | aborted
    seat_status_json TEXT NOT NULL,    -- per seat: ok | faulted | disconnected | forfeited
    faults_json TEXT NOT NULL,         -- per seat: {"timeout": n, "illegal": n, "malformed": n, "crash": n}
    scores_json TEXT NOT NULL,         -- per seat (its team's score)
    winners_json TEXT NOT NULL,        -- winning seats
    contracts_json TEXT NOT NULL,      -- per seat: [contracts won, contracts made]
    latency_json TEXT NOT NULL,        -- per seat: decision latency histogram (see arena.stats)
    duration REAL NOT NULL,
    record_json TEXT NOT NULL,         -- the full game record: replays exactly
    finished_at REAL NOT NULL,
    UNIQUE (run_id, idx)
);
CREATE INDEX IF NOT EXISTS games_pool ON games (pool);
CREATE TABLE IF NOT EXISTS ratings (
    pool TEXT NOT NULL,
    bot TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (pool, bot)
);
CREATE TABLE IF NOT EXISTS rating_history (
    pool TEXT NOT NULL,
    bot TEXT NOT NULL,
    game_id INTEGER NOT NULL REFERENCES games (id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL
);
"""


class StoreError(Exception):
    """The results database cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Bot:
    name: str
    kind: str
    command: str | None
    cwd: str | None
    env: dict
    processes: int
    token: str
    sample: bool


class Store:
    def __init__(self, path: str | Path = "arena.db"):
        self.path = Path(path)
        try:
            if self.path.parent and not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            with self.tx():
                for stmt in SCHEMA.split(";"):
                    if stmt.strip():
                        self.db.execute(stmt)
                row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
                if row is None:
                    self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                elif int(row[0]) != SCHEMA_VERSION:
                    raise StoreError(f"{self.path}: schema version {row[0]}, this arena reads {SCHEMA_VERSION}; "
                                     "use a new --db file or an arena of the matching version")
        except sqlite3.DatabaseError as e:
            raise StoreError(self._explain(e)) from None

    def _explain(self, e: Exception) -> str:
        msg = str(e)
        if "full" in msg:
            return f"{self.path}: the disk is full ({msg}); free some space and run the same command again to resume"
        if "readonly" in msg or "unable to open" in msg:
            return f"{self.path}: cannot write the results database ({msg}); choose a writable path with --db"
        if "disk I/O error" in msg:
            return (f"{self.path}: cannot write the results database ({msg}): the disk may be full, over a file size "
                    "limit or failing; fix that and run the same command again to resume (what was stored is kept), "
                    "or start afresh with another --db")
        if "not a database" in msg or "malformed" in msg:
            return f"{self.path}: not an arena database ({msg}); choose another path with --db"
        return f"{self.path}: database error: {msg}"

    def tx(self):
        store = self

        class _Tx:
            def __enter__(self):
                store.db.execute("BEGIN IMMEDIATE")

            def __exit__(self, et, ev, tb):
                if et is None:
                    try:
                        store.db.execute("COMMIT")
                    except sqlite3.DatabaseError as e:
                        store._rollback()
                        raise StoreError(store._explain(e)) from None
                else:
                    store._rollback()
                    if isinstance(ev, sqlite3.DatabaseError) and not isinstance(ev, sqlite3.IntegrityError):
                        raise StoreError(store._explain(ev)) from None
                return False

        return _Tx()

    def _rollback(self) -> None:
        # SQLite already rolls back by itself after some errors (a full disk, for one).
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.db.close()

    # -- bots -----------------------------------------------------------------
    def add_bot(self, name: str, kind: str, *, command: str | None = None, cwd: str | None = None,
                env: dict | None = None, processes: int = 1, sample: bool = False, replace: bool = False) -> Bot:
        token = secrets.token_urlsafe(24)
        verb = "INSERT OR REPLACE" if replace else "INSERT"
        try:
            with self.tx():
                self.db.execute(
                    f"{verb} INTO bots (name, kind, command, cwd, env_json, processes, token, sample, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (name, kind, command, cwd, json.dumps(env or {}), processes, token, int(sample), time.time()))
        except sqlite3.IntegrityError:
            raise StoreError(f"a bot named {name!r} is already registered; remove it first "
                             f"(pepper bot remove {name}) or choose another name") from None
        return self.bot(name)

    def remove_bot(self, name: str) -> bool:
        with self.tx():
            return self.db.execute("DELETE FROM bots WHERE name = ?", (name,)).rowcount > 0

    def bot(self, name: str) -> Bot | None:
        row = self.db.execute("SELECT name, kind, command, cwd, env_json, processes, token, sample FROM bots WHERE name = ?",
                              (name,)).fetchone()
        return None if row is None else Bot(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5], row[6], bool(row[7]))

    def bots(self) -> list[Bot]:
        names = [r[0] for r in self.db.execute("SELECT name FROM bots ORDER BY name")]
        return [self.bot(n) for n in names]

    # -- runs and plans -------------------------------------------------------
    def find_or_create_run(self, config: dict, plan: list[tuple[int, str, int, int, list[str]]]) -> tuple[int, bool]:
        """The run for ``config`` (created with its ``plan`` if new). Returns (run id, resumed)."""
        key = json.dumps(config, sort_keys=True)
        row = self.db.execute("SELECT id FROM runs WHERE key = ?", (key,)).fetchone()
        if row:
            return row[0], True
        with self.tx():
            cur = self.db.execute("INSERT INTO runs (key, config_json, created_at) VALUES (?, ?, ?)", (key, key, time.time()))
            run_id = cur.lastrowid
            self.db.executemany(
                "INSERT INTO planned_games (run_id, idx, match, ruleset, players, seed, seats_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(run_id, i, m, rs, n, seed, json.dumps(seats)) for i, (m, rs, n, seed, seats) in enumerate(plan)])
        return run_id, False

    def pending(self, run_id: int) -> list[tuple[int, int, str, int, int, list[str]]]:
        """Planned games of a run without a stored result: (idx, match, ruleset, players, seed, seats)."""
        rows = self.db.execute(
            "SELECT p.idx, p.match, p.ruleset, p.players, p.seed, p.seats_json FROM planned_games p "
            "LEFT JOIN games g ON g.run_id = p.run_id AND g.idx = p.idx WHERE p.run_id = ? AND g.id IS NULL ORDER BY p.idx",
            (run_id,)).fetchall()
        return [(r[0], r[1], r[2], r[3], r[4], json.loads(r[5])) for r in rows]

    def planned_count(self, run_id: int) -> int:
        return self.db.execute("SELECT COUNT(*) FROM planned_games WHERE run_id = ?", (run_id,)).fetchone()[0]

    def run_faults(self, run_id: int) -> int:
        """Faults (illegal, malformed, timeout, disconnect) over every seat of a run's stored games."""
        return self.db.execute(
            "SELECT COALESCE(SUM(json_extract(f.value, '$.illegal') + json_extract(f.value, '$.malformed')"
            " + json_extract(f.value, '$.timeout') + json_extract(f.value, '$.disconnect')), 0)"
            " FROM games, json_each(games.faults_json) AS f WHERE games.run_id = ?", (run_id,)).fetchone()[0]

    def append_plan(self, run_id: int, plan: list[tuple[int, str, int, int, list[str]]]) -> None:
        """Adaptive runs plan as they go: add matches to the end of a run's plan."""
        with self.tx():
            start = self.planned_count(run_id)
            self.db.executemany(
                "INSERT INTO planned_games (run_id, idx, match, ruleset, players, seed, seats_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(run_id, start + i, m, rs, n, seed, json.dumps(seats)) for i, (m, rs, n, seed, seats) in enumerate(plan)])

    def finish_run(self, run_id: int) -> None:
        with self.tx():
            self.db.execute("UPDATE runs SET finished_at = ? WHERE id = ?", (time.time(), run_id))

    # -- games and ratings ----------------------------------------------------
    def ratings(self, pool: str) -> dict[str, Rating]:
        return {b: Rating(mu, sigma) for b, mu, sigma in
                self.db.execute("SELECT bot, mu, sigma FROM ratings WHERE pool = ?", (pool,))}

    def record_game(self, game: dict, new_ratings: dict[str, Rating]) -> int:
        """Store a finished game and its rating updates atomically. Returns the game id.

        ``game`` keys: run_id, idx, pool, ruleset, players, seed, seats, status, seat_status, faults,
        scores, winners, contracts, latency, duration, record.
        """
        try:
            with self.tx():
                cur = self.db.execute(
                    "INSERT INTO games (run_id, idx, pool, ruleset, players, seed, seats_json, status, seat_status_json, "
                    "faults_json, scores_json, winners_json, contracts_json, latency_json, duration, record_json, finished_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (game.get("run_id"), game.get("idx"), game["pool"], game["ruleset"], game["players"], game["seed"],
                     json.dumps(game["seats"]), game["status"], json.dumps(game["seat_status"]), json.dumps(game["faults"]),
                     json.dumps(game["scores"]), json.dumps(game["winners"]), json.dumps(game["contracts"]),
                     json.dumps(game["latency"]), game["duration"], json.dumps(game["record"]), time.time()))
                gid = cur.lastrowid
                for bot, r in new_ratings.items():
                    self.db.execute(
                        "INSERT INTO ratings (pool, bot, mu, sigma, games) VALUES (?, ?, ?, ?, 1) "
                        "ON CONFLICT (pool, bot) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, games = games + 1",
                        (game["pool"], bot, r.mu, r.sigma))
                    self.db.execute("INSERT INTO rating_history (pool, bot, game_id, mu, sigma) VALUES (?, ?, ?, ?, ?)",
                                    (game["pool"], bot, gid, r.mu, r.sigma))
                return gid
        except sqlite3.IntegrityError:
            raise StoreError(f"game {game.get('idx')} of run {game.get('run_id')} is already stored; not counting it twice") from None

    def game(self, game_id: int) -> dict | None:
        cur = self.db.execute("SELECT * FROM games WHERE id = ?", (game_id,))
        row = cur.fetchone()
        if row is None:
            return None
        d = dict(zip([c[0] for c in cur.description], row))
        for k in list(d):
            if k.endswith("_json"):
                d[k[:-5]] = json.loads(d.pop(k))
        return d

    def games(self, pool: str | None = None) -> list[dict]:
        q = "SELECT id FROM games" + (" WHERE pool = ?" if pool else "") + " ORDER BY id"
        return [self.game(r[0]) for r in self.db.execute(q, (pool,) if pool else ())]

    def game_ids(self, run_id: int | None = None) -> tuple[int, int | None, int | None]:
        """(count, lowest id, highest id) of the stored games, or of one run's."""
        q = "SELECT COUNT(*), MIN(id), MAX(id) FROM games" + (" WHERE run_id = ?" if run_id is not None else "")
        return tuple(self.db.execute(q, () if run_id is None else (run_id,)).fetchone())

    def latest_games(self, *, ruleset: str | None = None, players: int | None = None, bot: str | None = None,
                     limit: int = 20) -> tuple[list[dict], int]:
        """The latest games (newest first, without their records) matching the filters, and how many match."""
        where, args = [], []
        if ruleset is not None:
            where.append("ruleset = ?")
            args.append(ruleset)
        if players is not None:
            where.append("players = ?")
            args.append(players)
        if bot is not None:
            where.append("instr(seats_json, ?) > 0")
            args.append(json.dumps(bot))
        cond = (" WHERE " + " AND ".join(where)) if where else ""
        total = self.db.execute(f"SELECT COUNT(*) FROM games{cond}", args).fetchone()[0]
        cur = self.db.execute(
            "SELECT id, run_id, pool, ruleset, players, seats_json, status, scores_json, winners_json, duration, finished_at "
            f"FROM games{cond} ORDER BY id DESC LIMIT ?", (*args, limit))
        out = []
        for r in cur.fetchall():
            out.append({"id": r[0], "run_id": r[1], "pool": r[2], "ruleset": r[3], "players": r[4],
                        "seats": json.loads(r[5]), "status": r[6], "scores": json.loads(r[7]),
                        "winners": json.loads(r[8]), "duration": r[9], "finished_at": r[10]})
        return out, total

    def pools(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT pool FROM ratings ORDER BY pool")]
