"""Mixed and mirrored runs of the same bots rate on one scale.

In a mixed run one bot often fills both seats of a team. Rated as a one-player team against a two-player team
(TrueSkill sums a team's skills), every rating drifted down: a 5-bot ladder's mean mu fell to 4-6 after 800
mixed games against 24-25 mirrored (bench/ranking.py scale). The outcomes here come from a known model (a team's
strength is the mean of its seats' strengths), so the test is fast and exact."""

from __future__ import annotations

import random
import statistics
from statistics import NormalDist

from arena import schedule
from arena.ratings import Rater
from referee.rules import get_ruleset

STRENGTH = {"a": 2.0, "b": 1.5, "c": 1.0, "d": 0.5, "e": 0.0}  # in units of the outcome's noise


def _rated(mode: str, games: int = 600, seed: int = 3) -> dict:
    rs = get_ruleset("iowa")
    t = rs.table(4)
    rater, ratings, rng = Rater(), {}, random.Random(seed)
    for _, _, _, _, seats in schedule.plan(sorted(STRENGTH), rs, 4, games, seed, mode=mode):
        teams = [[seats[s] for s in t.team_seats(k)] for k in range(2)]
        edge = statistics.mean(STRENGTH[b] for b in teams[0]) - statistics.mean(STRENGTH[b] for b in teams[1])
        first_won = rng.random() < NormalDist().cdf(edge)
        ratings.update(rater.rate(ratings, teams, [0, 1] if first_won else [1, 0]))
    return ratings


def test_mixed_and_mirrored_runs_agree_on_the_scale():
    mirrored, mixed = _rated("mirrored"), _rated("mixed")
    means = [statistics.mean(r.mu for r in x.values()) for x in (mirrored, mixed)]
    spreads = [max(r.mu for r in x.values()) - min(r.mu for r in x.values()) for x in (mirrored, mixed)]
    # TrueSkill keeps the mean where it starts (25) when every update is zero-sum, as it is for equal weights.
    assert abs(means[0] - 25) < 1.5 and abs(means[1] - 25) < 1.5, means
    assert 0.6 < spreads[1] / spreads[0] < 1.5, spreads
    for r in (mirrored, mixed):
        assert sorted(r, key=lambda b: -r[b].mu) == list(STRENGTH)


def test_a_bot_alone_in_a_mixed_team_rates_like_a_mirrored_team():
    r = Rater()
    alone = r.rate({}, [["a", "a"], ["b", "c"]], [0, 1])
    mirrored = r.rate({}, [["a", "a"], ["b", "b"]], [0, 1])
    # Even teams: the update is zero-sum, and the pair shares the loss that one bot takes in a mirrored game.
    assert abs(sum(x.mu for x in alone.values()) - 75) < 1e-9
    assert abs(alone["a"].mu - 25 - 2 * (25 - alone["b"].mu)) < 1e-9 and alone["b"] == alone["c"]
    assert abs(r.quality({}, [["a", "a"], ["b", "c"]]) - r.quality({}, [["a", "a"], ["b", "b"]])) < 0.15
    assert mirrored["a"].mu > 25 > mirrored["b"].mu
