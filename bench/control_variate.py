"""The control variate: does subtracting what a deal's cards are worth make a pair's comparison sharper?

The value of a deal's cards for a team is estimated by a fixed reference policy: the heuristic sample bot in every
seat plays that exact deal (the same cards, the same dealer), once, from a level score; its points for each team
are the cards' value. It is computed once per deal and cached (the heuristic is deterministic). A game's control
variate for A against B is the sum, over the deals the game played, of the reference's points for A's team less
B's (the pairwise form of arena.evidence), and the adjusted margin is the game's margin less beta times it, beta
the least-squares slope over the pair's games (the variance-minimising one).

Pairs of the ladder's rungs (bench/deal_variance.py) play duplicate blocks. For each pair, two comparisons:

- **single games** (the first game of each block, as a schedule without duplicate deals has them): the variance of
  the margin and of the adjusted margin;
- **duplicate blocks**: the same for the block margin (the mean over the block's games).

A multiplier is the variance without the control variate over the variance with it (the effective games per game
it is worth), pooled over the unequal pairs as their sum of variances. On a complete block of a two-team game the
deals played by every game of the block cancel exactly in the control variate (each side held each team's cards
once), so only the deals one game played and another did not (it reached the target sooner) are left for it to
explain.

    .venv/bin/python bench/control_variate.py [--blocks 120] [--configs iowa:4,pepper-30:3] [--pairs 0:0.1,0:0.05]

The figures also go to docs/results/control_variate.md (bench/results.py; ``--results PATH`` or ``--no-write``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena import schedule  # noqa: E402
from bench import deal_variance as dv  # noqa: E402
from bench import results  # noqa: E402
from referee.rules import Game, Ruleset, get_ruleset  # noqa: E402

HEURISTIC = dv.HEURISTIC
DEFAULT_PAIRS = "0:0.05,0:0.1,0.2:0.25,0.2:0.2"


class Reference:
    """The reference policy's points per team on a deal (its cards and dealer), cached."""

    def __init__(self, rs: Ruleset, players: int):
        self.rs, self.players = rs, players
        self.cache: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}

    def points(self, deck: tuple[int, ...], dealer: int) -> tuple[int, ...]:
        key = (deck, dealer)
        if key not in self.cache:
            g = Game(self.rs, self.players, decks=[deck], first_dealer=dealer, deal_cap=1, hold_finished_deal=True)
            while not g.deal_over and not g.is_over:
                s = g.to_act
                g.apply(HEURISTIC.decide(g.view(s).to_dict()))
            self.cache[key] = tuple(g.deals[0].points)
        return self.cache[key]


def pairwise(values, seats: list[str], team_of, a: str, b: str) -> float:
    """A's value against B's from per-team ``values``: by team where they sit on opposite teams, the mean over the
    seats each fills otherwise (a free-for-all table, where a side may fill several seats)."""
    mine = [values[team_of[s]] for s, x in enumerate(seats) if x == a]
    theirs = [values[team_of[s]] for s, x in enumerate(seats) if x == b]
    return statistics.fmean(mine) - statistics.fmean(theirs)


def block(rs: Ruleset, players: int, a: str, b: str, rates: dict[str, float], deck: int, lineup: int,
          ref: Reference) -> list[tuple[float, float]]:
    """One duplicate block of A against B (:func:`bench.deal_variance.played_games`): per game, A's margin over B
    and the control variate (the reference's points on the deals that game played, A's less B's)."""
    out = []
    for seats, g in dv.played_games(rs, players, a, b, rates, deck, lineup):
        team_of = g.table.team_of
        cv = sum(pairwise(ref.points(d, (g.first_dealer + i) % players), seats, team_of, a, b)
                 for i, d in enumerate(g.decks_dealt))
        out.append((pairwise(g.outcome.scores, seats, team_of, a, b), cv))
    return out


