"""Result conversion: a referee GameResult (protobuf) to the store's seat rows and the TrueSkill match."""

from __future__ import annotations

import json

from pepper_proto.v1 import control_pb2, game_pb2

from arena.results import contracts_by_seat, entries, new_game, ranks
from arena.store import Faults, GameStatus, SeatStatus
from referee.rules import get_ruleset


def test_a_partnership_result_becomes_seat_rows_and_team_entries():
    table = get_ruleset("iowa").table(4)
    record = {"deals": [{"contract": {"bidder": 1}, "points": [-3, 5]}, {"contract": {"bidder": 2}, "points": [-6, 0]},
                        {"contract": None, "points": [0, 0]}]}
    res = control_pb2.GameResult(
        status=game_pb2.GAME_STATUS_FORFEITED, scores=[-9, 5], winners=[1], winning_seats=[1, 3], duration_s=2.5,
        record_json=json.dumps(record),
        seats=[control_pb2.SeatResult(seat=s, status=game_pb2.SEAT_STATUS_FORFEITED if s == 2 else game_pb2.SEAT_STATUS_OK,
                                      faults=control_pb2.FaultCounts(timeout=3 if s == 2 else 0), fallbacks=s,
                                      decisions=10 + s, latency_p50_ms=1.0 + s, latency_p99_ms=9.0)
               for s in range(4)])
    seats = ["a", "b", "a", "b"]
    g = new_game(res, table, run_id=1, idx=4, pool="iowa/4p", ruleset="iowa", seed=8, seats=seats,
                 versions=dict.fromkeys(seats, 1))
    assert g.status is GameStatus.FORFEITED and g.players == 4 and g.record == record and g.duration == 2.5
    assert [s.score for s in g.seats] == [-9, 5, -9, 5] and [s.won for s in g.seats] == [False, True, False, True]
    assert g.seats[2].status is SeatStatus.FORFEITED and g.seats[2].faults == Faults(timeout=3)
    assert [(s.contracts_bid, s.contracts_made) for s in g.seats] == [(0, 0), (1, 1), (1, 0), (0, 0)]
    assert [s.fallbacks for s in g.seats] == [0, 1, 2, 3] and g.seats[3].latency_p50_ms == 4.0
    assert entries(table, seats) == [["a", "a"], ["b", "b"]] and ranks(res, table) == [1, 0]
    assert contracts_by_seat(record, list(table.team_of)) == [(0, 0), (1, 1), (1, 0), (0, 0)]


def test_a_free_for_all_ranks_each_seat_winners_first_then_by_score():
    table = get_ruleset("pepper-30").table(3)
    res = control_pb2.GameResult(status=game_pb2.GAME_STATUS_COMPLETED, scores=[12, 31, 20], winning_seats=[1],
                                 seats=[control_pb2.SeatResult(seat=s) for s in range(3)])
    g = new_game(res, table, run_id=None, idx=None, pool="pepper-30/3p", ruleset="pepper-30", seed=1, seats=["x", "y", "x"],
                 versions={"x": 1, "y": 2})
    assert [s.score for s in g.seats] == [12, 31, 20] and g.record == {}
    assert [s.version for s in g.seats] == [1, 2, 1]  # each seat records the version of its bot that played
    assert entries(table, ["x", "y", "x"]) == [["x"], ["y"], ["x"]] and ranks(res, table) == [2, 0, 1]
