"""Ranking benchmark: how many games the arena needs to rank a ladder of bots of known strength.

The ladder: the heuristic sample bot mixed with random play at graded rates
(``mix00`` always plays the heuristic's action, ``mix20`` a uniformly random
legal action 20% of the time, ...), so the right order is known: the less
random, the stronger (``--verify`` checks it with one long run). Games are
played in this process on the rules engine (no referee, no bot processes),
in the order the arena's scheduler plans them, and rated with the arena's
TrueSkill code (:class:`arena.ratings.Rater`) in plan order, as the arena does.

Two measurements:

``scale`` (item 6 of issue 13): the ratings after ``--games`` games of a
mirrored and of a mixed run of the same ladder, rated with the arena's model
and with the unweighted one (a bot alone in both seats of a mixed team rated as
a one-player team against a two-player team). Prints each run's mean mu, the
spread (highest minus lowest mu) and whether the order is right.

``ranking`` (item 5): for each scheduling mode (mirrored round robin,
mixed, adaptive) and for a naive baseline (uniform random line-ups, a fresh
deck every game, no duplicate deals), the games until the table's order is
exactly right in at least 80% of ``--seeds`` runs (and stays so at every later
checkpoint), the CPU seconds this process took to play them, and both as a
ratio to the naive baseline's. The seconds are the engine's and the bots', not
an arena's wall clock: an arena run adds the referee and, in adaptive mode,
keeps only about two rounds in flight.

    .venv/bin/python bench/ranking.py scale [--games 800] [--seeds 3]
    .venv/bin/python bench/ranking.py ranking [--seeds 20] [--max-games 1500] [--modes mirrored,mixed,adaptive,naive]
    .venv/bin/python bench/ranking.py verify [--games 4000]

Games are iowa cut to ``--deal-cap`` deals (default 4; the higher score at
the cap wins), which keeps a game to a few milliseconds; ``--deal-cap 200``
plays whole games (about 90 ms each).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import time
from pathlib import Path

# Run as `python bench/ranking.py`: put the project root first, so that the package `referee` wins over this
# folder's bench/referee.py (imported by a test, the path is left alone).
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from arena import schedule  # noqa: E402
from arena.ratings import DEFAULT_SIGMA, Rater, Rating, ranks_from_result  # noqa: E402

# The adaptive scheduler's constants (arena/tournament.py): a round's games and the uncertainty bonus's weight.
from arena.tournament import ADAPTIVE_ROUND_GAMES, UNCERTAINTY_WEIGHT  # noqa: E402
from referee.rules import Game, Ruleset, get_ruleset  # noqa: E402
from sample_bots import HeuristicBot  # noqa: E402

RATES = (0.0, 0.2, 0.4, 0.6, 0.8)
CHECK_EVERY = 20  # games between checkpoints of the order


def ladder(rates=RATES) -> dict[str, float]:
    """Bot name -> its rate of random play; names sort from strongest to weakest."""
    return {f"mix{round(100 * r):02d}": r for r in rates}


def right_order(rates: dict[str, float]) -> list[str]:
    return sorted(rates, key=lambda b: rates[b])


class Mixed:
    """The heuristic policy, replaced by a uniformly random legal action at ``rate`` (seeded per game and seat)."""

    heuristic = HeuristicBot()

    def __init__(self, rate: float, rng: random.Random):
        self.rate, self.rng = rate, rng

    def decide(self, view: dict) -> str:
        if self.rate and self.rng.random() < self.rate:
            return self.rng.choice(view["legal_actions"])
        return self.heuristic.decide(view)


_CACHE: dict = {}


def play(rs: Ruleset, seed: int, seats: tuple[str, ...], rates: dict[str, float]) -> list[int]:
    """One game's TrueSkill ranks per team (see arena.results.ranks), memoized: a game is a pure function of its
    deck seed and seats."""
    key = (rs.deal_cap, seed, seats)
    if key not in _CACHE:
        g = Game(rs, len(seats), seed=seed)
        bots = [Mixed(rates[b], random.Random(f"{seed}/{s}")) for s, b in enumerate(seats)]
        while not g.is_over:
            s = g.to_act
            g.apply(bots[s].decide(g.view(s).to_dict()))
        o = g.outcome
        _CACHE[key] = ranks_from_result(list(o.scores), [t in o.winners for t in range(g.table.teams)])
    return _CACHE[key]


def entries(rs: Ruleset, seats) -> list[list[str]]:
    t = rs.table(len(seats))
    return [[seats[s] for s in t.team_seats(team)] for team in range(t.teams)]


class Unweighted(Rater):
    """The model before issue 13: every distinct bot of a team at weight 1 (a team's skill is the sum)."""

    def _groups(self, current, entries):
        groups, _ = super()._groups(current, entries)
        return groups, None


# ----------------------------------------------------------------------------- schedules
def planned(mode: str, bots: list[str], rs: Ruleset, games: int, seed: int):
    """The games of a non-adaptive mode in plan order: (deck seed, seats)."""
    if mode == "naive":  # uniform random line-ups, one game each on a fresh deck, seats in a random rotation
        rng = random.Random(f"{seed}/naive")
        ups = schedule.lineups(bots, rs, 4, "mirrored")
        out = []
        for _ in range(games):
            seats = rng.choice(ups)
            r = rng.randrange(4)
            out.append((rng.randrange(1 << 31), tuple(seats[(s - r) % 4] for s in range(4))))
        return out
    lineup = "mixed" if mode == "mixed" else "mirrored"
    return [(s, tuple(seats)) for _, _, _, s, seats in schedule.plan(bots, rs, 4, games, seed, mode=lineup)]


def run(mode: str, rates: dict[str, float], rs: Ruleset, games: int, seed: int, rater: Rater,
        checkpoints: bool = False, uncertainty_weight: float = UNCERTAINTY_WEIGHT):
    """Play and rate ``games`` games of ``mode``. Returns (final ratings, [(games, order right?)] at each
    checkpoint, CPU seconds spent playing)."""
    bots = sorted(rates)
    want = right_order(rates)
    ratings: dict[str, Rating] = {}
    marks = []
    played = 0
    cpu = 0.0

    def one(deck: int, seats) -> None:
        nonlocal played, cpu
        t = time.process_time()
        fresh = (rs.deal_cap, deck, seats) not in _CACHE
        ranks = play(rs, deck, seats, rates)
        if fresh:
            cpu += time.process_time() - t
        else:
            cpu += _COST.get((rs.deal_cap, deck, seats), 0.0)
        if fresh:
            _COST[(rs.deal_cap, deck, seats)] = time.process_time() - t
        ratings.update(rater.rate(ratings, entries(rs, seats), ranks))
        played += 1
        if checkpoints and played % CHECK_EVERY == 0:
            order = sorted(ratings, key=lambda b: -ratings[b].conservative)  # the table's order
            marks.append((played, order == want))

    if mode != "adaptive":
        for deck, seats in planned(mode, bots, rs, games, seed):
            one(deck, seats)
        return ratings, marks, cpu
    # Adaptive: the arena's rule (Arena._next_adaptive), each round planned on the ratings after the last one.
    ups = schedule.lineups(bots, rs, 4, "mirrored")
    match = 0
    while played < games:
        def score(u):
            sigma = sum(ratings[b].sigma if b in ratings else DEFAULT_SIGMA for b in set(u))
            return rater.quality(ratings, entries(rs, u)) + uncertainty_weight * sigma
        order = schedule.apportion(ups, [score(u) for u in ups], ADAPTIVE_ROUND_GAMES // 2)
        for _, _, _, deck, seats in schedule.plan(bots, rs, 4, len(order) * 2, seed, first_match=match,
                                                  lineup_order=order):
            one(deck, tuple(seats))
        match += len(order)
    return ratings, marks, cpu


_COST: dict = {}


# ----------------------------------------------------------------------------- measurements
def scale(a) -> dict:
    rs = dataclasses.replace(get_ruleset("iowa"), deal_cap=a.deal_cap)
    rates = ladder(a.rates)
    out = {}
    print(f"iowa cut to {a.deal_cap} deals, ladder {', '.join(rates)}, {a.games} games, seeds 1..{a.seeds}")
    print(f"{'lineup':9} {'model':10} {'seed':>4} {'mean mu':>8} {'lowest':>7} {'highest':>8} {'spread':>7}  order right")
    for model, rater in (("unweighted", Unweighted()), ("weighted", Rater())):
        for mode in ("mirrored", "mixed"):
            for seed in range(1, a.seeds + 1):
                r, _, _ = run(mode, rates, rs, a.games, seed, rater)
                mus = [x.mu for x in r.values()]
                right = sorted(r, key=lambda b: -r[b].mu) == right_order(rates)
                out.setdefault(f"{mode}/{model}", []).append(
                    {"seed": seed, "mean": statistics.mean(mus), "spread": max(mus) - min(mus), "right": right})
                print(f"{mode:9} {model:10} {seed:4} {statistics.mean(mus):8.2f} {min(mus):7.2f} {max(mus):8.2f} "
                      f"{max(mus) - min(mus):7.2f}  {right}")
    return out


def games_to_right(marks_by_seed: list[list[tuple[int, bool]]], share: float = 0.8) -> int | None:
    """The first checkpoint from which the order is right in at least ``share`` of the seeds at every later one."""
    n = min(len(m) for m in marks_by_seed)
    ok = [sum(m[i][1] for m in marks_by_seed) >= share * len(marks_by_seed) for i in range(n)]
    for i in range(n):
        if all(ok[i:]):
            return marks_by_seed[0][i][0]
    return None


def ranking(a) -> dict:
    rs = dataclasses.replace(get_ruleset("iowa"), deal_cap=a.deal_cap)
    rates = ladder(a.rates)
    rater = Rater()
    res = {}
    print(f"iowa cut to {a.deal_cap} deals, ladder {', '.join(rates)}, {a.seeds} seeds, up to {a.max_games} games")
    for mode in a.modes.split(","):
        marks, cpus = [], []
        for seed in range(1, a.seeds + 1):
            _, m, cpu = run(mode, rates, rs, a.max_games, seed, rater, checkpoints=True,
                            uncertainty_weight=a.uncertainty_weight)
            marks.append(m)
            cpus.append(cpu / max(1, len(m) * CHECK_EVERY))
        g = games_to_right(marks)
        per_game = statistics.median(cpus)
        res[mode] = {"games": g, "seconds": None if g is None else g * per_game, "s_per_game": per_game,
                     "right_at_end": sum(m[-1][1] for m in marks) / len(marks)}
    base = res.get("naive", {})
    print(f"{'mode':9} {'games to 80%':>12} {'cpu s':>7} {'vs naive games':>15} {'vs naive s':>11} {'right at end':>13}")
    for mode, r in res.items():
        rg = (r["games"] / base["games"]) if r["games"] and base.get("games") else None
        rsec = (r["seconds"] / base["seconds"]) if r["seconds"] and base.get("seconds") else None
        r["ratio_games"], r["ratio_seconds"] = rg, rsec
        print(f"{mode:9} {r['games'] if r['games'] else '>' + str(a.max_games):>12} "
              f"{r['seconds'] or float('nan'):7.2f} {rg or float('nan'):15.2f} {rsec or float('nan'):11.2f} "
              f"{100 * r['right_at_end']:12.0f}%")
    return res


def verify(a) -> dict:
    rs = dataclasses.replace(get_ruleset("iowa"), deal_cap=a.deal_cap)
    rates = ladder(a.rates)
    r, _, _ = run("mirrored", rates, rs, a.games, 1, Rater())
    order = sorted(r, key=lambda b: -r[b].mu)
    for b in order:
        print(f"{b}: mu {r[b].mu:.2f} sigma {r[b].sigma:.2f}")
    print("order right:", order == right_order(rates))
    return {"order": order, "right": order == right_order(rates)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("scale", "ranking", "verify"))
    ap.add_argument("--games", type=int, default=800)
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--max-games", type=int, default=1500)
    ap.add_argument("--modes", default="mirrored,mixed,adaptive,naive")
    ap.add_argument("--deal-cap", type=int, default=4)
    ap.add_argument("--uncertainty-weight", type=float, default=UNCERTAINTY_WEIGHT,
                    help=f"adaptive: the weight of the line-up's sigmas in its score (the arena's: {UNCERTAINTY_WEIGHT})")
    ap.add_argument("--rates", type=lambda t: tuple(float(x) for x in t.split(",")), default=RATES,
                    help="the ladder's rates of random play, comma-separated (default 0,0.2,0.4,0.6,0.8)")
    ap.add_argument("--json", action="store_true", help="also print every figure as one JSON line")
    a = ap.parse_args(argv)
    if a.what == "verify" and a.games == 800:
        a.games = 4000
    a.seeds = a.seeds or (3 if a.what == "scale" else 20)
    out = {"scale": scale, "ranking": ranking, "verify": verify}[a.what](a)
    if a.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
