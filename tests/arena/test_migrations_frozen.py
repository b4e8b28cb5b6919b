"""Released migrations are frozen: they read their own code (arena.store.migrations, arena.store.frozen) and the
database, never the live code whose changes would change their result (the rules, the pool keys, the pairwise
results). Every migration runs from the schema-1 fixture, plus a ruleset file's run, in a process where nothing
but the standard library and those two modules can be imported, and writes what opening the file does; the pool
keys are those migration 3 wrote when it was released."""

from __future__ import annotations

import ast
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.store import SCHEMA_VERSION, Store, migrations

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
FROZEN_MODULES = ("arena.store.migrations", "arena.store.frozen")

# Ruleset files whose runs a schema-2 database may hold: one the rules accept, one they refuse (a bool as a
# string), one of another family with its own player counts, specials and bids.
RULESET_FILES = [
    ({"extends": "iowa", "name": "short", "deal_cap": 1, "target_score": 12}, 4),
    ({"extends": "iowa", "name": "refused", "pepper_exchange": "yes"}, 4),
    ({"extends": "pepper-30", "name": "p30", "player_counts": [3, 2], "specials": ["big-pepper"], "max_bid": 6}, 3),
]


def _imports(module: str) -> set[str]:
    """The absolute names a module's source imports (relative imports resolved against its package)."""
    package = module.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            out.add(node.module)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1])
            out |= {f"{base}.{node.module}"} if node.module else {f"{base}.{a.name}" for a in node.names}
    return out


@pytest.mark.parametrize("module", FROZEN_MODULES)
def test_a_migration_module_imports_the_standard_library_and_the_frozen_modules_only(module):
    live = {m for m in _imports(module)
            if m.split(".")[0] not in sys.stdlib_module_names and m not in FROZEN_MODULES}
    assert live == set(), f"{module} imports live code: {sorted(live)} (freeze what it needs in arena.store.frozen)"


def _schema2(tmp_path: Path) -> Path:
    """The schema-1 fixture taken to schema 2, with each ruleset file's run and one rated game of it added."""
    db = tmp_path / "arena.db"
    shutil.copy(FIXTURES / "arena-schema1.db", db)
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("BEGIN")
    migrations._to_2(c)
    c.execute("PRAGMA user_version = 2")
    for run, (params, players) in enumerate(RULESET_FILES, start=4):
        name, gid, pool = params["name"], 100 + run, f"{params['name']}/{players}p"
        key = json.dumps({"ruleset": name, "players": players, "ruleset_params": params})
        c.execute("INSERT INTO runs (id, key, config_json, created_at) VALUES (?, ?, ?, 0)", (run, key, key))
        c.execute("INSERT INTO planned_games VALUES (?, 0, 0, ?, ?, 1, '[]')", (run, name, players))
        c.execute("INSERT INTO games VALUES (?, ?, 0, ?, ?, ?, 1, 'completed', 0.1, 0)", (gid, run, pool, name, players))
        for s in range(players):
            c.execute("INSERT INTO game_seats VALUES (?, ?, ?, ?, 'ok', 0, 0, 0, 0, 0, ?, ?, 0, 0, 3, 1.0, 2.0)",
                      (gid, s, pool, ("heuristic", "random", "montecarlo")[s % (2 if players == 4 else 3)], 5 + s, s % 2 == 0))
        c.execute("INSERT INTO game_records VALUES (?, '{}')", (gid,))
        c.execute("INSERT INTO ratings VALUES (?, 'heuristic', 27.0, 7.0, 1)", (pool,))
    c.execute("COMMIT")
    c.close()
    return db


def _dump(db: Path) -> list[str]:
    with sqlite3.connect(db) as c:
        return list(c.iterdump()) + [f"user_version={c.execute('PRAGMA user_version').fetchone()[0]}"]


# Imports arena.store.migrations without its package's __init__ (the live store), with every import refused but
# the standard library's and the frozen modules', then takes the file given from its user_version to the latest.
MIGRATE_ALONE = """
import importlib.abc, sqlite3, sys, types
FROZEN = {frozen!r}

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] not in sys.stdlib_module_names and name not in FROZEN:
            raise ImportError(f"a migration imported {{name}}, which is live code")

sys.meta_path.insert(0, Refuse())
for name, path in (("arena", {root!r} + "/arena"), ("arena.store", {root!r} + "/arena/store")):
    pkg = sys.modules[name] = types.ModuleType(name)
    pkg.__path__ = [path]
from arena.store import migrations

db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA foreign_keys=OFF")
db.execute("BEGIN IMMEDIATE")
for step in migrations.MIGRATIONS[db.execute("PRAGMA user_version").fetchone()[0]:]:
    step.apply(db)
db.execute(f"PRAGMA user_version = {{migrations.LATEST}}")
db.execute("COMMIT")
"""


@pytest.mark.parametrize("start", ["schema1", "schema2-with-ruleset-files"])
def test_every_migration_runs_without_the_live_code_and_writes_what_opening_does(tmp_path, start):
    if start == "schema1":
        alone = tmp_path / "arena.db"
        shutil.copy(FIXTURES / "arena-schema1.db", alone)
        with sqlite3.connect(alone) as c:   # schema 1 predates user_version: migration 1 has been applied
            c.execute("PRAGMA user_version = 1")
    else:
        alone = _schema2(tmp_path)
    opened = tmp_path / "opened" / "arena.db"
    opened.parent.mkdir()
    shutil.copy(alone, opened)
    out = subprocess.run([sys.executable, "-c", MIGRATE_ALONE.format(frozen=FROZEN_MODULES, root=str(ROOT)), alone],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    Store(opened).close()
    assert _dump(alone) == _dump(opened)
    assert _dump(alone)[-1] == f"user_version={SCHEMA_VERSION}"


def test_pools_keep_the_keys_migration_3_gave_them(tmp_path):
    """The digests migration 3 computed when it was released, for the built-in rulesets and the ruleset files'
    runs; a file the rules refused keeps its name alone. Its blocks (migration 5) are there for every pool whose
    ruleset it could resolve."""
    st = Store(_schema2(tmp_path))
    assert sorted(st.pools()) == [
        "bid-euchre@4ac34b5a9542/6p", "iowa@5b236b71f3ba/4p", "p30@9c875ae0f921/3p", "pepper-30@884c7f73bd19/3p",
        "refused/4p", "short@d04bd96e1963/4p"]
    blocks = {p: len(st.blocks(p)) for p in st.pools()}
    assert blocks["refused/4p"] == 0 and blocks["short@d04bd96e1963/4p"] == 2 and blocks["p30@9c875ae0f921/3p"] == 6
    st.close()
