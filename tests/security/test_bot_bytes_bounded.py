"""Case 2: one bot's bytes cannot block a tournament. A real referee and a real attacking bot on 127.0.0.1.

On the old code, 9 malformed answers of 3.8 MB were kept whole in the game's fault details: the result
passed the 32 MiB send limit and WaitGame and ListGames failed with RESOURCE_EXHAUSTED (the record file: 33 MB).
"""

from __future__ import annotations

import grpc
import pytest
from pepper_proto.v1 import control_pb2, game_pb2
from sizes_referee import Referee

from referee.service.config import ServerConfig


@pytest.fixture
def referee(tmp_path):
    r = Referee(tmp_path, "--record-dir", str(tmp_path / "records"))
    yield r
    r.close()


def test_huge_malformed_answers_leave_results_lists_and_records_small(referee, tmp_path):
    # As big as the inbound limit allows (3.8 MB under the old 4 MiB limit).
    size = min(3_800_000, ServerConfig().max_receive_bytes - 4096)
    referee.attacker(big=9, size=size)
    gid = referee.create('{"extends": "iowa", "deal_cap": 4}')   # the first deals are passed out: 4 decisions each
    res = referee.wait(gid)   # the old code: RESOURCE_EXHAUSTED (a result of 34 MB)
    malformed = [f for f in res.faults if f.kind == game_pb2.FAULT_KIND_MALFORMED]
    assert res.status == game_pb2.GAME_STATUS_COMPLETED and len(malformed) == 9, res
    for f in malformed:
        assert len(f.detail) < 400 and f"{size} characters" in f.detail, f.detail[:500]
    assert res.ByteSize() < 100_000
    listed = referee.control.ListGames(control_pb2.ListGamesRequest(), metadata=referee.md)
    assert [g.game_id for g in listed.games] == [gid] and not listed.next_page_token
    record = tmp_path / "records" / f"{gid}.json"
    for _ in range(100):
        if record.exists():
            break
        grpc.channel_ready_future(referee.channel).result(timeout=1)
    assert record.stat().st_size < 100_000, record.stat().st_size


def test_a_message_over_the_inbound_limit_ends_the_stream_as_a_disconnect(referee):
    limit = ServerConfig().max_receive_bytes
    assert limit < 1024 * 1024   # sized to the protocol: a legal AnswerBatch is small
    bot = referee.attacker(big=1, size=limit + 1)
    res = referee.wait(referee.create())
    assert res.status == game_pb2.GAME_STATUS_FORFEITED, res
    assert [f.kind for f in res.faults] == [game_pb2.FAULT_KIND_DISCONNECT], res.faults
    assert bot.wait(timeout=30) == 1


def test_list_games_pages_stay_under_the_page_size_and_link_up(referee):
    referee.attacker(big=0, size=0)
    ids = [referee.create() for _ in range(5)]
    for gid in ids:
        referee.wait(gid)
    seen, token, pages = [], "", 0
    while True:
        page = referee.control.ListGames(control_pb2.ListGamesRequest(page_size=2, page_token=token), metadata=referee.md)
        assert len(page.games) <= 2
        seen += [g.game_id for g in page.games]
        token, pages = page.next_page_token, pages + 1
        if not token:
            break
    assert seen == ids and pages == 3
    with pytest.raises(grpc.RpcError) as e:
        referee.control.ListGames(control_pb2.ListGamesRequest(page_token="nope"), metadata=referee.md)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "page_token" in e.value.details()
