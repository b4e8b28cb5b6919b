"""A bot registered with max_connections (protocol 1.7; the arena sets it to the processes it starts) holds at
most that many Connect streams: a second holder of its token is refused, not seated, and the bot's own process
reconnects once a slot is free. A real referee process, real streams on loopback."""

from __future__ import annotations

import asyncio

import grpc
from hygiene_harness import RefereeProc, hello, open_said_hello
from pepper_proto.v1 import control_pb2

TOKEN = "capped-bot-token-0123"


def test_a_bot_holds_at_most_the_connections_it_was_registered_for(tmp_path):
    ref = RefereeProc(tmp_path, {})
    try:
        ref.control.RegisterBot(control_pb2.RegisterBotRequest(name="b", token=TOKEN, max_connections=2),
                                metadata=ref.md, timeout=10)

        async def scenario() -> tuple[grpc.aio.AioRpcError | None, str]:
            held = [await open_said_hello(ref.address, "b", TOKEN) for _ in range(2)]
            refused = None
            try:
                await hello(ref.address, "b", TOKEN)
            except grpc.aio.AioRpcError as e:
                refused = e
            await held[0][0].close(None)   # one of its processes goes: the slot is free again
            for _ in range(50):
                try:
                    again = (await hello(ref.address, "b", TOKEN)).WhichOneof("message")
                    break
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.1)   # the closed stream is noticed a moment later
            await held[1][0].close(None)
            return refused, again

        refused, again = asyncio.run(scenario())
        assert refused is not None and refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, refused
        assert "bot 'b' already has 2 connection(s), the most it was registered for" in refused.details()
        assert again == "welcome"
        # Registered again without a limit (0): no cap.
        ref.control.RegisterBot(control_pb2.RegisterBotRequest(name="b", token=TOKEN), metadata=ref.md, timeout=10)

        async def many() -> int:
            held = [await open_said_hello(ref.address, "b", TOKEN) for _ in range(5)]
            for ch, _ in held:
                await ch.close(None)
            return len(held)

        assert asyncio.run(many()) == 5
    finally:
        ref.close()
