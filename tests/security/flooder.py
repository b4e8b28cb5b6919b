"""An attacking bot: authenticates, then sends AnswerBatch messages that carry no work (docs/security.md, "1.").

    python tests/security/flooder.py --address HOST:PORT --name NAME --token T [--rate N] [--seconds S]
                                     [--count N] [--reconnect] [--delay S] [--game-id-bytes N --answers N]

Each connection says Hello, waits for Welcome, then sends empty AnswerBatches: as fast as it can (``--rate 0``)
or ``--rate`` a second, until ``--count`` were sent, ``--seconds`` passed or the referee ends the stream. With
``--reconnect`` it connects again at once when the stream ends, until ``--seconds``. With ``--answers N`` it
sends instead, once the first request arrives, N answers to it naming a game id of ``--game-id-bytes`` bytes
(the echo attack, "3."), and then reads until the stream ends or ``--seconds``.
Prints one JSON line: per connection the messages sent, the notice codes received, the bytes received and how
the stream ended.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for referee.wire

import grpc  # noqa: E402
from pepper_proto.v1 import bot_pb2  # noqa: E402

from referee import wire  # noqa: E402

CONNECT = "/pepper.v1.BotService/Connect"
EMPTY = bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch()).SerializeToString()


def one_connection(channel, a, end: float, stats_all: list[dict]) -> dict:
    """One Connect stream; ``stats_all``: the earlier connections' (the first one waits ``--delay``)."""
    hello = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
        bot_name=a.name, protocol_version=wire.PROTOCOL_VERSION, token=a.token, max_batch=1)).SerializeToString()
    stats = {"sent": 0, "notices": {}, "bytes_in": 0, "end": ""}
    welcomed, first_request, done = threading.Event(), [], threading.Event()
    request_seen = threading.Event()

    def requests():
        yield hello
        welcomed.wait(10)
        time.sleep(a.delay if not stats_all else 0.0)
        if a.answers:
            request_seen.wait(max(0.0, end - time.monotonic()))
            if first_request:
                rid = first_request[0]
                big = "x" * a.game_id_bytes
                for _ in range(a.answers):
                    stats["sent"] += 1
                    yield bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch(answers=[
                        bot_pb2.Answer(game_id=big, request_id=rid, action_index=0)])).SerializeToString()
            done.wait(max(0.0, end - time.monotonic()))
            return
        t0 = time.monotonic()
        while not done.is_set() and time.monotonic() < end and (not a.count or stats["sent"] < a.count):
            for _ in range(100):
                yield EMPTY
            stats["sent"] += 100
            if a.rate:
                ahead = stats["sent"] / a.rate - (time.monotonic() - t0)
                if ahead > 0:
                    time.sleep(ahead)

    call = channel.stream_stream(CONNECT, request_serializer=None, response_deserializer=None)(requests())
    timer = threading.Timer(max(0.0, end - time.monotonic()) + 1, call.cancel)
    timer.start()
    try:
        for raw in call:
            stats["bytes_in"] += len(raw)
            m = bot_pb2.ConnectResponse.FromString(raw)
            if m.HasField("welcome"):
                welcomed.set()
                continue
            for item in m.batch.items:
                which = item.WhichOneof("item")
                if which == "notice":
                    code = bot_pb2.NoticeCode.Name(item.notice.code)
                    stats["notices"][code] = stats["notices"].get(code, 0) + 1
                elif which == "request" and not first_request:
                    first_request.append(item.request.request_id)
                    request_seen.set()
        stats["end"] = "OK"
    except grpc.RpcError as e:
        stats["end"] = e.code().name
    finally:
        timer.cancel()
        done.set()
        welcomed.set()
        request_seen.set()
    return stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--address", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--rate", type=float, default=0.0, help="messages a second (0: as fast as possible)")
    ap.add_argument("--count", type=int, default=0, help="messages per connection (0: no limit)")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--reconnect", action="store_true")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds to wait after Welcome before the first message")
    ap.add_argument("--answers", type=int, default=0)
    ap.add_argument("--game-id-bytes", type=int, default=1 << 20)
    a = ap.parse_args()
    channel = grpc.insecure_channel(a.address, options=[("grpc.max_receive_message_length", 1 << 30),
                                                        ("grpc.max_send_message_length", 1 << 30)])
    end = time.monotonic() + a.seconds
    conns: list[dict] = []
    conns.append(one_connection(channel, a, end, conns))
    while a.reconnect and time.monotonic() < end:
        conns.append(one_connection(channel, a, end, conns))
    print(json.dumps({"connections": conns}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
