"""A connection's writer is woken exactly when it has something to send (Connection.push, push_request, rearm).

The real Referee and its connections, in process without gRPC: a writer that, like server.py's, only takes a
batch when its connection's ``wake`` is set must carry every game to its end. A push to an outbox that already
holds something does not wake the writer; rearm() does when the last request in flight is closed.
"""

from __future__ import annotations

import asyncio
import json
import random

from pepper_proto.v1 import bot_pb2, control_pb2

from referee.service.config import ServerConfig
from referee.service.referee import Referee


def test_writers_woken_only_by_wake_finish_every_game():
    async def run() -> tuple[int, int]:
        ref = Referee(ServerConfig(address="127.0.0.1:0", control_token="wake-control-token-0123",
                                   bot_tokens={"a": "a", "b": "b"}))
        conns = [ref.connect(n, 8) for n in "abab"]
        for seed in range(12):
            ref.create_game(control_pb2.CreateGameRequest(
                ruleset_json=json.dumps({"extends": "iowa", "deal_cap": 2}), players=4, seats=list("abab"), seed=seed))
        loop, rng, answered, stalls = asyncio.get_running_loop(), random.Random(3), 0, 0
        while ref.running:
            moved = False
            for c in conns:
                if c.wake.is_set():             # the writer's loop: wait, clear, take a batch
                    c.wake.clear()
                    c.take_batch(loop.time())
                if c.in_flight:                 # the bot answers all but (now and then) the last request
                    ps = list(c.in_flight.items())
                    if len(ps) > 1 and rng.random() < 0.5:
                        ps = ps[:-1]
                    ref.on_answers(c, [bot_pb2.Answer(request_id=rid, action_index=rng.randrange(len(p.legal)))
                                       for rid, p in ps])
                    answered += len(ps)
                    moved = True
            stalls = 0 if moved or any(c.wake.is_set() for c in conns) else stalls + 1
            assert stalls < 2, "a connection has something to send but its writer was never woken"
        return answered, sum(1 for g in ref.games.values() if g.status.name == "COMPLETED")

    answered, completed = asyncio.run(run())
    assert completed == 12 and answered > 12 * 20
