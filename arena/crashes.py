"""The crash policy (docs/arena.md, "Crashes"): which disconnects a crash of a bot's process caused, the deck a lost
game is replayed on, and when a crash is stored and announced. The fleet (:mod:`arena.fleet`) applies it."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Iterable, Mapping

from pepper_proto.v1 import control_pb2

from .processes import BotProcesses, Crash

# A game in flight on a command bot's process that dies is played again from its start on a fresh deck
# (replay_seed), at most MAX_REPLAYS times: then its forfeit stands.
MAX_REPLAYS = 2
# A bot whose processes die with games in flight more than this many times in one run is withdrawn from it, so its
# games are not replayed forever, however long each process lived. (A process that dies on start has nothing in
# flight: the restart budget of BotProcesses and the bot's down time limit deal with it.)
MAX_CRASHES = 5
# A disconnect is put down to a process death the arena noticed from this long before the game was created
# (the referee may seat a connection whose process just died) to this long after the game ended.
CRASH_GRACE_S = 2.0
# A launched bot whose every connection (of the identity a game needs, on its shard) timed out and has answered
# nothing since for this long is stuck (spinning, deadlocked, stopped): its processes are killed and restarted, one
# crash each, rather than left to hold the bot's games for the referee's keepalive window (30 s by default) again
# and again. A bot that is only slow answers its next request once it is done thinking.
STUCK_S = 5.0
# A crash is stored once the games in flight on its process have come back (they end within milliseconds of it).
CRASH_SETTLE_S = 3.0


def replay_seed(seed: int, attempt: int) -> int:
    """The deck seed of a game's ``attempt``-th replay after a crash: a fresh deck (the same one would let a bot
    that saved what it saw replay knowing the deal), derived from the planned seed like the plan's own seeds."""
    return random.Random(f"{seed}/replay/{attempt}").randrange(1 << 31)


async def crash_of(launched: Mapping[str, BotProcesses], res: control_pb2.GameResult, seats: list[str],
                   created: float, shard: int = 0, lane: int = 0) -> Crash | None:
    """The crash of a command bot's process (of ``launched``) on ``shard`` and ``lane`` (the identity of its bot that
    the game seated, :mod:`arena.twins`) that made a game there end with a disconnect, or None (no disconnect, a
    remote bot's, or a command bot's whose processes all lived: those stand). A process's sockets close as it exits,
    so its death may be noticed a moment after the referee reports the disconnect: waited for."""
    gone = [launched[seats[s]] for s, r in enumerate(res.seats) if r.faults.disconnect and seats[s] in launched]
    deadline = time.monotonic() + CRASH_GRACE_S
    while gone:
        for p in gone:
            p.notice_crashes()
            at = (shard, lane % p.lanes)
            if crash := next((c for c in p.crashes if (c.shard, c.lane) == at and c.at >= created - CRASH_GRACE_S), None):
                return crash
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    return None


def record_crashes(procs: Iterable[BotProcesses], record: Callable[[Crash], None], notify: Callable[[str], None], *,
                   settled: bool) -> None:
    """``record`` each crash once and announce it (``settled``: only those whose games in flight have come back)."""
    now = time.monotonic()
    for p in procs:
        for c in p.crashes:
            if not c.recorded and (not settled or now - c.at > CRASH_SETTLE_S):
                record(c)
                c.recorded = True
                costly = [k for k in p.crashes if k.cost_games]
                count = (f"crash {costly.index(c) + 1} with games in flight, of the {MAX_CRASHES} a bot may have in "
                         "a run" if c in costly else "no game in flight on it: not counted")
                lost = f", {c.games_forfeited} lost (replayed {MAX_REPLAYS} times already)" if c.games_forfeited else ""
                what = (f"a stuck process was killed and restarted (it answered nothing for {STUCK_S:.0f}s after a "
                        "request timed out" if c.stuck else f"a process crashed (exit code {c.exit_code}")
                notify(f"bot {c.bot!r}: {what}, {count}); {c.games_replayed} "
                       f"game(s) in flight on it replayed from their start{lost}; its log: {p.log_path}")


__all__ = ["CRASH_GRACE_S", "CRASH_SETTLE_S", "MAX_CRASHES", "MAX_REPLAYS", "STUCK_S", "crash_of", "record_crashes", "replay_seed"]
