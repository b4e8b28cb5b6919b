"""Line-ups and duplicate deals: which bots sit where, on which deck.

A *match* is one line-up on one deck seed. With duplicate deals (the
default) a match is several games on the same seed with the seats rotated,
so each bot, or each partnership, plays the same cards the others did and the
luck of the deal cancels out:

- mirrored partnerships (every seat of a team the same bot): 2 games, the
  teams swap seats;
- mixed partnerships and free-for-all tables: one game per seat rotation,
  so every bot sits in every seat.

Without duplicate deals a match is one game, and each line-up's seats turn
one rotation further every time it is played, so no bot keeps seat 0.

A run cycles through the round robin's line-ups, each round in a balanced
order (:func:`balanced_lineups`): the next line-up is always one whose bots
have played least so far, so a run that stops part-way through a round (a
short run, or the tail of a long one) still shares its games evenly among
the bots rather than favouring the alphabetically first.

Seed k of a run is ``random.Random(f"{run seed}/{k}")``-derived, so the plan
is a pure function of the config (resuming rebuilds the same plan).

``ruleset`` arguments take a built-in name, a ``.toml`` path or a
:class:`~referee.rules.Ruleset`; plans store the ruleset's name.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator

from referee.rules import Ruleset, get_ruleset

Plan = list[tuple[int, str, int, int, list[str]]]  # (match, ruleset name, players, seed, seats)


def _ruleset(ruleset: str | Ruleset) -> Ruleset:
    return ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset)


def is_partnership(ruleset: str | Ruleset, players: int) -> bool:
    t = _ruleset(ruleset).table(players)
    return t.teams < players


def lineups(bots: list[str], ruleset: str | Ruleset, players: int, mode: str = "mirrored") -> list[list[str]]:
    """Every line-up of the round robin, as bot names by seat (before rotation)."""
    t = _ruleset(ruleset).table(players)
    bots = sorted(dict.fromkeys(bots))
    if len(bots) < 2:
        raise ValueError(f"a tournament needs at least 2 bots, got {len(bots)}: register more with `pepper bot register`")
    if t.teams < players:  # partnerships
        team_seats = [t.team_seats(i) for i in range(t.teams)]
        size = len(team_seats[0])
        out = []
        if mode == "mirrored":
            for a, b in itertools.combinations(bots, 2):
                seats = [""] * players
                for s in team_seats[0]:
                    seats[s] = a
                for s in team_seats[1]:
                    seats[s] = b
                out.append(seats)
            return out
        if mode != "mixed":
            raise ValueError(f"unknown line-up mode {mode!r}: expected mirrored or mixed")
        # Mixed: two disjoint groups of bots; a group smaller than its team repeats to fill it.
        seen = set()
        for k0 in range(1, size + 1):
            for g0 in itertools.combinations(bots, k0):
                rest = [b for b in bots if b not in g0]
                for k1 in range(1, min(size, len(rest)) + 1):
                    for g1 in itertools.combinations(rest, k1):
                        if k0 == 1 and k1 == 1:
                            continue  # that is a mirrored line-up
                        key = frozenset((g0, g1))
                        if key in seen:
                            continue
                        seen.add(key)
                        seats = [""] * players
                        for i, s in enumerate(team_seats[0]):
                            seats[s] = g0[i % k0]
                        for i, s in enumerate(team_seats[1]):
                            seats[s] = g1[i % k1]
                        out.append(seats)
        if not out:
            raise ValueError(f"mixed partnerships need at least 3 bots, got {len(bots)}")
        return out
    # Free-for-all: every combination of distinct bots; with fewer bots than seats, each bot in turn fills the rest.
    if len(bots) >= players:
        return [list(c) for c in itertools.combinations(bots, players)]
    return [bots + [bots[(j + i) % len(bots)] for i in range(players - len(bots))] for j in range(len(bots))]


def rotations(seats: list[str], partnership_mirrored: bool) -> list[list[str]]:
    """The games of one duplicate match: the line-up with the seats rotated."""
    n = len(seats)
    steps = (0, 1) if partnership_mirrored else range(n)
    out = []
    for r in steps:
        rotated = [seats[(s - r) % n] for s in range(n)]
        if rotated not in out:
            out.append(rotated)
    return out


def lineup_key(seats: list[str], partnership_mirrored: bool) -> tuple[str, ...]:
    """The same key for a line-up and each of its rotations."""
    return min(tuple(r) for r in rotations(seats, partnership_mirrored))


def balanced_lineups(ups: list[list[str]], seed: int) -> Iterator[list[str]]:
    """The line-ups of ``ups`` round after round (each once per round), every round in a balanced order.

    Greedy: the next line-up is the one of the round not yet taken whose distinct bots have the fewest
    matches so far in total; ties are broken by a shuffle seeded by ``seed`` and the round number, so the
    order is a pure function of its arguments. Each line-up of a round robin has the same number of games
    per match, so at any point of the run the bots' game counts stay close (a match or two apart; measured
    over the built-in rulesets with up to 8 bots); after every whole round they are equal.
    """
    members = [sorted(set(u)) for u in ups]
    holding: dict[str, list[int]] = {}
    for k, m in enumerate(members):
        for b in m:
            holding.setdefault(b, []).append(k)
    load = [0] * len(ups)  # per line-up: the matches its bots have played so far, summed
    rnd = 0
    while True:
        tiebreak = list(range(len(ups)))
        random.Random(f"{seed}/lineups/{rnd}").shuffle(tiebreak)
        left = set(range(len(ups)))
        while left:
            k = min(left, key=lambda i: (load[i], tiebreak[i]))
            left.remove(k)
            for b in members[k]:
                for i in holding[b]:
                    load[i] += 1
            yield ups[k]
        rnd += 1


def match_seed(run_seed: int, match: int) -> int:
    return random.Random(f"{run_seed}/{match}").randrange(1 << 31)


def plan(bots: list[str], ruleset: str | Ruleset, players: int, games: int, seed: int, *, mode: str = "mirrored",
         duplicate: bool = True, first_match: int = 0, lineup_order: list[list[str]] | None = None,
         played: Counter | None = None, deal_seeds: list[int | None] | None = None) -> Plan:
    """At least ``games`` games (whole matches): the round robin's line-ups round after round, each round
    in a balanced order (:func:`balanced_lineups`); or ``lineup_order`` as given, cycled.

    ``played``: matches each line-up (by :func:`lineup_key`) already has, so that without duplicate
    deals an adaptive run's later rounds go on rotating the seats. ``deal_seeds``: a deal set's seeds (see
    :mod:`arena.deals`): match ``m`` is dealt from ``deal_seeds[m % len]``, where that is not None, instead of
    the run's seed."""
    rs = _ruleset(ruleset)
    order = itertools.cycle(lineup_order) if lineup_order else balanced_lineups(lineups(bots, rs, players, mode), seed)
    mirrored = mode == "mirrored" and is_partnership(rs, players)
    played = Counter(played or ())
    out: Plan = []
    m = first_match
    while len(out) < games:
        seats = next(order)
        given = deal_seeds[m % len(deal_seeds)] if deal_seeds else None
        s = match_seed(seed, m) if given is None else given
        rots = rotations(seats, mirrored)
        if not duplicate:
            key = lineup_key(seats, mirrored)
            rots = [rots[played[key] % len(rots)]]
            played[key] += 1
        for rotated in rots:
            out.append((m, rs.name, players, s, rotated))
        m += 1
    return out


