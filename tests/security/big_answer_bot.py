"""An attacking bot (the generated protocol code only): its first answers are huge malformed texts.

    python big_answer_bot.py [ADDRESS NAME TOKEN] BIG SIZE

The first BIG answers are an action text of SIZE characters ("x" * SIZE), one answer per message; every other
answer is the first legal action. Reads nothing else and never reconnects. Without ADDRESS NAME TOKEN it takes
them from the environment the arena gives a command bot (PEPPER_REFEREE, PEPPER_BOT_NAME, the token on the pipe PEPPER_TOKEN_FD names).
"""

from __future__ import annotations

import os
import queue
import sys

import grpc
from pepper_bot.runner import launch_token
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc


def main() -> int:
    args = sys.argv[1:]
    if len(args) == 2:
        args = [os.environ["PEPPER_REFEREE"], os.environ["PEPPER_BOT_NAME"], launch_token(), *args]
    address, name, token, big, size = args[0], args[1], args[2], int(args[3]), int(args[4])
    out: queue.SimpleQueue = queue.SimpleQueue()

    def requests():
        yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(bot_name=name, protocol_version="1.0", token=token))
        while (m := out.get()) is not None:
            yield m

    sent = 0
    channel = grpc.insecure_channel(address, options=[("grpc.max_send_message_length", 64 << 20)])
    try:
        for resp in bot_pb2_grpc.BotServiceStub(channel).Connect(requests()):
            if resp.WhichOneof("message") != "batch":
                continue
            for it in resp.batch.items:
                if it.WhichOneof("item") != "request":
                    continue
                r = it.request
                text = "x" * size if sent < big else r.legal_actions[0]
                sent += 1
                out.put(bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch(answers=[
                    bot_pb2.Answer(request_id=r.request_id, action=text)])))
    except grpc.RpcError as e:
        print(f"big_answer_bot: stream ended: {e.code().name}: {e.details()}", file=sys.stderr, flush=True)
        return 1
    finally:
        out.put(None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
