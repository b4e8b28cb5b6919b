"""Arena core on a real SQLite file: plans, duplicate deals, exactly-once results, TrueSkill pools."""

import sqlite3

import pytest

from arena.ratings import Rater, Rating, pool_name, ranks_from_result
from arena.schedule import lineups, plan, rotations
from arena.store import Store, StoreError
from referee.rules import Game

BOTS = ["random", "heuristic", "montecarlo"]


def test_mirrored_round_robin_covers_every_pair_once():
    ups = lineups(BOTS, "iowa", 4)
    pairs = {frozenset((s[0], s[1])) for s in ups}
    assert len(ups) == 3 and pairs == {frozenset(p) for p in [("random", "heuristic"), ("random", "montecarlo"), ("heuristic", "montecarlo")]}
    for s in ups:
        assert s[0] == s[2] and s[1] == s[3] and s[0] != s[1]


def test_mixed_partnerships_never_put_a_bot_on_both_teams():
    for players in (4, 6, 8):
        for seats in lineups(BOTS + ["node"], "bid-euchre", players, "mixed"):
            team0 = {seats[s] for s in range(0, players, 2)}
            team1 = {seats[s] for s in range(1, players, 2)}
            assert not team0 & team1
            assert len(team0) > 1 or len(team1) > 1


def test_free_for_all_fills_seats_when_bots_are_fewer_than_seats():
    ups = lineups(BOTS, "five-handed", 5)
    assert len(ups) == 3 and all(len(u) == 5 and set(u) == set(BOTS) for u in ups)


def test_duplicate_matches_share_the_deck_and_rotate_the_seats():
    p = plan(BOTS, "iowa", 4, 12, seed=9)
    by_match = {}
    for m, _rs, _n, seed, seats in p:
        by_match.setdefault(m, []).append((seed, seats))
    for games in by_match.values():
        assert len(games) == 2 and games[0][0] == games[1][0]
        assert games[0][1][0] == games[1][1][1]  # the teams swapped seats
    # The decks really repeat: the same seed deals the same cards to the same seats.
    (s1, _), (s2, _) = by_match[0]
    g1, g2 = Game("iowa", 4, seed=s1), Game("iowa", 4, seed=s2)
    assert g1.hands == g2.hands and g1.dealer == g2.dealer
    assert rotations(["a", "b", "c"], False) == [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]]


def test_plan_is_a_pure_function_of_the_config():
    assert plan(BOTS, "pepper-30", 3, 10, seed=4) == plan(BOTS, "pepper-30", 3, 10, seed=4)
    assert plan(BOTS, "pepper-30", 3, 10, seed=4) != plan(BOTS, "pepper-30", 3, 10, seed=5)


def test_ranks_put_winners_first_and_share_ties():
    assert ranks_from_result([10, 30, 30], [False, True, True]) == [1, 0, 0]
    assert ranks_from_result([5, 7, 6], [False, False, False]) == [2, 0, 1]


def test_trueskill_moves_winner_up_and_handles_a_bot_in_several_seats():
    r = Rater()
    new = r.rate({}, [["a"], ["b"]], [0, 1])
    assert new["a"].mu > 25 > new["b"].mu and new["a"].sigma < 25 / 3
    ffa = r.rate({}, [["a"], ["b"], ["a"]], [0, 1, 2])  # 'a' in two seats, first and last
    assert set(ffa) == {"a", "b"}
    assert r.quality({}, [["a"], ["b"]]) > r.quality({"a": Rating(40, 1)}, [["a"], ["b"]])
    assert pool_name("iowa", 4) == "iowa/4p"


def _game(run_id, idx):
    return {"run_id": run_id, "idx": idx, "pool": "iowa/4p", "ruleset": "iowa", "players": 4, "seed": 1,
            "seats": ["a", "b", "a", "b"], "status": "completed", "seat_status": ["ok"] * 4, "faults": [{}] * 4,
            "scores": [42, 10, 42, 10], "winners": [0, 2], "contracts": [[1, 1]] * 4, "latency": [[]] * 4,
            "duration": 0.1, "record": {"format": "pepper-game/1"}}


def test_store_counts_a_game_once_and_resumes_the_same_run(tmp_path):
    db = tmp_path / "arena.db"
    st = Store(db)
    cfg = {"ruleset": "iowa", "players": 4, "games": 4, "seed": 1}
    p = plan(["a", "b"], "iowa", 4, 4, seed=1)
    run, resumed = st.find_or_create_run(cfg, p)
    assert not resumed and len(st.pending(run)) == 4
    st.record_game(_game(run, 0), {"a": Rating(27, 7), "b": Rating(23, 7)})
    with pytest.raises(StoreError, match="already stored"):
        st.record_game(_game(run, 0), {"a": Rating(29, 6), "b": Rating(21, 6)})
    st.close()
    st = Store(db)  # a new process: same command, same run, one game done
    run2, resumed = st.find_or_create_run(cfg, p)
    assert (run2, resumed) == (run, True)
    assert [x[0] for x in st.pending(run)] == [1, 2, 3]
    assert st.ratings("iowa/4p") == {"a": Rating(27, 7), "b": Rating(23, 7)}
    assert st.db.execute("SELECT games FROM ratings WHERE bot = 'a'").fetchone()[0] == 1


def test_store_bots_persist_and_names_are_unique(tmp_path):
    st = Store(tmp_path / "a.db")
    st.add_bot("mine", "command", command="python bot.py", env={"X": "1"})
    with pytest.raises(StoreError, match="already registered"):
        st.add_bot("mine", "remote")
    st.close()
    st = Store(tmp_path / "a.db")
    b = st.bot("mine")
    assert b.command == "python bot.py" and b.env == {"X": "1"} and len(b.token) >= 20
    assert st.remove_bot("mine") and st.bot("mine") is None


def test_store_rejects_a_file_that_is_not_a_database(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("hello, this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not an arena database"):
        Store(bad)


def test_store_reports_a_full_disk_clearly(tmp_path):
    st = Store(tmp_path / "a.db")
    run, _ = st.find_or_create_run({"x": 1}, plan(["a", "b"], "iowa", 4, 2, seed=1))
    st.db.execute(f"PRAGMA max_page_count = {st.db.execute('PRAGMA page_count').fetchone()[0]}")
    big = _game(run, 0) | {"record": {"format": "pepper-game/1", "pad": "x" * 200_000}}
    with pytest.raises(StoreError, match="disk is full.*resume"):
        st.record_game(big, {"a": Rating()})
    assert st.pending(run) and st.ratings("iowa/4p") == {}  # nothing half-written
    assert isinstance(st.db, sqlite3.Connection)
