"""The arena end to end: the `pepper` CLI, a real referee subprocess, real bot subprocesses, a real SQLite file."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.store import Store
from referee.rules import Game

ROOT = Path(__file__).resolve().parents[2]
RAW_BOT = ROOT / "tests" / "sdk" / "bots" / "raw_bot.py"
pytestmark = pytest.mark.xdist_group("arena")


def pepper(*args: str, db: Path, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL, env=(os.environ | (env or {})))


def table(db: Path, pool: str = "iowa/4p") -> dict[str, dict]:
    out = pepper("arena", "table", "--json", db=db)
    assert out.returncode == 0, out.stderr
    return {r["bot"]: r for r in json.loads(out.stdout)[pool]}


def count(db: Path, sql: str, *args) -> int:
    with sqlite3.connect(db) as c:
        return c.execute(sql, args).fetchone()[0]


def test_bot_registry_persists_and_errors_are_clear(tmp_path):
    db = tmp_path / "arena.db"
    out = pepper("bot", "list", "--json", db=db)
    names = {b["name"] for b in json.loads(out.stdout)}
    assert {"random", "heuristic", "montecarlo"} <= names  # registered by default
    assert pepper("bot", "register", "mine", "--command", "python mine.py", "--env", "A=1", db=db).returncode == 0
    remote = pepper("bot", "register", "far", "--remote", db=db)
    assert remote.returncode == 0 and len(remote.stdout.splitlines()[1]) >= 20  # the token is printed
    again = pepper("bot", "token", "far", db=db)  # ... only then: the database keeps its SHA-256
    assert again.returncode == 2 and "cannot be shown again" in again.stderr and "--new" in again.stderr
    new = pepper("bot", "token", "far", "--new", db=db)  # a new one replaces it
    assert new.returncode == 0 and len(new.stdout.strip()) >= 20 and new.stdout != remote.stdout.splitlines()[1]
    assert remote.stdout.splitlines()[1].encode() not in db.read_bytes() and new.stdout.strip().encode() not in db.read_bytes()
    command = pepper("bot", "token", "mine", "--new", db=db)
    assert command.returncode == 2 and "fresh token for each run" in command.stderr
    ghost = pepper("bot", "token", "ghost", db=db)
    assert ghost.returncode == 2 and "no bot named 'ghost'" in ghost.stderr
    dup = pepper("bot", "register", "mine", "--command", "x", db=db)
    assert dup.returncode == 2 and "already registered" in dup.stderr
    both = pepper("bot", "register", "x", "--command", "x", "--remote", db=db)
    assert both.returncode == 2 and "exactly one" in both.stderr
    assert pepper("bot", "remove", "heuristic", db=db).returncode == 0
    names = {b["name"] for b in json.loads(pepper("bot", "list", "--json", db=db).stdout)}
    assert "mine" in names and "far" in names and "heuristic" not in names  # a removed sample stays removed
    bad = pepper("arena", "run", "--ruleset", "nope", db=db)
    assert bad.returncode == 2 and "unknown ruleset 'nope'" in bad.stderr
    unknown = pepper("arena", "run", "--bots", "random,ghost", "--games", "2", db=db)
    assert unknown.returncode == 2 and "unknown bot(s): ghost" in unknown.stderr
    for extra in ([], ["--adaptive"]):  # mixed partnerships need 3 bots: said before anything starts
        mixed = pepper("arena", "run", "--bots", "random,mine", "--lineup", "mixed", *extra, db=db)
        assert mixed.returncode == 2 and "need at least 3 bots" in mixed.stderr and "Traceback" not in mixed.stderr
    assert pepper("arena", "table", db=tmp_path / "none.db").returncode == 2
    both = pepper("arena", "table", "--json", "--csv", db=db)
    assert both.returncode == 2 and "one of --json or --csv" in both.stderr
    lone = pepper("arena", "table", "--players", "4", db=db)
    assert lone.returncode == 2 and "--players needs --ruleset" in lone.stderr
    assert count(db, "SELECT COUNT(*) FROM runs") == 0


def test_tournament_ranks_stores_replays_and_repeats_decks(tmp_path):
    db = tmp_path / "arena.db"
    games = 32   # full iowa games: 16 duplicate matches
    run = pepper("arena", "run", "--games", str(games), "--bots", "random,heuristic", "--seed", "5", "--quiet", db=db)
    assert run.returncode == 0, run.stderr
    assert f"{games}/{games} games" in run.stdout and "iowa/4p" in run.stdout
    # The summary says which games the run stored and how to look at one.
    assert f"games 1-{games}: replay one with `pepper arena replay 1 --db {db}`" in run.stdout
    assert f"list them with `pepper arena games --db {db}`" in run.stdout
    t = table(db)
    assert t["heuristic"]["rank"] == 1 and t["random"]["rank"] == 2
    assert t["heuristic"]["conservative"] > t["random"]["mu"]
    assert t["heuristic"]["games"] == t["random"]["games"] == games
    assert t["heuristic"]["win_pct"] > 90 and t["heuristic"]["timeouts"] == t["heuristic"]["illegal"] == 0
    csv_out = pepper("arena", "table", "--csv", db=db).stdout.splitlines()
    assert csv_out[0].startswith("pool,rank,bot,mu,sigma") and len(csv_out) == 3
    # Duplicate deals: the two games of a match are dealt the very same decks, teams swapped.
    st = Store(db)
    stored, _ = st.latest_games(limit=1000)
    match_of = {(run, p.idx): p.match for run in {g.run_id for g in stored} for p in st.planned(run)}
    by_match: dict[int, list] = {}
    for g in sorted(stored, key=lambda g: (match_of[g.run_id, g.idx], g.idx)):
        by_match.setdefault(match_of[g.run_id, g.idx], []).append((g.id, g.bots, st.record(g.id)))
    st.close()
    assert len(by_match) == games // 2 and all(len(v) == 2 for v in by_match.values())
    for (_, s1, r1), (_, s2, r2) in by_match.values():
        g1, g2 = Game.from_record(r1), Game.from_record(r2)
        n = min(len(g1.decks_dealt), len(g2.decks_dealt))
        assert g1.decks_dealt[:n] == g2.decks_dealt[:n] and g1.first_dealer == g2.first_dealer
        assert s1[0] == s2[1] and s1[1] == s2[0]
    # A stored game replays deal by deal.
    gid = by_match[min(by_match)][0][0]
    rep = pepper("arena", "replay", str(gid), db=db)
    assert rep.returncode == 0 and "Deal 1" in rep.stdout and "Result:" in rep.stdout
    unknown = pepper("arena", "replay", "999999", db=db)
    assert unknown.returncode == 2 and "no game 999999" in unknown.stderr and f"it holds games 1-{games}" in unknown.stderr
    # `arena games` lists the latest games, newest first, with their seats and results.
    latest = pepper("arena", "games", "--limit", "3", "--json", db=db)
    assert latest.returncode == 0, latest.stderr
    listed = json.loads(latest.stdout)
    assert [g["id"] for g in listed] == [games, games - 1, games - 2]
    for g in listed:
        assert g["pool"] == "iowa/4p" and sorted(set(g["seats"])) == ["heuristic", "random"] and g["status"] == "completed"
        assert g["winner_bots"] == [g["seats"][g["winners"][0]]] and len(g["scores"]) == 4 and g["duration"] > 0
    text = pepper("arena", "games", "--ruleset", "iowa", "--players", "4", "--bot", "heuristic", db=db)
    assert text.returncode == 0 and f"the latest 20 of {games}" in text.stdout and "iowa/4p" in text.stdout
    assert "arena replay ID" in text.stdout and re.search(rf"│ +{games - 19} │", text.stdout) and not re.search(rf"│ +{games - 20} │", text.stdout)
    assert json.loads(pepper("arena", "games", "--bot", "ghost", "--json", db=db).stdout) == []
    assert pepper("arena", "games", "--ruleset", "pepper-30", db=db).stdout.startswith("no games matching ruleset pepper-30")
    # Asking for a pool that cannot exist, or one without games, says so and names the pools that have games.
    for args, said in ((["--ruleset", "iwoa"], "unknown ruleset 'iwoa' (allowed: iowa, bid-euchre, pepper-30"),
                       (["--ruleset", "pepper-30", "--players", "7"], "not played by 7 players (allowed: 2, 3, 4)"),
                       (["--ruleset", "pepper-30", "--players", "4"], "no rated games yet in pool pepper-30/4p; "
                                                                       "pools with games in"),
                       (["--ruleset", "five-handed"], "no rated games yet for ruleset five-handed; pools with games in")):
        for cmd in ("table", "games"):
            if cmd == "games" and "no rated games" in said:
                continue
            out = pepper("arena", cmd, *args, db=db)
            assert out.returncode == 2 and said in out.stderr, (cmd, args, out.stderr)
            assert "iowa/4p" in out.stderr or "allowed: 2, 3, 4" in said, out.stderr
    # Running the same command again finds the run complete: nothing is played or counted twice.
    again = pepper("arena", "run", "--games", str(games), "--bots", "random,heuristic", "--seed", "5", "--quiet", db=db)
    assert again.returncode == 0 and count(db, "SELECT COUNT(*) FROM games") == games


def test_the_sample_bots_rank_montecarlo_heuristic_random(tmp_path):
    """The strength order of the sample bots comes out of a real arena run (iowa, mirrored, duplicate decks), which
    stops as soon as the order is decided (--until-confident), as a user's run would.

    montecarlo searches a fixed 12 sampled deals per decision (``PEPPER_MC_SAMPLES``) so that its strength does not
    depend on how loaded the machine is: +1.4 points a deal against heuristic (bench/bots.py -r iowa:4 --samples 12
    --pairs mc-h). The run stops after its first 64 planned games (128 played, 31 s on an idle machine); a wrong
    order at that stop is a 0.22% chance per pair and look.
    """
    db = tmp_path / "arena.db"
    run = pepper("arena", "run", "--games", "300", "--until-confident", "--bots", "random,heuristic,montecarlo",
                 "--seed", "11", db=db, timeout=600, env={"PEPPER_MC_SAMPLES": "12"})
    assert run.returncode == 0, run.stderr
    assert "stopped: every adjacent pair of the table is significantly apart" in run.stdout, run.stdout
    assert "(montecarlo > heuristic > random)" in run.stdout, run.stdout
    t = table(db)
    assert [b for b, _ in sorted(t.items(), key=lambda kv: kv[1]["rank"])] == ["montecarlo", "heuristic", "random"], t
    assert t["montecarlo"]["mu"] > t["heuristic"]["mu"] and t["heuristic"]["conservative"] > t["random"]["mu"]
    assert all(t[b]["timeouts"] == t[b]["illegal"] == t[b]["crashes"] == 0 for b in t)
    assert count(db, "SELECT COUNT(*) FROM games") < 300


def _live(marker: str) -> list[int]:
    """Pids of processes whose environment carries ``marker`` (the arena's children inherit it)."""
    pids = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit() and int(p.name) != os.getpid():
            try:
                if marker.encode() in (p / "environ").read_bytes():
                    pids.append(int(p.name))
            except OSError:
                pass
    return pids


def test_kill_9_and_resume_loses_and_duplicates_nothing(tmp_path):
    db = tmp_path / "arena.db"
    marker = f"PEPPER_TEST_MARKER=kill9-{os.getpid()}-{time.time()}"
    env = os.environ | {marker.split("=")[0]: marker.split("=")[1]}
    args = [sys.executable, "-m", "pepper_cli", "arena", "run", "--games", "24", "--concurrency", "4",
            "--bots", "random,heuristic", "--seed", "11", "--quiet", "--db", str(db)]
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        if db.exists() and count(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'games'") and \
                count(db, "SELECT COUNT(*) FROM games") >= 6:
            break
        time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail("the arena stored no games within 120 s")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_at_kill = count(db, "SELECT COUNT(*) FROM games")
    assert 6 <= done_at_kill < 24
    for _ in range(100):  # the referee and the bots die with the arena
        if not _live(marker):
            break
        time.sleep(0.1)
    assert not _live(marker), "processes outlived the killed arena"
    again = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert count(db, "SELECT COUNT(*) FROM runs") == 1
    assert count(db, "SELECT COUNT(*) FROM games") == count(db, "SELECT COUNT(*) FROM planned_games") == 24
    assert count(db, "SELECT COUNT(DISTINCT idx) FROM games") == 24
    # Every game was rated exactly once: each bot's rated-game count equals the games it sat in.
    for bot in ("random", "heuristic"):
        assert count(db, "SELECT games FROM ratings WHERE bot = ?", bot) == \
            count(db, "SELECT COUNT(DISTINCT game_id) FROM game_seats WHERE bot = ?", bot) == 24
        assert count(db, "SELECT COUNT(*) FROM rating_history WHERE bot = ?", bot) == 24


def test_a_crashing_and_a_hanging_bot_are_reported_and_the_arena_goes_on(tmp_path):
    db = tmp_path / "arena.db"
    py = sys.executable
    crash_n = ROOT / "tests" / "arena" / "crash_n_bot.py"   # its processes crash twice (then play on)
    assert pepper("bot", "register", "crashy", "--command", f"{py} {crash_n} {tmp_path / 'crash'} 2 40",
                  db=db).returncode == 0
    assert pepper("bot", "register", "hangy", "--command", f"{py} {RAW_BOT} hang --after 40", db=db).returncode == 0
    run = pepper("arena", "run", "--games", "12", "--bots", "random,heuristic,crashy,hangy", "--seed", "2",
                 "--deadline-ms", "250", "--time-bank-ms", "0", "--quiet", db=db, timeout=400)
    assert run.returncode == 0, run.stderr
    # Every game played; or, once its hung process had answered nothing past a timeout for longer than a bot may be
    # down, hangy withdrawn and its games left unplayed (the run goes on without it).
    assert count(db, "SELECT COUNT(*) FROM games") >= 12 or "withdrawn: hangy" in run.stdout + run.stderr, run.stdout
    t = table(db)
    assert set(t) == {"random", "heuristic", "crashy", "hangy"}
    # The crashes are stored, one each; the games in flight on the crashed processes were replayed.
    assert count(db, "SELECT COUNT(*) FROM crashes WHERE bot = 'crashy'") == 2
    # hangy's processes, stuck once a request timed out, are killed and restarted (a crash each, exit code -9),
    # rather than holding its games for the referee's keepalive window again and again.
    assert "a stuck process was killed and restarted" in run.stdout + run.stderr
    assert count(db, "SELECT COUNT(*) FROM crashes WHERE bot = 'hangy' AND exit_code = -9") >= 1
    assert count(db, "SELECT COUNT(*) FROM crashes WHERE bot NOT IN ('crashy', 'hangy')") == 0
    assert t["hangy"]["timeouts"] > 0
    # Healthy bots are unharmed (on a loaded machine one may still miss a tight deadline now and then).
    assert t["heuristic"]["crashes"] == t["random"]["crashes"] == 0
    assert t["hangy"]["timeouts"] > 5 * max(t["heuristic"]["timeouts"], t["random"]["timeouts"])
    assert t["heuristic"]["rank"] < t["crashy"]["rank"] and t["heuristic"]["rank"] < t["hangy"]["rank"]


def test_adaptive_free_for_all_pool(tmp_path):
    """pepper-30 with 3 players is free-for-all: its own pool, seats ranked by score; adaptive mode plans as it goes."""
    db = tmp_path / "arena.db"
    run = pepper("arena", "run", "--ruleset", "pepper-30", "--players", "3", "--games", "18", "--adaptive",
                 "--bots", "random,heuristic", "--seed", "4", "--quiet", db=db)
    assert run.returncode == 0, run.stderr
    assert "pepper-30/3p" in run.stdout
    planned = count(db, "SELECT COUNT(*) FROM planned_games")
    assert 18 <= planned <= 18 + 6 and count(db, "SELECT COUNT(*) FROM games") == planned
    assert count(db, "SELECT COUNT(DISTINCT match) FROM planned_games") >= 2  # planned in more than one round
    t = table(db, "pepper-30/3p")
    assert set(t) == {"random", "heuristic"} and t["heuristic"]["rank"] == 1
    # A bot in two seats of one table is rated once per game.
    assert count(db, "SELECT games FROM ratings WHERE bot = 'heuristic' AND pool LIKE 'pepper-30@%/3p'") == planned


def test_a_remote_bot_connects_by_itself(tmp_path):
    import socket

    db = tmp_path / "arena.db"
    reg = pepper("bot", "register", "far", "--remote", db=db)
    token = reg.stdout.splitlines()[1].strip()
    with socket.socket() as s:  # a free loopback port for the arena's referee
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    arena = subprocess.Popen([sys.executable, "-m", "pepper_cli", "arena", "run", "--games", "4", "--bots", "far,heuristic",
                              "--listen", f"127.0.0.1:{port}", "--db", str(db)], cwd=tmp_path, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # As its owner would: start the bot once the arena says it is waiting for it. (A bot whose Hello comes before
    # the arena has registered it with its referee is refused, and exits: seen when both started at once.)
    head = []
    while not any("waiting for remote bot(s)" in ln for ln in head):
        line = arena.stdout.readline()
        assert line, "".join(head)   # the arena ended without waiting for the remote bot
        head.append(line)
    # Mirrored iowa teams: "far" takes two seats of every game, so it needs two connections.
    bots = [subprocess.Popen([sys.executable, "-m", "sample_bots", "random"], cwd=ROOT, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=os.environ | {"PEPPER_REFEREE": f"127.0.0.1:{port}", "PEPPER_TOKEN": token,
                                               "PEPPER_BOT_NAME": "far"}) for _ in range(2)]
    try:
        rest, _ = arena.communicate(timeout=240)
    finally:
        for bot in bots:
            bot.terminate()
            bot.wait(10)
    out = "".join(head) + rest
    assert arena.returncode == 0, out
    assert "waiting for remote bot(s) far (2 connection(s)) to connect to" in out and f"127.0.0.1:{port}" in out
    assert set(table(db)) == {"far", "heuristic"}


def test_a_crashing_bot_with_more_games_than_concurrency_does_not_stop_the_arena(tmp_path):
    """Its processes die again and again (twice: as often as one game may be replayed, so that none is forfeited)
    while new games are created; those games wait for the restarted processes to reconnect instead of ending the
    run, the games in flight on a crashed process are replayed, and every planned game is stored."""
    db = tmp_path / "arena.db"
    bot = ROOT / "tests" / "arena" / "crash_n_bot.py"
    assert pepper("bot", "register", "crashy", "--command", f"{sys.executable} {bot} {tmp_path / 'crash'} 2 40",
                  db=db).returncode == 0
    run = pepper("arena", "run", "--games", "30", "--concurrency", "8", "--bots", "random,heuristic,crashy",
                 "--seed", "3", "--quiet", db=db, timeout=300)
    assert run.returncode == 0, run.stderr
    assert count(db, "SELECT COUNT(*) FROM planned_games") == count(db, "SELECT COUNT(DISTINCT idx) FROM games") == 30
    assert (tmp_path / "arena-logs" / "bot-crashy.log").read_text().count("crashing on purpose") == 2  # restarted
    assert count(db, "SELECT COUNT(*) FROM crashes WHERE bot = 'crashy'") == count(db, "SELECT COUNT(*) FROM crashes") == 2
    t = table(db)
    assert count(db, "SELECT COUNT(*) FROM game_seats WHERE disconnect > 0") == 0   # replayed, not forfeited
    assert t["heuristic"]["crashes"] == t["random"]["crashes"] == 0 and t["crashy"]["crashes"] == 2  # each crash once
    assert t["crashy"]["games"] == 20 and count(db, "SELECT COUNT(*) FROM games WHERE status != 'completed'") == 0


def test_a_bot_that_stays_down_ends_the_run_with_its_log_and_the_run_resumes(tmp_path):
    """Started four times (its two processes for each of the two rotations of a block, arena.twins), then every
    restart fails: after the bot's limit (here 2 s) the run ends with an error naming the bot and its log's last
    lines; what was stored stays."""
    from arena.registry import ensure_sample_bots
    from arena.tournament import ArenaError, RunConfig, run

    db = tmp_path / "arena.db"
    script = tmp_path / "flaky.sh"
    script.write_text("mkdir start1 2>/dev/null || mkdir start2 2>/dev/null || mkdir start3 2>/dev/null || "
                      "mkdir start4 2>/dev/null || { echo 'flaky: cannot start again' >&2; exit 7; }\n"
                      f"exec {sys.executable} {RAW_BOT} crash --after 30\n")
    st = Store(db)
    ensure_sample_bots(st, note=lambda m: None)
    st.add_bot("flaky", "command", command=f"sh {script}", cwd=str(tmp_path))
    st.close()
    cfg = RunConfig(games=20, concurrency=4, bots=["random", "flaky"], db=str(db), log_dir=str(tmp_path / "logs"),
                    bot_down_s=2.0)
    t0 = time.time()
    with pytest.raises(ArenaError) as e:
        run(cfg)
    msg = str(e.value)
    assert re.search(r"bot 'flaky' has had [01] of the 2 live connection\(s\) a game needs", msg), msg
    assert "flaky: cannot start again" in msg
    assert "resume" in msg and time.time() - t0 < 60
    assert count(db, "SELECT COUNT(*) FROM planned_games") == 20 and count(db, "SELECT COUNT(*) FROM games") < 20


def test_a_database_failure_mid_run_is_reported_and_the_run_resumes(tmp_path):
    """A real write failure (a file size limit, which binds root too): one clear line, no traceback, exit 1;
    the games committed before it stay, and the same command finishes the run counting each game once."""
    import resource

    db = tmp_path / "arena.db"
    assert pepper("bot", "list", db=db).returncode == 0  # the database exists, the sample bots registered
    args = [sys.executable, "-m", "pepper_cli", "arena", "run", "--games", "24", "--concurrency", "4",
            "--bots", "random,heuristic", "--seed", "8", "--quiet", "--db", str(db)]

    def limit_file_size():  # the WAL grows about 30 KB a game: the limit is reached after a few
        resource.setrlimit(resource.RLIMIT_FSIZE, (400_000, 400_000))

    failed = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                            preexec_fn=limit_file_size)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "cannot write the results database" in failed.stderr and "resume" in failed.stderr
    assert "Traceback" not in failed.stderr and len(failed.stderr.strip().splitlines()) == 1
    stored = count(db, "SELECT COUNT(*) FROM games")
    assert 1 <= stored < 24
    again = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert again.returncode == 0, again.stderr
    assert count(db, "SELECT COUNT(*) FROM games") == count(db, "SELECT COUNT(DISTINCT idx) FROM games") == 24
    assert count(db, "SELECT games FROM ratings WHERE bot = 'heuristic'") == 24


def test_adaptive_mode_plans_in_rounds_and_spends_games_where_they_tell_most(tmp_path):
    """random against two equal heuristic bots: the rounds planned before any rating (the first ADAPTIVE_LAG_GAMES
    games and the round after) are a round robin; later rounds, on the ratings as they stand, give the most matches to
    the evenly matched pair (as far as keeping every bot's matches about even allows). One-deal games, at the default --concurrency, which once planned the whole run in one round."""
    from arena.planners import ADAPTIVE_LAG_GAMES, ADAPTIVE_ROUND_GAMES

    db = tmp_path / "arena.db"
    (tmp_path / "short.toml").write_text('name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n')
    assert pepper("bot", "register", "twin", "--command", "{python} -m sample_bots heuristic", "--cwd", str(ROOT),
                  db=db).returncode == 0
    games = ADAPTIVE_LAG_GAMES + 12 * ADAPTIVE_ROUND_GAMES
    run = pepper("arena", "run", "--ruleset", "short.toml", "--games", str(games), "--adaptive", "--bots",
                 "random,heuristic,twin", "--seed", "3", "--quiet", db=db)
    assert run.returncode == 0, run.stderr
    assert count(db, "SELECT COUNT(*) FROM planned_games") == count(db, "SELECT COUNT(*) FROM games") == games
    with sqlite3.connect(db) as c:
        by_match = dict(c.execute("SELECT match, seats_json FROM planned_games ORDER BY idx").fetchall())
    pairs = ["-".join(sorted(set(json.loads(by_match[m])))) for m in sorted(by_match)]
    first = pairs[:(ADAPTIVE_LAG_GAMES + ADAPTIVE_ROUND_GAMES) // 2]
    assert max(map(first.count, first)) - min(map(first.count, first)) <= 1, first  # equal ratings: a round robin
    later = pairs[len(first):]
    even = later.count("heuristic-twin")
    assert even > max(later.count("heuristic-random"), later.count("random-twin")), pairs


def test_a_ruleset_file_is_played_end_to_end_in_its_own_pool(tmp_path):
    db = tmp_path / "arena.db"
    quick = tmp_path / "quick.toml"
    quick.write_text('extends = "iowa"\nname = "iowa-quick"\ntarget_score = 12\n')
    run = pepper("arena", "run", "--ruleset", str(quick), "--games", "4", "--bots", "random,heuristic", "--quiet", db=db)
    assert run.returncode == 0, run.stderr
    assert "iowa-quick/4p" in run.stdout and set(table(db, "iowa-quick/4p")) == {"random", "heuristic"}
    assert count(db, "SELECT COUNT(*) FROM games WHERE ruleset = 'iowa-quick' AND status = 'completed'") == 4
    rep = pepper("arena", "replay", str(count(db, "SELECT MIN(id) FROM games")), db=db)
    assert rep.returncode == 0 and "Game: iowa-quick" in rep.stdout and "Result:" in rep.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('extends = "iowa"\ntarget = 12\n')
    out = pepper("arena", "run", "--ruleset", str(bad), "--games", "4", "--bots", "random,heuristic", db=db)
    assert out.returncode == 2 and "key 'target': unknown key" in out.stderr


def test_a_bot_whose_strategy_fails_shows_its_fallbacks_as_faults(tmp_path):
    """Its SDK answers legally in its place (so the referee records no illegal move), but says so: the table
    counts those fallbacks as the bot's faults, in JSON and in the printed table."""
    db = tmp_path / "arena.db"
    raising = ROOT / "tests" / "sdk" / "bots" / "raising_bot.py"
    assert pepper("bot", "register", "raising", "--command", f"{{python}} -m pepper_bot {raising}:RaisingBot",
                  db=db).returncode == 0
    run = pepper("arena", "run", "--games", "4", "--bots", "raising,random", "--seed", "2", "--quiet", db=db,
                 env={"COLUMNS": "80"})
    assert run.returncode == 0, run.stderr
    t = table(db)
    assert t["raising"]["illegal"] == t["raising"]["timeouts"] == t["raising"]["crashes"] == 0
    assert t["raising"]["fallbacks"] > 0 and t["random"]["fallbacks"] == 0
    # The run's summary counts faults as the table does (fallbacks included).
    assert "4/4 games in " in run.stdout and f"({t['raising']['fallbacks']} faults)" in run.stdout, run.stdout
    row = re.search(r"^ *~?\d +raising .* (\d+)$", run.stdout, re.M)
    assert row and int(row[1]) == t["raising"]["fallbacks"], run.stdout  # the compact table's faults column
    wide = pepper("arena", "table", "--wide", db=db, env={"COLUMNS": "200"}).stdout
    head = next(line for line in wide.splitlines() if line.startswith("rank"))
    cells = next(line for line in wide.splitlines() if re.match(r" *~?\d +raising ", line)).split()
    col = re.split(r"  +", head.strip()).index("fallbacks")   # headers are one word or words one space apart
    assert cells[col] == str(t["raising"]["fallbacks"]), wide
