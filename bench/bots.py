"""Sample-bot strength: duplicate-deal differentials, every ruleset and player count.

For each pairing (``montecarlo`` vs ``heuristic``, ``heuristic`` vs ``random``)
and each deal seed the deal is played twice from the same shuffle: once with
bot A in the even seats and bot B in the odd ones, once the other way round.
A deal's differential is A's mean score per seat (or team) minus B's,
averaged over the two tables, so the luck of the cards cancels out. The table
shows the mean differential per deal with its standard error, the median, the
share of deals A won, and for ``montecarlo`` the budget, the sampled deals per
card-play search and the CPU time per decision.

    .venv/bin/python bench/bots.py                        # every ruleset, 300 deals, 1 ms
    .venv/bin/python bench/bots.py -r iowa:4 -d 1000 --budget-ms 2
    .venv/bin/python bench/bots.py --samples 16           # fixed samples: reproducible to the digit
    .venv/bin/python bench/bots.py --pairs mc-h --json

Only the first deal of each game is played (``Game(...)`` with the real
ruleset, so the bots see the names they play under in the arena). A thrown-in
deal counts as 0. With ``--budget-ms`` the search stops on CPU time, so
results vary a little with the machine's load; ``--samples`` fixes the work. The figures also go to
docs/results/bots.md (bench/results.py; ``--results PATH`` or ``--no-write`` instead).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import results  # noqa: E402
from referee.rules import BUILTIN_RULESETS, Game, get_ruleset  # noqa: E402
from sample_bots import HeuristicBot, MonteCarloBot, RandomBot  # noqa: E402

ALL = [f"{name}:{n}" for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]
PAIRS = {"mc-h": ("montecarlo", "heuristic"), "h-r": ("heuristic", "random"), "mc-r": ("montecarlo", "random")}


_MC: dict = {}


def make_bot(kind: str, seed: int, budget_ms: float, samples: int | None, seat: int):
    """A bot for one seat of one table. Monte Carlo bots persist across deals (one per seat and
    worker process), as in the arena where one bot process plays many games: its time bank then
    runs in its steady state rather than starting every deal full."""
    if kind == "montecarlo":
        if samples is not None:
            return MonteCarloBot(budget_ms=budget_ms, seed=seed, samples=samples)
        key = (seat, budget_ms)
        if key not in _MC:
            _MC[key] = MonteCarloBot(budget_ms=budget_ms, seed=seed)
        return _MC[key]
    if kind == "random":
        return RandomBot(seed)
    return HeuristicBot()


def play_deal(rsname: str, players: int, seed: int, kinds: tuple[str, str], budget_ms: float,
              samples: int | None) -> dict:
    """One deal seed at two tables (A in the even seats, then in the odd ones)."""
    rs = get_ruleset(rsname)
    diff = 0.0
    mc = {"decisions": 0, "cpu": 0.0, "searched": 0, "samples": 0}
    for a_parity in (0, 1):
        g = Game(rs, players, seed=seed)
        bots = [make_bot(kinds[0] if s % 2 == a_parity else kinds[1], seed * 2 + a_parity, budget_ms, samples, s)
                for s in range(players)]
        while not g.deals:
            s = g.to_act
            view = g.view(s).to_dict()
            if isinstance(bots[s], MonteCarloBot):
                t = time.thread_time()
                action = bots[s].decide(view)
                mc["cpu"] += time.thread_time() - t
                mc["decisions"] += 1
            else:
                action = bots[s].decide(view)
            g.apply(action)
        team_of = g.table.team_of
        a_teams = {team_of[s] for s in range(players) if s % 2 == a_parity}
        b_teams = {team_of[s] for s in range(players) if s % 2 != a_parity}
        pts = g.deals[0].points
        diff += sum(pts[t] for t in a_teams) / len(a_teams) - sum(pts[t] for t in b_teams) / len(b_teams)
        for b in set(bots):
            if isinstance(b, MonteCarloBot):
                mc["searched"] += b.stats["searched"]
                mc["samples"] += b.stats["samples"]
                b.stats["searched"] = b.stats["samples"] = 0
    return {"diff": diff / 2, "mc": mc}


def _job(args):
    return play_deal(*args)


def measure(rsname: str, players: int, pair: str, deals: int, budget_ms: float, samples: int | None,
            procs: int, seed0: int) -> dict:
    kinds = PAIRS[pair]
    jobs = [(rsname, players, seed0 + i, kinds, budget_ms, samples) for i in range(deals)]
    t0 = time.time()
    if procs > 1:
        with Pool(procs) as pool:
            res = pool.map(_job, jobs, chunksize=max(1, deals // (procs * 8)))
    else:
        res = [_job(j) for j in jobs]
    diffs = [r["diff"] for r in res]
    n = len(diffs)
    mean = statistics.mean(diffs)
    se = statistics.stdev(diffs) / n ** 0.5 if n > 1 else float("nan")
    mc = {k: sum(r["mc"][k] for r in res) for k in ("decisions", "cpu", "searched", "samples")}
    out = {
        "ruleset": rsname, "players": players, "pair": f"{kinds[0]} vs {kinds[1]}", "deals": n,
        "mean": mean, "se": se, "z": mean / se if se else float("inf"), "median": statistics.median(diffs),
        "won": sum(d > 0 for d in diffs) / n, "lost": sum(d < 0 for d in diffs) / n,
        "seconds": time.time() - t0,
    }
    if mc["decisions"]:
        out["budget_ms"] = budget_ms if samples is None else None
        out["samples_fixed"] = samples
        out["mc_ms_per_decision"] = 1000 * mc["cpu"] / mc["decisions"]
        out["mc_samples_per_search"] = mc["samples"] / max(1, mc["searched"])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-r", "--rulesets", default=",".join(ALL), help="comma-separated NAME:PLAYERS (default: all)")
    ap.add_argument("-d", "--deals", type=int, default=300, help="deal seeds per ruleset and pairing")
    ap.add_argument("--pairs", default="mc-h,h-r", help=f"comma-separated pairings: {', '.join(PAIRS)}")
    ap.add_argument("--budget-ms", type=float, default=1.0,
                    help="montecarlo CPU budget per decision (default 1, the arena's PEPPER_MC_BUDGET_MS default)")
    ap.add_argument("--samples", type=int, default=None, help="montecarlo: fixed sampled deals per search instead")
    ap.add_argument("--procs", type=int, default=2, help="worker processes")
    ap.add_argument("--seed0", type=int, default=0, help="first deal seed")
    ap.add_argument("--json", action="store_true", help="also print every figure as one JSON line")
    results.add_arguments(ap)
    a = ap.parse_args(argv)
    rows = []
    what = f"budget {a.budget_ms} ms/decision" if a.samples is None else f"{a.samples} samples/search"
    out = results.Results("bots", "Sample-bot strength", f"Duplicate-deal differentials of the sample bots: {a.deals} deal "
                          "seeds per ruleset and pairing, each played at two tables with the seats swapped; A's mean "
                          f"points per deal minus B's (montecarlo: {what}).", a, argv=argv)
    print(f"duplicate deals: {a.deals} seeds x 2 tables; montecarlo {what}; seeds from {a.seed0}")
    print(f"{'ruleset':<14} {'pairing':<24} {'mean/deal':>10} {'± s.e.':>7} {'z':>6} {'median':>7} "
          f"{'won':>5} {'lost':>5} {'ms/dec':>7} {'smp/srch':>8} {'secs':>6}")
    for spec in a.rulesets.split(","):
        name, _, n = spec.partition(":")
        players = int(n) if n else get_ruleset(name).default_players
        for pair in a.pairs.split(","):
            r = measure(name, players, pair, a.deals, a.budget_ms, a.samples, a.procs, a.seed0)
            rows.append(r)
            ms = f"{r['mc_ms_per_decision']:7.2f}" if "mc_ms_per_decision" in r else f"{'':>7}"
            sm = f"{r['mc_samples_per_search']:8.1f}" if "mc_samples_per_search" in r else f"{'':>8}"
            print(f"{name + ':' + str(players):<14} {r['pair']:<24} {r['mean']:+10.3f} {r['se']:7.3f} {r['z']:6.1f} "
                  f"{r['median']:+7.1f} {r['won']:5.2f} {r['lost']:5.2f} {ms} {sm} {r['seconds']:6.0f}", flush=True)
    out.table(["ruleset", "pairing", "mean points/deal, A - B", "s.e.", "z", "median", "A won, share",
               "A lost, share", "montecarlo ms/decision", "montecarlo samples/search", "s"],
              [[f"{r['ruleset']}:{r['players']}", r["pair"], r["mean"], r["se"], r["z"], r["median"], r["won"], r["lost"],
                r.get("mc_ms_per_decision"), r.get("mc_samples_per_search"), r["seconds"]] for r in rows])
    out.write()
    if a.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
