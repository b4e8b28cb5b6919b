"""`--db` as a user finds it: a results database they may read but not write, and a path into a directory that
does not exist.

Root bypasses file permissions through its capabilities: as root, the commands run without them (dropped from
the bounding set, so that the kernel holds root to the permission bits, as any file owner), on files made
read-only as anyone else would.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer

from arena.store import SCHEMA_VERSION, Store
from pepper_cli.app import app

_SCRIPT = Path(sys.executable).with_name("pepper")
PEPPER = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "pepper_cli"]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER = 1, 2, 3
PR_CAPBSET_DROP = 24
READING = [["arena", "table", "--json"], ["arena", "games", "--json"], ["arena", "replay", "7"], ["bot", "list", "--json"],
           ["bot", "versions", "slow", "--json"]]


def _without_root_powers() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), f"prctl(PR_CAPBSET_DROP, {cap})")


def pepper(*args: str, cwd: Path, held_to_permissions: bool = False) -> subprocess.CompletedProcess:
    """Run ``pepper``; ``held_to_permissions``: even as root, it cannot write what the permission bits forbid."""
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    drop = _without_root_powers if held_to_permissions and os.geteuid() == 0 else None
    return subprocess.run([*PEPPER, *args], capture_output=True, text=True, timeout=120, env=env, cwd=cwd,
                          preexec_fn=drop)


@pytest.fixture
def folder(tmp_path) -> Iterator[Path]:
    """A directory for a read-only database, made writable again at the end for the cleanup."""
    path = tmp_path / "ro"
    path.mkdir()
    try:
        yield path
    finally:
        path.chmod(0o755)


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def _current_db(folder: Path) -> Path:
    """The schema-1 fixture migrated to the current schema, closed, with no backup or side files beside it."""
    db = folder / "arena.db"
    shutil.copy(FIXTURES / "arena-schema1.db", db)
    Store(db).close()
    db.with_name("arena.db.schema1.bak").unlink()
    assert sorted(_files(folder)) == ["arena.db"]
    return db


@pytest.mark.parametrize("directory_writable", [True, False], ids=["file-read-only", "file-and-directory-read-only"])
def test_reading_commands_read_a_database_the_user_cannot_write(folder, tmp_path, directory_writable):
    db = _current_db(folder)
    mine = shutil.copy(db, tmp_path / "arena.db")  # what the commands print where it is writable
    want = {" ".join(args): pepper(*args, "--db", str(mine), cwd=tmp_path).stdout for args in READING}
    db.chmod(0o444)
    folder.chmod(0o755 if directory_writable else 0o555)
    before = _files(folder)
    for args in READING:
        r = pepper(*args, "--db", str(db), cwd=folder, held_to_permissions=True)
        assert r.returncode == 0, f"pepper {' '.join(args)}: {r.stderr}"
        assert r.stdout == want[" ".join(args)] and r.stdout.strip()
    assert _files(folder) == before  # nothing written, no -wal or -shm left beside it
    assert len(json.loads(want["arena table --json"])) == 3


def test_a_writing_command_on_a_read_only_database_names_the_file(folder):
    db = _current_db(folder)
    db.chmod(0o444)
    before = _files(folder)
    r = pepper("bot", "register", "mine", "--command", "python mine.py", "--db", str(db), cwd=folder, held_to_permissions=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr == (f"error: {db}: cannot write the results database (it is read-only for this user), and this "
                        "command writes it: make the file and its directory writable (SQLite keeps its -wal and -shm "
                        "files beside it), or choose a writable path with --db\n")
    assert _files(folder) == before


def test_a_read_only_database_that_needs_a_migration_says_so(folder):
    db = folder / "old.db"
    shutil.copy(FIXTURES / "arena-schema1.db", db)
    db.chmod(0o444)
    before = _files(folder)
    r = pepper("arena", "table", "--db", str(db), cwd=folder, held_to_permissions=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"error: {db}: the results database has schema version 1 and must be migrated to "
                               f"version {SCHEMA_VERSION} before it can be read, which writes it, and it is read-only here; make the "
                               "file and its directory writable and run the same command again")
    assert "or copy it to a writable place and pass --db COPY" in r.stderr
    assert _files(folder) == before


# Enough arguments for each command that takes --db to reach the database.
DB_COMMANDS = {
    "arena run": ["--games", "1"],
    "arena match": ["heuristic", "random"],
    "arena table": [],
    "arena games": [],
    "arena replay": ["1"],
    "arena deals export": ["1", "-o", "-"],
    "bot register": ["mine", "--command", "python mine.py"],
    "bot update": ["mine"],
    "bot versions": ["mine"],
    "bot list": [],
    "bot token": ["mine"],
    "bot remove": ["mine"],
    "web": [],
}


def _commands_with_db(group, path=()) -> Iterator[str]:
    for name, cmd in getattr(group, "commands", {}).items():
        if any("--db" in p.opts for p in cmd.params):
            yield " ".join((*path, name))
        yield from _commands_with_db(cmd, (*path, name))


def test_every_command_with_a_db_option_is_covered_below():
    assert sorted(_commands_with_db(typer.main.get_command(app))) == sorted(DB_COMMANDS)


@pytest.mark.parametrize("command", sorted(DB_COMMANDS))
def test_a_db_in_a_missing_directory_is_an_error_naming_it(tmp_path, command):
    db = tmp_path / "missing" / "dir" / "a.db"
    r = pepper(*command.split(), *DB_COMMANDS[command], "--db", str(db), cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    if (command.startswith("arena") and command not in ("arena run", "arena match")) or command == "web":  # reading
        assert r.stderr == f"error: no results database at {db} (run `pepper arena run` first, or pass --db)\n"
    else:
        assert r.stderr == (f"error: {db}: the directory {db.parent} does not exist; create it first "
                            f"(mkdir -p {db.parent}) or choose another path with --db\n")
    assert list(tmp_path.iterdir()) == []
