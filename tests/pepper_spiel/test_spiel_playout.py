"""The search's play-out (pepper_spiel.playout): card sense for every seat, and the prior it gives the search."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import pepper_spiel  # noqa: F401  (registers python_pepper)
from pepper_spiel.playout import PRIOR, PlayoutEvaluator, playout_action, tricks_worth
from referee.rules import ACTIONS, Card, Game, Strain

TOP_HEARTS = [int(Card.parse(c)) for c in ("JH", "JD", "AH", "KH", "QH", "TH")]


def _hands(first: list[int]) -> list[list[int]]:
    rest = [c for c in range(24) if c not in first]
    return [list(first), rest[0:6], rest[6:12], rest[12:18]]


@pytest.mark.parametrize("dealer", range(4))
def test_a_hand_of_top_trumps_takes_every_trick(dealer):
    # Random play (OpenSpiel's rollouts) gives such tricks away now and then: it cannot tell this hand from a weak one.
    g = Game.at_play("iowa", 4, dealer=dealer, bidder=0, bid="6", trump=Strain.HEARTS, hands=_hands(TOP_HEARTS))
    rng = np.random.RandomState(1)
    while not g.deals:   # the first deal
        g.apply(playout_action(g, rng))
    assert g.deals[0].made and g.scores == [6, -6]


def test_a_seat_bids_what_its_hand_is_worth_and_names_its_best_trump():
    # Seat 0 (first to bid: dealer 3) holds four top hearts and a side ace: 3.9 tricks, and one for its partner.
    strong = TOP_HEARTS[:4] + [int(Card.parse("AS")), int(Card.parse("QC"))]
    weak = [int(Card.parse(c)) for c in ("9S", "TS", "9C", "TC", "9D", "QD")]
    assert tricks_worth(strong, Strain.HEARTS) > 3.5 > 1 > tricks_worth(weak, Strain.DIAMONDS)
    rest = [c for c in range(24) if c not in strong + weak]
    deck = [x for four in zip(strong, weak, rest[0:6], rest[6:12]) for x in four]   # dealt from the dealer's left
    g = Game("iowa", 4, decks=[deck], first_dealer=3)
    assert (g.hands[0], g.hands[1]) == (strong, weak)
    rng = np.random.RandomState(0)
    assert str(ACTIONS[playout_action(g, rng)]) == "bid 4"
    g.apply("bid 4")
    assert str(ACTIONS[playout_action(g, rng)]) == "pass"   # seat 1: under two tricks with its partner's
    g.apply("pass")
    g.apply("pass")
    g.apply("pass")
    assert str(ACTIONS[playout_action(g, rng)]) == "trump H"


def test_the_prior_weighs_the_playouts_action():
    game = pyspiel.load_game("python_pepper", {"ruleset": "iowa", "deal_cap": 1, "returns": "race"})
    state = game.state_from(Game(game.ruleset, 4, decks=[list(Game("iowa", 4, seed=2).decks_dealt[0])], first_dealer=3))
    evaluator = PlayoutEvaluator(np.random.RandomState(0))
    prior = dict(evaluator.prior(state))
    assert sorted(prior) == state.legal_actions() and sum(prior.values()) == pytest.approx(1.0)
    mine = playout_action(state.engine, np.random.RandomState(0))
    assert prior[mine] == pytest.approx(PRIOR + (1 - PRIOR) / len(prior))
    assert len(evaluator.evaluate(state)) == 4


def test_a_search_past_its_time_stops():
    import time

    from pepper_spiel.playout import SearchOvertime

    game = pyspiel.load_game("python_pepper", {"ruleset": "iowa", "deal_cap": 1, "returns": "race"})
    state = game.state_from(Game(game.ruleset, 4, decks=[list(Game("iowa", 4, seed=2).decks_dealt[0])], first_dealer=3))
    evaluator = PlayoutEvaluator(np.random.RandomState(0))
    evaluator.stop_at = time.perf_counter() + 60
    assert len(evaluator.evaluate(state)) == 4
    evaluator.stop_at = time.perf_counter() - 0.5
    with pytest.raises(SearchOvertime, match="past its time"):
        evaluator.evaluate(state)
