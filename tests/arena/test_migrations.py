"""Store migrations: a schema-1 database written by the arena before migrations existed opens, migrates in
place (ratings and all) and gives the same ranked table; newer or broken databases are refused clearly."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.store import SCHEMA_VERSION, Store, StoreError, migrations

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def old_db(tmp_path) -> Path:
    db = tmp_path / "arena.db"
    shutil.copy(FIXTURES / "arena-schema1.db", db)
    return db


def _pepper(*args: str, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], capture_output=True, text=True,
                          timeout=120, cwd=db.parent)


def _dump(db: Path) -> list[str]:
    with sqlite3.connect(db) as c:
        return list(c.iterdump()) + [f"user_version={c.execute('PRAGMA user_version').fetchone()[0]}"]


def _same_table(got: dict, want: dict) -> None:
    assert list(got) == list(want)
    for pool in want:
        assert [r["bot"] for r in got[pool]] == [r["bot"] for r in want[pool]], pool
        for g, w in zip(got[pool], want[pool]):
            assert set(g) == set(w) | {"fallbacks", "version", "next_los", "next_significant", "next_basis", "field_pct",
                                       "field_opponents", "field_size", "field_remote", "next_remote", "points"}
            assert g["fallbacks"] == 0  # schema 1 stored none
            assert g["version"] == 1  # every bot became version 1, with its games and ratings
            for k, v in w.items():
                if k.startswith("latency_") or not isinstance(v, float):
                    assert g[k] == v, (pool, w["bot"], k)      # latency percentiles: exactly as before
                else:
                    assert g[k] == pytest.approx(v, rel=0, abs=1e-9), (pool, w["bot"], k)


def test_a_schema1_database_migrates_and_gives_the_same_ranked_table(old_db):
    before = _dump(old_db)
    # Ordered as the schema-1 arena ordered it, by TrueSkill (the points rating is newer: its order is its own test).
    out = _pepper("arena", "table", "--json", "--order", "trueskill", db=old_db)
    assert out.returncode == 0, out.stderr
    _same_table(json.loads(out.stdout), json.loads((FIXTURES / "arena-schema1.table.json").read_text()))
    with sqlite3.connect(old_db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert c.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 39
        assert c.execute("SELECT COUNT(*) FROM game_seats").fetchone()[0] == 24 * 4 + 6 * 6 + 9 * 3
        assert c.execute("SELECT COUNT(*) FROM game_records").fetchone()[0] == 39
        assert c.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0] == 87
        assert c.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() is None
    # The backup beside it is the file as it was.
    assert _dump(old_db.with_name("arena.db.schema1.bak")) == before


def test_a_migrated_game_replays_exactly_and_keeps_its_seats(old_db):
    with sqlite3.connect(old_db) as c:
        seats, status, faults, scores, winners, record = (json.loads(x) for x in c.execute(
            "SELECT seats_json, seat_status_json, faults_json, scores_json, winners_json, record_json FROM games "
            "WHERE id = 7").fetchone())
    st = Store(old_db)
    g = st.game(7)
    assert st.record(7) == record
    assert g.bots == seats and g.scores == scores and g.winners == winners
    assert [str(s.status) for s in g.seats] == status and [s.faults._asdict() for s in g.seats] == faults
    assert all(s.fallbacks == 0 for s in g.seats)
    st.close()
    rep = _pepper("arena", "replay", "1", db=old_db)
    assert rep.returncode == 0, rep.stderr
    assert "game 1: iowa 4p" in rep.stdout and "Deal 1" in rep.stdout and "Result:" in rep.stdout
    games = _pepper("arena", "games", "--json", "--bot", "slow", "--limit", "100", db=old_db)
    assert games.returncode == 0, games.stderr
    listed = json.loads(games.stdout)
    assert len(listed) == 16 + 9 and all("slow" in g["seats"] for g in listed)
    assert set(listed[0]) == {"id", "run_id", "pool", "ruleset", "players", "seats", "versions", "status", "scores",
                              "winners", "duration", "finished_at", "winner_bots"}
    assert listed[0]["versions"] == [1] * listed[0]["players"]


def test_a_second_open_is_a_no_op(old_db):
    Store(old_db).close()
    migrated = _dump(old_db)
    Store(old_db).close()
    assert _dump(old_db) == migrated


def test_a_new_database_is_the_same_schema_as_a_migrated_one(old_db, tmp_path):
    Store(old_db).close()
    Store(tmp_path / "new.db").close()

    def schema(db):  # columns, keys and indexes (the SQL text keeps the comments it was written with)
        with sqlite3.connect(db) as c:
            out = {}
            for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                out[t] = (c.execute(f"PRAGMA table_info({t})").fetchall(), c.execute(f"PRAGMA foreign_key_list({t})").fetchall(),
                          sorted((i[1], i[2], c.execute(f"PRAGMA index_info({i[1]})").fetchall())
                                 for i in c.execute(f"PRAGMA index_list({t})").fetchall()))
            return out

    assert schema(old_db) == schema(tmp_path / "new.db")
    assert not (tmp_path / "new.db.schema0.bak").exists()


def test_a_database_newer_than_the_code_is_refused(tmp_path):
    db = tmp_path / "future.db"
    Store(db).close()
    with sqlite3.connect(db) as c:
        c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError) as e:
        Store(db)
    msg = str(e.value)
    assert str(db) in msg and f"schema version {SCHEMA_VERSION + 1}" in msg and "upgrade" in msg and "--db" in msg
    out = _pepper("arena", "table", db=db)
    assert out.returncode == 2 and "newer than this arena" in out.stderr


def test_a_failed_migration_leaves_the_file_as_it_was(old_db, monkeypatch):
    before = _dump(old_db)

    def broken(db):
        migrations._to_2(db)
        db.execute("INSERT INTO no_such_table VALUES (1)")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS[:1], migrations.Migration(2, "broken", broken)])
    monkeypatch.setattr("arena.store.store.MIGRATIONS", migrations.MIGRATIONS)
    with pytest.raises(StoreError, match=r"migration 2 \(broken\) failed: no such table.*the file is unchanged.*schema1\.bak"):
        Store(old_db)
    assert _dump(old_db) == before


def test_a_database_of_another_program_is_refused(tmp_path):
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE notes (x)")
    with pytest.raises(StoreError, match="not an arena database"):
        Store(db)
