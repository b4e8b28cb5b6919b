"""A Batch is never bigger than the referee's byte cap, so a client with gRPC's usual receive limit reads them all.

The referee used to send everything pending in one message (up to its 32 MiB send limit) while gRPC
clients accept 4 MiB unless they raise it. Here the cap is set to 64 KiB and the bot's channel accepts
no more: 48 games wait for a bot that answers nothing until all are created (a backlog of far more
than 64 KiB of game starts, events and requests), and the games must still all complete.
"""

from __future__ import annotations

import asyncio
import time

import grpc
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc, control_pb2
from referee_harness import Server

from referee.wire import PROTOCOL_VERSION

CAP = 64 * 1024
GAMES = 48


async def _play(address: str, token: str, created: asyncio.Event, sizes: list[int], want: int) -> int:
    async with grpc.aio.insecure_channel(address, options=[("grpc.max_receive_message_length", CAP)]) as ch:
        call = bot_pb2_grpc.BotServiceStub(ch).Connect()
        await call.write(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
            bot_name="big", protocol_version=PROTOCOL_VERSION, token=token, max_batch=256)))
        ended = 0
        while ended < want:
            msg = await call.read()
            assert msg is not grpc.aio.EOF, "the referee ended the stream"
            sizes.append(msg.ByteSize())
            await created.wait()   # answer nothing until every game exists: the backlog grows
            answers = []
            for it in msg.batch.items:
                kind = it.WhichOneof("item")
                if kind == "request":
                    answers.append(bot_pb2.Answer(request_id=it.request.request_id, action_index=0))
                elif kind == "game_end":
                    ended += 1
            if answers:
                await call.write(bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch(answers=answers)))
        call.cancel()
        return ended


def test_batches_fit_the_bots_receive_limit(tmp_path):
    srv = Server(tmp_path, "--max-batch-bytes", str(CAP), bots={"big": "big-token-bytes"})
    try:
        async def main() -> int:
            created, sizes = asyncio.Event(), []
            player = asyncio.create_task(_play(srv.address, "big-token-bytes", created, sizes, GAMES * 4))
            t0 = time.time()
            while not srv.control.ListBots(control_pb2.ListBotsRequest(), metadata=srv.md).bots[0].connections:
                assert time.time() - t0 < 20, "the bot did not connect"
                await asyncio.sleep(0.05)
            reqs = [control_pb2.CreateGameRequest(ruleset="iowa", players=4, seats=["big"] * 4, seed=k) for k in range(GAMES)]
            ids = await asyncio.to_thread(srv.create_many, reqs)
            created.set()
            ended = await asyncio.wait_for(player, 120)
            results = await asyncio.to_thread(srv.wait_games, ids, 60)
            assert all(r.reason for r in results.values())
            assert max(sizes) <= CAP, max(sizes)
            assert sum(sizes) > 4 * CAP, sum(sizes)   # the backlog was much bigger than one message may be
            return ended

        assert asyncio.run(main()) == GAMES * 4
    finally:
        srv.close()
