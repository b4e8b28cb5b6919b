"""Adaptive rounds: the order-doubt score of a line-up, and a round's matches shared by score
above a floor of matches per line-up, hand-computed."""

from __future__ import annotations

import math

import pytest

from arena.ratings import Rating
from arena.schedule import adaptive_order, opposed_pairs, order_doubt
from referee.rules import get_ruleset

IOWA = get_ruleset("iowa").table(4)


def test_order_doubt_is_the_chance_the_ratings_have_a_pair_the_wrong_way_round():
    r = {"a": Rating(30, 3), "b": Rating(26, 4)}
    # |30 - 26| / sqrt(9 + 16) = 0.8 standard deviations: Phi(-0.8)
    assert order_doubt(r, "a", "b", Rating()) == pytest.approx(0.211855, abs=1e-6)
    assert order_doubt(r, "b", "a", Rating()) == order_doubt(r, "a", "b", Rating())
    assert order_doubt({}, "a", "b", Rating()) == 0.5                     # nothing tells them apart
    assert order_doubt({"a": Rating(30, 0), "b": Rating(20, 0)}, "a", "b", Rating()) == 0.0


def test_a_lineup_opposes_the_bots_of_different_teams():
    assert opposed_pairs(["a", "b", "a", "b"], IOWA) == [("a", "b")]
    assert opposed_pairs(["a", "c", "b", "c"], IOWA) == [("a", "c"), ("b", "c")]   # a and b are partners
    ffa = get_ruleset("pepper-30").table(3)
    assert opposed_pairs(["a", "b", "a"], ffa) == [("a", "b")]


def test_a_round_lifts_lineups_to_their_floor_then_shares_the_rest_by_score():
    # 10 matches so far, 10 more this round: a floor of 0.25 * 20 / 2 = 2.5 matches each (whole ones: 2).
    assert adaptive_order([1.0, 0.0], [10, 0], 10, floor=0.25) == [1, 1] + [0] * 8
    # No floor: D'Hondt on 3 : 1 gives 3 of every 4 picks (a tie, 0.75 / 3 = 0.25 / 1, to the one played less).
    assert adaptive_order([0.75, 0.25], [0, 0], 8, floor=0) == [0, 0, 1, 0, 0, 0, 1, 0]
    # Equal scores, nothing played: a round robin from the first line-up.
    assert adaptive_order([0.5] * 3, [0, 0, 0], 4) == [0, 1, 2, 0]


def test_rounds_smaller_than_the_round_robin_take_the_lineups_in_turn_on_equal_scores():
    """Adaptive rounds (4 matches) are smaller than a round robin of 5 bots (10 line-ups), and the first rounds are
    all planned on equal ratings (their basis lags the plan): they go on where the last one stopped rather than
    starting again from the first line-up."""
    counts = [0] * 10
    for _ in range(5):
        for i in adaptive_order([0.5] * 10, counts, 4):
            counts[i] += 1
    assert counts == [2] * 10
    # Over a long run every line-up keeps its floor however low its score.
    counts = [0, 0, 0]
    for _ in range(30):
        for i in adaptive_order([0.5, 0.5, 0.0], counts, 12):
            counts[i] += 1
    assert counts[2] >= math.floor(0.25 * sum(counts) / 3) and counts[0] > 3 * counts[2]


def test_beyond_the_floor_matches_go_only_to_lineups_of_bots_near_the_least_played():
    """Priority to under-played bots: a-b has all the score, but once a and b are more than ``slack`` matches ahead of
    c, the round's next matches go to c's line-ups (every line-up holds a or b: those of the least-played bot); without
    members every match goes by score."""
    members = [["a", "b"], ["a", "c"], ["b", "c"]]
    assert adaptive_order([1.0, 0.0, 0.0], [0, 0, 0], 4, floor=0) == [0, 0, 0, 0]
    got = adaptive_order([1.0, 0.0, 0.0], [0, 0, 0], 4, floor=0, members=members, bot_counts={"a": 0, "b": 0, "c": 0},
                         slack=2)
    assert got == [0, 0, 0, 1]   # a-b while a and b are at most 2 ahead of c, then a line-up of c's
    ahead = adaptive_order([1.0, 0.0, 0.0], [5, 0, 0], 2, floor=0, members=members, bot_counts={"a": 5, "b": 5, "c": 0},
                           slack=2)
    assert ahead == [1, 2]


def test_table_doubt_is_about_the_pairs_next_to_each_other_in_the_table():
    from arena.ratings import Rating
    from arena.schedule import table_doubt

    names = ["a", "b", "c"]
    assert table_doubt({}, names, Rating()) == {("a", "b"): 0.5, ("a", "c"): 0.5, ("b", "c"): 0.5}  # all level
    apart = table_doubt({"a": Rating(30, 1), "b": Rating(25, 1), "c": Rating(20, 1)}, names, Rating())
    assert set(apart) == {("a", "b"), ("b", "c")} and apart[("a", "b")] < 0.001
    # b has the higher mu but a wide sigma holds it below a (mu - 3 sigma 16 against 17): the table is likely wrong.
    held = table_doubt({"a": Rating(20, 1), "b": Rating(25, 3)}, ["a", "b"], Rating())
    assert held[("a", "b")] > 0.9
