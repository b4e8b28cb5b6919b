"""The points rating: each bot's points a game above the field, from the margins of its duplicate blocks.

TrueSkill reads a game as one bit per team (won or lost), and most of what decides a game of Pepper is the
cards. A duplicate block plays the same cards from both sides, so the sum of a side's margins over the block is
what the bots did with them, the cards' share cancelled (docs/statistics.md). The points rating keeps that: it
is Massey's least-squares rating of the margins. Every game of a block is one equation for each pair of sides
on opposite teams (each its team alone)::

    r[a] - r[b] = a's points minus b's in that game

and the ratings are the least-squares solution, centred on the field (they sum to zero). Solved through the
normal equations, which need only each pair's games and margin sum (the store's block rows): row a holds the
games a played, the games against each opponent (negated) and a's total margin.

A prior of :data:`PRIOR_GAMES` games at the field's average (ridge regression) keeps a bot with few blocks near
the middle rather than at the top after one lucky block, and makes the solution unique even where the pool's
pairs fall apart into groups that never met. On the ladder of known order it reaches the exact order in 0.40 of
the games a naive schedule ordered by TrueSkill needs, and in half to two thirds of TrueSkill's on the same
schedules (docs/ranking.md).

Only complete blocks count, each side its team alone: a block cut short keeps its cards' luck, and a partner's
margin is its team's, which neither partner earned alone. A pool of mixed line-ups therefore has no points rating,
and its table keeps TrueSkill's order (:func:`arena.stats.table`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TypeVar

from scipy.linalg import solve

Side = TypeVar("Side", bound=Hashable)   # a (bot, version) side as arena.evidence has it, or a bot's name in a run

#: The prior, in games at the field's average (0): enough to hold a one-block bot near the middle, a small part of
#: the weight any bot has after a few dozen games (on the ladder, 2 and 8 games gave the same games to the order).
PRIOR_GAMES = 2.0


def points_ratings(pairs: Iterable[tuple[Side, Side, int, float]], prior: float = PRIOR_GAMES) -> dict[Side, float]:
    """Each side's points a game above the field: ``pairs`` holds, for each ordered pair of sides (a, b) with
    complete blocks against each other, the games of those blocks and the sum of a's margins over b in them (every
    pair both ways round, as the store's block rows are). Sides absent from ``pairs`` are absent from the result."""
    games: dict[tuple[Side, Side], int] = {}
    margin: dict[Side, float] = {}
    for a, b, n, m in pairs:
        if n <= 0 or a == b:
            continue
        games[a, b] = games.get((a, b), 0) + n
        margin[a] = margin.get(a, 0.0) + m
        margin.setdefault(b, 0.0)
    sides = sorted(margin)   # sorted: the same pairs in any order give the same floating-point solution
    if not sides:
        return {}
    index = {s: i for i, s in enumerate(sides)}
    matrix = [[0.0] * len(sides) for _ in sides]
    for i in range(len(sides)):
        matrix[i][i] = prior
    for (a, b), n in games.items():
        i, j = index[a], index[b]
        matrix[i][i] += n
        matrix[i][j] -= n
    # The margins of every pair sum to zero both ways round, so the solution's mean is zero too (the field's average).
    solution = solve(matrix, [margin[s] for s in sides])
    return {s: float(x) for s, x in zip(sides, solution)}


def table_order(sides: Iterable, conservative: dict, points: dict) -> list:
    """The table's order of ``sides``: those with a points rating (``points``) by it, highest first, then the rest
    by TrueSkill's conservative rating (``conservative``), highest first. Ties keep the order of ``sides``."""
    sides = list(sides)
    rated = sorted((s for s in sides if s in points), key=lambda s: -points[s])
    return rated + sorted((s for s in sides if s not in points), key=lambda s: -conservative[s])


__all__ = ["PRIOR_GAMES", "points_ratings", "table_order"]
