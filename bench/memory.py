"""Referee memory: bytes per game in flight and per finished game kept, with the heuristic bots.

    python bench/memory.py [--games 400] [--bots 4] [--keep 5000] [--top 0] [--results PATH | --no-write]

The referee runs in this process (so that tracemalloc sees every allocation it makes); ``--bots`` processes
of the heuristic sample bot (``python -m sample_bots heuristic``, one seat per connection) play ``--games``
iowa games at once. Figures (tracemalloc's traced bytes, over what the referee held with its bots connected
and no game):

- in flight (peak): the most the referee held per running game while all ``--games`` were running, sampled
  every 0.2 s: live state plus whatever garbage the allocator had not got back yet (message bytes, cycles
  awaiting a gc pass). The target of docs/security.md, "8." is judged on this figure;
- in flight, live: what it held per running game right after a ``gc.collect()`` at the end of that window (when
  the first game ends; the one collection of the run, so it does not lower the peak), split into the rules
  engine's share (each running game's ``Game`` rebuilt from its seed and history, measured alone) and the rest
  (the service: seats, requests, the encoder's caches, connections' queues);
- finished, kept: what it holds per finished game once every game is over (``--keep`` of them kept);
- baseline: the rules engine alone (a bare ``referee.rules.Game`` played to its end with the same seeds), per
  game, measured in the same run: the ratios say what the referee holds beyond the engine's own state, and
  do not depend on the machine.

``--top N`` lists the N source lines that hold the most of the in-flight memory, at the peak and live (where to
look to reduce it). The figures also go to docs/results/memory.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import results  # noqa: E402

TOKEN = "bench-memory-token"


def engine_baseline(games: int) -> float:
    """Traced bytes per bare engine Game played to its end (first legal action each decision)."""
    from referee.rules import Game, get_ruleset

    rs = get_ruleset("iowa")
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    kept = []
    for seed in range(games):
        g = Game(rs, 4, seed=seed)
        while not g.is_over:
            g.apply(g.legal_action_ids()[0])
        kept.append(g)
    gc.collect()
    per = (tracemalloc.get_traced_memory()[0] - before) / games
    del kept
    return per


def engine_share(runs) -> float:
    """Traced bytes per game of the running games' engine state: each ``Game`` rebuilt from its seed and history
    (the same applies, so the same lists and tuples) and measured alone."""
    from referee.rules import Game

    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    kept = []
    for r in runs:
        g = Game(r.game.ruleset, r.game.players, seed=r.seed)
        for a in r.game.history:
            g.apply(a)
        kept.append(g)
    gc.collect()
    per = (tracemalloc.get_traced_memory()[0] - before) / max(len(runs), 1)
    del kept
    return per


async def referee_run(games: int, bots: int, keep: int, top: int) -> dict:
    from pepper_proto.v1 import control_pb2

    from referee.service.config import ServerConfig
    from referee.service.server import start

    srv = await start(ServerConfig(control_token=TOKEN, bot_tokens={"h": "heuristic-token"}, keep_games=keep))
    ref = srv.referee
    env = os.environ | {"PEPPER_REFEREE": srv.address, "PEPPER_TOKEN": "heuristic-token", "PEPPER_BOT_NAME": "h"}
    procs = [subprocess.Popen([sys.executable, "-m", "sample_bots", "heuristic", "--seed", str(i)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(bots)]
    try:
        while sum(not c.closed for c in ref.conns.get("h", ())) < bots:
            await asyncio.sleep(0.05)
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        snap0 = tracemalloc.take_snapshot() if top else None
        live: dict = {}
        finished_cb = ref._finished

        def first_finished(run) -> None:
            # The end of the all-in-flight window: the one gc.collect() of the run, then the engine's share.
            if not live:
                gc.collect()
                live["used"] = tracemalloc.get_traced_memory()[0] - base
                live["snap"] = tracemalloc.take_snapshot() if top else None
                live["engine"] = engine_share([r for r in ref.games.values() if not r.over])
            finished_cb(run)

        ref._finished = first_finished    # read by create_game: each run's on_finished
        for i in range(games):
            ref.create_game(control_pb2.CreateGameRequest(ruleset="iowa", players=4, seats=["h"] * 4, seed=i))
        t0 = time.perf_counter()
        peak, snap, snapped = 0, None, 0.0
        while ref.running == games:     # all in flight: the highest per-game figure before the first ends
            used = tracemalloc.get_traced_memory()[0] - base
            if used > peak:
                peak = used
                if top and time.perf_counter() - snapped > 5.0:   # a snapshot is slow: one every 5 s at most
                    snap, snapped = tracemalloc.take_snapshot(), time.perf_counter()
            await asyncio.sleep(0.2)
        while ref.running:
            await asyncio.sleep(0.2)
        elapsed = time.perf_counter() - t0
        await asyncio.sleep(0.5)        # the last GameEnd batches go out
        gc.collect()
        kept = sum(1 for r in ref.games.values() if r.over)
        finished = (tracemalloc.get_traced_memory()[0] - base) / max(kept, 1)
        for title, s in (("at the peak", snap), ("live, after gc.collect()", live.get("snap"))):
            if top and s is not None:
                print(f"top {top} lines holding the in-flight memory, {title}:")
                for st in s.compare_to(snap0, "lineno")[:top]:
                    print(f"  {st.size_diff / games:9.0f} B/game  {st.traceback}")
        return {"in_flight": peak / games, "live": live["used"] / games, "engine": live["engine"], "finished": finished,
                "kept": kept, "elapsed": elapsed}
    finally:
        await srv.shutdown(1.0)
        for p in procs:
            p.wait(timeout=30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="games played at once")
    ap.add_argument("--bots", type=int, default=4, help="heuristic bot processes (at least 4: one seat per connection)")
    ap.add_argument("--keep", type=int, default=5000, help="finished games the referee keeps in memory (--keep-finished)")
    ap.add_argument("--top", type=int, default=0, help="list the N source lines holding the most in-flight memory")
    results.add_arguments(ap)
    a = ap.parse_args()
    out = results.Results("memory", "Referee memory", f"Bytes the referee holds per game in flight and per finished game "
                          f"kept (tracemalloc, the referee in this process), {a.games} iowa games at once between "
                          f"{a.bots} heuristic bot processes, against the bare rules engine's Game played to its end (the "
                          "baseline, measured in the same run).", a)
    tracemalloc.start(1)
    base = engine_baseline(min(a.games, 200))
    r = asyncio.run(referee_run(a.games, a.bots, a.keep, a.top))
    print(f"{a.games} iowa games in flight, heuristic bots ({a.bots} processes), {r['elapsed']:.1f} s")
    print(f"  per game in flight:     {r['in_flight'] / 1024:7.1f} KiB   ({r['in_flight'] / base:.2f}x the bare engine)"
          "   <- the target (peak, garbage included)")
    print(f"    live after gc.collect(): {r['live'] / 1024:5.1f} KiB: engine {r['engine'] / 1024:.1f} KiB, "
          f"service and the rest {(r['live'] - r['engine']) / 1024:.1f} KiB; garbage at the peak "
          f"{(r['in_flight'] - r['live']) / 1024:.1f} KiB")
    print(f"  per finished game kept: {r['finished'] / 1024:7.1f} KiB   ({r['finished'] / base:.2f}x the bare engine; "
          f"{r['kept']} kept)")
    print(f"  baseline, bare engine Game played to its end: {base / 1024:.1f} KiB")
    out.table(["figure", "KiB per game", "ratio to the bare engine"],
              [["in flight, peak (garbage included): the target", r["in_flight"] / 1024, r["in_flight"] / base],
               ["in flight, live after gc.collect()", r["live"] / 1024, r["live"] / base],
               ["  of which the rules engine", r["engine"] / 1024, r["engine"] / base],
               ["  of which the service and the rest", (r["live"] - r["engine"]) / 1024, (r["live"] - r["engine"]) / base],
               ["finished, kept", r["finished"] / 1024, r["finished"] / base],
               ["bare engine Game played to its end (the baseline)", base / 1024, 1.0]],
              note=f"{r['kept']} finished games kept; the games took {r['elapsed']:.1f} s.")
    out.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
