"""Serve a configured referee until SIGTERM or SIGINT: what ``pepper referee serve`` (pepper_cli.referee) runs.

The first line on stdout is ``listening on HOST:PORT`` (with the real port when the address asks for port 0), so
scripts and tests can start it and read where it is. SIGTERM or SIGINT drains: running games get ``drain_timeout``
seconds to finish, the rest are aborted and recorded (in the record directory; without one, in memory only, so
lost at exit: a note on stderr says so), then the server stops.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import sys

from .config import ServerConfig

__all__ = ["GC_THRESHOLDS", "serve"]

GC_THRESHOLDS = (10_000, 10, 10)   # the referee's gc.set_threshold (see _serve)


def serve(cfg: ServerConfig, drain_timeout: float, show_token: bool = False) -> None:
    """Run the referee ``cfg`` describes until SIGTERM/SIGINT, then drain. ``show_token``: print the control
    token on stderr (one the referee made up, which its operator has no other way to learn)."""
    asyncio.run(_serve(cfg, drain_timeout, show_token))


async def _serve(cfg: ServerConfig, drain_timeout: float, show_token: bool) -> None:
    from .server import start

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        srv = await start(cfg)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    # The cyclic GC: what the server set up at start lives as long as it (frozen: never walked again), and the
    # young generation is collected every 10,000 container allocations rather than 700 (a decision makes a few
    # dozen; the game state is mostly untracked tuples, and few cycles form): ~0.3 us of CPU less a decision
    # (docs/performance.md).
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    print(f"listening on {srv.address}", flush=True)
    if show_token:
        print(f"control token: {cfg.control_token}", file=sys.stderr, flush=True)
    if not cfg.record_dir:
        print("note: no --record-dir: results are kept in memory only; games aborted at shutdown (and every other "
              "result) are lost when the server exits", file=sys.stderr, flush=True)
    await stop.wait()
    finished, aborted = await srv.shutdown(drain_timeout)
    print(f"stopped: {finished} games finished while draining, {aborted} aborted", file=sys.stderr, flush=True)
