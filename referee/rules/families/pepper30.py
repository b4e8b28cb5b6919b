"""Pepper to 30: 2, 3 or 4 players, 24 cards, an elimination auction, Small and Big Pepper, a dead hand
with 2 players; game to 30 (docs/rules.md, "pepper-30")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..cards import make_deck
from .base import DEAD, NINE_TO_ACE, DealState, Family, Layout, Rules

if TYPE_CHECKING:
    from ..game import Game
    from ..rulesets import Table


class Pepper30Deal(DealState):
    """A pepper-30 deal's elimination auction: who may still bid."""

    __slots__ = ("in_auction",)

    def __init__(self, players: int) -> None:
        self.in_auction: list[bool] = [True] * players   # per seat: has not passed


class Pepper30Rules(Rules):
    family = Family.PEPPER_30
    specials = ("small-pepper", "big-pepper")

    def layout(self, players: int) -> Layout:
        team_of = tuple(s % 2 for s in range(players)) if players == 4 else tuple(range(players))
        return Layout(tuple(make_deck(NINE_TO_ACE, 1)), 6 if players == 4 else 8, team_of, dead_hand=players == 2)

    def default_max_bid(self, hand_size: int) -> int:
        return hand_size - 1    # numbers stop one below every trick: the Peppers are the every-trick bids

    def special_level(self, name: str, hand_size: int) -> tuple[int, bool, int | None]:
        # Small Pepper scores like a number; Big Pepper wins or loses double the set. Partners play.
        return hand_size, False, (2 * hand_size if name == "big-pepper" else None)

    def deal(self, table: Table, deck: Sequence[int], dealer: int) -> tuple[list[list[int]], list[int], list[int]]:
        n = table.players
        # With 2 players the dead hand is dealt as a third receiver after the dealer.
        receivers = [(dealer + 1 + i) % n for i in range(n)] + ([DEAD] if table.dead_hand else [])
        r = len(receivers)
        hands: list[list[int]] = [[] for _ in range(n)]
        dead: list[int] = []
        for i, s in enumerate(receivers):
            (dead if s == DEAD else hands[s]).extend(deck[i::r])
        return hands, [], dead

    def deal_state(self, g: Game) -> Pepper30Deal:
        return Pepper30Deal(g.players)

    def last_chance(self, g: Game) -> bool:
        return sum(g.family_state.in_auction) == 1

    def next_bidder(self, g: Game, seat: int, passed: bool) -> int | None:
        # [R] An elimination auction: a player who passes is out; it ends when one bidder is left.
        n, inn = g.players, g.family_state.in_auction
        if passed:
            inn[seat] = False
        left = sum(inn)
        if left == 0 or (left == 1 and g.high_bidder is not None):
            return None
        s = (seat + 1) % n
        while not inn[s]:
            s = (s + 1) % n
        return s

    def tie_winners(self, scores: Sequence[int], reached: list[int], bidding_team: int) -> tuple[int, ...]:
        top = max(scores)
        return tuple(i for i, s in enumerate(scores) if s == top)   # all tied at the top win


RULES = Pepper30Rules()
