"""A broken entrant is withdrawn from the run with a message naming it and its log, and the others play on:
the `pepper` CLI, a real referee, real bot subprocesses (one that cannot start), a real SQLite file."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.processes import BotProcesses
from arena.registry import ensure_sample_bots
from arena.store import Store
from arena.tournament import RunConfig, run

ROOT = Path(__file__).resolve().parents[2]
RAW_BOT = ROOT / "tests" / "sdk" / "bots" / "raw_bot.py"
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
pytestmark = pytest.mark.xdist_group("arena")


def pepper(*args: str, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, env=os.environ | {"COLUMNS": "200"})


def said(out: subprocess.CompletedProcess) -> str:
    """Everything the command printed, its lines rejoined (a console may wrap a long message)."""
    return " ".join((out.stdout + out.stderr).split())


def games_by(db: Path) -> dict[str, int]:
    """Stored games per bot, from the rated table."""
    out = pepper("arena", "table", "--json", db=db)
    assert out.returncode == 0, out.stderr
    return {r["bot"]: r["games"] for r in json.loads(out.stdout)["iowa-short/4p"]}


def count(db: Path, sql: str) -> int:
    with sqlite3.connect(db) as c:
        return c.execute(sql).fetchone()[0]


@pytest.fixture
def short(tmp_path) -> Path:
    (tmp_path / "short.toml").write_text(SHORT)
    return tmp_path / "arena.db"


def test_a_bot_that_cannot_start_is_withdrawn_the_others_play_on_and_the_run_resumes(short):
    db = short
    assert pepper("bot", "register", "broken", "--command", "{python} /nonexistent/bot.py", db=db).returncode == 0
    args = ("arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic,broken", "--games", "12",
            "--seed", "4", "--quiet", "--planned")   # the whole plan up front: broken's games stay pending
    out = pepper(*args, db=db)
    assert out.returncode == 0, out.stderr
    text = said(out)
    # The message names the bot, why, and its log (with the log's last lines).
    assert "bot 'broken' exited before connecting" in text and "it is withdrawn from this run" in text, text
    assert "arena-logs/bot-broken.log" in text and "can't open file '/nonexistent/bot.py'" in text, text
    assert "the others play on (random, heuristic)" in text, text
    # The others' games (2 matches of 2 games of the 6) are played and rated; broken's 8 are not played.
    assert "8 planned game(s) with them not played" in text, text
    assert "4/12 games in" in out.stdout and "(0 faults; withdrawn: broken, 8 games not played)" in out.stdout, out.stdout
    assert games_by(db) == {"random": 4, "heuristic": 4}
    assert count(db, "SELECT COUNT(*) FROM planned_games") == 12 and count(db, "SELECT COUNT(*) FROM games") == 4
    # The same command resumes the same run: broken is withdrawn again, nothing is played twice.
    again = pepper(*args, db=db)
    assert again.returncode == 0 and "it is withdrawn from this run" in said(again), again.stderr
    assert count(db, "SELECT COUNT(*) FROM runs") == 1 and count(db, "SELECT COUNT(*) FROM games") == 4
    # Fixed, the same command plays the games it was withdrawn from.
    assert pepper("bot", "remove", "broken", db=db).returncode == 0
    assert pepper("bot", "register", "broken", "--command", "{python} -m sample_bots random", "--cwd", str(ROOT),
                  db=db).returncode == 0
    fixed = pepper(*args, db=db)
    assert fixed.returncode == 0 and "withdrawn" not in said(fixed), fixed.stdout + fixed.stderr
    assert count(db, "SELECT COUNT(*) FROM runs") == 1 and count(db, "SELECT COUNT(*) FROM games") == 12
    assert games_by(db) == {"random": 8, "heuristic": 8, "broken": 8}


def test_a_bot_whose_program_is_missing_is_withdrawn_with_its_log(short):
    db = short
    assert pepper("bot", "register", "ghost", "--command", "/nonexistent/program --flag", db=db).returncode == 0
    out = pepper("arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic,ghost", "--games", "6",
                 "--quiet", db=db)
    assert out.returncode == 0, out.stderr
    text = said(out)
    assert "bot 'ghost' cannot be started with command '/nonexistent/program --flag'" in text, text
    assert "it is withdrawn from this run; its log: arena-logs/bot-ghost.log" in text, text
    # The log, the bot's one record, says it too.
    assert "cannot be started" in (db.parent / "arena-logs" / "bot-ghost.log").read_text()
    assert set(games_by(db)) == {"random", "heuristic"}


def test_too_few_bots_left_ends_the_run_with_a_clear_message(short):
    db = short
    assert pepper("bot", "register", "broken", "--command", "{python} /nonexistent/bot.py", db=db).returncode == 0
    out = pepper("arena", "run", "--ruleset", "short.toml", "--bots", "random,broken", "--games", "4", "--quiet", db=db)
    assert out.returncode == 1
    text = said(out)
    assert "bot 'broken' exited before connecting" in text and "arena-logs/bot-broken.log" in text, text
    assert "the run cannot go on: only random is left, and a game needs 2 bots" in text and "resume" in text, text
    assert "Traceback" not in out.stderr and count(db, "SELECT COUNT(*) FROM games") == 0


def test_a_bot_that_keeps_crashing_is_withdrawn_past_its_restart_budget(tmp_path, monkeypatch):
    """It connects, then dies on its first decision, again and again: once one of its processes has died soon
    after starting RESTART_BUDGET times in a row it is withdrawn, and every game of the others is played."""
    monkeypatch.setattr(BotProcesses, "RESTART_BUDGET", 3)
    db = tmp_path / "arena.db"
    (tmp_path / "short.toml").write_text(SHORT)
    st = Store(db)
    ensure_sample_bots(st, note=lambda m: None)
    st.add_bot("crashy", "command", command=f"{sys.executable} {RAW_BOT} crash --after 1", cwd=str(tmp_path))
    st.close()
    cfg = RunConfig(ruleset=str(tmp_path / "short.toml"), games=12, concurrency=1, seed=2,
                    bots=["random", "heuristic", "crashy"], db=str(db), log_dir=str(tmp_path / "logs"))
    said: list[str] = []
    _, progress = run(cfg, notify=said.append)
    text = "\n".join(said)
    assert "bot 'crashy' kept crashing: a process died 3 times in a row soon after starting" in text, text
    assert f"it is withdrawn from this run; last lines of its log, {tmp_path / 'logs' / 'bot-crashy.log'}" in text
    assert "raw_bot: crashing on purpose" in text
    assert progress.withdrawn == ["crashy"] and progress.not_played > 0
    st = Store(db)
    try:
        others = [g for g in st.planned(1) if "crashy" not in g.seats]
        assert len(others) == 4 and not {g.idx for g in others} & {g.idx for g in st.pending(1)}
        assert len(st.pending(1)) == progress.not_played
    finally:
        st.close()

