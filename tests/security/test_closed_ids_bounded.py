"""Case 8: a connection's record of closed request ids (to tell a stale answer from a guessed id) is bounded.
A real referee in this process (so that tracemalloc sees what it holds) and four heuristic bot processes on
127.0.0.1. The old code kept up to 100,000 closed ids per connection in a dict, ~100 bytes a decision of every
game the connection served: memory that grew with every game played, after the game was over."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

from pepper_proto.v1 import control_pb2

from referee.service.config import ServerConfig
from referee.service.server import start

ROOT = Path(__file__).resolve().parents[2]
BOTS = 4


async def _held_per_game(games: int) -> float:
    """Traced bytes the referee still holds per game after ``games`` more games are over (none kept)."""
    srv = await start(ServerConfig(control_token="ctl-token-closed-ids", bot_tokens={"h": "h-token-closed-ids"},
                                   keep_games=0))
    ref = srv.referee
    env = os.environ | {"PEPPER_REFEREE": srv.address, "PEPPER_TOKEN": "h-token-closed-ids", "PEPPER_BOT_NAME": "h"}
    procs = [subprocess.Popen([sys.executable, "-m", "sample_bots", "heuristic", "--seed", str(i)], cwd=ROOT,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(BOTS)]

    async def play(seeds: range) -> None:
        for s in seeds:
            ref.create_game(control_pb2.CreateGameRequest(ruleset="iowa", players=4, seats=["h"] * 4, seed=s))
        while ref.running:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)     # the last GameEnd batches go out

    try:
        for _ in range(400):
            if sum(not c.closed for c in ref.conns.get("h", ())) == BOTS:
                break
            await asyncio.sleep(0.05)
        assert sum(not c.closed for c in ref.conns.get("h", ())) == BOTS, "the heuristic bots did not connect"
        await play(range(10))        # warms every cache that does not grow with the games played
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        await play(range(10, 10 + games))
        gc.collect()
        return (tracemalloc.get_traced_memory()[0] - before) / games
    finally:
        await srv.shutdown(1.0)
        for p in procs:
            p.wait(timeout=30)


def test_closed_request_ids_do_not_accumulate_with_games_played():
    tracemalloc.start(1)
    try:
        held = asyncio.run(_held_per_game(40))
    finally:
        tracemalloc.stop()
    # an iowa game asks ~160 decisions: the old dict held ~16 KB per game here, for good
    assert held < 2048, f"the referee still holds {held:.0f} bytes per finished game (none kept)"