# ----------------------------------------------------------------------------- adaptive rounds
def opposed_pairs(seats: list[str], table) -> list[tuple[str, str]]:
    """The pairs of distinct bots a line-up sets against each other (on different teams, or in different seats of a
    free-for-all table), each once, sorted: what one of its games tells about the bots' order."""
    if table.teams < len(seats):
        teams = [{seats[s] for s in table.team_seats(t)} for t in range(table.teams)]
        pairs = {tuple(sorted((a, b))) for i, j in itertools.combinations(range(len(teams)), 2)
                 for a in teams[i] for b in teams[j] if a != b}
    else:
        pairs = {tuple(sorted(p)) for p in itertools.combinations(set(seats), 2)}
    return sorted(pairs)


def order_doubt(ratings: dict, a: str, b: str, default) -> float:
    """The probability, on the ratings, that ``a`` and ``b`` stand the wrong way round in the table:
    Phi(-|mu_a - mu_b| / sqrt(sigma_a^2 + sigma_b^2)), 1/2 for a pair nothing tells apart. A bot with few games
    (a wide sigma) is in doubt against everyone, so it gets games; a pair far apart gets few."""
    ra, rb = ratings.get(a, default), ratings.get(b, default)
    spread = math.hypot(ra.sigma, rb.sigma)
    if spread == 0:
        return 0.0
    return 0.5 * math.erfc(abs(ra.mu - rb.mu) / spread / math.sqrt(2))


