"""Migration 4 on a real schema-3 file (the schema-1 fixture taken to schema 3, plus a remote bot): every bot's
token becomes its SHA-256, and the token itself is left nowhere in the migrated file."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from arena.store import SCHEMA_VERSION, Store, migrations, token_sha256

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TOKEN = "remote-bots-token-from-schema-3-0123"


def test_a_schema3_database_keeps_only_its_tokens_digests(tmp_path):
    db = tmp_path / "arena.db"
    shutil.copy(FIXTURES / "arena-schema1.db", db)
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("BEGIN")
    migrations._to_2(c)
    migrations._to_3(c)
    c.execute("INSERT INTO bots VALUES ('far', ?, 0, 0)", (TOKEN,))
    c.execute("INSERT INTO bot_versions (bot, version, kind, created_at) VALUES ('far', 1, 'remote', 0)")
    c.execute("PRAGMA user_version = 3")
    c.execute("COMMIT")
    before = dict(c.execute("SELECT name, token FROM bots"))
    c.close()
    assert len(before) >= 3 and before["far"] == TOKEN

    st = Store(db)
    assert st.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 4
    assert {b.name: b.token_sha256 for b in st.bots()} == {n: token_sha256(t) for n, t in before.items()}
    assert "token" not in {row[1] for row in st.db.execute("PRAGMA table_info(bots)")}
    st.close()
    # Not even in the file's free pages or its journal (the copy from before, arena.db.schema3.bak, keeps them).
    for path in tmp_path.iterdir():
        if path.suffix != ".bak":
            assert TOKEN.encode() not in path.read_bytes(), path.name
    assert TOKEN.encode() in (tmp_path / "arena.db.schema3.bak").read_bytes()  # (the check can see it)
