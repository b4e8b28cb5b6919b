"""The referee benchmark's bot: a real pepper.v1 bot that does as little as a bot can.

    python bench/lean_bot.py --address HOST:PORT --name NAME --token T [--batch 64] [--seed 0] [--summary FILE]

(or as the arena launches its bots: PEPPER_REFEREE and PEPPER_BOT_NAME set, the token on the pipe PEPPER_TOKEN_FD names).

It opens one Connect stream, says Hello, parses every message it receives
with the protobuf library, and answers every DecisionRequest of a Batch in
one AnswerBatch, with a uniformly random ``action_index`` into the request's
legal actions. It reads nothing else: no view, no events. That is the least
work any bot must do per decision, so a benchmark run with these bots shows
the referee's cost rather than the bots'. (tests/service/bots/random_bot.py,
the test bot, also keeps per-item counts and can misbehave: about twice this
bot's CPU per decision.)

Messages arrive as bytes (no deserializer on the call) so that their sizes are
counted exactly; ``--summary`` writes the counts the benchmark needs to size
its echo (bytes and batches received, requests answered, answer messages and
their bytes) at the end of the stream.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo root, for referee.wire

import grpc  # noqa: E402
from pepper_bot.runner import launch_token  # noqa: E402
from pepper_proto.v1 import bot_pb2  # noqa: E402

from referee import wire  # noqa: E402

CONNECT = "/pepper.v1.BotService/Connect"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    env = os.environ.get   # as the arena launches a bot: PEPPER_REFEREE, PEPPER_BOT_NAME, PEPPER_TOKEN_FD
    ap.add_argument("--address", default=env("PEPPER_REFEREE"), required=not env("PEPPER_REFEREE"))
    ap.add_argument("--name", default=env("PEPPER_BOT_NAME"), required=not env("PEPPER_BOT_NAME"))
    token = launch_token()   # the arena's pipe (PEPPER_TOKEN_FD), else PEPPER_TOKEN
    ap.add_argument("--token", default=token or None, required=not token)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--summary", default="")
    a = ap.parse_args()
    counts = {"bytes_in": 0, "batches": 0, "request": 0, "answer_msgs": 0, "bytes_out": 0}

    def write_summary(*_):
        if a.summary:
            Path(a.summary).write_text(json.dumps({"decisions": counts["request"], "counts": counts}))

    signal.signal(signal.SIGTERM, lambda *_: (write_summary(), sys.exit(0)))
    out: queue.Queue = queue.Queue()
    out.put(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
        bot_name=a.name, protocol_version=wire.PROTOCOL_VERSION, token=a.token, max_batch=a.batch)).SerializeToString())

    def requests():
        while (m := out.get()) is not None:
            yield m

    channel = grpc.insecure_channel(a.address, options=[("grpc.max_receive_message_length", 64 << 20)])
    call = channel.stream_stream(CONNECT, request_serializer=None, response_deserializer=None)
    randrange = random.Random(a.seed).randrange
    parse = bot_pb2.ConnectResponse.FromString
    try:
        for raw in call(requests()):
            msg = parse(raw)
            if not msg.HasField("batch"):
                continue
            counts["bytes_in"] += len(raw)
            counts["batches"] += 1
            ab = bot_pb2.AnswerBatch()
            add = ab.answers.add
            for it in msg.batch.items:
                if it.HasField("request"):
                    r = it.request
                    add(request_id=r.request_id, action_index=randrange(len(r.legal_actions)))
            if ab.answers:
                counts["request"] += len(ab.answers)
                data = bot_pb2.ConnectRequest(answers=ab).SerializeToString()
                counts["answer_msgs"] += 1
                counts["bytes_out"] += len(data)
                out.put(data)
    except grpc.RpcError as e:
        print(f"stream ended: {e.code().name}: {e.details()}", file=sys.stderr, flush=True)
    out.put(None)
    write_summary()
    return 0


if __name__ == "__main__":
    sys.exit(main())
