"""The arena entrant for OpenSpiel bots, fed through the real wire conversions (engine -> pepper.v1 -> SDK dicts)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pepper_bot.convert import event_to_dict, view_to_dict

from pepper_spiel.entrant import OpenSpielEntrant
from pepper_spiel.sample import deal_actions
from referee.rules import Game, ruleset_from_dict
from referee.wire.convert import event_to_proto, view_to_proto

CONFIGS = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("pepper-30", 3), ("pepper-30", 2), ("five-handed", 5)]


def _play(ruleset: str, players: int, kind: str, seed: int) -> tuple[Game, OpenSpielEntrant]:
    """One game (a 2-deal variant) with the entrant in seat 0 and random players elsewhere."""
    rs = ruleset_from_dict({"extends": ruleset, "name": "short", "deal_cap": 2})
    g = Game(rs, players, seed=seed)
    bot = OpenSpielEntrant(kind, simulations=8, seed=seed)
    bot.on_game_start({"game_id": "g1", "seat": 0, "players": players,
                       "ruleset": {"name": "short", "params": rs.to_dict()}})
    sent, rng = 0, random.Random(seed)
    while not g.is_over:
        for i, e in g.events_for(0, sent):
            bot.on_event("g1", event_to_dict(event_to_proto("g1", i, e, seat=0)))
        sent = g.event_count
        if g.to_act == 0:
            view = view_to_dict(view_to_proto(g.view(0)))
            view["legal_actions"] = [str(a) for a in g.legal_actions()]
            view["game_id"] = "g1"
            answer = bot.decide(view)
            assert answer in view["legal_actions"]
            g.apply(answer)
        else:
            g.apply(rng.choice(g.legal_action_ids()))
    return g, bot


@pytest.mark.parametrize("ruleset,players", CONFIGS)
def test_the_ismcts_entrant_plays_every_ruleset_from_its_events_alone(ruleset, players):
    g, bot = _play(ruleset, players, "ismcts", seed=3)
    # A fallback is a random action where no sampled deal agreed with every play; the search plays the rest.
    # The sampler deals no seat a suit it did not follow (test_spiel_voids.py), so a fallback is rare everywhere.
    most = bot.decisions // 10
    assert g.is_over and bot.decisions >= 8 and bot.fallbacks <= most, (bot.fallbacks, bot.decisions)


@pytest.mark.parametrize("kind", ["mcts", "random"])
def test_the_other_openspiel_bots_play(kind):
    g, bot = _play("iowa", 4, kind, seed=5)
    assert g.is_over and bot.fallbacks == 0


def test_a_seats_events_give_back_the_deals_actions_but_the_hidden_cards():
    # Every seat of 20 short games, at every decision: the actions read from its events are the deal's own,
    # None exactly where another seat gave or discarded a card it did not see.
    rs = {"iowa": 4, "bid-euchre": 4, "five-handed": 5}
    hidden = 0
    for name, n in rs.items():
        for seed in range(6):
            g = Game(ruleset_from_dict({"extends": name, "name": "x", "deal_cap": 2}), n, seed=seed)
            rng, start, deal = random.Random(seed), 0, 1
            while not g.is_over:
                if g.deal_number != deal:
                    deal, start = g.deal_number, len(g.history)
                for p in range(n):
                    got = deal_actions([(e.kind, e.seat, e.data) for _, e in g.events_for(p)], p, g.table.bid_names_strain)
                    true = g.history[start:]
                    assert len(got) == len(true) and all(a is None or a == b for a, b in zip(got, true))
                    hidden += got.count(None)
                g.apply(rng.choice(g.legal_action_ids()))
    assert hidden > 0


def test_the_search_starts_at_the_games_scores_dealer_and_target_and_values_them():
    # A whole iowa game (to 42) with random seats; the entrant in seat 0 is fed its events through the wire. At each
    # of its decisions after the first deal, the state its search starts from carries the game's dealer, scores
    # and target, and a deal played out from it returns the race from those scores.
    from pepper_spiel.game import race_returns
    from pepper_spiel.playout import playout_action

    g = Game("iowa", 4, seed=11)
    bot = OpenSpielEntrant("ismcts", seed=11)
    bot.on_game_start({"game_id": "g1", "seat": 0, "players": 4,
                       "ruleset": {"name": "iowa", "deal_cap": g.deal_cap, "params": g.ruleset.to_dict()}})
    sent, rng, np_rng, checked = 0, random.Random(11), np.random.RandomState(11), set()
    while not g.is_over and len(checked) < 4:
        for i, e in g.events_for(0, sent):
            bot.on_event("g1", event_to_dict(event_to_proto("g1", i, e, seat=0)))
        sent = g.event_count
        if g.to_act == 0 and g.deal_number > 1 and any(g.scores) and g.deal_number not in checked:
            checked.add(g.deal_number)
            view = view_to_dict(view_to_proto(g.view(0))) | {"game_id": "g1",
                                                             "legal_actions": [str(a) for a in g.legal_actions()]}
            state = bot.search_state(view)
            assert (state.engine.scores, state.engine.target_score, state.engine.dealer) == (g.scores, 42, g.dealer)
            assert state.engine.hands[0] == g.hands[0]
            while not state.is_terminal():
                state.apply_action(playout_action(state.engine, np_rng))
            o = state.engine.outcome
            want = (race_returns(o.scores, 42, g.table.team_of) if o.reason == "deal-cap"
                    else [1.0 if s in o.winning_seats else -1.0 for s in range(4)])
            assert state.returns() == want
        g.apply(rng.choice(g.legal_action_ids()))
    assert len(checked) == 4

