"""Migration 6 on a real schema-5 file (the schema-1 fixture taken to schema 5): its bots keep their builds, with
no sandbox image and the default limits; a version registered after it keeps its image and limits."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from arena.store import SCHEMA_VERSION, BotKind, Store, migrations

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_a_schema5_database_gets_the_sandbox_columns_and_keeps_its_bots(tmp_path):
    db = tmp_path / "arena.db"
    shutil.copy(FIXTURES / "arena-schema1.db", db)
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("BEGIN")
    for step in (migrations._to_2, migrations._to_3, migrations._to_4, migrations._to_5):
        step(c)
    c.execute("PRAGMA user_version = 5")
    c.execute("COMMIT")
    before = c.execute("SELECT bot, version, command, digest FROM bot_versions ORDER BY bot").fetchall()
    c.close()
    assert before

    st = Store(db)
    assert st.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 6
    assert st.db.execute("SELECT bot, version, command, digest FROM bot_versions ORDER BY bot").fetchall() == before
    assert all(b.image is None and b.limits == {} for b in st.bots())
    image = "sha256:" + "ab" * 32
    st.add_bot("boxed", BotKind.COMMAND, command="python3 bot.py", digest=image, image=image,
               limits={"memory_mb": 256, "cpus": 0.5, "pids": 32})
    b = st.bot("boxed")
    assert (b.image, b.digest, b.limits) == (image, image, {"memory_mb": 256, "cpus": 0.5, "pids": 32})
    # Another image is another version.
    other = "sha256:" + "cd" * 32
    b2, new = st.update_bot("boxed", b.build.__class__(**{**b.build.__dict__, "image": other, "digest": other}))
    assert new and b2.version == b.version + 1 and b2.image == other
    st.close()
