"""Bid Euchre Pepper: 4, 6 or 8 players in two teams, J-A decks (one set per two players), bids that name
their strain, Pepper (the teammates may give the bidder a card) and Double Pepper; game to 50
(docs/rules.md, "bid-euchre")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import actions as A
from ..cards import make_deck
from ..events import PUBLIC, EventKind, Phase
from .base import JACK_TO_ACE, Family, Layout, PartnershipRules, give_ids

if TYPE_CHECKING:
    from ..game import Game


class BidEuchreRules(PartnershipRules):
    family = Family.BID_EUCHRE
    specials = ("pepper", "double-pepper")
    has_copies = True
    bid_names_strain = True
    may_exchange = True

    def layout(self, players: int) -> Layout:
        return Layout(tuple(make_deck(JACK_TO_ACE, players // 2)), 8, tuple(s % 2 for s in range(players)))

    def special_level(self, name: str, hand_size: int) -> tuple[int, bool, int | None]:
        return hand_size, True, (12 if name == "pepper" else 24)   # Pepper +-12, Double Pepper +-24, alone

    def after_contract(self, g: Game) -> None:
        c = g.contract
        if c.bid != "pepper" or not g.ruleset.pepper_exchange:
            return self.after_exchange(g)
        # [R] Teammates are asked in seat order from the bidder's left; the first to give stops it.
        n, team_of = g.players, g.table.team_of
        g.ask(Phase.GIVE_CARD, [(c.bidder + i) % n for i in range(1, n) if team_of[(c.bidder + i) % n] == team_of[c.bidder]])

    def legal_give(self, g: Game) -> list[int]:
        return give_ids(g, True) + [A.GIVE_NONE]

    def apply_give(self, g: Game, a: int) -> None:
        seat, bidder = g.to_act, g.contract.bidder
        if a == A.GIVE_NONE:
            g.log_event(EventKind.GIVE, seat, False, PUBLIC)
            if g.ask_next(Phase.GIVE_CARD):
                return
            return self.after_exchange(g)  # nobody gave: no discard
        card = a - A.GIVE_BASE
        g.hands[seat].remove(card)
        g.hands[bidder].append(card)
        g.tell(seat, "gave", [card])
        g.tell(bidder, "received", [card])
        g.log_event(EventKind.GIVE, seat, True, PUBLIC)
        g.log_event(EventKind.GAVE_CARD, seat, card, seat)
        g.log_event(EventKind.RECEIVED_CARD, bidder, card, bidder)
        g.ask_discards(bidder, 1)   # the teammates not yet asked are not

    def set_penalty(self, tricks_needed: int, hand_size: int) -> int:
        return -tricks_needed       # euchred: lose the number bid


RULES = BidEuchreRules()
