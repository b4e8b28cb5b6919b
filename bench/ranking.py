"""Ranking benchmark: how many games the arena needs to rank a ladder of bots of known strength.

The ladder: the heuristic sample bot mixed with random play at graded rates
(``mix00`` always plays the heuristic's action, ``mix20`` a uniformly random
legal action 20% of the time, ...), so the right order is known: the less
random, the stronger (``--verify`` checks it with one long run). Games are
played in this process on the rules engine (no referee, no bot processes),
in the order the arena's scheduler plans them, and rated with the arena's
TrueSkill code (:class:`arena.ratings.Rater`) in plan order, as the arena does.

Two measurements:

``scale``: the ratings after ``--games`` games of a
mirrored and of a mixed run of the same ladder, rated with the arena's model
and with the unweighted one (a bot alone in both seats of a mixed team rated as
a one-player team against a two-player team). Prints each run's mean mu, the
spread (highest minus lowest mu) and whether the order is right.

``ranking``: for each scheduling mode (mirrored round robin,
mixed, adaptive) and for a naive baseline (uniform random line-ups, a fresh
deck every game, no duplicate deals), the games until the table's order is
exactly right in at least 80% of ``--seeds`` runs (and stays so at every later
checkpoint): the arena's order (:func:`arena.points.table_order`: the points rating of the complete blocks, then
TrueSkill), and TrueSkill's alone beside it, on the same games; naive is ordered by TrueSkill, as a harness
without duplicate blocks has it; the CPU seconds this process took to play them, and both as a
ratio to the naive baseline's. The adaptive mode plans as the arena does: rounds
of arena.planners.adaptive_round games, each on the ratings after all but the last
adaptive_lag planned games (both grow with the run) (those the arena may still have in flight).

``--wallclock RUNS`` replaces the CPU seconds by wall-clock ones that are
honest about games in flight: RUNS real arena runs of each mode (the ``Arena``
of ``pepper arena run``: a referee subprocess, the bot processes of each
rung, ``python -m sample_bots heuristic --mix RATE``, default concurrency,
``--arena-games`` games, runs interleaved across modes), and for each mode's games to the right order N the seconds from the
start of play (the referee up and every bot process connected: the arena's
first progress report) until the first N planned games are all stored, the
moment ``pepper arena table --as-of N`` can show them: the latest
``finished_at`` among plan indexes below N, on the same clock (``time.time()``).
The time column is the median over the runs, ``(paired)`` the median of each
round's ratio to naive (the drifting load moves it less). Beside them, the
figure before this one: N divided by the run's mean games per second (start-up
included), which took neither an adaptive run's slow start (at most about 72
games in flight until 128 are planned) nor a planned run's convoy (its first
320 games in flight at once finish together) into account. A run shorter than
the largest N is lengthened to it, with a note. An adaptive run waits, before
each round, for the games planned up to the lag, exactly as in a user's run;
each run prints the most games it had in flight, the mean over time, its time
to N and its start-up.

``speed``: only those arena runs, at ``--deal-cap`` (``--deal-cap 200``:
whole games, whose seeds would take hours to play in process): each mode's
games per second and its ratio to naive's. Every arena run's line also gives
the CPU a game took in the referee and bot processes and in the arena's own
(``--concurrency N`` holds the runs to N games in flight: a Batch costs far
more than its items, so fewer in flight cost more CPU a game).

    .venv/bin/python bench/ranking.py scale [--games 800] [--seeds 3]
    .venv/bin/python bench/ranking.py ranking [--seeds 20] [--max-games 1500] [--modes mirrored,mixed,adaptive,naive]
    .venv/bin/python bench/ranking.py speed [--deal-cap 200] [--wallclock 3] [--modes mirrored,adaptive,naive] [--concurrency N]
    .venv/bin/python bench/ranking.py verify [--games 4000]

Games are iowa cut to ``--deal-cap`` deals (default 4; the higher score at
the cap wins), which keeps a game to a few milliseconds; ``--deal-cap 200``
plays whole games (about 90 ms each).

Each measurement's figures also go to docs/results/ranking-<measurement>.md (bench/results.py: ranking-scale.md,
ranking-ranking.md, ranking-speed.md, ranking-verify.md; ``--results PATH`` or ``--no-write`` instead).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

# Run as `python bench/ranking.py`: put the project root first, so that the package `referee` wins over this
# folder's bench/referee.py (imported by a test, the path is left alone).
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
elif str(Path(__file__).resolve().parent.parent) not in sys.path:   # imported from elsewhere: bench.results
    sys.path.append(str(Path(__file__).resolve().parent.parent))

from arena import schedule  # noqa: E402

# The adaptive planner's rule (arena/planners.py): a round's games, and the lag of the ratings it is chosen on (in games).
from arena.planners import adaptive_lag, adaptive_round  # noqa: E402
from arena.points import points_ratings, table_order  # noqa: E402
from arena.ratings import DEFAULT_SIGMA, Rater, Rating, ranks_from_result  # noqa: E402

# The table's orders measured: by the points rating of the complete blocks (the arena's default), and by TrueSkill on
# game results alone (the table before it, and a naive harness's).
from arena.stats import ORDERS  # noqa: E402
from bench import results  # noqa: E402
from referee.rules import Game, Ruleset, get_ruleset  # noqa: E402
from sample_bots import HeuristicBot  # noqa: E402
from sample_bots.mixed import Mixed  # noqa: E402

RATES = (0.0, 0.2, 0.4, 0.6, 0.8)
#: The fine ladder (rungs 10 points of random play apart) the documented games-to-the-order figures are measured on.
ORDER_RATES = (0.0, 0.1, 0.2, 0.3, 0.4)
# The scores the arena's adaptive rounds used before its table's adjacent pairs, kept here to compare them: TrueSkill
# match quality plus this weight of the line-up's sigmas ("quality"), and every opposed pair's order doubt ("doubt").
UNCERTAINTY_WEIGHT = 0.05


def lineup_doubt(ratings: dict, seats: list[str], table, default) -> float:
    """The "doubt" score of a line-up: the mean :func:`arena.schedule.order_doubt` of the pairs it sets against each
    other."""
    pairs = schedule.opposed_pairs(seats, table)
    return sum(schedule.order_doubt(ratings, a, b, default) for a, b in pairs) / len(pairs) if pairs else 0.0

CHECK_EVERY = 20  # games between checkpoints of the order


def ladder(rates=RATES) -> dict[str, float]:
    """Bot name -> its rate of random play; names sort from strongest to weakest."""
    return {f"mix{round(100 * r):02d}": r for r in rates}


def right_order(rates: dict[str, float]) -> list[str]:
    return sorted(rates, key=lambda b: rates[b])


HEURISTIC = HeuristicBot()   # stateless: one serves every seat of every game played in process


_CACHE: dict = {}


def play(rs: Ruleset, seed: int, seats: tuple[str, ...], rates: dict[str, float]) -> tuple[list[int], list[int]]:
    """One game's TrueSkill ranks per team (see arena.results.ranks) and its teams' scores, memoized: a game is a pure
    function of its deck seed and seats."""
    key = (rs.deal_cap, seed, seats)
    if key not in _CACHE:
        g = Game(rs, len(seats), seed=seed)
        bots = [Mixed(HEURISTIC, rates[b], random.Random(f"{seed}/{s}")) for s, b in enumerate(seats)]
        while not g.is_over:
            s = g.to_act
            g.apply(bots[s].decide(g.view(s).to_dict()))
        o = g.outcome
        _CACHE[key] = (ranks_from_result(list(o.scores), [t in o.winners for t in range(g.table.teams)]), list(o.scores))
    return _CACHE[key]


class Blocks:
    """The complete duplicate blocks of a run played in process, as the store's block rows are kept for the table's
    points rating (:mod:`arena.points`): each ordered pair of bots, each its team alone, the games of their complete
    blocks and the sum of the first's margins in them. A block is a deck's games; ``size`` games complete it."""

    def __init__(self, rs: Ruleset, players: int):
        self.table = rs.table(players)
        self.open: dict[int, list[tuple[tuple[str, ...], list[int]]]] = {}
        self.pairs: dict[tuple[str, str], list] = {}

    def add(self, deck: int, seats: tuple[str, ...], scores: list[int], size: int) -> None:
        games = self.open.setdefault(deck, [])
        games.append((seats, scores))
        if len(games) < size:
            return
        del self.open[deck]
        for seats, scores in games:
            teams = [{seats[s] for s in self.table.team_seats(t)} for t in range(self.table.teams)]
            if any(len(t) != 1 for t in teams) or len(set().union(*teams)) != len(teams):
                continue   # a mixed line-up: partners share a result, and the table leaves it out
            names = [next(iter(t)) for t in teams]
            for i, a in enumerate(names):
                for j, b in enumerate(names):
                    if i != j:
                        acc = self.pairs.setdefault((a, b), [0, 0.0])
                        acc[0] += 1
                        acc[1] += scores[i] - scores[j]

    def points(self) -> dict[str, float]:
        return points_ratings((a, b, n, m) for (a, b), (n, m) in self.pairs.items())


def order_of(ratings: dict[str, Rating], blocks: Blocks | None) -> list[str]:
    """The table's order (:func:`arena.points.table_order`): by the points rating where a bot has complete blocks,
    then by TrueSkill; ``blocks`` None: by TrueSkill alone."""
    points = blocks.points() if blocks is not None else {}
    return table_order(ratings, {b: r.conservative for b, r in ratings.items()}, points)


def entries(rs: Ruleset, seats) -> list[list[str]]:
    t = rs.table(len(seats))
    return [[seats[s] for s in t.team_seats(team)] for team in range(t.teams)]


class Unweighted(Rater):
    """The model before teams were weighted: every distinct bot of a team at weight 1 (a team's skill is the sum)."""

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
        checkpoints: bool = False, uncertainty_weight: float = UNCERTAINTY_WEIGHT, score: str = "table",
        floor: float = schedule.ADAPTIVE_FLOOR, round_games: int | None = None,
        lag: int | None = None, slack: int | None = schedule.ADAPTIVE_SLACK):
    """Play and rate ``games`` games of ``mode``. Returns (final ratings, {order: [(games, order right?)] at each
    checkpoint}, CPU seconds spent playing), for each order of :data:`ORDERS`. Adaptive: ``lag`` and ``round_games``
    fixed, or (None) the arena's, :func:`arena.planners.adaptive_lag` and :func:`~arena.planners.adaptive_round` of
    the games planned."""
    bots = sorted(rates)
    want = right_order(rates)
    ratings: dict[str, Rating] = {}
    marks: dict[str, list[tuple[int, bool]]] = {o: [] for o in ORDERS}
    blocks = Blocks(rs, 4)
    block_size = 1 if mode == "naive" else 2   # naive: a fresh deck every game; else a mirrored match's two games
    played = 0
    cpu = 0.0

    def one(deck: int, seats) -> None:
        nonlocal played, cpu
        t = time.process_time()
        fresh = (rs.deal_cap, deck, seats) not in _CACHE
        ranks, scores = play(rs, deck, seats, rates)
        if fresh:
            cpu += time.process_time() - t
        else:
            cpu += _COST.get((rs.deal_cap, deck, seats), 0.0)
        if fresh:
            _COST[(rs.deal_cap, deck, seats)] = time.process_time() - t
        ratings.update(rater.rate(ratings, entries(rs, seats), ranks))
        if checkpoints:
            blocks.add(deck, seats, scores, block_size if len(set(seats)) == 2 else len(seats))
        played += 1
        if checkpoints and played % CHECK_EVERY == 0:
            for o in ORDERS:
                marks[o].append((played, order_of(ratings, blocks if o == "points" else None) == want))

    if mode != "adaptive":
        for deck, seats in planned(mode, bots, rs, games, seed):
            one(deck, seats)
        return ratings, marks, cpu
    # Adaptive: the arena's rule (AdaptivePlanner.next_round and .basis): each round is planned on the ratings
    # after the games planned up to ``lag`` games before it, in plan order (those after may still be in flight).
    ups = schedule.lineups(bots, rs, 4, "mirrored")
    members = [sorted(set(u)) for u in ups]
    table = rs.table(4)
    counts = [0] * len(ups)
    bot_counts = dict.fromkeys(bots, 0)
    after: list[dict] = [{}]  # the ratings after each planned game
    match = 0
    while played < games:
        n = len(after) - 1   # games planned
        basis = after[max(0, n - (adaptive_lag(n) if lag is None else lag))]
        rnd = adaptive_round(n) if round_games is None else round_games
        if score == "quality":  # TrueSkill match quality plus a bonus for the sigmas (the first adaptive score)
            values = [rater.quality(basis, entries(rs, u)) + uncertainty_weight
                      * sum(basis[b].sigma if b in basis else DEFAULT_SIGMA for b in set(u)) for u in ups]
        elif score == "doubt":  # every opposed pair's order doubt (the score before the table's adjacent pairs)
            values = [lineup_doubt(basis, u, table, Rating()) for u in ups]
        else:  # the arena's (AdaptivePlanner.lineup_scores)
            doubt = schedule.table_doubt(basis, bots, Rating())
            values = [schedule.lineup_table_doubt(doubt, u, table) for u in ups]
        order = schedule.adaptive_order(values, counts, max(1, rnd // 2), floor,
                                        members=None if slack is None else members, bot_counts=bot_counts,
                                        slack=slack or 0)
        for i in order:
            counts[i] += 1
            for b in members[i]:
                bot_counts[b] += 1
        for _, _, _, deck, seats in schedule.plan(bots, rs, 4, len(order) * 2, seed, first_match=match,
                                                  lineup_order=[ups[i] for i in order]):
            one(deck, tuple(seats))
            after.append(dict(ratings))
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
    if a.games_to_right:   # N given (an earlier run's, same code and seeds): only the wall clock is measured
        if not a.wallclock:
            raise SystemExit("--games-to-right only skips playing the seeds for --wallclock: give --wallclock RUNS")
        print(f"iowa cut to {a.deal_cap} deals; games to the right order given: "
              + ", ".join(f"{m} {n}" for m, n in a.games_to_right.items()))
        res = {m: {"games": n, "seconds": None, "s_per_game": None, "right_at_end": None}
               for m, n in a.games_to_right.items()}
        return _ranking_wallclock(a, res)
    print(f"iowa cut to {a.deal_cap} deals, ladder {', '.join(rates)}, {a.seeds} seeds, up to {a.max_games} games")
    for mode in a.modes.split(","):
        marks: dict[str, list] = {o: [] for o in ORDERS}
        cpus = []
        for seed in range(1, a.seeds + 1):
            _, m, cpu = run(mode, rates, rs, a.max_games, seed, rater, checkpoints=True,
                            uncertainty_weight=a.uncertainty_weight)
            for o in ORDERS:
                marks[o].append(m[o])
            cpus.append(cpu / max(1, len(m["points"]) * CHECK_EVERY))
        per_game = statistics.median(cpus)
        by_order = {o: games_to_right(marks[o]) for o in ORDERS}
        # A naive harness has neither duplicate blocks nor their evidence: its table is TrueSkill's on game results.
        order = "trueskill" if mode == "naive" else "points"
        g = by_order[order]
        res[mode] = {"games": g, "seconds": None if g is None else g * per_game, "s_per_game": per_game, "order": order,
                     "right_at_end": sum(m[-1][1] for m in marks[order]) / len(marks[order]),
                     "games_by_order": by_order}
    if a.wallclock:
        return _ranking_wallclock(a, res)
    base = res.get("naive", {})
    print(f"{'mode':9} {'order':9} {'games to 80%':>12} {'cpu s':>8} {'vs naive games':>15} {'vs naive s':>11} "
          f"{'right at end':>13}  {'games, other order':>18}")
    for mode, r in res.items():
        rg, rsec = _ratio(r["games"], base.get("games")), _ratio(r["seconds"], base.get("seconds"))
        r["ratio_games"], r["ratio_seconds"] = rg, rsec
        other = next(o for o in ORDERS if o != r["order"])
        print(f"{mode:9} {r['order']:9} {_games(r['games'], a.max_games):>12} {_num(r['seconds']):>8} {_num(rg):>15} "
              f"{_num(rsec):>11} {100 * r['right_at_end']:12.0f}%  {other} {_games(r['games_by_order'][other], a.max_games)}")
    return res


def _ratio(x, base):
    return x / base if x and base else None


def _num(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _games(g, cap: int) -> str:
    return str(g) if g else f">{cap}"


def _ranking_wallclock(a, res: dict) -> dict:
    """``ranking --wallclock RUNS``: each mode's time to its games to the right order N, measured in real arena runs as
    the seconds from the start of play until the first N planned games were all stored (the median over the runs:
    ``seconds``), beside the figure before it, N / the run's mean games per second (``seconds_by_rate``); the ratios to
    naive of both and the median of each round's ratio (:func:`paired_ratio`)."""
    need = {m: r["games"] for m, r in res.items() if r["games"]}
    games = a.arena_games
    if need and max(need.values()) > games:  # a shorter run would not store the first N games
        longest = max(need, key=need.get)
        print(f"note: --arena-games {games} is fewer than the {need[longest]} games {longest} needs: "
              f"arena runs of {need[longest]} games instead")
        games = need[longest]
    missing = [m for m, r in res.items() if not r["games"]]
    print(f"wall clock: {a.wallclock} real arena runs of {games} games per mode, interleaved; time to N = seconds from "
          "the start of play (referee up, bots connected) until the first N planned games are all stored (median)"
          + (f"; no N, not timed: {', '.join(missing)}" if missing else ""))
    runs = wallclock(list(res), games, a.deal_cap, a.wallclock, first=need, rates=a.rates)
    for mode, r in res.items():
        rr = runs[mode]
        r["arena_games"] = games
        r["arena_rate"] = statistics.median(x["rate"] for x in rr)
        r["arena_runs"] = rr
        r["seconds_by_rate"] = r["games"] / r["arena_rate"] if r["games"] else None
        # Per run (None: it did not store all N, and says so in its line); the median of those that did.
        r["seconds_runs"] = [x["seconds_to_first"].get(r["games"]) for x in rr] if r["games"] else [None] * len(rr)
        times = [t for t in r["seconds_runs"] if t is not None]
        r["seconds"] = statistics.median(times) if times else None
    base = res.get("naive", {})
    print(f"{'mode':9} {'games to 80%':>12} {'s to N':>7} {'N/rate s':>8} {'vs naive games':>15} {'vs naive s':>11} "
          f"{'(paired)':>9} {'(by rate)':>9} {'right at end':>13}")
    for mode, r in res.items():
        r["ratio_games"] = _ratio(r["games"], base.get("games"))
        r["ratio_seconds"] = _ratio(r["seconds"], base.get("seconds"))
        r["ratio_seconds_paired"] = paired_ratio(r["seconds_runs"], base.get("seconds_runs", []))
        r["ratio_seconds_by_rate"] = _ratio(r["seconds_by_rate"], base.get("seconds_by_rate"))
        print(f"{mode:9} {_games(r['games'], a.max_games):>12} {_num(r['seconds']):>7} {_num(r['seconds_by_rate']):>8} "
              f"{_num(r['ratio_games']):>15} {_num(r['ratio_seconds']):>11} {_num(r['ratio_seconds_paired']):>9} "
              f"{_num(r['ratio_seconds_by_rate']):>9} {_pct(r['right_at_end']):>13}")
    return res


def paired_ratio(times: list[float | None], base: list[float | None]) -> float | None:
    """The median over rounds of interleaved runs of a mode's time over the baseline's in the same round: the runs of
    a round are minutes apart at most, so the machine's load, which drifts, cancels more than in the ratio of medians.
    Rounds where either did not store all its N are left out; None when none is left."""
    ratios = [t / b for t, b in zip(times, base) if t is not None and b]
    return statistics.median(ratios) if ratios else None


# ----------------------------------------------------------------------------- wall clock through the arena
ARENA_MODES = {  # how each mode runs in `pepper arena run` (naive: no arena mode draws line-ups at random, but a
    # planned run without duplicate deals keeps as many games in flight, which is what its speed depends on). The
    # adaptive mode is the arena's own loop: it plans a round once the games planned up to ADAPTIVE_LAG_GAMES before it
    # are stored, so its games in flight, and its speed, are those of a real adaptive run.
    "mirrored": {"adaptive": False}, "mixed": {"lineup": "mixed", "adaptive": False}, "adaptive": {"adaptive": True},
    "naive": {"duplicate": False, "adaptive": False}}


def seconds_to_first(store, run_id: int, n: int, start: float) -> float | None:
    """Seconds from ``start`` (a ``time.time()``, the clock of the store's ``finished_at``) until every one of run
    ``run_id``'s first ``n`` planned games was stored: what ``pepper arena table --as-of n`` needs. Games finish out of
    plan order, so it is the latest ``finished_at`` among plan indexes below ``n``, not that of the n-th game stored.
    None when some of them are not stored (a run shorter than ``n``, or a game left unplayed)."""
    count, last = store.db.execute("SELECT COUNT(*), MAX(finished_at) FROM games WHERE run_id = ? AND idx < ?",
                                   (run_id, n)).fetchone()
    return last - start if n > 0 and count == n else None


def arena_rate(mode: str, games: int, deal_cap: int, seed: int, first: tuple[int, ...] = (),
               concurrency: int | None = None, rates: tuple[float, ...] = RATES) -> dict:
    """One real arena run (referee subprocess, the bot processes of each rung of the ladder of ``rates``, default
    concurrency) of ``mode``'s configuration, iowa cut to ``deal_cap`` deals: its games per second over the whole run (``rate``: from the call,
    the referee's and the bots' start-up included, as the older figures did), the most games in
    flight at once and the mean over time, the start-up (``startup_s``: until the arena, the referee up and every bot
    process connected, first reports progress, just before it creates the first game: the start of play), and for each
    n of ``first`` the seconds from the start of play until the first n planned games were all stored
    (:func:`seconds_to_first`; None when the run is shorter). ``cpu_ms``: the CPU milliseconds a game took in the
    referee and bot processes together (their rusage, once they have exited) and ``arena_cpu_ms`` in this process
    (the arena's loop and its writer thread): per decision, a Batch costs far more than its items, so fewer games in
    flight (smaller Batches) cost more CPU a game."""
    import asyncio
    import resource
    import tempfile

    from arena.store import Store
    from arena.tournament import Arena, RunConfig

    root = Path(__file__).resolve().parent.parent
    started: list[float] = []  # time.time() at the arena's first progress report: the start of play

    def on_progress(_progress) -> None:
        if not started:
            started.append(time.time())

    with tempfile.TemporaryDirectory() as d:
        rules = Path(d) / "cut.toml"
        rules.write_text(f'name = "iowa-cut"\nextends = "iowa"\ndeal_cap = {deal_cap}\n')
        st = Store(Path(d) / "bench.db")
        rungs = ladder(rates)
        names = list(rungs)
        for n in names:   # the ladder's rungs as bot processes, so that an adaptive run plans on their real strengths
            st.add_bot(n, "command", command=f"{{python}} -m sample_bots heuristic --mix {rungs[n]} --seed {seed}",
                       cwd=str(root))
        cfg = RunConfig(ruleset=str(rules), games=games, seed=seed, bots=names, db=str(Path(d) / "bench.db"),
                        log_dir=str(Path(d) / "logs"), concurrency=concurrency, **ARENA_MODES[mode])
        kids0, me0 = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
        t0, w0 = time.perf_counter(), time.time()
        run_id, prog = asyncio.run(Arena(cfg, st, on_progress).run())
        dt = time.perf_counter() - t0
        kids, me = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
        to_first = {n: seconds_to_first(st, run_id, n, started[0]) for n in first}
        st.close()
    return {"rate": prog.done / dt, "most_in_flight": prog.most_in_flight, "mean_in_flight": prog.mean_in_flight(),
            "startup_s": started[0] - w0, "games": prog.done, "seconds_to_first": to_first,
            "cpu_ms": _cpu(kids0, kids) * 1000 / max(1, prog.done), "arena_cpu_ms": _cpu(me0, me) * 1000 / max(1, prog.done)}


def _cpu(before, after) -> float:
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def wallclock(modes: list[str], games: int, deal_cap: int, runs: int, first: dict[str, int] | None = None,
              concurrency: int | None = None, rates: tuple[float, ...] = RATES) -> dict[str, list[dict]]:
    """Each mode's ``runs`` arena runs (:func:`arena_rate`), interleaved (the machine's load drifts), timing for each
    mode the first ``first[mode]`` planned games, if given."""
    first = first or {}
    out: dict[str, list[dict]] = {m: [] for m in modes}
    for k in range(runs):
        for m in modes:
            n = first.get(m)
            r = arena_rate(m, games, deal_cap, seed=k + 1, first=(n,) if n else (), concurrency=concurrency,
                           rates=rates)
            out[m].append(r)
            line = (f"  arena run {k + 1}/{runs}, {m}: {r['rate']:.1f} games/s, at most {r['most_in_flight']} games in "
                    f"flight, {r['mean_in_flight']:.0f} on average, CPU {r['cpu_ms']:.1f} ms a game in the referee "
                    f"and bots and {r['arena_cpu_ms']:.1f} in the arena")
            if n:
                s = r["seconds_to_first"][n]
                line += (f", first {n} planned games stored {s:.2f} s into play" if s is not None
                         else f", first {n} planned games NOT all stored ({r['games']} games)")
                line += f" (start-up {r['startup_s']:.2f} s)"
            print(line, flush=True)
    return out


def speed(a) -> dict:
    """Only the arena's speed per mode (``--wallclock`` runs of ``--arena-games`` games at ``--deal-cap``), no games to
    the right order: how the modes' speeds compare at a deal cap where playing the seeds in process would take hours
    (``--deal-cap 200``, whole games)."""
    modes = a.modes.split(",")
    print(f"iowa cut to {a.deal_cap} deals: {a.wallclock or 3} real arena runs of {a.arena_games} games per mode")
    runs = wallclock(modes, a.arena_games, a.deal_cap, a.wallclock or 3, concurrency=a.concurrency, rates=a.rates)
    rates = {m: statistics.median(r["rate"] for r in rs) for m, rs in runs.items()}
    base = rates.get("naive")
    for m, r in rates.items():
        print(f"{m:9} {r:6.1f} games/s" + (f", {r / base:.2f} of naive's" if base else ""))
    return rates


def verify(a) -> dict:
    rs = dataclasses.replace(get_ruleset("iowa"), deal_cap=a.deal_cap)
    rates = ladder(a.rates)
    r, _, _ = run("mirrored", rates, rs, a.games, 1, Rater())
    order = sorted(r, key=lambda b: -r[b].mu)
    for b in order:
        print(f"{b}: mu {r[b].mu:.2f} sigma {r[b].sigma:.2f}")
    print("order right:", order == right_order(rates))
    return {"order": order, "right": order == right_order(rates),
            "ratings": {b: {"mu": r[b].mu, "sigma": r[b].sigma} for b in order}}


def variance(a) -> dict:
    """Each block statistic's variance and effective-games multiplier on pairs of the ladder (bench/deal_variance.py),
    then the match's SPRT with each statistic on the same blocks of heuristic against H10, and its error rates."""
    from arena.sprt import Sprt
    from bench import deal_variance as dv

    configs = dv.parse_configs(a.configs) if a.configs else list(dv.CONFIGS)
    pairs, rates = dv.names_of(dv.parse_pairs(a.pairs))
    print(f"pairs {', '.join(f'{x}-{y}' for x, y in pairs)}; {a.blocks} blocks per pair; games in full unless cut")
    rows = dv.measure(configs, pairs, rates, a.blocks, 1)
    sprt = Sprt.parse(a.sprt)
    rs = get_ruleset("iowa")
    print(f"pepper arena match heuristic H10 --sprt \"{a.sprt}\": {a.matches} seeded matches, full iowa games")
    per, values = dv.sprt_matches(rs, 4, "heuristic", "H10", {"heuristic": 0.0, "H10": 0.1}, sprt, a.matches,
                                  a.max_blocks, 1000)
    errors = dv.error_rates(values, sprt, 2, a.error_runs, a.max_error_blocks, 1)
    tests = {}
    for name, results_ in per.items():
        games = statistics.median(2 * blocks for blocks, _ in results_)
        tests[name] = {"games": games, "h1": sum(v == "H1" for _, v in results_) / len(results_),
                       "undecided": sum(v is None for _, v in results_) / len(results_), **errors[name]}
    base = tests[dv.BASELINE]["games"]
    slack = 3 * math.sqrt(sprt.alpha * (1 - sprt.alpha) / a.error_runs)
    for name, t in tests.items():
        t["ratio"] = t["games"] / base
        t["honest"] = t["elo0"] <= sprt.alpha + slack and t["elo1"] <= sprt.beta + slack
        print(f"  {name:12} median games {t['games']:7.0f} ({t['ratio']:.2f} of today's), H1 in {_pct(t['h1'])}, "
              f"errors at elo0 {_pct(t['elo0'])}, at elo1 {_pct(t['elo1'])}")
    honest = [n for n, t in tests.items() if t["honest"] and n != dv.BASELINE]
    best = min(honest, key=lambda n: tests[n]["games"]) if honest else None
    out = {"configs": rows, "sprt": tests, "best": best}
    if not a.no_write:
        svg = Path(a.svg)
        svg.parent.mkdir(parents=True, exist_ok=True)
        svg.write_text(dv.svg(rows, "Evidence per block, by statistic"))
    r3 = f"{tests[best]['ratio']:.2f}" if best else "n/a"
    r1 = r2 = "n/a"
    if a.order_seeds:   # the table's order (the points rating) on the fine ladder, against naive: ranking's measurement
        order = argparse.Namespace(**{**vars(a), "seeds": a.order_seeds, "max_games": a.order_max_games,
                                      "rates": ORDER_RATES, "modes": "adaptive,mirrored,naive", "deal_cap": 4,
                                      "wallclock": a.order_wallclock, "games_to_right": None})
        out["order"] = ranking(order)
        default = out["order"]["adaptive"]   # the arena's default mode
        shown = lambda x: "n/a" if x is None else f"{x:.2f}"  # noqa: E731
        r1 = shown(default.get("ratio_games"))
        r2 = shown(default.get("ratio_seconds")) if a.order_wallclock else "n/a"
    print(f"variance: order_games_ratio={r1} order_time_ratio={r2} sprt_games_ratio={r3}")
    return out


def _given(text: str) -> dict[str, int]:
    """``adaptive=120,naive=240`` -> {"adaptive": 120, "naive": 240}."""
    try:
        out = {m.strip(): int(n) for m, n in (part.split("=") for part in text.split(","))}
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MODE=N[,MODE=N...], e.g. adaptive=120,naive=240, got {text!r}") from None
    bad = set(out) - set(ARENA_MODES)
    if bad or any(n <= 0 for n in out.values()):
        raise argparse.ArgumentTypeError(f"modes are {', '.join(ARENA_MODES)} and N a positive number of games, got {text!r}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("scale", "ranking", "speed", "verify", "variance"))
    ap.add_argument("--games", type=int, default=800)
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--max-games", type=int, default=1500)
    ap.add_argument("--modes", default="mirrored,mixed,adaptive,naive")
    ap.add_argument("--deal-cap", type=int, default=4)
    ap.add_argument("--uncertainty-weight", type=float, default=UNCERTAINTY_WEIGHT,
                    help=f"adaptive: the weight of the line-up's sigmas in its score (the arena's: {UNCERTAINTY_WEIGHT})")
    ap.add_argument("--rates", type=lambda t: tuple(float(x) for x in t.split(",")), default=RATES,
                    help="the ladder's rates of random play, comma-separated (default 0,0.2,0.4,0.6,0.8)")
    ap.add_argument("--wallclock", type=int, default=0, metavar="RUNS",
                    help="ranking: time each mode by RUNS real arena runs (`pepper arena run`'s Arena: referee, bot "
                         "processes): the seconds until the first N planned games are stored, N the mode's games "
                         "to the right order, instead of CPU seconds")
    ap.add_argument("--arena-games", type=int, default=480, help="--wallclock: games per arena run (ranking: at least the largest N)")
    ap.add_argument("--games-to-right", type=_given, default=None, metavar="MODE=N,...",
                    help="ranking --wallclock: each mode's games to the right order, from an earlier ranking run of the "
                         "same code and seeds, so that only the arena runs are played (e.g. adaptive=120,naive=240)")
    ap.add_argument("--concurrency", type=int, default=None,
                    help="speed: the runs' games in flight (default: the arena's default; an adaptive run keeps fewer)")
    ap.add_argument("--json", action="store_true", help="also print every figure as one JSON line")
    ap.add_argument("--configs", default="", metavar="RULESET:PLAYERS[:CAP],...",
                    help="variance: the configurations (default every ruleset and player count, full games)")
    ap.add_argument("--pairs", default="0:0.05,0:0.1,0.2:0.25,0.2:0.2", metavar="A:B,...",
                    help="variance: the pairs' rates of random play (an equal pair: its interval coverage)")
    ap.add_argument("--blocks", type=int, default=120, help="variance: blocks per pair and configuration")
    ap.add_argument("--sprt", default="elo0=0 elo1=10 alpha=0.05 beta=0.05", help="variance: the match's test")
    ap.add_argument("--matches", type=int, default=40, help="variance: seeded matches of heuristic against H10")
    ap.add_argument("--max-blocks", type=int, default=400, help="variance: a match's most blocks")
    ap.add_argument("--error-runs", type=int, default=200, help="variance: simulated tests per hypothesis and method")
    ap.add_argument("--max-error-blocks", type=int, default=20000, help="variance: a simulated test's most blocks")
    ap.add_argument("--order-seeds", type=int, default=160,
                    help="variance: seeds of the games to the table's order on the fine ladder (0: not measured)")
    ap.add_argument("--order-max-games", type=int, default=400, help="variance: a seed's most games for the order")
    ap.add_argument("--order-wallclock", type=int, default=3, metavar="RUNS",
                    help="variance: real arena runs per mode timing the games to the order (0: not timed)")
    ap.add_argument("--svg", default=str(results.ROOT / "docs" / "img" / "deal-variance.svg"),
                    help="variance: where the plot goes (not with --no-write)")
    results.add_arguments(ap)
    a = ap.parse_args(argv)
    if a.what == "verify" and a.games == 800:
        a.games = 4000
    a.seeds = a.seeds or (3 if a.what == "scale" else 20)
    written = results.Results("ranking", *MEASURES[a.what](a), a, argv=argv, mode=a.what)
    out = {"scale": scale, "ranking": ranking, "speed": speed, "verify": verify, "variance": variance}[a.what](a)
    TABLES[a.what](written, a, out)
    written.write()
    if a.json:
        print(json.dumps(out))
    return 0


# ----------------------------------------------------------------------------- results files (bench/results.py)
def _ladder_text(a) -> str:
    return f"iowa cut to {a.deal_cap} deals, ladder {', '.join(ladder(a.rates))} (the heuristic with that % of random play)"


MEASURES = {  # each measurement's title and line on what it measures
    "scale": lambda a: ("Rating scale", f"The ratings after {a.games} games of a mirrored and of a mixed run, rated with "
                        "the arena's model and with the unweighted one (a bot alone in both seats of a mixed team rated "
                        f"as a one-player team), medians over seeds 1..{a.seeds}; {_ladder_text(a)}."),
    "ranking": lambda a: ("Games to the right order", "Per scheduling mode, the games until the table's order is exactly "
                          + (f"right given by an earlier run of the same code (--games-to-right: {', '.join(f'{m} {n}' for m, n in a.games_to_right.items())})"
                             if a.games_to_right else f"right in at least 80% of {a.seeds} seeds (and stays so)")
                          + ", and their time, against a naive "
                          "schedule (uniform random line-ups, a fresh deck every game, ordered by TrueSkill on game "
                          "results: the baseline, measured in the same run); the arena's modes ordered as its table is, "
                          "by the points rating of their complete duplicate blocks (arena/points.py), and each mode's "
                          f"games by either order beside; {_ladder_text(a)}; "
                          + (f"time: seconds to the first N planned games stored in {a.wallclock} real arena run(s) per "
                             "mode (medians)." if a.wallclock else "time: CPU seconds of this process playing them.")),
    "speed": lambda a: ("Arena speed per scheduling mode", f"Games per second of {a.wallclock or 3} real arena runs of "
                        f"{a.arena_games} games per mode (medians), against the naive schedule's (the baseline, runs "
                        f"interleaved); {_ladder_text(a)}."),
    "variance": lambda a: ("Evidence per block, by statistic", "Per block statistic (arena/deals_evidence.py), its "
                           f"separation z = mean distance from its centre / SD over {a.blocks} duplicate blocks per pair "
                           "of ladder rungs (the heuristic with that rate of random play), and its effective-games "
                           "multiplier over the block score, (z / z_score)^2 pooled over the unequal pairs; then "
                           f"`pepper arena match heuristic H10 --sprt \"{a.sprt}\"` with each statistic on the same "
                           f"blocks of {a.matches} seeded matches of full iowa games, and each test's error rates by "
                           f"{a.error_runs} simulated tests per hypothesis on those blocks, resampled"
                           + ("; then the games until the table's order (the points rating) is exactly right, as "
                              "`ranking` measures them, for the adaptive default, a planned round robin and the naive "
                              "baseline, timed by real arena runs." if a.order_seeds else ".")),
    "verify": lambda a: ("Ladder order", f"The ratings after one mirrored run of {a.games} games, to check the ladder's "
                         f"order (the less random play, the stronger); {_ladder_text(a)}."),
}


def _scale_table(out: results.Results, a, res: dict) -> None:
    rows = [[*key.split("/"), statistics.median(x["mean"] for x in runs), statistics.median(x["spread"] for x in runs),
             sum(x["right"] for x in runs) / len(runs)] for key, runs in res.items()]
    out.table(["line-up", "model", "mean mu", "spread (highest - lowest mu)", "order right, share of seeds"], rows)


def _ranking_table(out: results.Results, a, res: dict) -> None:
    cols = ["mode", "table order", "games to 80% right", "seconds to N", "ratio to naive, games", "ratio to naive, seconds"]
    if a.wallclock:
        cols += ["ratio to naive, seconds (paired)", "N / the run's games/s", "ratio to naive, by rate"]
    cols += ["right at the end, share", "games to 80% right, by points", "by TrueSkill"]
    rows = []
    for mode, r in res.items():
        row = [f"{mode} (the baseline)" if mode == "naive" else mode, r.get("order") or "-",
               r["games"] or f">{a.max_games}", r["seconds"], r.get("ratio_games"), r.get("ratio_seconds")]
        if a.wallclock:
            row += [r.get("ratio_seconds_paired"), r.get("seconds_by_rate"), r.get("ratio_seconds_by_rate")]
        by = r.get("games_by_order", {})
        rows.append(row + [r["right_at_end"], *(by.get(o) or ("-" if o not in by else f">{a.max_games}") for o in ORDERS)])
    out.table(cols, rows)


def _speed_table(out: results.Results, a, rates: dict) -> None:
    base = rates.get("naive")
    out.table(["mode", "games/s", "ratio to naive"],
              [[f"{m} (the baseline)" if m == "naive" else m, r, r / base if base else None] for m, r in rates.items()])


def _verify_table(out: results.Results, a, res: dict) -> None:
    rungs = ladder(a.rates)
    out.table(["place", "bot", "random play", "mu", "sigma"],
              [[i + 1, b, rungs[b], res["ratings"][b]["mu"], res["ratings"][b]["sigma"]] for i, b in enumerate(res["order"])],
              note=f"Order right: {'yes' if res['right'] else 'no'}.")


def _variance_table(out: results.Results, a, res: dict) -> None:
    from arena.deals_evidence import STATISTICS

    names = list(STATISTICS)
    out.table(["ruleset", "players", "deal cap", "blocks per pair"] + [f"{n}, multiplier" for n in names],
              [[r["ruleset"], r["players"], r["deal_cap"] or "full", r["blocks"]] + [r["multiplier"][n] for n in names]
               for r in res["configs"]], heading="Effective-games multiplier over the block score, pooled over pairs")
    rows = []
    for r in res["configs"]:
        for p in r["pairs"]:
            for n in names:
                s = p.get(n)
                rows.append([r["ruleset"], r["players"], f"{p['a']}-{p['b']}", n] + (
                    [s["mean"], s["sd"], s["sd"] ** 2, s["z"]] if s else [None] * 4))
    out.table(["ruleset", "players", "pair", "statistic", "mean less centre", "SD per block", "variance per block",
               "z"], rows, heading="Per pair")
    cov = [[r["ruleset"], r["players"], pair] + [c.get(n) for n in names]
           for r in res["configs"] for pair, c in r["coverage"].items()]
    if cov:
        out.table(["ruleset", "players", "pair"] + [f"{n}, coverage" for n in names], cov,
                  heading="Coverage of the 95% interval on equal bots (runs of 20 blocks)")
    out.table(["test", "median games to a decision", "ratio to today's", "H1 share", "error at elo0", "error at elo1"],
              [[n, t["games"], t["ratio"], t["h1"], t["elo0"], t["elo1"]] for n, t in res["sprt"].items()],
              heading="The match's SPRT, heuristic against H10",
              note=f"Best honest test: {res['best'] or 'none'}.")
    if "order" in res:
        sub = argparse.Namespace(**{**vars(a), "wallclock": a.order_wallclock, "max_games": a.order_max_games})
        before = len(out.tables)
        _ranking_table(out, sub, res["order"])
        out.tables[before].heading = (f"Games to the table's exact order in 80% of {a.order_seeds} seeds, fine ladder "
                                      f"{', '.join(ladder(ORDER_RATES))}, iowa cut to 4 deals")


TABLES = {"scale": _scale_table, "ranking": _ranking_table, "speed": _speed_table, "verify": _verify_table, "variance": _variance_table}


if __name__ == "__main__":
    raise SystemExit(main())
