"""Numbered schema migrations, keyed on ``PRAGMA user_version``.

Every database walks the same path, a new one from version 0: migration N
takes the schema from version N-1 to N. To change the schema, append a
migration (never edit one that has shipped) and a test that opens a database
of the previous version. A migration reads only its own code, the standard
library and the database: what it needs of the live code (the rules, the
pool keys) it freezes in a copy of its own (:mod:`arena.store.frozen` for
migrations 3 and 5), so that its result never changes with that code
(`.importlinter` holds this module to the standard library).

- 1: the schema the arena shipped first (meta, bots, runs, planned_games,
  games with per-seat JSON columns and the record, ratings, rating_history).
  Databases written then say so in ``meta`` (key 'schema' = '1') and have
  user_version 0.
- 2: per-seat rows in ``game_seats`` (fault counts by kind, fallbacks, score,
  contracts, latency) indexed by bot and by pool; the records in
  ``game_records``; ``games`` keeps one row of scalars per game;
  ``rating_history`` keyed by (game, bot) and indexed by (pool, bot).
- 3: bot versions and pools by content. ``bot_versions`` holds each
  registration of a name (command, cwd, env, processes, its files and their
  digest, its own time controls); ``bots`` keeps the name's token; ratings,
  rating history and game seats say which version. Every existing bot
  becomes version 1, with its files unrecorded (NULL: the first run records
  them). A pool key becomes ``name@digest/Np`` (:class:`arena.ratings.Pool`):
  the digest of the built-in ruleset of that name, or of the ruleset file's
  keys its latest run stored (``runs.config_json``). ``crashes`` records each
  crash of a bot process (one row per crash, with the games replayed).
- 4: bot tokens kept as their SHA-256 (``bots.token_sha256``, hex), the
  token itself nowhere: a remote bot's token is shown once, when it is made;
  a command bot gets a fresh one per run. The tokens are 24 random bytes, so
  a plain SHA-256 is enough (nothing to guess, no need for a slow hash).
- 5: duplicate blocks (:mod:`arena.evidence`): ``block_scores`` holds, per
  block (a run's match: one deck, its seats rotated) and ordered pair of
  sides (bot versions on opposite teams), the games, the sums of the
  first side's per-game score and margin against the second, and their
  squares. Filled from the stored games of runs; a game whose ruleset cannot
  be found (a ruleset file no run stored) has no block rows.
- 6: a bot version's sandbox (``pepper arena run --sandbox docker``): ``image``, the
  id (sha256:...) of the Docker image it was registered with, which is also its ``digest``; ``limits_json``, its
  memory, CPU and process limits there. NULL: the project's base image, the default limits.

All pending migrations run in one transaction with the new user_version: a
failure leaves the file as it was.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from typing import NamedTuple

from . import frozen


class Migration(NamedTuple):
    version: int
    what: str
    apply: Callable[[sqlite3.Connection], None]


def _run(db: sqlite3.Connection, statements: list[str]) -> None:
    # Not executescript: it would COMMIT the migration's transaction first.
    for stmt in statements:
        db.execute(stmt)


SCHEMA_1 = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE bots (
        name TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('command', 'remote')),
        command TEXT,
        cwd TEXT,
        env_json TEXT NOT NULL DEFAULT '{}',
        processes INTEGER NOT NULL DEFAULT 1,
        token TEXT NOT NULL,
        sample INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL)""",
    """CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        config_json TEXT NOT NULL,
        created_at REAL NOT NULL,
        finished_at REAL)""",
    """CREATE TABLE planned_games (
        run_id INTEGER NOT NULL REFERENCES runs (id),
        idx INTEGER NOT NULL,
        match INTEGER NOT NULL,
        ruleset TEXT NOT NULL,
        players INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        seats_json TEXT NOT NULL,
        PRIMARY KEY (run_id, idx))""",
    """CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        run_id INTEGER REFERENCES runs (id),
        idx INTEGER,
        pool TEXT NOT NULL,
        ruleset TEXT NOT NULL,
        players INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        seats_json TEXT NOT NULL,
        status TEXT NOT NULL,
        seat_status_json TEXT NOT NULL,
        faults_json TEXT NOT NULL,
        scores_json TEXT NOT NULL,
        winners_json TEXT NOT NULL,
        contracts_json TEXT NOT NULL,
        latency_json TEXT NOT NULL,
        duration REAL NOT NULL,
        record_json TEXT NOT NULL,
        finished_at REAL NOT NULL,
        UNIQUE (run_id, idx))""",
    "CREATE INDEX games_pool ON games (pool)",
    """CREATE TABLE ratings (
        pool TEXT NOT NULL,
        bot TEXT NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        PRIMARY KEY (pool, bot))""",
    """CREATE TABLE rating_history (
        pool TEXT NOT NULL,
        bot TEXT NOT NULL,
        game_id INTEGER NOT NULL REFERENCES games (id),
        mu REAL NOT NULL,
        sigma REAL NOT NULL)""",
]


