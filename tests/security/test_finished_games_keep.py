"""Case 8: finished games leave memory past a settable keep; older results are read from their record files.
A real referee (`--keep-finished 2`) and a real bot on 127.0.0.1. The old code kept 200,000 finished games,
with no option to change it."""

from __future__ import annotations

import grpc
import pytest
from pepper_proto.v1 import control_pb2, game_pb2
from sizes_referee import Referee


def play(referee: Referee, n: int) -> list[str]:
    referee.attacker(big=0, size=0)   # plays the first legal action every decision
    ids = []
    for _ in range(n):   # one at a time: each result is collected before the keep can drop it
        ids.append(referee.create())
        assert referee.wait(ids[-1]).status == game_pb2.GAME_STATUS_COMPLETED
    return ids


def listed(referee: Referee) -> list[str]:
    return [g.game_id for g in referee.control.ListGames(control_pb2.ListGamesRequest(), metadata=referee.md).games]


def test_a_referee_keeps_the_last_finished_games_and_reads_older_ones_from_disk(tmp_path):
    referee = Referee(tmp_path, "--keep-finished", "2", "--record-dir", str(tmp_path / "records"))
    try:
        ids = play(referee, 6)
        assert listed(referee) == ids[-2:]                 # memory holds the last 2 only
        old = referee.wait(ids[0])                         # left memory: read from its record file
        assert old.game_id == ids[0] and old.status == game_pb2.GAME_STATUS_COMPLETED and old.record_json
        assert old.full_state_json and old.seed
        got = referee.control.GetGame(control_pb2.GetGameRequest(game_id=ids[1]), metadata=referee.md).result
        assert got.game_id == ids[1] and got.record_json
    finally:
        referee.close()


def test_without_record_files_a_game_that_left_memory_says_so(tmp_path):
    referee = Referee(tmp_path, "--keep-finished", "1")
    try:
        ids = play(referee, 3)
        assert listed(referee) == ids[-1:]
        with pytest.raises(grpc.RpcError) as e:
            referee.wait(ids[0])
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
        assert "finished and left memory" in e.value.details() and "--keep-finished" in e.value.details()
        assert "--record-dir" in e.value.details()
    finally:
        referee.close()
