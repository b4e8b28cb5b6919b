"""Case 8: a connection's record of closed request ids (to tell a stale answer from a guessed id) is bounded.
A real referee in this process (so that tracemalloc sees what it holds) and four heuristic bot processes on
127.0.0.1. The old code kept up to 100,000 closed ids per connection in a dict, ~100 bytes a decision of every
game the connection served: memory that grew with every game played, after the game was over."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc

from inprocess_referee import heuristic_referee
from pepper_proto.v1 import control_pb2


async def _held_per_game(games: int) -> float:
    """Traced bytes the referee still holds per game after ``games`` more games are over (none kept)."""
    async def play(seeds: range) -> None:
        for s in seeds:
            ref.create_game(control_pb2.CreateGameRequest(ruleset="iowa", players=4, seats=["h"] * 4, seed=s))
        while ref.running:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)     # the last GameEnd batches go out

    async with heuristic_referee("closed-ids") as ref:
        await play(range(10))        # warms every cache that does not grow with the games played
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        await play(range(10, 10 + games))
        gc.collect()
        return (tracemalloc.get_traced_memory()[0] - before) / games


def test_closed_request_ids_do_not_accumulate_with_games_played():
    tracemalloc.start(1)
    try:
        held = asyncio.run(_held_per_game(40))
    finally:
        tracemalloc.stop()
    # an iowa game asks ~160 decisions: the old dict held ~16 KB per game here, for good
    assert held < 2048, f"the referee still holds {held:.0f} bytes per finished game (none kept)"
