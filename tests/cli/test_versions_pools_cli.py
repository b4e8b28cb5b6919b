"""Bot versions and pools by content through real `pepper arena run`s (a referee subprocess, real bot processes,
a real SQLite file): new code is never rated as the old, different rules never share a pool, and a bot's own time
controls from its registration reach the referee."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.xdist_group("arena")


def pepper(*args: str, db: Path) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                       text=True, timeout=300, stdin=subprocess.DEVNULL, env=os.environ | {"NO_COLOR": "1"})
    assert r.returncode == 0, r.stderr
    return r


def run(db: Path, bots: str, games: int = 4, seed: int = 1) -> subprocess.CompletedProcess:
    return pepper("arena", "run", "--ruleset", str(db.parent / "short.toml"), "--bots", bots, "--games", str(games),
                  "--seed", str(seed), "--quiet", db=db)


@pytest.fixture
def db(tmp_path) -> Path:
    (tmp_path / "short.toml").write_text('name = "short"\nextends = "iowa"\ndeal_cap = 1\ntarget_score = 32\n')
    return tmp_path / "arena.db"


def test_a_bot_removed_and_registered_with_another_command_starts_unrated(db):
    """Before, `bot remove mybot; bot register mybot --command other` kept mybot's old rating."""
    pepper("bot", "register", "mybot", "--command", "{python} -m sample_bots heuristic", "--cwd", str(ROOT), db=db)
    run(db, "mybot,random")
    first = {r["bot"]: r for r in json.loads(pepper("arena", "table", "--json", db=db).stdout)["short/4p"]}
    assert first["mybot"]["games"] == 4
    pepper("bot", "remove", "mybot", db=db)
    reg = pepper("bot", "register", "mybot", "--command", "{python} -m sample_bots random", "--cwd", str(ROOT), db=db)
    run(db, "mybot,random", seed=2)
    now = json.loads(pepper("arena", "table", "--json", db=db).stdout)["short/4p"]
    mine = [r for r in now if r["bot"] == "mybot"]
    assert [r["games"] for r in mine] == [4]  # its own 4 games, not 8 rated on from the old code's rating
    assert [r["version"] for r in mine] == [2] and "version 2" in reg.stdout and first["mybot"]["version"] == 1
    every = json.loads(pepper("arena", "table", "--json", "--all-versions", db=db).stdout)["short/4p"]
    assert sorted((r["version"], r["games"], r["mu"]) for r in every if r["bot"] == "mybot") == sorted(
        [(1, 4, first["mybot"]["mu"]), (2, 4, mine[0]["mu"])])
    assert "mybot v2" in pepper("arena", "table", db=db).stdout
    assert "Versions of mybot" in pepper("bot", "versions", "mybot", db=db).stdout
    versions = json.loads(pepper("bot", "versions", "mybot", "--json", db=db).stdout)
    assert [(v["version"], v["command"].split()[-1], v["files"], v["pools"]["short/4p"]["games"]) for v in versions] == [
        (1, "heuristic", ["sample_bots"], 4), (2, "random", ["sample_bots"], 4)]
    # The same registration again keeps its version; an update that changes nothing says so.
    assert "still version 2" in pepper("bot", "update", "mybot", db=db).stdout
    assert "new version 3" in pepper("bot", "update", "mybot", "--processes", "2", "--deadline-ms", "900", db=db).stdout
    bot = next(b for b in json.loads(pepper("bot", "list", "--json", db=db).stdout) if b["name"] == "mybot")
    assert (bot["version"], bot["processes"], bot["deadline_ms"], bot["time_bank_ms"]) == (3, 2, 900, None)


def test_a_bots_edited_files_are_played_as_a_new_version(db):
    bot = db.parent / "mine.py"
    bot.write_text("from sample_bots.__main__ import main\nmain(['random'])\n")
    pepper("bot", "register", "mine", "--command", f"{sys.executable} mine.py", "--env", f"PYTHONPATH={ROOT}", db=db)
    run(db, "mine,random", games=2)
    bot.write_text("from sample_bots.__main__ import main\nmain(['heuristic'])\n")
    out = " ".join(run(db, "mine,random", games=2, seed=2).stdout.split())  # the console wraps it to its width
    assert "bot mine: its files changed since version 1 was registered; this run plays them as version 2" in out
    every = json.loads(pepper("arena", "table", "--json", "--all-versions", db=db).stdout)["short/4p"]
    assert sorted((r["version"], r["games"]) for r in every if r["bot"] == "mine") == [(1, 2), (2, 2)]


def test_an_edited_ruleset_file_is_a_new_pool(db):
    """Before, editing a ruleset file (target 32, then 12) without renaming it put both in one pool."""
    run(db, "heuristic,random")
    rules = db.parent / "short.toml"
    rules.write_text(rules.read_text().replace("target_score = 32", "target_score = 12"))
    run(db, "heuristic,random")
    table = json.loads(pepper("arena", "table", "--json", db=db).stdout)
    assert len(table) == 2 and all(p.startswith("short@") and p.endswith("/4p") for p in table)
    assert all(r["games"] == 4 for rows in table.values() for r in rows)
    # --ruleset FILE is its current content's pool; the name alone is the newest, with a note naming the other.
    current = json.loads(pepper("arena", "table", "--json", "--ruleset", str(rules), db=db).stdout)
    (label,) = current
    by_name = pepper("arena", "table", "--json", "--ruleset", "short", db=db)
    assert list(json.loads(by_name.stdout)) == [label]
    (other,) = set(table) - {label}
    assert "note: short names rulesets of different contents" in by_name.stderr
    assert other.removesuffix("/4p") in by_name.stderr
    picked = json.loads(pepper("arena", "table", "--json", "--ruleset", other.removesuffix("/4p"), db=db).stdout)
    assert list(picked) == [other]
    games = json.loads(pepper("arena", "games", "--json", "--ruleset", str(rules), db=db).stdout)
    assert len(games) == 4 and {g["pool"] for g in games} == {label}


def test_a_bots_own_time_controls_apply_to_its_seats_only(tmp_path):
    """A bot registered with 5 ms per decision and no bank, searching 100 ms a decision, times out;
    its opponents keep the run's 2 s. Before the arena passed registration's time controls, nobody timed out.
    Three deals a game: a one-deal game whose auction is thrown in asks nobody for a card."""
    (tmp_path / "short.toml").write_text('name = "short"\nextends = "iowa"\ndeal_cap = 3\n')
    db = tmp_path / "arena.db"
    pepper("bot", "register", "hasty", "--command", "{python} -m sample_bots montecarlo", "--cwd", str(ROOT),
           "--env", "PEPPER_MC_BUDGET_MS=100", "--deadline-ms", "5", "--time-bank-ms", "0", db=db)
    pepper("bot", "register", "calm", "--command", "{python} -m sample_bots montecarlo", "--cwd", str(ROOT),
           "--env", "PEPPER_MC_BUDGET_MS=40", db=db)
    pepper("arena", "run", "--ruleset", str(tmp_path / "short.toml"), "--bots", "hasty,calm", "--games", "2",
           "--quiet", db=db)
    rows = {r["bot"]: r for r in json.loads(pepper("arena", "table", "--json", db=db).stdout)["short/4p"]}
    assert rows["hasty"]["games"] == rows["calm"]["games"] == 2
    assert rows["hasty"]["timeouts"] > 0 and rows["calm"]["timeouts"] == 0
