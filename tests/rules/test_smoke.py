"""A fast end-to-end check that every ruleset and player count plays to an outcome and replays."""

import random

import pytest

from referee.rules import BUILTIN_RULESETS, Game

CASES = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]


@pytest.mark.parametrize("name,players", CASES)
def test_random_game_finishes_and_replays(name, players):
    rng = random.Random(f"{name}-{players}")
    g = Game(name, players, seed=rng.randrange(1 << 30))
    while not g.is_over:
        ids = g.legal_action_ids()
        g.apply(ids[rng.randrange(len(ids))])
    assert g.outcome.deals == len(g.deals) >= 1
    assert tuple(sum(d.points[t] for d in g.deals) for t in range(g.table.teams)) == g.outcome.scores
    again = Game.from_record(g.record())
    assert again.history == g.history and again.outcome == g.outcome
