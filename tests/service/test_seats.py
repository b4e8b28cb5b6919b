"""A connection holds at most one seat of a game, so that it never receives a partner's (or anyone's) cards.

A bot that takes k seats of a game needs k live connections; CreateGame says
UNAVAILABLE, naming the bot and what to do, when it has fewer. ``--shared-seats``
(trusted self-play, the conformance checker) lifts the rule.
"""

from __future__ import annotations

from collections import defaultdict

import grpc
import pytest
from pepper_proto.v1 import control_pb2, game_pb2
from referee_harness import Server, assert_clean
from test_audit import read_record

BOTS = {"solo": "solo-token-seats", "duo": "duo-token-seats"}


def _hands_by_connection(bots) -> dict[int, dict[str, set[int]]]:
    """For each recording bot: game id -> the seats whose HAND events it received."""
    out = {}
    for i, b in enumerate(bots):
        seen = defaultdict(set)
        for m in read_record(b.record):
            for it in m.batch.items:
                if it.WhichOneof("item") == "event" and it.event.kind == game_pb2.EVENT_KIND_HAND:
                    seen[it.event.game_id].add(it.event.seat)
        out[i] = seen
    return out


def test_a_bot_needs_a_connection_per_seat_it_takes(tmp_path):
    s = Server(tmp_path, bots=BOTS, shared_seats=False)
    try:
        solo = [s.bot("solo", record=True)]
        duo = [s.bot("duo", record=True), s.bot("duo", record=True)]
        s.wait_connections("duo", n=2)
        # solo takes two seats of a mirrored iowa table but has one connection: refused, and nothing was started.
        with pytest.raises(grpc.RpcError) as e:
            s.create(["solo", "duo", "solo", "duo"], "iowa", deal_cap=2, seed=1)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
        msg = e.value.details()
        assert "'solo' takes 2 seats of this game but has 1 live connection" in msg and "run 2 processes" in msg, msg
        assert not s.control.ListGames(control_pb2.ListGamesRequest(), metadata=s.md).games

        solo.append(s.bot("solo", record=True))
        ids = [s.create(["solo", "duo", "solo", "duo"], "iowa", deal_cap=2, seed=k) for k in range(6)]
        results = s.wait_games(ids, timeout=60)
        for gid in ids:
            res = results[gid]
            assert_clean(res)
            conns = [seat.connection_id for seat in res.seats]
            assert len(set(conns)) == 4, conns       # four seats, four connections
        # What was actually sent: each connection got the hand of one seat per game, never its partner's.
        for seen in _hands_by_connection(solo + duo).values():
            assert seen and all(len(seats) == 1 for seats in seen.values()), dict(seen)
        assert {gid for seen in _hands_by_connection(solo).values() for gid in seen} == set(ids)
    finally:
        s.close()


def test_shared_seats_lets_one_connection_fill_a_table(tmp_path):
    s = Server(tmp_path, bots=BOTS, shared_seats=True)
    try:
        solo = s.bot("solo", record=True)
        gid = s.create(["solo"] * 4, "iowa", deal_cap=2, seed=3)
        res = s.wait_games([gid], timeout=60)[gid]
        assert_clean(res)
        assert len({seat.connection_id for seat in res.seats}) == 1
        assert _hands_by_connection([solo])[0][gid] == {0, 1, 2, 3}   # as --shared-seats warns: every hand
    finally:
        s.close()


def test_one_process_of_a_mirrored_team_crashes(tmp_path):
    """One seat per connection and a crash: only the crashed connection's seat faults; its partner's
    connection and the other games carry on (the default policy forfeits the game)."""
    s = Server(tmp_path, bots=BOTS, shared_seats=False)
    try:
        crashy = s.bot("solo", "--mode", "crash", "--after", "5")
        s.bot("solo")
        s.bot("duo")
        s.bot("duo")
        s.wait_connections("duo", n=2)
        gid = s.create(["solo", "duo", "solo", "duo"], "iowa", deal_cap=3, seed=21)
        res = s.wait_games([gid], timeout=60)[gid]
        assert crashy.proc.wait(timeout=20) == 3
        assert game_pb2.GameStatus.Name(res.status) == "GAME_STATUS_FORFEITED", res.reason
        crashed = [seat for seat in res.seats if seat.faults.disconnect]
        assert len(crashed) == 1 and crashed[0].bot_name == "solo", res.seats    # one seat, not both of the team
        assert list(res.winning_seats) == [1, 3]
        # The surviving solo process serves the next games alone: one seat each, so a mirrored table is refused.
        s.wait_connections("solo", n=1)
        with pytest.raises(grpc.RpcError) as e:
            s.create(["solo", "duo", "solo", "duo"], "iowa", deal_cap=2, seed=22)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        s.close()
