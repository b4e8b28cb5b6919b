"""Finishing a deal by plain card sense, for a search's evaluation: :class:`PlayoutEvaluator`.

OpenSpiel's ``RandomRolloutEvaluator`` finishes a deal with random actions:
then a contract is made or set almost by chance, whoever holds the cards, and
a search cannot tell a bid the hand can make from one it cannot. The play-out
here (:func:`playout_action`) plays as a careful beginner, the same for every
seat, so that what a position is worth follows from the cards:

* bidding: up to the tricks the hand is worth in its best strain, counting a
  trick for a teammate (:func:`tricks_worth`), never a special bid; else pass;
* trump: the strain where the hand is worth the most tricks;
* play: second hand and later win the trick as cheaply as they can unless the
  trick is already their side's, and otherwise throw their weakest card; a
  leader leads its strongest card (the bidding side a trump first, the defence
  a side suit);
* the iowa exchange: take it; a card given or discarded: the bidder's weakest,
  a teammate's strongest; the defence plays rather than cedes.

It reads only the engine's public game (the hands are the searched deal's own).
The same action is the search's prior (:meth:`PlayoutEvaluator.prior`): with
few simulations a search keeps to it unless the others do better.
"""

from __future__ import annotations

import time

import numpy as np
from open_spiel.python.algorithms import mcts

from referee.rules import Game, Phase, Strain, card_strength, effective_suit, trick_winner_index
from referee.rules.actions import BID_BASE, BID_NAMES, CEDE_NO, DISCARD_BASE, EXCHANGE_YES, GIVE_BASE, GIVE_NONE, PASS, TRUMP_BASE

__all__ = ["PlayoutEvaluator", "SearchOvertime", "playout_action", "tricks_worth"]

# Tricks a trump is worth, by its card_strength: 9, 10, (J), Q, K, A, left bower, right bower.
_TRUMP_TRICKS = (0.35, 0.4, 0.45, 0.5, 0.6, 0.8, 0.9, 1.0)
_NO_STRAIN = 5   # a bid id's strain when the bid names none
PRIOR = 0.5      # the prior's weight on the play-out's action; the rest is spread evenly


def _strength(card: int, trump: int) -> tuple[bool, int]:
    """A card's worth when it is not following suit: trumps above the rest, then its rank in its suit."""
    return effective_suit(card, trump) == trump, card_strength(card, trump)


def tricks_worth(hand: list[int], strain: int) -> float:
    """The tricks ``hand`` may take with ``strain`` trump (a :class:`Strain`): its trumps by rank, its side aces."""
    if strain == Strain.NO_TRUMP:
        return sum(0.9 if c % 6 == 5 else 0.4 if c % 6 == 4 else 0.0 for c in hand)   # aces, kings
    return sum(_TRUMP_TRICKS[card_strength(c, strain)] if effective_suit(c, strain) == strain
               else 0.6 if c % 6 == 5 else 0.0 for c in hand)


def _bid(g: Game, legal: list[int]) -> int:
    hand, seat = g.hands[g.to_act], g.to_act
    best = max(range(5), key=lambda s: tricks_worth(hand, s))
    mates = sum(1 for t in g.table.team_of if t == g.table.team_of[seat]) - 1
    worth = tricks_worth(hand, best) + min(mates, 1)
    bids = [a for a in legal if a >= BID_BASE and BID_NAMES[(a - BID_BASE) // 6].isdigit()
            and (a - BID_BASE) % 6 in (best, _NO_STRAIN) and int(BID_NAMES[(a - BID_BASE) // 6]) <= worth]
    return max(bids) if bids else PASS if PASS in legal else min(legal)


def _trump_choice(hand: list[int], legal: list[int]) -> int:
    return max(legal, key=lambda a: tricks_worth(hand, a - TRUMP_BASE))


def _play(g: Game, legal: list[int], trump: int, bidder: int) -> int:
    seat, cards = g.to_act, g.trick_cards
    if not cards:   # leading
        if g.table.team_of[seat] == g.table.team_of[bidder]:
            return max(legal, key=lambda c: _strength(c, trump))
        side = [c for c in legal if effective_suit(c, trump) != trump]
        return max(side or legal, key=lambda c: card_strength(c, trump))
    best = trick_winner_index(cards, trump)
    winner, team_of, partner = g.trick_seats[best], g.table.team_of, g.partner
    ours = team_of[winner] == team_of[seat] or (partner is not None and {winner, seat} <= {bidder, partner})
    beats = [] if ours else [c for c in legal if trick_winner_index([cards[best], c], trump) == 1]
    return min(beats or legal, key=lambda c: _strength(c, trump))


def playout_action(g: Game, rng: np.random.RandomState) -> int:
    """The play-out's action for the seat to act in ``g`` (random where it has no rule: none in the
    built-in rulesets)."""
    legal = g.legal_action_ids()
    phase, seat = g.phase, g.to_act
    if phase == Phase.PLAY:
        return _play(g, legal, int(g.contract.trump), g.contract.bidder)
    if phase == Phase.BID:
        return _bid(g, legal)
    if phase == Phase.NAME_TRUMP:
        return _trump_choice(g.hands[seat], legal)
    if phase == Phase.EXCHANGE and EXCHANGE_YES in legal:
        return EXCHANGE_YES
    if phase == Phase.CEDE and CEDE_NO in legal:
        return CEDE_NO
    if phase in (Phase.GIVE_CARD, Phase.DISCARD):
        base = GIVE_BASE if phase == Phase.GIVE_CARD else DISCARD_BASE
        cards = [a for a in legal if a != GIVE_NONE]
        if cards:
            trump = int(g.contract.trump)
            pick = min if seat == g.contract.bidder or phase == Phase.DISCARD else max
            return pick(cards, key=lambda a: _strength(a - base, trump))
    return int(rng.choice(legal))


class SearchOvertime(Exception):
    """A search ran past its evaluator's ``stop_at``: the searcher abandons it (the tree is lost)."""


class PlayoutEvaluator(mcts.Evaluator):
    """OpenSpiel's evaluator protocol (``evaluate``, ``prior``) over :func:`playout_action`: the returns
    of a ``python_pepper`` state finished by the play-out (chance nodes, a next deal's cards, drawn by
    their probabilities), and a prior of :data:`PRIOR` on the play-out's action (for PUCT).

    ``stop_at`` (a ``time.perf_counter()`` value, or None) bounds a search in time where OpenSpiel's bots
    count simulations only: a simulation evaluated after it raises :class:`SearchOvertime`."""

    def __init__(self, random_state: np.random.RandomState | None = None):
        self._rng = random_state or np.random.RandomState()
        self.stop_at: float | None = None

    def evaluate(self, state) -> np.ndarray:
        if self.stop_at is not None and time.perf_counter() > self.stop_at:
            raise SearchOvertime(f"the search ran {time.perf_counter() - self.stop_at:.3f} s past its time")
        s = state.clone()
        while not s.is_terminal():
            if s.is_chance_node():
                actions, probs = zip(*s.chance_outcomes())
                s.apply_action(int(self._rng.choice(actions, p=probs)))
            else:
                s.apply_action(playout_action(s.engine, self._rng))
        return np.array(s.returns())

    def prior(self, state) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        mine = playout_action(state.engine, self._rng)
        rest = (1.0 - PRIOR) / len(legal)
        return [(a, rest + PRIOR if a == mine else rest) for a in legal]
