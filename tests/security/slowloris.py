"""An attacker that holds Connect streams open without ever saying Hello, re-opening each one the referee ends.

    python tests/security/slowloris.py TARGET STREAMS SECONDS [CHANNELS]

Keeps STREAMS streams open to TARGET (a gRPC target: 127.0.0.1:PORT, ipv6:[::1]:PORT) over CHANNELS HTTP/2
connections for SECONDS, then prints one JSON line: the streams opened in all, and how many ended with each
status code (what the referee did about them).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter

import grpc
from pepper_proto.v1 import bot_pb2_grpc


async def attack(target: str, streams: int, seconds: float, channels: int) -> dict:
    chans = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(channels)]
    end = time.monotonic() + seconds
    opened, ended = 0, Counter()

    async def hold(i: int) -> None:
        nonlocal opened
        while time.monotonic() < end:
            call = bot_pb2_grpc.BotServiceStub(chans[i % channels]).Connect()
            opened += 1
            try:
                code = await asyncio.wait_for(call.code(), max(0.01, end - time.monotonic()))
                ended[code.name] += 1
            except TimeoutError:
                call.cancel()
                return
            await asyncio.sleep(0.01)   # re-open at once, as the attack does

    try:
        await asyncio.gather(*(hold(i) for i in range(streams)))
    finally:
        for c in chans:
            await c.close(None)
    return {"opened": opened, "ended": dict(ended)}


if __name__ == "__main__":
    target, n, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    print(json.dumps(asyncio.run(attack(target, n, secs, int(sys.argv[4]) if len(sys.argv) > 4 else 8))), flush=True)
