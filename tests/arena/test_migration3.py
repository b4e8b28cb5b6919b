"""Migration 3 on a real schema-2 file (the schema-1 fixture taken to schema 2, plus a run of a ruleset file):
every bot becomes version 1 with its registration, its games and ratings version 1's, every pool gets the digest
of its ruleset's content, and the crashes table is there."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena import registry
from arena.ratings import Rating
from arena.stats import table
from arena.store import SCHEMA_VERSION, Store, migrations, token_sha256

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SHORT = {"extends": "iowa", "name": "short", "deal_cap": 1, "target_score": 12}


@pytest.fixture
def v2_db(tmp_path) -> Path:
    """The schema-1 fixture migrated to schema 2 only, with a ruleset file's run and its one rated game added."""
    db = tmp_path / "arena.db"
    shutil.copy(FIXTURES / "arena-schema1.db", db)
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("BEGIN")
    migrations._to_2(c)
    c.execute("PRAGMA user_version = 2")
    key = json.dumps({"ruleset": "short", "players": 4, "bots": ["heuristic", "random"], "ruleset_params": SHORT})
    c.execute("INSERT INTO runs (id, key, config_json, created_at) VALUES (4, ?, ?, 0)", (key, key))
    c.execute("INSERT INTO games VALUES (100, 4, 0, 'short/4p', 'short', 4, 1, 'completed', 0.1, 0)")
    for s, bot in enumerate(("heuristic", "random", "heuristic", "random")):
        c.execute("INSERT INTO game_seats VALUES (100, ?, 'short/4p', ?, 'ok', 0, 0, 0, 0, 0, 5, ?, 0, 0, 3, 1.0, 2.0)",
                  (s, bot, s % 2 == 0))
    c.execute("INSERT INTO game_records VALUES (100, '{}')")
    for bot, mu in (("heuristic", 27.0), ("random", 23.0)):
        c.execute("INSERT INTO ratings VALUES ('short/4p', ?, ?, 7.0, 1)", (bot, mu))
        c.execute("INSERT INTO rating_history VALUES (100, ?, 'short/4p', ?, 7.0)", (bot, mu))
    c.execute("COMMIT")
    c.close()
    return db


def test_a_schema2_database_migrates_to_versions_and_pools_by_content(v2_db):
    with sqlite3.connect(v2_db) as c:
        bots_before = c.execute("SELECT name, kind, command, cwd, env_json, processes, token, sample FROM bots "
                                "ORDER BY name").fetchall()
        ratings_before = c.execute("SELECT pool, bot, mu, sigma, games FROM ratings ORDER BY pool, bot").fetchall()
    st = Store(v2_db)
    assert st.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert v2_db.with_name("arena.db.schema2.bak").exists()
    # Every bot is version 1 with its registration (token and all); its files are recorded by its first run.
    assert [(b.name, str(b.kind), b.command, b.cwd, json.dumps(b.env), b.processes, b.token_sha256, int(b.sample))
            for b in st.bots()] == [(*r[:6], token_sha256(r[6]), r[7]) for r in bots_before]
    assert {(b.version, b.digest, b.files, b.deadline_ms, b.time_bank_ms) for b in st.bots()} == {(1, None, None, None, None)}
    # Pools by content: a built-in's digest, and the ruleset file's from its run's stored keys. The digests are
    # those the migration wrote when it was released (arena.store.frozen), whatever the live rules say now.
    key = {"iowa/4p": "iowa@5b236b71f3ba/4p", "pepper-30/3p": "pepper-30@884c7f73bd19/3p",
           "bid-euchre/6p": "bid-euchre@4ac34b5a9542/6p", "short/4p": "short@d04bd96e1963/4p"}
    assert sorted(st.pools()) == sorted(key.values())
    assert [(p, b, mu, sigma, g) for p, b, mu, sigma, g in ratings_before] == [
        (old, b, mu, sigma, g) for old in sorted(key) for b, mu, sigma, g in
        st.db.execute("SELECT bot, mu, sigma, games FROM ratings WHERE pool = ? AND version = 1 ORDER BY bot",
                      (key[old],))]
    for t in ("games", "game_seats", "rating_history"):
        assert st.db.execute(f"SELECT COUNT(*) FROM {t} WHERE pool NOT IN (SELECT pool FROM ratings)").fetchone()[0] == 0
    assert {r[0] for r in st.db.execute("SELECT DISTINCT version FROM game_seats")} == {1}
    assert st.game(100).pool == key["short/4p"] and st.game(100).seats[0].version == 1
    assert st.ratings(key["short/4p"]) == {"heuristic": Rating(27.0, 7.0), "random": Rating(23.0, 7.0)}
    assert [(r.bot, r.version, r.games) for r in table(st, key["short/4p"])] == [("heuristic", 1, 1), ("random", 1, 1)]
    # The crashes table, as the tournament loop writes it.
    assert [r[1:3] for r in st.db.execute("PRAGMA table_info(crashes)")] == [
        ("id", "INTEGER"), ("run_id", "INTEGER"), ("pool", "TEXT"), ("bot", "TEXT"), ("version", "INTEGER"),
        ("exit_code", "INTEGER"), ("games_replayed", "INTEGER"), ("at", "REAL")]
    st.record_crash(4, key["short/4p"], "random", 1, None, 2)
    assert {r.bot: r.crashes for r in table(st, key["short/4p"])} == {"heuristic": 0, "random": 1}


def test_a_migrated_bot_records_its_files_at_its_first_run_without_a_new_version(v2_db):
    st = Store(v2_db)
    notes: list[str] = []
    bots = registry.current_versions(st, [st.bot("heuristic")], notes.append)
    assert notes == [] and bots[0].version == 1 and bots[0].files == ("sample_bots",) and len(bots[0].digest) == 64
    # Registered again after removal, the same build is still version 1, and its ratings are its own.
    st.remove_bot("heuristic")
    again = st.add_bot("heuristic", "command", command=bots[0].command, cwd=bots[0].cwd, files=bots[0].files,
                       digest=bots[0].digest, sample=True)
    assert again.version == 1
