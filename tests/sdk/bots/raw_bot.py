"""A pepper.v1 bot written without the SDK (only the generated protocol code), for the checker tests.

    python raw_bot.py MODE [--after N]      # reads $PEPPER_REFEREE, its token (launch_token), $PEPPER_BOT_NAME

MODE: ``ok`` answers the first legal action; from decision N on (default 20)
``illegal`` answers a well-formed action that is not legal, ``crash`` exits
with code 3, ``hang`` stops answering (the stream stays open), ``slow-once``
sleeps ``--sleep`` seconds before answering decision N, then answers every
later one at once.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import time

import grpc
from pepper_bot.runner import launch_token
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc

CARDS = [r + s for s in "SHDC" for r in ("9", "10", "J", "Q", "K", "A")]


def illegal(legal: list[str]) -> str:
    verb = legal[0].split()[0]
    if verb in ("play", "discard", "give"):
        return next(f"{verb} {c}" for c in CARDS if f"{verb} {c}" not in legal)
    if verb in ("bid", "pass"):
        return "bid 13"
    return "play 9S" if "play 9S" not in legal else "discard 9S"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["ok", "illegal", "crash", "hang", "slow-once"])
    ap.add_argument("--after", type=int, default=20)
    ap.add_argument("--sleep", type=float, default=1.5)
    a = ap.parse_args()
    out: queue.SimpleQueue = queue.SimpleQueue()

    def requests():
        yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
            bot_name=os.environ["PEPPER_BOT_NAME"], protocol_version="1.0", token=launch_token()))
        while True:
            m = out.get()
            if m is None:
                return
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
            legal = list(r.legal_actions)
            n += 1
            if a.mode == "slow-once" and n == a.after:
                print("raw_bot: slow once on purpose", file=sys.stderr, flush=True)
                time.sleep(a.sleep)
            bad = n >= a.after and a.mode not in ("ok", "slow-once")
            if bad and a.mode == "crash":
                print("raw_bot: crashing on purpose", file=sys.stderr, flush=True)
                os._exit(3)
            if bad and a.mode == "hang":
                print("raw_bot: hanging on purpose", file=sys.stderr, flush=True)
                while True:
                    time.sleep(3600)
            answers.append(bot_pb2.Answer(request_id=r.request_id, action=illegal(legal) if bad else legal[0]))
        if answers:
            out.put(bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch(answers=answers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
