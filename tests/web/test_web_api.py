"""The JSON API of `pepper web` over a real tournament's database: what every page reads."""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from web_harness import GAMES, Server, cards_in, hidden_cards, pepper

from arena.stats import cross_table, table
from arena.store import Store
from arena.store.browse import twins
from referee.rules import Game

pytestmark = pytest.mark.xdist_group("web")


def test_the_leaderboard_is_the_arena_table_with_intervals(server, arena_db):
    board = server.api("/api/leaderboard")
    st = Store(arena_db, read_only=True)
    rows = table(st, board["pool"])
    assert [(r["bot"], r["games"], r["rank"]) for r in board["rows"]] == [(r.bot, r.games, r.rank) for r in rows]
    assert {r["bot"] for r in board["rows"]} == {"random", "heuristic"} and all(r["games"] == GAMES for r in board["rows"])
    for r in board["rows"]:
        assert r["low"] == pytest.approx(r["mu"] - 3 * r["sigma"]) and r["high"] == pytest.approx(r["mu"] + 3 * r["sigma"])
    assert [r["tied_above"] for r in board["rows"]] == [r.tied_above for r in rows]
    assert [r["next_los"] for r in board["rows"]] == [r.next_los for r in rows]
    # The cross-table: arena.stats's, over the duplicate blocks (a block: the 2 games of a mirrored match).
    (pair,) = board["cross_table"]["head_to_head"]
    expected = cross_table(st, board["pool"], rows).to_dict()["head_to_head"][0]
    assert pair == {k: (v if v == v else None) for k, v in expected.items()}
    assert (pair["bot"], pair["opponent"], pair["blocks"], pair["games"]) == (rows[0].bot, rows[1].bot, GAMES // 2, GAMES)
    # Field %: with one opponent, the score against it over their blocks; win % stays beside it.
    assert [r["field_pct"] for r in board["rows"]] == pytest.approx([100 * pair["score"], 100 - 100 * pair["score"]])
    assert [(r["field_opponents"], r["field_size"]) for r in board["rows"]] == [(1, 1), (1, 1)]
    assert [r["win_pct"] for r in board["rows"]] == [r.win_pct for r in rows]
    pools = server.api("/api/pools")
    assert [p["key"] for p in pools] == [board["pool"]] and pools[0]["label"] == "iowa-short/4p"
    by_label = server.api("/api/leaderboard?pool=iowa-short/4p")
    assert by_label["rows"] == board["rows"]


def test_games_filter_and_link_their_duplicate_twins(server, arena_db):
    page = server.api("/api/games")
    assert page["total"] == GAMES and [g["id"] for g in page["games"]] == list(range(GAMES, 0, -1))
    by_id = {g["id"]: g for g in page["games"]}
    for g in page["games"]:
        # Mirrored partnerships: a match is 2 games, the teams swapping seats on the same deal.
        assert len(g["twins"]) == 1, g
        twin = by_id[g["twins"][0]]
        assert twin["twins"] == [g["id"]] and twin["seed"] == g["seed"] and twin["run_id"] == g["run_id"]
        assert twin["seats"] == g["seats"][1:] + g["seats"][:1]
        assert Game.from_record(Store(arena_db, read_only=True).record(g["id"])).decks_dealt[0] == \
            Game.from_record(Store(arena_db, read_only=True).record(twin["id"])).decks_dealt[0]
    assert server.api("/api/games?status=forfeited")["total"] == 0
    assert server.api("/api/games?status=completed&run=1&bot=random&version=1")["total"] == GAMES
    assert server.api("/api/games?bot=random&version=2")["total"] == 0
    assert server.api("/api/games?run=2")["total"] == 0
    first = server.api("/api/games?limit=3")
    second = server.api(f"/api/games?limit=3&before={first['next_before']}")
    third = server.api(f"/api/games?limit=3&before={second['next_before']}")
    assert [g["id"] for g in first["games"] + second["games"] + third["games"]] == list(range(GAMES, 0, -1))
    assert third["next_before"] is None and len(third["games"]) == 2
    exact = server.api(f"/api/games?limit={GAMES}")   # a page that ends exactly at the last game says so
    assert len(exact["games"]) == GAMES and exact["next_before"] is None


def test_a_replay_ends_on_the_stored_score(server, arena_db):
    st = Store(arena_db, read_only=True)
    for gid in (1, 2):
        rep = server.api(f"/api/games/{gid}/replay")
        g = st.game(gid)
        assert len(rep["frames"]) == len(st.record(gid)["actions"]) + 1
        last = rep["frames"][-1]
        team_of = rep["team_of"]
        assert [last["scores"][team_of[s]] for s in range(4)] == g.scores == rep["stored_scores"]
        assert rep["outcome"] == st.record(gid)["outcome"]
        assert rep["names"] == g.bots
        assert set(rep["frames"][0]["hands"]) == {"0", "1", "2", "3"}   # all hands: every seat's cards


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_one_seats_replay_holds_no_card_of_another_seat(server, arena_db, seat):
    record = Store(arena_db, read_only=True).record(1)
    rep = server.api(f"/api/games/1/replay?seat={seat}")
    hidden = hidden_cards(record, seat)
    assert len(rep["frames"]) == len(hidden)
    for k, (frame, secret) in enumerate(zip(rep["frames"], hidden)):
        assert set(frame["hands"]) == {str(seat)}
        assert not cards_in(frame) & secret, (k, frame)
    # The check can fail: the all-hands replay shows those cards.
    everything = server.api("/api/games/1/replay")
    assert cards_in(everything["frames"][0]) & hidden[0]


def test_bots_history_and_errors(server):
    bots = {b["name"] for b in server.api("/api/bots")}
    assert {"random", "heuristic"} <= bots
    bot = server.api("/api/bots/heuristic")
    (v,) = bot["versions"]
    (p,) = v["pools"]
    assert p["games"] == GAMES and len(p["latency_ms"]) >= GAMES and "env" not in json.dumps(bot)
    hist = server.api(f"/api/history?pool={p['pool']}&bot=heuristic&version=1")
    # In rating order (the plan's, not the order games finished): the last point is the bot's rating.
    assert sorted(h["game"] for h in hist) == list(range(1, GAMES + 1)) and hist[-1]["mu"] == pytest.approx(p["mu"])
    svg = urllib.request.urlopen(server.url + "/charts/history.svg?pool=iowa-short/4p&bot=heuristic").read().decode()
    assert svg.startswith("<svg") and svg.count('class="mu"') == 1 and f"({GAMES} rated games)" in svg
    for path, code, words in [("/api/games/999", 404, "no game 999; the games are 1 to 8"),
                              ("/api/bots/nobody", 404, "no bot 'nobody'"),
                              ("/api/leaderboard?pool=nope", 404, "no pool 'nope'; the pools are: iowa-short/4p"),
                              ("/api/games/1/replay?seat=7", 400, "no seat 7 at a 4-player table")]:
        with pytest.raises(urllib.error.HTTPError) as e:
            server.api(path)
        assert e.value.code == code and words in json.loads(e.value.read())["detail"], path


def test_pepper_web_refuses_a_missing_database_and_a_bad_address(tmp_path: Path):
    r = pepper("web", "--db", str(tmp_path / "none.db"), cwd=tmp_path)
    assert r.returncode == 2 and "no results database at" in r.stderr and "pepper arena run" in r.stderr
    r = pepper("web", "--db", str(tmp_path / "none.db"), "--address", "8000", cwd=tmp_path)
    assert r.returncode == 2 and "is not HOST:PORT" in r.stderr


def test_a_games_cards_are_withheld_while_its_duplicate_twin_is_still_to_play(arena_db, tmp_path):
    """A run in progress: game 1 is stored, its twin (same cards, seats rotated) not yet. Showing game 1's hands
    would tell whoever plays the twin (a person at the table, a remote bot's owner) every card of it."""
    db = tmp_path / "running.db"
    src = Store(arena_db, read_only=True)
    src.db.execute("VACUUM INTO ?", (str(db),))
    (twin,) = twins(src, [1])[1]
    with sqlite3.connect(db) as c:   # as the store looks mid-run: the run unfinished, the twin unplayed
        c.execute("UPDATE runs SET finished_at = NULL")
        for table in ("game_seats", "game_records", "rating_history"):
            c.execute(f"DELETE FROM {table} WHERE game_id = ?", (twin,))
        c.execute("DELETE FROM games WHERE id = ?", (twin,))
    server = Server(db)
    try:
        for q in ("", "?seat=0"):
            with pytest.raises(urllib.error.HTTPError) as e:
                server.api(f"/api/games/1/replay{q}")
            assert e.value.code == 403
            assert "game 1's cards are withheld while its duplicate match is still being played (1 twin game with the " \
                   "same cards to go in run 1)" in json.loads(e.value.read())["detail"]
        assert server.api("/api/games/1")["id"] == 1                   # the result itself is no secret
        # ... but its seed is: the engine deals every deal of the twin from it.
        one = server.api("/api/games/1")
        assert one["seed"] is None and one["seed_withheld"] is True, one
        listed = {g["id"]: g for g in server.api("/api/games?limit=50")["games"]}
        assert listed[1]["seed"] is None and listed[1]["seed_withheld"] is True
        assert all(g["seed"] is not None for i, g in listed.items() if i not in (1, twin)), listed
        r = pepper("arena", "replay", "1", "--db", str(db), cwd=tmp_path)
        assert r.returncode == 1 and "game 1's cards and seed are withheld" in r.stderr and "seed" not in r.stdout, r
        other = next(g for g in range(2, 10) if g != twin)              # (games finish in any order: the twin
        assert len(server.api(f"/api/games/{other}/replay")["frames"]) > 1   # need not be game 2) a played-out match shows
        with sqlite3.connect(db) as c:                                 # the run is over: nothing more to play
            c.execute("UPDATE runs SET finished_at = 1")
        assert len(server.api("/api/games/1/replay")["frames"]) > 1
        assert server.api("/api/games/1")["seed"] is not None
        assert pepper("arena", "replay", "1", "--db", str(db), cwd=tmp_path).returncode == 0
    finally:
        server.stop()

