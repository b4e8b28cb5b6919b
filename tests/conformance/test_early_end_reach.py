"""The game-end check must always end its games through the house's bad answer, whatever the bot plays.

The house answers nonsense at its third decision. With a deal cap of 3 an iowa
game could end first: the referee does not ask for publicly forced actions and
a Pepper bid can end the auction before the house (the dealer) bids, so in
about 1% of random plays the game completed normally and the check failed a
correct bot (it happened in CI). This plays the check's games on the engine with
random bots, asking the house exactly when the referee would.
"""

from __future__ import annotations

import copy
import random

import pytest

from conformance.checks import early_end
from conformance.model import BOT
from referee.rules import Game
from referee.rules.rulesets import ruleset_from_dict

PLAYS = 600   # seeds 0..599 include plays that ended before the misbehaviour under the old cap


def _house_reaches_its_bad_answer(gs, rng: random.Random) -> bool:
    g = Game(ruleset_from_dict(gs.ruleset), gs.players, seed=gs.seed, first_dealer=gs.first_dealer)
    houses = {s: copy.deepcopy(x) for s, x in enumerate(gs.seats) if x != BOT}
    while not g.is_over:
        forced = g.publicly_forced()
        if forced is not None:      # the referee plays it without asking anyone
            g.apply(forced)
            continue
        legal = g.legal_actions()
        if g.to_act in houses:
            action = houses[g.to_act].choose(str(g.phase), [str(a) for a in legal])
            if action is None:
                return True
            g.apply(action)
        else:
            g.apply(rng.choice(legal))
    return False


@pytest.mark.parametrize("k", range(3), ids=["iowa", "five-handed", "pepper-30"])
def test_the_house_misbehaves_before_the_game_can_end(k):
    gs = early_end().games[k]
    missed = [seed for seed in range(PLAYS) if not _house_reaches_its_bad_answer(gs, random.Random(seed))]
    assert not missed, f"{gs.ruleset['name']}: the game ended before the house's bad answer with random seeds {missed[:10]}"
