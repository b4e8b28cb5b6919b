"""A real ladder service (`pepper ladder serve`) with real remote sample bots over loopback: games among the bots
connected, each version rated on its own, authors confined to their own bots, a revoked key refused, SIGTERM
draining, and `kill -9` losing no game and storing none twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from ladder_harness import ROOT, Ladder, http, pepper, wait_for


@pytest.fixture
def ladder(tmp_path):
    lad = Ladder(tmp_path)
    yield lad
    lad.close()


def _refused(lad: Ladder) -> set[int]:
    """The plan indexes of the games the referee refused to start (a bot gone since the service's last look)."""
    log = [json.loads(line) for line in (lad.dir / "logs" / "ladder.log").read_text().splitlines()]
    return {r["idx"] for r in log if r["message"] == "game not played"}


def _stored_twice(lad: Ladder) -> list[tuple]:
    return lad.db("SELECT run_id, idx, COUNT(*) FROM games GROUP BY run_id, idx HAVING COUNT(*) > 1")


def test_remote_bots_play_and_each_version_is_rated_on_its_own(ladder):
    served = ladder.serve()
    assert served["referee"] == ladder.referee and served["web"].startswith("http://127.0.0.1:")
    alice = pepper("ladder", "invite", str(ladder.dir), "alice").stdout.strip().splitlines()[-1]
    bob = ladder.invite("bob")
    a1 = ladder.enter_cli(alice, "abot")
    ladder.run_bot("abot", a1, "random")
    ladder.run_bot("bbot", ladder.enter(bob, "bbot"), "heuristic")
    wait_for("10 games", lambda: ladder.games() >= 10)
    # A new entry of a name is a new version with a new token; the old token is refused from then on.
    first = ladder.bots.pop(0)
    # The games planned before the new version (some still in flight after it, the old process connected) count
    # for version 1.
    before_v2 = ladder.db("SELECT COUNT(*) FROM planned_games")[0][0]
    a2 = ladder.enter(alice, "abot")
    assert a2 != a1
    ladder.stop_bot(first)
    ladder.run_bot("abot", a2, "random")
    wait_for("games of abot's version 2", lambda: ladder.db(
        "SELECT games FROM ratings WHERE bot = 'abot' AND version = 2 AND games >= 5"), timeout=60)
    wait_for("the games planned before version 2", lambda: ladder.db(
        "SELECT COUNT(*) FROM games WHERE idx < ?", (before_v2,))[0][0] == before_v2)
    # (A game the referee refused to start once the old process was gone was played later, by version 2.)
    replayed = _refused(ladder)
    assert {v for i, v in ladder.db("SELECT g.idx, s.version FROM game_seats s JOIN games g ON g.id = s.game_id "
                                    "WHERE s.bot = 'abot' AND g.idx < ?", (before_v2,)) if i not in replayed} == {1}
    rated = dict(((b, v), g) for b, v, g in ladder.db("SELECT bot, version, games FROM ratings"))
    assert rated[("abot", 1)] >= 1 and rated[("abot", 2)] >= 5 and rated[("bbot", 1)] >= 15
    assert not _stored_twice(ladder)
    table = pepper("arena", "table", "--db", str(ladder.dir / "arena.db")).stdout
    assert "abot" in table and "bbot" in table
    status, metrics = http("GET", f"{ladder.web}/metrics")
    assert status == 200 and "pepper_ladder_games_total" in metrics
    assert int(metrics.split("\npepper_ladder_games_total ")[1].split()[0]) >= 15
    assert "pepper_ladder_bots_connected 2" in metrics
    # SIGTERM drains: the games in flight finish (the bots are connected) and are stored before the service exits;
    # a game left unstored is one the referee refused to start (as abot's old process left), pending for the next.
    assert ladder.stop() == 0
    assert not (ladder.dir / "serve.json").exists()
    unstored = {i for (i,) in ladder.db("SELECT p.idx FROM planned_games p LEFT JOIN games g ON g.run_id = p.run_id "
                                        "AND g.idx = p.idx WHERE g.id IS NULL")}
    assert unstored <= _refused(ladder)


def test_an_author_acts_only_on_their_own_bots_and_a_revoked_key_is_refused(ladder):
    ladder.serve()
    alice, bob = ladder.invite("alice"), ladder.invite("bob")
    ladder.enter(alice, "abot")
    bots = f"{ladder.web}/api/ladder/bots"
    assert http("POST", bots, bob, {"name": "abot", "kind": "remote"})[0] == 403
    assert http("POST", f"{bots}/abot/retire", bob)[0] == 403
    assert http("POST", bots, None, {"name": "x", "kind": "remote"})[0] == 401
    assert http("POST", bots, "nokeyid.nosecret", {"name": "x", "kind": "remote"})[0] == 401
    assert http("POST", bots, alice + "x", {"name": "x", "kind": "remote"})[0] == 401
    status, me = http("GET", f"{ladder.web}/api/ladder/me", bob)
    assert status == 200 and me["author"] == "bob" and me["bots"] == [] and me["uploads"] == []
    assert http("GET", f"{ladder.web}/api/ladder/authors/alice")[1]["bots"][0]["bot"] == "abot"
    assert http("GET", f"{ladder.web}/api/ladder/authors/nobody")[0] == 404
    pepper("ladder", "admin", str(ladder.dir), "revoke", "alice")
    assert http("POST", f"{bots}/abot/retire", alice)[0] == 401
    refused = pepper("ladder", "admin", str(ladder.dir), "status").stdout
    assert "refused actions: 6" in refused and "author alice (revoked)" in refused and "bot abot: active" in refused
    # The organizer retires; a new invitation gives alice a working key again, but a retired name stays retired.
    pepper("ladder", "admin", str(ladder.dir), "retire", "abot")
    again = ladder.invite("alice")
    assert http("POST", bots, again, {"name": "abot", "kind": "remote"})[0] == 403
    assert http("POST", bots, again, {"name": "abot2", "kind": "remote"})[0] == 201
    log = (ladder.dir / "logs" / "ladder.log").read_text()
    assert alice not in log and again not in log


def test_kill_9_loses_no_game_and_stores_none_twice(ladder):
    ladder.serve()
    alice, bob = ladder.invite("alice"), ladder.invite("bob")
    ladder.run_bot("abot", ladder.enter(alice, "abot"), "random")
    ladder.run_bot("bbot", ladder.enter(bob, "bbot"), "heuristic")
    for _ in range(2):
        wait_for("games", lambda: ladder.games() >= 5)
        ladder.stop(signal.SIGKILL)
        planned = ladder.db("SELECT COUNT(*) FROM planned_games")[0][0]
        ladder.serve()
        # Every game planned before the kill is stored once the bots are back (the pending ones replayed).
        wait_for("the games planned before the kill", lambda n=planned: ladder.db(
            "SELECT COUNT(*) FROM planned_games p JOIN games g ON g.run_id = p.run_id AND g.idx = p.idx "
            "WHERE p.idx < ?", (n,))[0][0] == n, timeout=90)
        assert not _stored_twice(ladder)
    before = ladder.games()
    wait_for("more games", lambda: ladder.games() > before + 3)
    assert ladder.stop() == 0
    runs = ladder.db("SELECT COUNT(*) FROM runs")[0][0]
    assert runs == 1 and not _stored_twice(ladder)


def test_a_paused_or_disconnected_bot_is_not_scheduled_until_it_is_back(ladder):
    ladder.serve()
    alice, bob = ladder.invite("alice"), ladder.invite("bob")
    ladder.run_bot("abot", ladder.enter(alice, "abot"), "random")
    b_token = ladder.enter(bob, "bbot")
    b_bot = ladder.run_bot("bbot", b_token, "random")

    def planned() -> int:
        return ladder.db("SELECT COUNT(*) FROM planned_games")[0][0]

    def held(bot: str) -> None:
        """Once the service says ``bot`` is unavailable and its games are over, no game is planned."""
        def settled() -> bool:
            status = http("GET", f"{ladder.web}/api/ladder/status")[1]
            return status["in_flight"] == 0 and not next(b for b in status["bots"] if b["bot"] == bot)["available"]
        wait_for(f"{bot} unavailable, no game in flight", settled)
        before = planned()
        time.sleep(2)
        assert planned() == before

    wait_for("games", lambda: ladder.games() >= 3)
    ladder.admin("pause", "abot", True)
    held("abot")
    paused_at = ladder.games()
    ladder.admin("pause", "abot", False)
    wait_for("games again", lambda: ladder.games() > paused_at + 2)
    ladder.stop_bot(b_bot)   # gone, with games in flight: the referee's fault policy ends them, and they count
    held("bbot")
    gone_at = planned()
    # The games refused as it left are at most one look's worth (max_in_flight, 16), not a plan refilled as fast as
    # the referee refuses it (hundreds, each to be played once it is back).
    assert gone_at - ladder.games() <= 16, (gone_at, ladder.games())
    ladder.run_bot("bbot", b_token, "random")
    back_at = ladder.games()
    wait_for("games with bbot back", lambda: ladder.games() > back_at + 2)
    # Whatever was planned as it left (a game the referee refused to start without it) is played once it is back.
    wait_for("every game planned while it was gone", lambda: ladder.db(
        "SELECT COUNT(*) FROM games WHERE idx < ?", (gone_at,))[0][0] == gone_at, timeout=30)


def test_a_bot_started_the_moment_its_token_is_answered_is_not_refused(ladder):
    ladder.serve()
    alice = ladder.invite("alice")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEPPER_")} | {"PEPPER_REFEREE": ladder.referee}
    bots = {}
    try:
        for name in ("eager1", "eager2", "eager3"):
            token = ladder.enter(alice, name)
            # One try, no restarts: an SDK bot whose token the referee does not know yet exits at once.
            bots[name] = subprocess.Popen([sys.executable, "-m", "sample_bots", "random"], cwd=ROOT,
                                          env=env | {"PEPPER_BOT_NAME": name, "PEPPER_TOKEN": token},
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_for("the bots connected", lambda: any(b.poll() is not None for b in bots.values()) or all(
            b["available"] for b in http("GET", f"{ladder.web}/api/ladder/status")[1]["bots"]))
        assert not [(n, b.stderr.read()) for n, b in bots.items() if b.poll() is not None]
    finally:
        for b in bots.values():
            b.terminate()
            b.wait(10)


def test_a_ladder_of_remote_bots_only_refuses_uploads_and_says_why(ladder, tmp_path):
    ladder.serve()
    alice = ladder.invite("alice")
    folder = tmp_path / "up"
    folder.mkdir()
    (folder / "pepper-bot.toml").write_text('command = "{python} bot.py"\n')
    (folder / "bot.py").write_text("")
    r = pepper("ladder", "enter", "--server", ladder.web, "up", "--upload", str(folder), check=False,
               env={"PEPPER_LADDER_KEY": alice})
    assert r.returncode == 1 and "503 this ladder takes remote bots only (uploads = false in ladder.toml)" in r.stderr
    assert http("GET", f"{ladder.web}/api/ladder/me", alice)[1]["uploads_refused"].startswith("this ladder takes")
