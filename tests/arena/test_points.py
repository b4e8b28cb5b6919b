"""arena.points: the points rating (Massey's least squares on block margins, with a prior) and the table's order."""

import random

import pytest

from arena.points import PRIOR_GAMES, points_ratings, table_order

A, B, C, D = ("a", 1), ("b", 1), ("c", 1), ("d", 1)


def both_ways(*pairs):
    """Each (a, b, games, a's margin sum) with its mirror (b, a, games, -margin), as the store keeps block rows."""
    return [row for a, b, n, m in pairs for row in ((a, b, n, m), (b, a, n, -m))]


def test_two_bots_by_hand():
    # (10 + p) x - 10 y = 100 and y = -x: x = 100 / (20 + p); with the prior of 2 games, 4.545...
    r = points_ratings(both_ways((A, B, 10, 100.0)))
    assert PRIOR_GAMES == 2.0
    assert r[A] == pytest.approx(100 / 22) and r[B] == pytest.approx(-100 / 22)
    # Without the prior (nearly): a's mean margin over b is 10 points a game, split about the field's average.
    r = points_ratings(both_ways((A, B, 10, 100.0)), prior=1e-6)
    assert r[A] == pytest.approx(5.0) and r[B] == pytest.approx(-5.0)


def test_margins_that_fit_exactly_give_back_the_strengths_centred_and_are_transitive():
    """Margins that are exactly the differences of strengths 9, 5, 1, -3 (a chain: a met b, b met c, c met d, and a
    met d once): the least-squares solution is those strengths less their mean, 3, so a is above c though they never
    met."""
    s = {A: 9.0, B: 5.0, C: 1.0, D: -3.0}
    games = [(A, B, 6), (B, C, 4), (C, D, 8), (A, D, 2)]
    r = points_ratings(both_ways(*((x, y, n, n * (s[x] - s[y])) for x, y, n in games)), prior=1e-6)
    assert r == pytest.approx({A: 6.0, B: 2.0, C: -2.0, D: -6.0}, abs=1e-4)
    assert sum(r.values()) == pytest.approx(0.0, abs=1e-4)


def test_the_prior_holds_a_bot_of_one_lucky_block_towards_the_middle():
    """a and b played 40 games level; c played one block of 2 games against a and won it by 30 a game: without the
    prior c is 30 above a. With it, c's row reads (2 + 2) c - 2 a = 60 and a's (40 + 2 + 2) a - 40 b - 2 c = -60,
    b's (40 + 2) b - 40 a = 0: c is 18.06 above a, and a bot with more games moves less."""
    pairs = both_ways((A, B, 40, 0.0), (C, A, 2, 60.0))
    loose, held = points_ratings(pairs, prior=1e-6), points_ratings(pairs)
    assert loose[C] - loose[A] == pytest.approx(30.0)
    assert held[C] - held[A] == pytest.approx(18.058, abs=1e-3)
    more = points_ratings(both_ways((A, B, 40, 0.0), (C, A, 20, 600.0)))   # the same 30 a game over 20 games
    assert held[C] - held[A] < more[C] - more[A] < 30
    assert sum(held.values()) == pytest.approx(0.0, abs=1e-9)   # the prior keeps the field's average at 0


def test_the_same_blocks_in_any_order_give_the_same_ratings():
    rng = random.Random(7)
    pairs = both_ways(*((x, y, rng.randint(1, 9) * 2, rng.uniform(-50, 50))
                        for x, y in ((A, B), (A, C), (B, C), (C, D), (B, D))))
    first = points_ratings(pairs)
    for _ in range(5):
        rng.shuffle(pairs)
        assert points_ratings(pairs) == first      # exactly: the sides are solved in a sorted order


def test_no_blocks_no_ratings_and_empty_rows_are_ignored():
    assert points_ratings([]) == {}
    assert points_ratings([(A, B, 0, 0.0), (A, A, 2, 5.0)]) == {}


def test_the_table_order_puts_rated_bots_first_by_points_then_the_rest_by_trueskill():
    conservative = {A: 30.0, B: 20.0, C: 10.0, D: 25.0}
    points = {B: 4.0, C: 7.5}
    assert table_order([A, B, C, D], conservative, points) == [C, B, A, D]
    assert table_order([A, B, C, D], conservative, {}) == [A, D, B, C]   # no blocks: TrueSkill alone
