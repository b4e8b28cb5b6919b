"""Opening the results database: a reading opening that cannot write, and a writing one that does not invent
directories. (The same seen by a user who cannot write the file: tests/cli/test_db_access.py.)"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.store import SCHEMA_VERSION, BotKind, Store, StoreError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def db(tmp_path) -> Path:
    """A current database with one bot, closed (so that everything is in the file, no -wal beside it)."""
    path = tmp_path / "arena.db"
    st = Store(path)
    st.add_bot("mine", BotKind.COMMAND, command="python mine.py")
    st.close()
    return path


def test_a_read_only_store_reads_and_cannot_write(db):
    before = _digest(db)
    st = Store(db, read_only=True)
    assert [b.name for b in st.bots()] == ["mine"]
    with pytest.raises(sqlite3.OperationalError, match="attempt to write a readonly database"):
        st.db.execute("INSERT INTO meta VALUES ('x', '1')")
    with pytest.raises(StoreError, match=rf"{db}: cannot write the results database .*make the file and its directory "
                                         "writable"):
        st.set_flag("x")
    st.close()
    assert _digest(db) == before


def test_a_read_only_store_of_a_missing_file_creates_nothing(tmp_path):
    with pytest.raises(StoreError, match="no results database there"):
        Store(tmp_path / "none.db", read_only=True)
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_opening_of_an_old_schema_migrates_it_where_it_may_write(tmp_path):
    path = tmp_path / "arena.db"
    shutil.copy(FIXTURES / "arena-schema1.db", path)
    st = Store(path, read_only=True)
    assert st.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert st.game_ids()[0] == 39
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        st.db.execute("DELETE FROM games")
    st.close()
    assert path.with_name("arena.db.schema1.bak").exists()


@pytest.mark.parametrize("where", ["missing", "missing/deeper"])
def test_a_missing_directory_is_an_error_naming_it(tmp_path, where):
    path = tmp_path / where / "a.db"
    with pytest.raises(StoreError) as e:
        Store(path)
    assert str(e.value) == (f"{path}: the directory {path.parent} does not exist; create it first "
                            f"(mkdir -p {path.parent}) or choose another path with --db")
    assert list(tmp_path.iterdir()) == []


def test_a_new_database_in_an_existing_directory_is_created(tmp_path):
    Store(tmp_path / "new.db").close()
    assert (tmp_path / "new.db").is_file()
