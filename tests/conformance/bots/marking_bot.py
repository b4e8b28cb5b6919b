"""A pepper.v1 bot without the SDK that says when its strategy failed, as a bot in any language would.

    python marking_bot.py [--every N]      # reads $PEPPER_REFEREE, its token (launch_token), $PEPPER_BOT_NAME

It answers the first legal action; every Nth answer (default 7) is marked as a
fallback (``Answer.fallback``, protocol 1.2) with a detail. It writes nothing
to its output, so the checker can only learn of the fallbacks from the referee.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys

import grpc
from pepper_bot.runner import launch_token
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc

DETAIL = "strategy.js threw TypeError: hand is undefined"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=7)
    every = ap.parse_args().every
    out: queue.SimpleQueue = queue.SimpleQueue()

    def requests():
        yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
            bot_name=os.environ["PEPPER_BOT_NAME"], protocol_version="1.2", token=launch_token()))
        while (m := out.get()) is not None:
            yield m

    n = 0
    channel = grpc.insecure_channel(os.environ["PEPPER_REFEREE"])
    for resp in bot_pb2_grpc.BotServiceStub(channel).Connect(requests()):
        if resp.WhichOneof("message") != "batch":
            continue
        answers = []
        for it in resp.batch.items:
            if it.WhichOneof("item") != "request":
                continue
            r = it.request
            n += 1
            a = bot_pb2.Answer(request_id=r.request_id, action=r.legal_actions[0])
            if n % every == 0:
                a.fallback, a.fallback_detail = bot_pb2.STRATEGY_FALLBACK_RAISED, DETAIL
            answers.append(a)
        if answers:
            out.put(bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch(answers=answers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
