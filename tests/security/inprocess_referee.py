"""A real referee in this process (so that tracemalloc sees what it holds) with heuristic bot processes connected
on 127.0.0.1, for the memory tests."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from referee.service.config import ServerConfig
from referee.service.server import start

ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def heuristic_referee(name: str, bots: int = 4) -> AsyncIterator:
    """The referee (``srv.referee``) once ``bots`` heuristic processes, registered as "h", are connected; keeps
    no finished game. ``name`` makes its tokens its own."""
    srv = await start(ServerConfig(control_token=f"ctl-token-{name}", bot_tokens={"h": f"h-token-{name}"}, keep_games=0))
    ref = srv.referee
    env = os.environ | {"PEPPER_REFEREE": srv.address, "PEPPER_TOKEN": f"h-token-{name}", "PEPPER_BOT_NAME": "h"}
    procs = [subprocess.Popen([sys.executable, "-m", "sample_bots", "heuristic", "--seed", str(i)], cwd=ROOT,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(bots)]
    try:
        for _ in range(400):
            if sum(not c.closed for c in ref.conns.get("h", ())) == bots:
                break
            await asyncio.sleep(0.05)
        assert sum(not c.closed for c in ref.conns.get("h", ())) == bots, "the heuristic bots did not connect"
        yield ref
    finally:
        await srv.shutdown(1.0)
        for p in procs:
            p.wait(timeout=30)