def _to_2(db: sqlite3.Connection) -> None:
    _run(db, [
        """CREATE TABLE games_2 (
            id INTEGER PRIMARY KEY,
            run_id INTEGER REFERENCES runs (id),
            idx INTEGER,                       -- position in the run's plan
            pool TEXT NOT NULL,
            ruleset TEXT NOT NULL,
            players INTEGER NOT NULL,
            seed INTEGER NOT NULL,
            status TEXT NOT NULL,              -- completed | forfeited | aborted
            duration REAL NOT NULL,
            finished_at REAL NOT NULL,
            UNIQUE (run_id, idx))""",
        "INSERT INTO games_2 SELECT id, run_id, idx, pool, ruleset, players, seed, status, duration, finished_at FROM games",
        """CREATE TABLE game_seats (
            game_id INTEGER NOT NULL REFERENCES games (id),
            seat INTEGER NOT NULL,
            pool TEXT NOT NULL,                -- the game's, so that a pool's seats are found by index
            bot TEXT NOT NULL,
            status TEXT NOT NULL,              -- ok | faulted | disconnected | forfeited | aborted
            illegal INTEGER NOT NULL,
            malformed INTEGER NOT NULL,
            timeout INTEGER NOT NULL,
            disconnect INTEGER NOT NULL,
            fallbacks INTEGER NOT NULL,        -- strategy fallbacks its SDK reported (protocol 1.2)
            score INTEGER NOT NULL,            -- its team's score when the game ended
            won INTEGER NOT NULL,
            contracts_bid INTEGER NOT NULL,
            contracts_made INTEGER NOT NULL,
            decisions INTEGER NOT NULL,
            latency_p50_ms REAL,
            latency_p99_ms REAL,
            PRIMARY KEY (game_id, seat))""",
        """CREATE TABLE game_records (
            game_id INTEGER PRIMARY KEY REFERENCES games (id),
            record_json TEXT NOT NULL)""",
        "INSERT INTO game_records SELECT id, record_json FROM games",
        """CREATE TABLE rating_history_2 (
            game_id INTEGER NOT NULL REFERENCES games (id),
            bot TEXT NOT NULL,
            pool TEXT NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            PRIMARY KEY (game_id, bot))""",
        "INSERT INTO rating_history_2 SELECT game_id, bot, pool, mu, sigma FROM rating_history",
    ])
    rows = db.execute("SELECT id, pool, seats_json, seat_status_json, faults_json, scores_json, winners_json, "
                      "contracts_json, latency_json FROM games").fetchall()
    for gid, pool, *cols in rows:
        seats, status, faults, scores, winners, contracts, latency = map(json.loads, cols)
        for s, bot in enumerate(seats):
            f, lat = faults[s] or {}, latency[s] or {}
            db.execute("INSERT INTO game_seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)",
                       (gid, s, pool, bot, status[s], f.get("illegal", 0), f.get("malformed", 0), f.get("timeout", 0),
                        f.get("disconnect", 0), scores[s], s in winners, contracts[s][0], contracts[s][1],
                        lat.get("decisions", 0), lat.get("p50"), lat.get("p99")))
    _run(db, [
        "DROP TABLE rating_history",
        "ALTER TABLE rating_history_2 RENAME TO rating_history",
        "DROP TABLE games",
        "ALTER TABLE games_2 RENAME TO games",
        "CREATE INDEX games_pool ON games (pool)",
        "CREATE INDEX game_seats_bot ON game_seats (bot)",
        "CREATE INDEX game_seats_pool ON game_seats (pool, bot)",
        "CREATE INDEX rating_history_bot ON rating_history (pool, bot)",
        "DELETE FROM meta WHERE key = 'schema'",  # user_version says it now
    ])


