"""Case 4 of docs/security.md: undecodable requests cannot fill the referee's log.

About 500 KiB of undecodable bytes through each way in that reads a request before any token check (a health
check, a control call without a token, a Connect stream's first message) and through a bot's stream after
Hello, to a `pepper referee serve` subprocess logging to a file at its default level (as the arena runs it).
Before (main at 4d16b4c) each one logged an ERROR with a traceback: about 3 MB here.
"""

from __future__ import annotations

import time

import grpc
from attack_harness import TOKENS, Referee
from pepper_proto.v1 import bot_pb2

from referee import wire

GARBAGE = b"\xff" * 1024          # not a protobuf message: its first tag is an unterminated varint
REQUESTS = 500                    # of GARBAGE each, per way in: 500 KiB
HELLO = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
    bot_name="attacker", protocol_version=wire.PROTOCOL_VERSION, token=TOKENS["attacker"])).SerializeToString()


def _refused(call) -> None:
    try:
        r = call()
        if not isinstance(r, bytes):   # a stream: read it to its end
            list(r)
    except grpc.RpcError as e:
        assert e.code() in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.INVALID_ARGUMENT), e
    else:
        raise AssertionError("an undecodable request was accepted")


def test_undecodable_requests_are_logged_a_line_at_a_time(tmp_path):
    # Many streams from one address in a burst: the rate of new streams a second lifted for it.
    with Referee(tmp_path, "--new-streams-per-peer-per-s", "100000", log_level="warning") as ref:
        time.sleep(0.2)
        start = ref.log.stat().st_size
        ch = ref.channel
        health = ch.unary_unary("/grpc.health.v1.Health/Check", request_serializer=None, response_deserializer=None)
        control = ch.unary_unary("/pepper.v1.ControlService/ListBots", request_serializer=None,
                                 response_deserializer=None)
        connect = ch.stream_stream("/pepper.v1.BotService/Connect", request_serializer=None,
                                   response_deserializer=None)
        for _ in range(REQUESTS):
            _refused(lambda: health(GARBAGE, timeout=10))
            _refused(lambda: control(GARBAGE, timeout=10))
            _refused(lambda: connect(iter([GARBAGE]), timeout=10))
        # After Hello: the connection ends at the first undecodable message.
        ended = 0
        for _ in range(REQUESTS):
            try:
                for _m in connect(iter([HELLO, GARBAGE]), timeout=10):
                    pass
            except grpc.RpcError:
                pass
            ended += 1
        time.sleep(0.3)
        grown = ref.log.stat().st_size - start
        lines = ref.log.read_text().splitlines()
    print(f"{4 * REQUESTS * len(GARBAGE) // 1024} KiB of undecodable requests: the log grew by {grown} bytes")
    assert ended == REQUESTS
    assert grown < 4096, lines[-10:]
    assert not any(line.startswith("Traceback") for line in lines), lines[-10:]