def table_doubt(ratings: dict, names: list[str], default) -> dict[tuple[str, str], float]:
    """The pairs of bots next to each other in the table (ordered, as the table is, by conservative rating, mu - 3
    sigma; bots level with each other are all next to each other, so on equal ratings every pair is), each with the
    probability on the ratings that the table has them the wrong way round: Phi((mu_low - mu_high) / sqrt(sigma_high^2
    + sigma_low^2)), ``high`` the one above. Above 1/2 when the bot below has the higher mu but a wider sigma (fewer or
    less telling games) holds it down: games for it set the table right."""
    r = {n: ratings.get(n, default) for n in names}
    out: dict[tuple[str, str], float] = {}
    for a, b in itertools.combinations(sorted(r), 2):
        hi, lo = (a, b) if r[a].conservative >= r[b].conservative else (b, a)
        if any(r[lo].conservative < r[c].conservative < r[hi].conservative for c in r if c not in (a, b)):
            continue   # not next to each other
        spread = math.hypot(r[hi].sigma, r[lo].sigma)
        out[(a, b)] = 0.5 if spread == 0 else 0.5 * math.erfc((r[hi].mu - r[lo].mu) / spread / math.sqrt(2))
    return out


def lineup_table_doubt(doubt: dict[tuple[str, str], float], seats: list[str], table) -> float:
    """A line-up's score for adaptive rounds: the summed :func:`table_doubt` of the pairs it sets against each other
    (0 for a line-up of bots the table does not have next to each other)."""
    return sum(doubt.get(p, 0.0) for p in opposed_pairs(seats, table))


# Every line-up of an adaptive run keeps at least this share of an even split of the run's matches (its floor),
# however little its score: no line-up goes unplayed, and a pair the ratings call settled too early is still
# checked now and then. Measured in bench/ranking.py (docs/ranking.md, "How many games a ranking needs").
ADAPTIVE_FLOOR = 0.25
# Beyond the floor a match goes only to a line-up whose bots are all within this many matches of the least-played
# bot of the run: every bot keeps about as many games as the others (priority to under-played bots), so the sigmas
# of the table's conservative ratings stay alike and the table orders the bots by their mu. Measured in
# bench/ranking.py: without it, rounds spent on the pairs in doubt left some bots' sigmas wide and the table wrong.
ADAPTIVE_SLACK = 2


def adaptive_order(scores: list[float], counts: list[int], matches: int, floor: float = ADAPTIVE_FLOOR,
                   members: list[list[str]] | None = None, bot_counts: dict[str, int] | None = None,
                   slack: int = ADAPTIVE_SLACK) -> list[int]:
    """The line-ups (indexes into ``scores``) of an adaptive round of ``matches`` matches, in play order.

    ``counts``: each line-up's matches so far in the run. First every line-up below its floor (``floor`` times
    an even share of the run's matches once this round is played) gets matches up to it, the furthest below
    first; the rest are shared in proportion to ``scores`` (D'Hondt within the round: each pick goes to the highest
    score / (picks so far + 1)), among
    the line-ups whose bots (``members``, each line-up's) all have at most ``slack`` matches more than the least-played
    bot (``bot_counts``: matches so far per bot; the round's picks count as they are made), or where there is none
    such, among the line-ups of the least-played bot. Ties go to the line-up
    with the fewest matches in the run, then to the lower index, so that rounds smaller than the round robin, on equal
    scores (before any rating), still take the line-ups in turn; the round is a pure function of the arguments."""
    n = len(scores)
    counts = list(counts)
    bots = dict(bot_counts or {})
    if members is not None:
        for m in members:
            for b in m:
                bots.setdefault(b, 0)

    def take(i: int) -> None:
        counts[i] += 1
        out.append(i)
        for b in set(members[i]) if members is not None else ():
            bots[b] += 1

    want = floor * (sum(counts) + matches) / n
    out: list[int] = []
    while len(out) < matches:
        below = [i for i in range(n) if counts[i] + 1 <= want]
        if not below:
            break
        take(min(below, key=lambda k: (counts[k], k)))
    taken = [0] * n
    for _ in range(matches - len(out)):
        open_ = range(n)
        if members is not None:
            least = min(bots.values())
            # None so near (each holds a bot further ahead): those of the least-played bot.
            open_ = ([k for k in range(n) if all(bots[b] <= least + slack for b in members[k])]
                     or [k for k in range(n) if any(bots[b] == least for b in members[k])] or range(n))
        i = max(open_, key=lambda k: (scores[k] / (taken[k] + 1), -counts[k], -k))
        taken[i] += 1
        take(i)
    return out
