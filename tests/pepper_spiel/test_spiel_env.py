"""The PettingZoo environment: PettingZoo's own API test for every ruleset, masks, and seeded games."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from pepper_spiel.env import env

CONFIGS = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("bid-euchre", 8), ("pepper-30", 2), ("pepper-30", 3),
           ("pepper-30", 4), ("five-handed", 5)]


@pytest.mark.parametrize("ruleset,players", CONFIGS)
def test_pettingzoo_api_test(ruleset, players):
    api_test(env(ruleset, players, deal_cap=1), num_cycles=100)


def _play(seed: int) -> tuple[list[int], dict]:
    e = env("iowa", deal_cap=2)
    e.reset(seed=seed)
    rng, taken, final = np.random.default_rng(seed), [], {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            final[agent] = reward
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) and set(legal) == set(e.state.legal_actions())   # the mask is the legal actions
        a = int(rng.choice(legal))
        taken.append(a)
        e.step(a)
    return taken, final


def test_a_seed_replays_the_same_game_and_rewards_come_at_the_end():
    first, rewards = _play(7)
    assert _play(7) == (first, rewards)
    assert len(rewards) == 4 and sorted(rewards.values()) in ([-1.0, -1.0, 1.0, 1.0], [0.0] * 4)


def test_an_illegal_action_is_refused_with_the_legal_ones():
    e = env("iowa")
    e.reset(seed=1)
    with pytest.raises(ValueError, match="not legal here; legal ids"):
        e.step(0)   # "play 9S" during the auction
