"""The crash policy (docs/arena.md, "Crashes"): the games in flight on a crashed bot process are replayed from
their start on a fresh deck, the crash is stored once, and a bot that keeps crashing is withdrawn. The `pepper`
CLI, a real referee, real bot subprocesses, a real SQLite file."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RAW_BOT = HERE.parent / "sdk" / "bots" / "raw_bot.py"
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
pytestmark = pytest.mark.xdist_group("arena")


def pepper(*args: str, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, env=os.environ | {"COLUMNS": "200"})


def rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchall()


def test_the_games_in_flight_on_a_crashed_process_are_replayed_and_the_crash_is_stored_once(tmp_path):
    db = tmp_path / "arena.db"
    (tmp_path / "short.toml").write_text(SHORT)
    marker = tmp_path / "crashed"
    command = f"{sys.executable} {HERE / 'crash_n_bot.py'} {marker} 1 30"
    assert pepper("bot", "register", "crashy", "--command", command, db=db).returncode == 0
    out = pepper("arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic,crashy", "--games", "30",
                 "--seed", "5", "--quiet", db=db)
    assert out.returncode == 0, out.stdout + out.stderr
    assert Path(f"{marker}.0").exists() and "crashing on purpose" in (tmp_path / "arena-logs" / "bot-crashy.log").read_text()
    # Every planned game is stored, and none with a disconnect: the crash forfeited nothing.
    assert rows(db, "SELECT COUNT(*) FROM planned_games") == rows(db, "SELECT COUNT(DISTINCT idx) FROM games") == [(30,)]
    assert rows(db, "SELECT COUNT(*) FROM game_seats WHERE disconnect > 0 OR status != 'ok'") == [(0,)]
    assert rows(db, "SELECT COUNT(*) FROM games WHERE status != 'completed'") == [(0,)]
    # One crash, stored once, with the games it replayed; each replay was played on a fresh deck, stored as its seed.
    crashes = rows(db, "SELECT run_id, pool, bot, version, exit_code, games_replayed FROM crashes")
    assert len(crashes) == 1, crashes
    run_id, pool, bot, version, exit_code, replayed = crashes[0]
    assert (run_id, pool, bot, version, exit_code) == (1, pool, "crashy", 1, 3) and replayed >= 1
    assert pool.startswith("iowa-short@") and pool.endswith("/4p")  # the pool by the ruleset's content
    from arena.crashes import replay_seed

    played = rows(db, "SELECT p.seed, g.seed FROM planned_games p JOIN games g USING (run_id, idx)")
    fresh = [(planned, seed) for planned, seed in played if planned != seed]
    assert len(fresh) == replayed and all(seed == replay_seed(planned, 1) for planned, seed in fresh), (fresh, replayed)
    text = " ".join((out.stdout + out.stderr).split())
    assert f"bot 'crashy': a process crashed (exit code 3, crash 1 with games in flight, of the 5 a bot may have in a run); " \
           f"{replayed} game(s) " \
           "in flight on it replayed from their start; its log: arena-logs/bot-crashy.log" in text, text


def test_an_older_database_gets_the_crashes_table_and_a_crash_is_stored_once(tmp_path):
    import shutil

    from arena.store import Store

    db = tmp_path / "old.db"
    shutil.copy(HERE.parent / "fixtures" / "arena-schema1.db", db)
    st = Store(db)
    try:
        run_id = st.db.execute("SELECT MIN(id) FROM runs").fetchone()[0]
        first = st.record_crash(run_id, "iowa/4p", "crashy", 1, 3, 40)
        second = st.record_crash(run_id, "iowa/4p", "crashy", 1, None, 0)
    finally:
        st.close()
    assert second == first + 1
    assert [r[1:] for r in rows(db, "SELECT id, run_id, pool, bot, version, exit_code, games_replayed FROM crashes")] == \
        [(run_id, "iowa/4p", "crashy", 1, 3, 40), (run_id, "iowa/4p", "crashy", 1, None, 0)]


def test_a_bot_that_crashes_every_time_is_withdrawn_and_the_others_games_are_played(tmp_path):
    db = tmp_path / "arena.db"
    (tmp_path / "short.toml").write_text(SHORT)
    command = f"{sys.executable} {RAW_BOT} crash --after 8"
    assert pepper("bot", "register", "crashy", "--command", command, db=db).returncode == 0
    out = pepper("arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic,crashy", "--games", "24",
                 "--seed", "6", "--quiet", db=db)
    assert out.returncode == 0, out.stdout + out.stderr
    text = " ".join((out.stdout + out.stderr).split())
    from arena.crashes import MAX_CRASHES

    # It crashes after 8 decisions, within 10 s of each start: the crash limit and the restart budget (8 quick deaths
    # in a row) race for it on a loaded machine; either withdraws it.
    crashed = re.search(rf"bot 'crashy' crashed (\d+) times in this run with games in flight, more than the {MAX_CRASHES} "
                        "a bot may", text)
    assert (crashed and int(crashed[1]) > MAX_CRASHES) or "bot 'crashy' kept crashing: a process died 8 times" in text, text
    assert "it is withdrawn from this run" in text and "the others play on (random, heuristic)" in text, text
    # The others' games (8 of the 24) are all played; crashy's crashes are stored, one row each.
    others = rows(db, "SELECT idx FROM planned_games WHERE seats_json NOT LIKE '%crashy%'")
    stored = rows(db, "SELECT idx FROM games WHERE idx IN (SELECT idx FROM planned_games WHERE seats_json NOT LIKE '%crashy%')")
    assert len(others) == 8 and sorted(stored) == sorted(others)
    # Every death is stored (one row each); those with games in flight are what withdrew it.
    assert rows(db, "SELECT MIN(bot), MAX(bot) FROM crashes") == [("crashy", "crashy")]
    if crashed:     # (a crash whose games had been replayed twice already replays none: its forfeits stand)
        assert rows(db, "SELECT COUNT(*) FROM crashes")[0][0] >= int(crashed[1]) > MAX_CRASHES
    assert "withdrawn: crashy" in out.stdout
