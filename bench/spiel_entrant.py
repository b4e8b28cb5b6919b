"""The OpenSpiel entrant's decision time and fallbacks, per ruleset (docs/research.md).

    python bench/spiel_entrant.py [--games 3] [--simulations 40] [--json] [--results PATH | --no-write]

Seat 0 is the entrant (``pepper_spiel.entrant.OpenSpielEntrant``), fed every
event and view through the real wire conversions (engine -> pepper.v1 -> the
SDK's dicts), the other seats play at random; games are a one-deal variant of
each ruleset. Reported per configuration: the median and the largest
``decide`` time of the IS-MCTS entrant, and, as the baseline measured in the
same run, OpenSpiel's uniform random bot through the same entrant (the cost
of reading the events and sampling a deal, with no search): the ratio is what
the search costs. Fallbacks are decisions played at random because no sampled
deal agreed with every play. The figures also go to docs/results/spiel_entrant.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)   # the repo root, not bench/ (bench/referee.py)

from pepper_bot.convert import event_to_dict, view_to_dict  # noqa: E402

from bench import results  # noqa: E402
from pepper_spiel.entrant import OpenSpielEntrant  # noqa: E402
from referee.rules import Game, ruleset_from_dict  # noqa: E402
from referee.wire.convert import event_to_proto, view_to_proto  # noqa: E402

CONFIGS = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 8), ("pepper-30", 3), ("five-handed", 5)]


def play(ruleset: str, players: int, kind: str, seed: int, simulations: int) -> tuple[list[float], OpenSpielEntrant]:
    rs = ruleset_from_dict({"extends": ruleset, "name": "bench", "deal_cap": 1})
    g = Game(rs, players, seed=seed)
    bot = OpenSpielEntrant(kind, simulations=simulations, seed=seed)
    bot.on_game_start({"game_id": "g", "seat": 0, "players": players, "ruleset": {"name": "bench", "params": rs.to_dict()}})
    sent, rng, times = 0, random.Random(seed), []
    while not g.is_over:
        for i, e in g.events_for(0, sent):
            bot.on_event("g", event_to_dict(event_to_proto("g", i, e, seat=0)))
        sent = g.event_count
        if g.to_act == 0:
            view = view_to_dict(view_to_proto(g.view(0)))
            view |= {"legal_actions": [str(a) for a in g.legal_actions()], "game_id": "g", "deadline_ms": 2000}
            t = time.perf_counter()
            answer = bot.decide(view)
            times.append(time.perf_counter() - t)
            g.apply(answer)
        else:
            g.apply(rng.choice(g.legal_action_ids()))
    return times, bot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--simulations", type=int, default=40)
    ap.add_argument("--json", action="store_true")
    results.add_arguments(ap)
    a = ap.parse_args()
    out = results.Results("spiel_entrant", "OpenSpiel entrant", f"The IS-MCTS entrant's decide time in seat 0 "
                          f"({a.simulations} simulations, {a.games} one-deal games per configuration, the other seats "
                          "random), against OpenSpiel's uniform random bot through the same entrant (the baseline, "
                          "measured in the same run: reading the events and sampling a deal, no search).", a)
    logging.disable(logging.WARNING)
    rows = []
    for ruleset, players in CONFIGS:
        res = {}
        for kind in ("random", "ismcts"):   # the baseline first, in the same run
            times, decisions, fallbacks = [], 0, 0
            for seed in range(a.games):
                t, bot = play(ruleset, players, kind, seed, a.simulations)
                times += t
                decisions, fallbacks = decisions + bot.decisions, fallbacks + bot.fallbacks
            res[kind] = (statistics.median(times), max(times), decisions, fallbacks)
        (bm, _, _, _), (m, mx, d, f) = res["random"], res["ismcts"]
        rows.append({"config": f"{ruleset}/{players}p", "median_ms": round(m * 1000, 1), "max_ms": round(mx * 1000, 1),
                     "baseline_median_ms": round(bm * 1000, 2), "ratio": round(m / bm, 1), "decisions": d, "fallbacks": f})
    out.table(["configuration", "median ms", "max ms", "baseline median ms", "ratio to the baseline", "decisions",
               "fallbacks"], [[r["config"], r["median_ms"], r["max_ms"], r["baseline_median_ms"], r["ratio"],
                               r["decisions"], r["fallbacks"]] for r in rows],
              note="Fallbacks: decisions played at random because no sampled deal agreed with every play.")
    out.write()
    if a.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'config':16} {'median ms':>10} {'max ms':>8} {'random ms':>10} {'ratio':>7} {'decisions':>10} {'fallbacks':>10}")
    for r in rows:
        print(f"{r['config']:16} {r['median_ms']:>10} {r['max_ms']:>8} {r['baseline_median_ms']:>10} {r['ratio']:>7} "
              f"{r['decisions']:>10} {r['fallbacks']:>10}")


if __name__ == "__main__":
    main()
