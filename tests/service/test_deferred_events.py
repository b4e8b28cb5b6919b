"""Events wait for the next Batch that carries something else (referee.service.connections; protocol 1.6).

A game event no longer goes out in a message of its own: it rides with the connection's next request, game start,
game end or notice, unless the bot's Hello asked for ``live_events``. The bot must still get the same items in the
same order, and every event in the end.

In process (the real Referee and its connections, without gRPC): the same games played with deferred and with live
events give every connection the same items per game in the same order, in fewer Batches, none of them events
only. Over gRPC (a real server and recording bot processes): no Batch a default bot receives holds events only,
while a bot that sets ``live_events`` gets events on their own.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict

from pepper_proto.v1 import bot_pb2, control_pb2, game_pb2
from referee_harness import Server
from test_audit import read_record

from referee.service.config import ServerConfig
from referee.service.referee import Referee

URGENT = {"request", "game_start", "game_end", "notice"}   # what may carry events with it


def _game_of(item) -> str:
    return getattr(item, item.WhichOneof("item")).game_id


def _play(live: bool, games: int = 12) -> tuple[dict, list[list[str]]]:
    """Play ``games`` 2-deal iowa games on 4 connections answering at once: the items each connection got, per game
    (in creation order) and normalized (no request id, no time bank: those depend on timing), and each Batch's
    item kinds."""
    async def run():
        ref = Referee(ServerConfig(address="127.0.0.1:0", control_token="deferred-events-token-0123",
                                   bot_tokens={"a": "a", "b": "b"}))
        conns = [ref.connect(n, 8, live) for n in "abab"]
        order = {}
        for seed in range(games):
            gid = ref.create_game(control_pb2.CreateGameRequest(
                ruleset_json=json.dumps({"extends": "iowa", "deal_cap": 2}), players=4, seats=list("abab"),
                seed=seed)).id
            order[gid] = seed
        loop = asyncio.get_running_loop()
        items: dict = defaultdict(list)
        kinds: list[list[str]] = []
        def write(k, c):   # the writer's loop (server.py): wait, clear, take a batch
            c.wake.clear()
            raw = c.take_batch(loop.time())
            if raw is not None:
                batch = bot_pb2.ConnectResponse.FromString(raw).batch
                kinds.append([it.WhichOneof("item") for it in batch.items])
                for it in batch.items:
                    if it.HasField("request"):
                        it.request.request_id = 0
                        it.request.time_bank_ms = 0
                    items[k, order[_game_of(it)]].append(it.SerializeToString())

        while ref.running:
            for k, c in enumerate(conns):
                if c.wake.is_set():
                    write(k, c)
                if c.in_flight:
                    # A choice that depends only on the game's state, so that both runs play the same games.
                    ref.on_answers(c, [bot_pb2.Answer(request_id=rid, action_index=len(p.run.game.history) % len(p.legal))
                                       for rid, p in c.in_flight.items()])
        for k, c in enumerate(conns):   # the last game ends, then nothing is left
            if c.wake.is_set():
                write(k, c)
            assert not c.outbox and not c.wake.is_set()
        return items, kinds

    return asyncio.run(run())


def test_deferred_events_reach_the_seat_in_the_same_order_in_fewer_batches():
    deferred, dkinds = _play(live=False)
    live, lkinds = _play(live=True)
    assert deferred.keys() == live.keys() and len(deferred) == 4 * 12
    for key in live:
        assert deferred[key] == live[key], f"connection {key[0]}, game {key[1]}: other items or another order"
    assert sum(len(v) for v in live.values()) > 12 * 4 * 50          # the games were played: many events each
    assert not [k for k in dkinds if not URGENT & set(k)], "a Batch held events only"
    # With one game in flight a connection is mostly idle when an event comes: live, most events went alone.
    one, live_one = len(_play(live=False, games=1)[1]), len(_play(live=True, games=1)[1])
    assert one < 0.8 * live_one, (one, live_one)


def test_over_grpc_only_a_live_events_bot_gets_batches_of_events_only(tmp_path):
    names = ["d0", "d1", "d2", "live"]
    s = Server(tmp_path, bots={n: f"{n}-token-deferred" for n in names})
    try:
        bots = {n: s.bot(n, *(["--live-events"] if n == "live" else []), record=True) for n in names}
        ids = s.create_many([control_pb2.CreateGameRequest(ruleset_json=json.dumps({"extends": "iowa", "deal_cap": 2}),
                                                           players=4, seats=names, seed=k) for k in range(6)])
        results = s.wait_games(ids)
        assert all(r.status == game_pb2.GAME_STATUS_COMPLETED for r in results.values())
        for b in bots.values():
            b.stop()
    finally:
        s.close()
    only_events = {}
    for n, b in bots.items():
        batches = [m.batch for m in read_record(b.record) if m.WhichOneof("message") == "batch"]
        assert sum(1 for bt in batches for it in bt.items if it.HasField("event")) > 6 * 20, n
        only_events[n] = sum(1 for bt in batches if not URGENT & {it.WhichOneof("item") for it in bt.items})
    assert only_events["d0"] == only_events["d1"] == only_events["d2"] == 0, only_events
    assert only_events["live"] > 0, only_events