def reduction(pairs: list[tuple[float, float]]) -> dict:
    """The variance of ``y`` and of ``y - beta x`` over (y, x) pairs, beta the least-squares slope."""
    ys, xs = [y for y, _ in pairs], [x for _, x in pairs]
    vy, vx = statistics.variance(ys), statistics.variance(xs)
    cov = statistics.covariance(ys, xs)
    beta = cov / vx if vx > 0 else 0.0
    adjusted = statistics.variance([y - beta * x for y, x in pairs])
    corr = cov / (vx * vy) ** 0.5 if vx > 0 and vy > 0 else None
    return {"var": vy, "var_cv": adjusted, "beta": beta, "corr": corr,
            "multiplier": vy / adjusted if adjusted > 0 else None}


def measure(configs, pairs, rates, blocks: int, seed: int, log=print) -> list[dict]:
    out = []
    for name, players, cap in configs:
        rs = get_ruleset(name)
        if cap is not None:
            rs = dataclasses.replace(rs, deal_cap=cap)
        ref = Reference(rs, players)
        row = {"ruleset": name, "players": players, "deal_cap": cap, "blocks": blocks, "pairs": []}
        for a, b in pairs:
            played = [block(rs, players, a, b, rates, schedule.match_seed(seed, m), m, ref) for m in range(blocks)]
            single = reduction([games[0] for games in played])
            per_block = reduction([(statistics.fmean(y for y, _ in g), statistics.fmean(x for _, x in g))
                                   for g in played])
            row["pairs"].append({"a": a, "b": b, "single": single, "block": per_block})
        unequal = [p for p in row["pairs"] if rates[p["a"]] != rates[p["b"]]]
        for kind in ("single", "block"):
            row[kind] = (sum(p[kind]["var"] for p in unequal) / sum(p[kind]["var_cv"] for p in unequal)
                         if unequal else None)
        log(f"{name} ({players}){'' if cap is None else f' cut to {cap} deals'}: multiplier single games "
            f"{row['single']:.2f}, duplicate blocks {row['block']:.2f} ({len(ref.cache)} reference deals)", flush=True)
        out.append(row)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", default=None, help="RULESET:PLAYERS[:DEAL_CAP],... (default: bench/deal_variance.py's)")
    ap.add_argument("--pairs", default=DEFAULT_PAIRS, help="A:B rates of random play,... (default %(default)s)")
    ap.add_argument("--blocks", type=int, default=120, help="duplicate blocks per pair (default %(default)s)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="also print every figure as one JSON line")
    results.add_arguments(ap)
    a = ap.parse_args(argv)
    configs = dv.parse_configs(a.configs) if a.configs else list(dv.CONFIGS)
    pairs, rates = dv.names_of(dv.parse_pairs(a.pairs))
    out = results.Results("control_variate", "The control variate: the cards' value by a reference policy",
                          f"Per configuration, {a.blocks} duplicate blocks per pair of ladder rungs (the heuristic with "
                          "that rate of random play); the variance of A's margin over B with and without the control "
                          "variate (the heuristic's own points on each deal the game played, A's team less B's, times "
                          "the least-squares slope), on single games (each block's first) and on duplicate blocks; "
                          "a multiplier is the variance without over the variance with, pooled over the unequal "
                          "pairs.", a)
    rows = measure(configs, pairs, rates, a.blocks, a.seed)
    out.table(["ruleset", "players", "deal cap", "blocks per pair", "single games, multiplier",
               "duplicate blocks, multiplier"],
              [[r["ruleset"], r["players"], r["deal_cap"] or "full", r["blocks"], r["single"], r["block"]] for r in rows],
              heading="Effective-games multiplier of the control variate, pooled over pairs")
    out.table(["ruleset", "players", "pair", "single: variance", "with the variate", "correlation", "block: variance",
               "with the variate", "correlation"],
              [[r["ruleset"], r["players"], f"{p['a']}-{p['b']}", p["single"]["var"], p["single"]["var_cv"],
                p["single"]["corr"], p["block"]["var"], p["block"]["var_cv"], p["block"]["corr"]]
               for r in rows for p in r["pairs"]], heading="Per pair")
    out.write()
    if a.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