def _to_3(db: sqlite3.Connection) -> None:
    _run(db, [
        """CREATE TABLE bot_versions (
            bot TEXT NOT NULL,
            version INTEGER NOT NULL,          -- 1, 2, ...: one registered build of the bot
            kind TEXT NOT NULL CHECK (kind IN ('command', 'remote')),
            command TEXT,
            cwd TEXT,
            env_json TEXT NOT NULL DEFAULT '{}',
            processes INTEGER NOT NULL DEFAULT 1,
            files_json TEXT,                   -- the paths its digest covers; NULL: not recorded yet
            digest TEXT,                       -- sha256 over those files; NULL: not recorded yet
            deadline_ms INTEGER,               -- its own time controls; NULL: the run's
            time_bank_ms INTEGER,
            created_at REAL NOT NULL,
            PRIMARY KEY (bot, version))""",
        "INSERT INTO bot_versions SELECT name, 1, kind, command, cwd, env_json, processes, NULL, NULL, NULL, NULL, "
        "created_at FROM bots",
        """CREATE TABLE bots_3 (
            name TEXT PRIMARY KEY,             -- a registered name; its versions outlive it
            token TEXT NOT NULL,
            sample INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL)""",
        "INSERT INTO bots_3 SELECT name, token, sample, created_at FROM bots",
        "DROP TABLE bots",
        "ALTER TABLE bots_3 RENAME TO bots",
        """CREATE TABLE ratings_3 (
            pool TEXT NOT NULL,
            bot TEXT NOT NULL,
            version INTEGER NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            games INTEGER NOT NULL,
            PRIMARY KEY (pool, bot, version))""",
        "INSERT INTO ratings_3 SELECT pool, bot, 1, mu, sigma, games FROM ratings",
        "DROP TABLE ratings",
        "ALTER TABLE ratings_3 RENAME TO ratings",
        "ALTER TABLE game_seats ADD COLUMN version INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE rating_history ADD COLUMN version INTEGER NOT NULL DEFAULT 1",
        "DROP INDEX game_seats_pool",
        "CREATE INDEX game_seats_pool ON game_seats (pool, bot, version)",
        "DROP INDEX rating_history_bot",
        "CREATE INDEX rating_history_bot ON rating_history (pool, bot, version)",
        """CREATE TABLE crashes (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs (id),
            pool TEXT NOT NULL,
            bot TEXT NOT NULL,
            version INTEGER NOT NULL,
            exit_code INTEGER,                 -- NULL: killed by a signal, or unknown
            games_replayed INTEGER NOT NULL,   -- its games in flight, played again from their start
            at REAL NOT NULL)""",
        "CREATE INDEX crashes_pool ON crashes (pool, bot, version)",
    ])
    keys = {r[0] for t in ("games", "ratings", "rating_history") for r in db.execute(f"SELECT DISTINCT pool FROM {t}")}
    params = _ruleset_params_by_name(db)
    for key in keys:
        pool = frozen.PoolKey.parse(key)
        if pool.digest:
            continue
        rules = frozen.rules_of(pool.ruleset, params)
        if rules is None:
            continue  # no such ruleset, or a file the rules refused: the pool keeps its name alone
        new = pool._replace(digest=frozen.ruleset_digest(rules)).key
        for table in ("games", "game_seats", "ratings", "rating_history"):
            db.execute(f"UPDATE {table} SET pool = ? WHERE pool = ?", (new, key))


def _ruleset_params_by_name(db: sqlite3.Connection) -> dict[str, dict]:
    """Per ruleset file name, the keys its latest run stored."""
    out: dict[str, dict] = {}
    for (config,) in db.execute("SELECT config_json FROM runs ORDER BY id"):
        params = json.loads(config).get("ruleset_params")
        if isinstance(params, dict) and isinstance(params.get("name"), str):
            out[params["name"]] = params
    return out


def _to_4(db: sqlite3.Connection) -> None:
    # The dropped table's pages are zeroed rather than left free with the tokens in them.
    db.execute("PRAGMA secure_delete = ON")
    db.create_function("sha256_hex", 1, lambda token: hashlib.sha256(token.encode()).hexdigest(), deterministic=True)
    _run(db, [
        """CREATE TABLE bots_4 (
            name TEXT PRIMARY KEY,
            token_sha256 TEXT NOT NULL,        -- hex SHA-256 of its token: the token is shown once, never kept
            sample INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL)""",
        "INSERT INTO bots_4 SELECT name, sha256_hex(token), sample, created_at FROM bots",
        "DROP TABLE bots",
        "ALTER TABLE bots_4 RENAME TO bots",
    ])


