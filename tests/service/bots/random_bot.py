"""A pepper.v1 test bot: plays uniformly random legal actions, or misbehaves on purpose.

    python tests/service/bots/random_bot.py --address 127.0.0.1:PORT --name alice --token T

It opens one Connect stream, says Hello, and answers every request of every
Batch in one AnswerBatch. It depends only on the generated protocol code
(pepper_proto), not on the rules engine: like any bot, it knows only what the
referee sends it.

Misbehaviour (``--mode``), for decisions number ``--after`` .. ``--after + --count - 1``
(``--count 0``: every decision from ``--after`` on):

    illegal     answer a well-formed action that is not legal
    malformed   answer text that is not an action
    bad-index   answer an action_index past the end of the legal list
    sleep       sleep --sleep-s before answering the batch
    hang        never answer (keep the stream open)
    crash       exit abruptly (os._exit) instead of answering
    unknown     also answer a request id that was never issued
    guess       also answer neighbouring request ids (other connections' seats)
    wrong-game  first answer naming another game (rejected), then the real answer
    stale       answer, then send that answer twice more with the next AnswerBatch (closed ids)

``--live-events`` sets Hello.live_events (protocol 1.6). ``--record FILE`` appends every message received (4-byte big-endian length +
serialized ConnectResponse) for audits; ``--summary FILE`` writes JSON counts at exit.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import signal
import struct
import sys
import threading
import time
from pathlib import Path

import grpc
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc

CARDS = [r + s for s in "SHDC" for r in ("9", "10", "J", "Q", "K", "A")]


def illegal_action(legal: list[str], rng: random.Random) -> str:
    verb = legal[0].split()[0]
    if verb in ("play", "discard", "give"):
        options = [f"{verb} {c}" for c in CARDS if f"{verb} {c}" not in legal]
        if options:
            return rng.choice(options)
    if verb in ("bid", "pass"):
        return "bid 13"
    # trump / exchange / cede lists hold every action of their kind: answer another kind.
    return "play 9S" if "play 9S" not in legal else "discard 9S"


class Bot:
    def __init__(self, a: argparse.Namespace):
        self.a = a
        self.rng = random.Random(a.seed)
        self.decisions = 0
        self.counts: dict[str, int] = {}
        self.notices: dict[str, int] = {}
        self.game_ends: dict[str, int] = {}
        self.games: set[str] = set()
        self.out: queue.Queue = queue.Queue()
        self.record = open(a.record, "ab") if a.record else None
        self.lock = threading.Lock()
        self.repeat: list = []          # --mode stale: answers to send again with the next AnswerBatch

    def count(self, key: str, d: dict | None = None) -> None:
        d = self.counts if d is None else d
        d[key] = d.get(key, 0) + 1

    def misbehaving(self) -> bool:
        a = self.a
        n = self.decisions
        return a.mode != "ok" and n >= a.after and (a.count == 0 or n < a.after + a.count)

    def requests(self):
        a = self.a
        yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(bot_name=a.name, protocol_version=a.protocol, token=a.token,
                                                         max_batch=a.batch, live_events=a.live_events))
        while True:
            m = self.out.get()
            if m is None:
                return
            yield m

    def answer(self, batch: bot_pb2.Batch) -> None:
        answers = []
        mode = self.a.mode
        own = {it.request.request_id for it in batch.items if it.WhichOneof("item") == "request"}
        delay = 0.0
        repeats, self.repeat = self.repeat, []
        self.count("batches")
        for it in batch.items:
            kind = it.WhichOneof("item")
            self.count(kind)
            if kind == "notice":
                self.count(bot_pb2.NoticeCode.Name(it.notice.code), self.notices)
                continue
            if kind == "game_start":
                self.games.add(it.game_start.game_id)
                continue
            if kind == "game_end":
                from pepper_proto.v1 import game_pb2
                self.count(game_pb2.GameStatus.Name(it.game_end.status), self.game_ends)
                continue
            if kind != "request":
                continue
            r = it.request
            legal = list(r.legal_actions)
            bad = self.misbehaving()
            self.decisions += 1
            if not bad:
                answers.append(bot_pb2.Answer(request_id=r.request_id, action_index=self.rng.randrange(len(legal)))
                               if self.rng.random() < 0.5 else
                               bot_pb2.Answer(request_id=r.request_id, action=self.rng.choice(legal)))
                continue
            self.count("misbehaved")
            if mode == "illegal":
                answers.append(bot_pb2.Answer(request_id=r.request_id, action=illegal_action(legal, self.rng)))
            elif mode == "malformed":
                answers.append(bot_pb2.Answer(request_id=r.request_id, action="flibbertigibbet 7"))
            elif mode == "bad-index":
                answers.append(bot_pb2.Answer(request_id=r.request_id, action_index=len(legal) + 3))
            elif mode == "sleep":
                delay = self.a.sleep_s
                answers.append(bot_pb2.Answer(request_id=r.request_id, action=self.rng.choice(legal)))
            elif mode == "hang":
                pass
            elif mode == "crash":
                self.write_summary()
                os._exit(3)
            elif mode == "unknown":
                answers.append(bot_pb2.Answer(request_id=r.request_id + 10**12, action=legal[0]))
                answers.append(bot_pb2.Answer(request_id=r.request_id, action=self.rng.choice(legal)))
            elif mode == "guess":
                for d in (-3, -2, -1, 1, 2, 3):
                    if r.request_id + d > 0 and r.request_id + d not in own:
                        answers.append(bot_pb2.Answer(request_id=r.request_id + d, action=legal[0]))
                        answers.append(bot_pb2.Answer(request_id=r.request_id + d, action_index=0))
                answers.append(bot_pb2.Answer(request_id=r.request_id, action=self.rng.choice(legal)))
            elif mode == "wrong-game":
                answers.append(bot_pb2.Answer(request_id=r.request_id, action=legal[0], game_id=r.game_id + "-other"))
                answers.append(bot_pb2.Answer(request_id=r.request_id, action=self.rng.choice(legal), game_id=r.game_id))
            elif mode == "stale":
                answers.append(bot_pb2.Answer(request_id=r.request_id, action=self.rng.choice(legal)))
                self.repeat.append(answers[-1])
            else:
                raise SystemExit(f"unknown mode {mode}")
        if repeats:
            answers = repeats + repeats + answers
        if delay:
            time.sleep(delay)
        if answers:
            m = bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch(answers=answers))
            self.counts["answer_msgs"] = self.counts.get("answer_msgs", 0) + 1
            self.counts["bytes_out"] = self.counts.get("bytes_out", 0) + m.ByteSize()
            self.out.put(m)

    def run(self) -> int:
        a = self.a
        opts = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        if a.tls_ca:
            creds = grpc.ssl_channel_credentials(root_certificates=Path(a.tls_ca).read_bytes())
            channel = grpc.secure_channel(a.address, creds, options=opts + [("grpc.ssl_target_name_override", "localhost")])
        else:
            channel = grpc.insecure_channel(a.address, options=opts)
        stub = bot_pb2_grpc.BotServiceStub(channel)
        code = 0
        try:
            for resp in stub.Connect(self.requests()):
                size = resp.ByteSize()
                self.counts["bytes_in"] = self.counts.get("bytes_in", 0) + size
                if self.record is not None:
                    data = resp.SerializeToString()
                    self.record.write(struct.pack(">I", len(data)) + data)
                which = resp.WhichOneof("message")
                if which == "welcome":
                    self.counts["welcome"] = 1
                    print(f"connected {resp.welcome.connection_id} batch {resp.welcome.max_batch}", flush=True)
                elif which == "batch":
                    self.answer(resp.batch)
        except grpc.RpcError as e:
            print(f"stream ended: {e.code().name}: {e.details()}", file=sys.stderr, flush=True)
            self.counts["rpc_error"] = 1
            self.counts["rpc_error_" + e.code().name] = 1
            code = 1
        self.out.put(None)
        self.write_summary()
        return code

    def write_summary(self) -> None:
        if self.record is not None:
            self.record.flush()
        if self.a.summary:
            Path(self.a.summary).write_text(json.dumps({
                "decisions": self.decisions, "counts": self.counts, "notices": self.notices,
                "game_ends": self.game_ends, "games": len(self.games)}))


def main() -> int:
    ap = argparse.ArgumentParser(description="pepper.v1 random test bot")
    ap.add_argument("--address", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--protocol", default="1.0")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", default="ok", choices=["ok", "illegal", "malformed", "bad-index", "sleep", "hang", "crash",
                                                     "unknown", "guess", "wrong-game", "stale"])
    ap.add_argument("--after", type=int, default=0)
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--sleep-s", type=float, default=1.0)
    ap.add_argument("--tls-ca", default="")
    ap.add_argument("--record", default="")
    ap.add_argument("--live-events", action="store_true", help="ask for every event as it happens (Hello.live_events)")
    ap.add_argument("--summary", default="")
    a = ap.parse_args()
    bot = Bot(a)

    def on_term(signum, frame):
        bot.write_summary()
        os._exit(0)

    signal.signal(signal.SIGTERM, on_term)
    return bot.run()


if __name__ == "__main__":
    sys.exit(main())
