"""Engine benchmark: random-play deals per second, every ruleset and player count, vs OpenSpiel euchre.

Both engines are driven the same way from Python: at each step a uniformly
random legal action (for OpenSpiel, chance nodes pick uniformly among
``state.chance_outcomes()``). One OpenSpiel euchre game is one deal. Our deals
include thrown-in deals (everyone passed), which are cheap; the table shows
their share and the rate of played deals alone.

    .venv/bin/python bench/engine.py [--runs 5] [--seconds 1.0] [--rulesets iowa] [--json] [--memory]
                                     [--results PATH | --no-write]

The compiled engine runs where it is built (``make install``); ``PEPPER_PURE=1`` runs the .py sources, so
the two are compared by running this twice (docs/performance.md).

Each run plays whole games until ``--seconds`` of CPU time (this process's,
``time.process_time``: steadier than wall time on a busy machine) have passed;
the median run is reported. With ``--json`` a last line holds every figure as
one JSON object. The figures also go to docs/results/engine.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

# Run as `python bench/engine.py`: put the project root first, so that the package
# `referee` wins over this folder's bench/referee.py.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import results  # noqa: E402
from referee.rules import BUILTIN_RULESETS, COMPILED, Game  # noqa: E402


def run_ours(name: str, players: int, seconds: float, seed: int) -> tuple[float, float, int]:
    """One timed run: (deals/s, played deals/s, deals) of whole random games."""
    rng = random.Random(seed)
    choice = rng.choice
    deals = thrown_in = 0
    start = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        g = Game(name, players, seed=rng.getrandbits(32))
        legal, apply = g.legal_action_ids, g.apply
        while g.outcome is None:
            apply(choice(legal()))
        deals += len(g.deals)
        thrown_in += sum(d.thrown_in for d in g.deals)
        elapsed = time.process_time() - start
    return deals / elapsed, (deals - thrown_in) / elapsed, deals


def run_openspiel(game, seconds: float, seed: int) -> tuple[float, int]:
    """One timed run of OpenSpiel euchre: (deals/s, deals); one game is one deal."""
    rng = random.Random(seed)
    choice = rng.choice
    deals = 0
    start = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
        deals += 1
        elapsed = time.process_time() - start
    return deals / elapsed, deals


def game_bytes(deals_before: int, games: int = 500) -> float:
    """Bytes a held iowa Game takes at the 11th card of a deal after ``deals_before`` deals of random play
    (tracemalloc: every allocation of the games held, divided by their number)."""
    import gc
    import tracemalloc

    rng = random.Random(1)
    held = []
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for k in range(games):
        g = Game("iowa", 4, seed=k)
        while g.outcome is None and (len(g.deals) < deals_before or len(g.trick_cards) + 4 * len(g._tricks) < 10):
            g.apply(rng.choice(g.legal_action_ids()))
        held.append(g)
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return used / games


def compare_openspiel(iowa: dict, args) -> dict | None:
    """OpenSpiel euchre's median rate in this run, and iowa's ratio to it (None without pyspiel)."""
    try:
        import pyspiel
    except ImportError:
        print("\nOpenSpiel (pyspiel) is not installed: no euchre comparison. "
              "Install the test extras (pip install -e '.[test]') to get it.")
        return None
    game = pyspiel.load_game("euchre")
    rates = [run_openspiel(game, args.seconds, args.seed + k)[0] for k in range(args.runs)]
    med = statistics.median(rates)
    openspiel = {"game": str(game), "deals_per_second": round(med, 1), "runs": [round(r, 1) for r in rates],
                 "ratio_iowa": round(iowa["deals_per_second"] / med, 3),
                 "ratio_iowa_played": round(iowa["played_deals_per_second"] / med, 3)}
    print(f"\nOpenSpiel {game} (C++ engine, driven from Python; one game = one deal, never thrown in):")
    print(f"  {med:.0f} deals/s (min..max {min(rates):.0f}..{max(rates):.0f})")
    print(f"  ratio iowa/OpenSpiel: {openspiel['ratio_iowa']:.2f} "
          f"(played deals only: {openspiel['ratio_iowa_played']:.2f})")
    return openspiel


def write_results(out: results.Results, rows: list[dict], openspiel: dict | None, memory: dict | None) -> None:
    """docs/results/engine.md: the rates per configuration, OpenSpiel's and the ratio, the bytes per Game (--memory)."""
    out.table(["ruleset", "players", "deals/s", "played deals/s", "thrown in %", "min deals/s", "max deals/s"],
              [[r["ruleset"], r["players"], r["deals_per_second"], r["played_deals_per_second"],
                100 * r["thrown_in_share"], min(r["runs"]), max(r["runs"])] for r in rows])
    if openspiel:
        out.table(["engine", "deals/s", "ratio to OpenSpiel euchre", "played deals only"],
                  [["OpenSpiel euchre (the baseline)", openspiel["deals_per_second"], 1.0, None],
                   ["iowa, 4 players", next(r["deals_per_second"] for r in rows if r["ruleset"] == "iowa"),
                    openspiel["ratio_iowa"], openspiel["ratio_iowa_played"]]],
                  heading="Against OpenSpiel euchre", note=f"{openspiel['game']}: one game is one deal, never thrown in.")
    elif any(r["ruleset"] == "iowa" for r in rows):
        out.table(["engine", "deals/s"], [["OpenSpiel euchre", None]], heading="Against OpenSpiel euchre",
                  note="Not measured: OpenSpiel (pyspiel) is not installed.")
    if memory:
        out.table(["deals played before", "bytes per iowa Game"], [[d, b] for d, b in memory.items()],
                  heading="Memory per Game in flight",
                  note="tracemalloc, 500 iowa games held mid-deal (the 11th card).")
    out.write()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs per configuration (default 5)")
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one run in seconds (default 1.0)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="also print one JSON line with every figure")
    ap.add_argument("--memory", action="store_true", help="also print the bytes of an iowa Game in flight (tracemalloc)")
    ap.add_argument("--rulesets", default="", help="comma-separated ruleset names to run (default: every ruleset; "
                    "the OpenSpiel ratio needs iowa)")
    results.add_arguments(ap)
    args = ap.parse_args()
    if args.runs < 1 or args.seconds <= 0:
        ap.error("--runs must be >= 1 and --seconds > 0")
    out = results.Results("engine", "Engine benchmark", f"Random-play deals per CPU second of the rules engine, "
                          f"median of {args.runs} runs of {args.seconds:g} s per ruleset and player count, against "
                          "OpenSpiel's C++ euchre driven the same way from Python (the baseline, measured in the same "
                          "run). Deals include thrown-in deals (everyone passed); played deals are the others.", args)

    print(f"Random-play deals per CPU second, median of {args.runs} runs of ~{args.seconds:g} s "
          f"(Python {platform.python_version()}, {platform.machine()}; rules engine "
          f"{'compiled' if COMPILED else 'pure Python'})")
    print("Deals include thrown-in deals (everyone passed); 'played/s' counts the other deals only.\n")
    print(f"{'ruleset':<12} {'players':>7} {'deals/s':>9} {'played/s':>9} {'thrown in':>9} {'min..max deals/s':>18}")
    rows = []
    wanted = [r for r in args.rulesets.split(",") if r]
    unknown = [r for r in wanted if r not in BUILTIN_RULESETS]
    if unknown:
        ap.error(f"no built-in ruleset {', '.join(unknown)}; choose from {', '.join(BUILTIN_RULESETS)}")
    for name, rs in BUILTIN_RULESETS.items():
        if wanted and name not in wanted:
            continue
        for n in rs.player_counts:
            runs = [run_ours(name, n, args.seconds, args.seed + k) for k in range(args.runs)]
            rates = [r[0] for r in runs]
            med, med_played = statistics.median(rates), statistics.median(r[1] for r in runs)
            share = 1 - sum(r[1] for r in runs) / sum(r[0] for r in runs)
            rows.append({"ruleset": name, "players": n, "deals_per_second": round(med, 1),
                            "played_deals_per_second": round(med_played, 1), "thrown_in_share": round(share, 4),
                            "runs": [round(r, 1) for r in rates]})
            print(f"{name:<12} {n:>7} {med:>9.0f} {med_played:>9.0f} {share:>9.1%} "
                  f"{min(rates):>8.0f}..{max(rates):<9.0f}")

    iowa = next((r for r in rows if r["ruleset"] == "iowa"), None)
    openspiel = compare_openspiel(iowa, args) if iowa else None
    memory = None
    if args.memory:
        memory = {d: round(game_bytes(d)) for d in (0, 10, 50)}
        print("\nBytes per iowa Game in flight, mid-deal (the 11th card), after 0 / 10 / 50 deals: "
              + " / ".join(f"{b:,}" for b in memory.values()))
    write_results(out, rows, openspiel, memory)
    if args.json:
        print(json.dumps({"runs": args.runs, "seconds": args.seconds, "python": platform.python_version(), "compiled": COMPILED,
                          "results": rows, "openspiel_euchre": openspiel, "game_bytes": memory}))


if __name__ == "__main__":
    main()