BLOCK_SCORES = [
    """CREATE TABLE block_scores (
        run_id INTEGER NOT NULL REFERENCES runs (id),
        match INTEGER NOT NULL,            -- the block: one match of the run (planned_games.match)
        pool TEXT NOT NULL,
        bot TEXT NOT NULL,                 -- the side whose score this is ...
        version INTEGER NOT NULL,
        opponent TEXT NOT NULL,            -- ... against this side
        opponent_version INTEGER NOT NULL,
        games INTEGER NOT NULL,            -- games of the block stored so far
        score REAL NOT NULL,               -- sum over them of its score against the opponent (1, 0.5, 0)
        score_sq REAL NOT NULL,            -- sum of the squares
        margin REAL NOT NULL,              -- sum of its points minus the opponent's
        margin_sq REAL NOT NULL,
        PRIMARY KEY (run_id, match, bot, version, opponent, opponent_version))""",
    "CREATE INDEX block_scores_pool ON block_scores (pool, bot, version)",
]


def _add_block_game_5(db: sqlite3.Connection, run_id: int, match: int, pool: str,
                      pairs: list[frozen.PairResult]) -> None:
    db.executemany(
        "INSERT INTO block_scores VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) "
        "ON CONFLICT (run_id, match, bot, version, opponent, opponent_version) DO UPDATE SET games = games + 1, "
        "score = score + excluded.score, score_sq = score_sq + excluded.score_sq, "
        "margin = margin + excluded.margin, margin_sq = margin_sq + excluded.margin_sq",
        [(run_id, match, pool, *p.a, *p.b, p.score, p.score ** 2, p.margin, p.margin ** 2) for p in pairs])


def _to_5(db: sqlite3.Connection) -> None:
    _run(db, BLOCK_SCORES)
    params = _ruleset_params_by_name(db)
    tables: dict[tuple[str, int], tuple[int, ...] | None] = {}   # (ruleset, players) -> seat -> team
    games = db.execute("SELECT g.id, g.run_id, p.match, g.pool, g.players FROM games g JOIN planned_games p "
                       "ON p.run_id = g.run_id AND p.idx = g.idx ORDER BY g.id").fetchall()
    seats_of: dict[int, list[tuple]] = {}   # one pass over the seats, not a query per game
    for gid, *seat in db.execute("SELECT game_id, bot, version, score, won FROM game_seats ORDER BY game_id, seat"):
        seats_of.setdefault(gid, []).append(tuple(seat))
    for gid, run_id, match, pool, players in games:
        name = frozen.PoolKey.parse(pool).ruleset
        if (name, players) not in tables:
            rules = frozen.rules_of(name, params)
            tables[name, players] = frozen.team_of(rules, players) if rules else None
        team_of = tables[name, players]
        if team_of is None:
            continue
        seats = seats_of.get(gid, [])
        if len(seats) != len(team_of):
            continue
        pairs = frozen.game_pairs([(b, v) for b, v, _, _ in seats], [s for *_, s, _ in seats], [w for *_, w in seats],
                                  team_of)
        _add_block_game_5(db, run_id, match, pool, pairs)


def _to_6(db: sqlite3.Connection) -> None:
    _run(db, [
        "ALTER TABLE bot_versions ADD COLUMN image TEXT",  # the sandbox's image id (sha256:...): NULL, the base image
        "ALTER TABLE bot_versions ADD COLUMN limits_json TEXT",  # its sandbox limits ({"memory_mb": ..}): NULL, the defaults
    ])


MIGRATIONS = [
    Migration(1, "the first schema", lambda db: _run(db, SCHEMA_1)),
    Migration(2, "per-seat rows, records apart, keyed rating history", _to_2),
    Migration(3, "bot versions, pools by ruleset content, crashes", _to_3),
    Migration(4, "bot tokens kept as their SHA-256", _to_4),
    Migration(5, "duplicate blocks: each side's score per block", _to_5),
    Migration(6, "a bot version's sandbox image and limits", _to_6),
]
LATEST = MIGRATIONS[-1].version
