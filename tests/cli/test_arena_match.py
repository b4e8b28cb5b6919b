"""`pepper arena match` as a real subprocess: real referee, real bot processes, a real SQLite file. Heuristic against
random stops with H1 accepted (and random against heuristic with H0), a decided match resumed plays nothing more,
and its blocks show in `pepper arena table --cross`."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys

import pytest
from arena_cli_run import SHORT, games, pepper

from arena.evidence import MIN_BLOCKS

pytestmark = pytest.mark.xdist_group("arena")
LLR = re.compile(r"^(\S+) vs (\S+): (\d+) blocks \((\d+) games\), LLR (-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\]", re.M)


def test_heuristic_against_random_accepts_h1_and_a_decided_match_plays_no_more(tmp_path):
    cmd = ("match", "heuristic", "random", "--ruleset", "short.toml", "--sprt", "elo0=0 elo1=150", "--progress-every", "0")
    r = pepper(tmp_path, *cmd)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "H1 accepted: heuristic is stronger than random" in r.stdout
    lines = LLR.findall(r.stdout)
    blocks, llr, upper = int(lines[-1][2]), float(lines[-1][4]), float(lines[-1][6])
    # It stops at the first block past a bound from which the test may decide (the margin's normalized test: from
    # MIN_BLOCKS blocks on; its LLR may pass a bound before).
    assert llr >= upper == pytest.approx(2.94, abs=0.01) and blocks >= MIN_BLOCKS
    assert all(float(x[4]) < upper for x in lines[:-2] if int(x[2]) >= MIN_BLOCKS), lines
    # First the estimate adjusted for the stop, then the plain one. (Every block won outright leaves no spread:
    # Elo +inf [?, ?], and nothing to adjust.)
    adjusted = re.search(r"^Elo \+([\d.]+) \[(\S+), \+([\d.]+)\] \(95%\), adjusted for the test's stop", r.stdout, re.M)
    assert adjusted is None or float(adjusted[2]) < float(adjusted[1]) < float(adjusted[3]), r.stdout
    assert re.search(r"^(plain: )?Elo \+\S+ \[\S+, \S+\] \(95%\), nElo \S+, LOS (9\d|100)\.\d%, score \d+\.\d%, "
                     rf"margin \+[\d.]+ points per game, over {blocks} blocks", r.stdout, re.M), r.stdout
    played = games(tmp_path)
    assert played >= 2 * blocks
    # The same command again: decided, nothing more is played.
    again = pepper(tmp_path, *cmd)
    assert again.returncode == 0 and "H1 accepted" in again.stdout and games(tmp_path) == played
    assert LLR.findall(again.stdout)[-1][2] == str(blocks)
    # Its blocks are in the pool's cross-table.
    cross = pepper(tmp_path, "table", "--ruleset", "short.toml", "--cross", "--json")
    assert cross.returncode == 0, cross.stderr
    pool = json.loads(cross.stdout)["short/4p"]
    [h] = pool["head_to_head"]
    assert (h["bot"], h["opponent"]) == ("heuristic", "random") and h["blocks"] >= blocks and h["score"] > 0.7
    assert pool["table"][0]["bot"] == "heuristic"
    assert pool["table"][0]["next_basis"] == ("blocks" if h["blocks"] >= MIN_BLOCKS else "trueskill")
    text = pepper(tmp_path, "table", "--ruleset", "short.toml", "--cross")
    assert re.search(r"^heuristic +random +\d+ +\d+ +\d+\.\d +\+\d+ \[", text.stdout, re.M), text.stdout


def test_random_against_heuristic_accepts_h0_and_too_few_games_leave_it_undecided(tmp_path):
    r = pepper(tmp_path, "match", "random", "heuristic", "--ruleset", "short.toml", "--sprt", "elo0=0 elo1=150",
               "--quiet")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "H0 accepted: random is not stronger than heuristic" in r.stdout
    r = pepper(tmp_path, "match", "heuristic", "random", "--ruleset", "short.toml", "--max-games", "4", "--quiet")
    assert r.returncode == 4, r.stdout + r.stderr
    assert "undecided after 4 games" in r.stdout and "2 blocks (4 games)" in r.stdout


def test_a_match_on_the_deals_reads_the_stored_records_and_keeps_its_own_run(tmp_path):
    """--statistic points: each complete block's records are replayed and its deals compared on the same cards; the
    normalized test decides from six blocks on, with no stop-adjusted estimate (that is the GSPRT's model); the same
    bots under the default statistic are another match (another run), not this one resumed."""
    cmd = ("match", "heuristic", "random", "--ruleset", "short.toml", "--sprt", "elo0=0 elo1=150", "--progress-every",
           "0", "--statistic", "points")
    r = pepper(tmp_path, *cmd)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "H1 accepted: heuristic is stronger than random" in r.stdout and "adjusted for the test's stop" not in r.stdout
    lines = LLR.findall(r.stdout)
    assert int(lines[-1][2]) >= MIN_BLOCKS and float(lines[-1][4]) >= float(lines[-1][6])
    assert all(float(x[4]) == 0 or int(x[2]) >= 2 for x in lines)
    played = games(tmp_path)
    again = pepper(tmp_path, *cmd)
    assert again.returncode == 0 and games(tmp_path) == played and LLR.findall(again.stdout)[-1][2] == lines[-1][2]
    # The web's page replays the same test on the same blocks (web.data reads the statistic from the run's key).
    from arena.store import Store
    from web import data

    st = Store(tmp_path / "arena.db", read_only=True)
    try:
        (m,) = data.matches(st)
        trace = data.match(st, m["run"])["trace"]
    finally:
        st.close()
    assert (m["verdict"], m["blocks"], f"{m['llr']:.2f}", m["adjusted"]) == ("H1", int(lines[-1][2]), lines[-1][4], None)
    assert [f"{t['llr']:.2f}" for t in trace if str(t["block"]) in {x[2] for x in lines}] == [x[4] for x in lines[:-1]]
    other = pepper(tmp_path, "match", "heuristic", "random", "--ruleset", "short.toml", "--sprt", "elo0=0 elo1=150",
                   "--quiet")
    assert other.returncode == 0 and games(tmp_path) > played, other.stdout + other.stderr


@pytest.mark.parametrize(("args", "says"), [
    (("heuristic", "heuristic"), "two different bots"),
    (("heuristic", "random", "--sprt", "elo0=5 elo1=0"), "--sprt: elo0=5.0 elo1=0.0: elo0 must be below elo1"),
    (("heuristic", "random", "--sprt", "gamma=1"), "KEY=VALUE with KEY one of elo0, elo1, alpha, beta"),
    (("heuristic", "nobody"), "unknown bot(s): nobody"),
    (("heuristic", "random", "--statistic", "luck"), "--statistic: statistic 'luck': expected one of score, margin"),
])
def test_bad_input_is_exit_2_with_a_message(tmp_path, args, says):
    r = pepper(tmp_path, "match", *args)
    assert r.returncode == 2 and says in r.stderr, r.stderr


def test_a_killed_match_resumes_where_it_stopped(tmp_path):
    (tmp_path / "short.toml").write_text(SHORT)
    cmd = [sys.executable, "-m", "pepper_cli", "arena", "match", "heuristic", "random", "--ruleset", "short.toml",
           # Tight error rates on the score's GSPRT (the margin decides heuristic against random from its first six
           # blocks): the decision needs enough blocks that the killed match cannot have stored them all (finished
           # games are committed in groups, so more are stored by the time its line is read).
           "--sprt", "elo0=0 elo1=40 alpha=0.005 beta=0.005", "--statistic", "score", "--progress-every", "0",
           "--db", str(tmp_path / "arena.db")]
    first = subprocess.Popen(cmd, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
    for line in first.stdout:
        if (m := LLR.match(line)) and int(m[3]) >= 2:
            break
    os.killpg(first.pid, 9)   # the arena, its referee and its bots, at once
    first.wait(30)
    stored = games(tmp_path)
    assert stored >= 4
    again = pepper(tmp_path, *cmd[4:-2])
    assert again.returncode == 0 and "H1 accepted" in again.stdout, again.stdout + again.stderr
    # It went on from the games stored: its first line counts the complete blocks played before the kill (in plan
    # order, up to the first one a game of which was in flight), and it played the rest. (On a loaded machine one slow
    # game of an early block holds that count back while later blocks finish: the killed match may have stored every
    # block the decision needs, and then there is nothing left to play.)
    lines = LLR.findall(again.stdout)
    first, decided = int(lines[0][2]), int(lines[-1][2])
    assert first >= 2 and (decided == first or games(tmp_path) > stored), again.stdout


def test_the_default_statistic_is_the_margin_and_a_match_stored_on_the_score_resumes_on_it(tmp_path):
    """Unset, --statistic is the margin (keyed with the run); a match the store holds on the score (a run keyed
    without a statistic) and not on the margin resumes on the score, as it was started, instead of starting anew."""
    first = tmp_path / "first"
    first.mkdir()
    cmd = ("match", "heuristic", "random", "--ruleset", "short.toml", "--max-games", "4", "--quiet")
    r = pepper(first, *cmd)
    assert r.returncode == 4 and "resuming" not in r.stderr, r.stdout + r.stderr
    second = tmp_path / "second"
    second.mkdir()
    r = pepper(second, *cmd, "--statistic", "score")
    assert r.returncode == 4 and games(second) == 4, r.stdout + r.stderr
    again = pepper(second, *cmd)
    assert again.returncode == 4 and games(second) == 4, again.stdout + again.stderr
    assert "resuming the match started on the score" in again.stderr
    keys = {}
    for folder in (first, second):
        with sqlite3.connect(folder / "arena.db") as c:
            keys[folder.name] = [json.loads(k)["match"].get("statistic") for (k,) in c.execute("SELECT key FROM runs")]
    assert keys == {"first": ["margin"], "second": [None]}
