"""The store's schema-2 behaviour on a real SQLite file: per-seat rows, ratings read and written in one
transaction, typed rows out."""

from __future__ import annotations

import sqlite3

import pytest
from stored import record_rated

from arena.ratings import Rating
from arena.store import (
    Bot,
    BotKind,
    Faults,
    GameStatus,
    NewGame,
    PlannedGame,
    Seat,
    SeatStatus,
    Store,
    StoredGame,
)


def _game(seats=("a", "b", "a", "b"), pool="iowa/4p", **seat_kw) -> NewGame:
    rows = tuple(Seat(s, bot, SeatStatus.OK, Faults(), 10 * s, s % 2 == 0, **seat_kw) for s, bot in enumerate(seats))
    return NewGame(None, None, pool, pool.split("/")[0], len(seats), 7, GameStatus.COMPLETED, 0.5, rows, {"deals": []})


def test_each_seat_is_a_row_with_its_faults_fallbacks_and_latency(tmp_path):
    st = Store(tmp_path / "a.db")
    seats = (Seat(0, "a", SeatStatus.FAULTED, Faults(timeout=2, illegal=1), -5, False, 3, 1, fallbacks=4, decisions=40,
                  latency_p50_ms=1.5, latency_p99_ms=9.0),
             Seat(1, "b", SeatStatus.OK, Faults(), 42, True, 2, 2))
    gid = record_rated(st, NewGame(None, None, "pepper-30/2p", "pepper-30", 2, 3, GameStatus.COMPLETED, 1.0, seats,
                                 {"format": "pepper-game/1"}), lambda cur: {"a": Rating(20, 7), "b": Rating(30, 7)})
    g = st.game(gid)
    assert isinstance(g, StoredGame) and g.status is GameStatus.COMPLETED and g.seats == seats
    assert g.bots == ["a", "b"] and g.winners == [1] and g.scores == [-5, 42]
    assert g.seats[0].faults.total == 3 and g.seats[0].status is SeatStatus.FAULTED
    assert st.record(gid) == {"format": "pepper-game/1"} and st.record(gid + 1) is None and st.game(gid + 1) is None
    # The seats are rows, found through their indexes by bot and by pool.
    plan = [r[3] for r in st.db.execute("EXPLAIN QUERY PLAN SELECT * FROM game_seats WHERE bot = 'a'")]
    assert any("game_seats_bot" in p for p in plan), plan
    plan = [r[3] for r in st.db.execute("EXPLAIN QUERY PLAN SELECT * FROM game_seats WHERE pool = 'x'")]
    assert any("game_seats_pool" in p for p in plan), plan
    totals = st.totals("pepper-30/2p")
    assert [(t.bot, t.games, t.wins, t.timeouts, t.illegal, t.contracts_bid, t.contracts_made) for t in totals] == [
        ("a", 1, 0, 2, 1, 3, 1), ("b", 1, 1, 0, 0, 2, 2)]
    assert totals[0].latency_p50_ms == 1.5 and totals[1].latency_p50_ms is None
    assert [t.fallbacks for t in totals] == [4, 0]


def test_latency_percentiles_are_the_median_of_p50s_and_the_99th_of_p99s(tmp_path):
    st = Store(tmp_path / "a.db")
    p50s = [3.0, 1.0, 4.0, 1.5]
    for i, p in enumerate(p50s):
        record_rated(st, _game(seats=("a", "b"), pool="pepper-30/2p", latency_p50_ms=p, latency_p99_ms=10.0 + i),
                       lambda cur: {"a": Rating(), "b": Rating()})
    a = st.totals("pepper-30/2p")[0]
    assert a.latency_p50_ms == (1.5 + 3.0) / 2 and a.latency_p99_ms == 13.0


def test_the_games_filter_by_bot_uses_the_seats_not_a_substring(tmp_path):
    st = Store(tmp_path / "a.db")
    record_rated(st, _game(seats=("ab", "b", "ab", "b")), lambda cur: {})
    record_rated(st, _game(seats=("a", "b", "a", "b")), lambda cur: {})
    games, total = st.latest_games(bot="a")
    assert total == 1 and games[0].bots == ["a", "b", "a", "b"]
    assert st.latest_games(bot="b")[1] == 2 and [g.id for g in st.latest_games(limit=1)[0]] == [2]
    assert st.latest_game_ids() == [2, 1]


def test_ratings_are_read_inside_the_write_transaction(tmp_path):
    """While one writer rates, another cannot write: it would rate from ratings about to be stale."""
    db = tmp_path / "a.db"
    one, two = Store(db), Store(db)
    two.db.execute("PRAGMA busy_timeout = 50")
    seen = []

    def rate(current):
        seen.append(current)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            two.db.execute("INSERT INTO meta VALUES ('x', '1')")
        return {"a": Rating(30, 5), "b": Rating(20, 5)}

    record_rated(one, _game(), rate)
    assert seen == [{}]
    # The next writer, on its own connection, rates from what the first stored.
    record_rated(two, _game(), lambda cur: seen.append(cur) or {b: Rating(r.mu + 1, r.sigma) for b, r in cur.items()})
    assert seen[1] == {"a": Rating(30, 5), "b": Rating(20, 5)}
    assert one.ratings("iowa/4p") == {"a": Rating(31, 5), "b": Rating(21, 5)} and one.rating_games("iowa/4p", "a") == 2
    assert [r for _, r in one.rating_history("iowa/4p", "a")] == [Rating(30, 5), Rating(31, 5)]


def test_a_rating_that_fails_rates_nothing(tmp_path):
    st = Store(tmp_path / "a.db")

    def broken(current):
        raise ValueError("no rating")

    with pytest.raises(ValueError):
        record_rated(st, _game(), broken)
    # The game stays stored, unrated: a rating is all or nothing.
    assert st.game_ids().count == 1 and st.ratings("iowa/4p") == {} and st.rating_history("iowa/4p", "a") == []


def test_rows_are_typed(tmp_path):
    st = Store(tmp_path / "a.db")
    st.add_bot("r", "remote")
    assert st.bots() == [st.bot("r")] and isinstance(st.bot("r"), Bot) and st.bot("r").kind is BotKind.REMOTE
    run, _ = st.find_or_create_run({"k": 1}, [(0, "iowa", 4, 9, ["a", "b", "a", "b"])])
    assert st.pending(run) == [PlannedGame(0, 0, "iowa", 4, 9, ["a", "b", "a", "b"])] == st.planned(run)
    assert st.game_ids(run) == (0, None, None) and st.game_ids(run).count == 0
    with pytest.raises(ValueError):
        st.add_bot("bad", "docker")
