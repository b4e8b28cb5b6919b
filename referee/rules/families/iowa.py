"""Iowa Pepper: 4 players in partnerships, 24 cards, one bidding circuit, Pepper with the exchange,
the defenders' cede; game to 42 (docs/rules.md, "iowa")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import actions as A
from ..cards import make_deck
from ..events import PUBLIC, Decision, EventKind, Phase
from .base import NINE_TO_ACE, DealState, Family, Layout, PartnershipRules, give_ids

if TYPE_CHECKING:
    from ..game import Game

# Enum members as module constants: compiled, a global reads in a few ns, a member through its class ~60 ns.
E_EXCHANGE, E_GIVE, E_GAVE_CARD, E_RECEIVED_CARD = EventKind.EXCHANGE, EventKind.GIVE, EventKind.GAVE_CARD, EventKind.RECEIVED_CARD
P_EXCHANGE, P_GIVE_CARD, P_CEDE = Phase.EXCHANGE, Phase.GIVE_CARD, Phase.CEDE
EXCHANGE_YES, GIVE_BASE = A.EXCHANGE_YES, A.GIVE_BASE


class IowaDeal(DealState):
    """An iowa deal's exchange: the card each of the bidder and its partner has chosen to give, until the swap."""

    __slots__ = ("given",)

    def __init__(self) -> None:
        self.given: dict[int, int] = {}     # seat -> card chosen


class IowaRules(PartnershipRules):
    family = Family.IOWA
    specials = ("pepper",)
    may_cede = True
    may_exchange = True

    def layout(self, players: int) -> Layout:
        return Layout(tuple(make_deck(NINE_TO_ACE, 1)), 6, tuple(s % 2 for s in range(players)))

    def special_level(self, name: str, hand_size: int) -> tuple[int, bool, int | None]:
        return hand_size, True, 12          # Pepper: every trick, alone, +-12

    def deal_state(self, g: Game) -> IowaDeal:
        return IowaDeal()

    def after_contract(self, g: Game) -> None:
        if g.contract.alone and g.ruleset.pepper_exchange:
            g.ask(P_EXCHANGE, (g.contract.bidder,))
        else:
            self.after_exchange(g)

    def apply_exchange(self, g: Game, a: int) -> None:
        bidder = g.to_act
        g.log_event(E_EXCHANGE, bidder, a == EXCHANGE_YES, PUBLIC)
        if a == EXCHANGE_YES:
            # [R] partner's card first, then the bidder's, then the swap; neither sees the other's choice.
            team_of = g.table.team_of
            partner = 0
            while partner == bidder or team_of[partner] != team_of[bidder]:   # the bidder's teammate (the first one)
                partner += 1
            g.ask(P_GIVE_CARD, (partner, bidder))
        else:
            self.after_exchange(g)

    def decision(self, g: Game) -> Decision:
        if g.phase is Phase.GIVE_CARD:
            return Decision.RETURN_CARD if g.to_act == g.contract.bidder else Decision.OFFER_CARD
        return super().decision(g)

    def legal_give(self, g: Game) -> list[int]:
        return give_ids(g, False)

    def apply_give(self, g: Game, a: int) -> None:
        seat, bidder = g.to_act, g.contract.bidder
        card = a - GIVE_BASE
        given = g.family_state.given
        given[seat] = card
        g.tell(seat, "gave", [card])
        g.log_event(E_GIVE, seat, None, PUBLIC)
        g.log_event(E_GAVE_CARD, seat, card, seat)
        if g.ask_next(P_GIVE_CARD):
            return
        # Both chose: swap. Each side learns only the card it receives.
        partner = -1
        for s in given:   # the bidder and its partner, who gave first
            if s != bidder:
                partner = s
        pc, bc = given[partner], given[bidder]
        g.hands[partner].remove(pc)
        g.hands[bidder].remove(bc)
        g.hands[partner].append(bc)
        g.hands[bidder].append(pc)
        g.tell(bidder, "received", [pc])
        g.tell(partner, "received", [bc])
        g.log_event(E_RECEIVED_CARD, bidder, pc, bidder)
        g.log_event(E_RECEIVED_CARD, partner, bc, partner)
        self.after_exchange(g)

    def after_exchange(self, g: Game) -> None:
        if not g.ruleset.defenders_may_cede:
            return g.start_play()
        # [R] Defenders in seat order from the bidder's left; the second is
        # asked only if the first cedes; ceded only if both cede.
        bidder, n, team_of = g.contract.bidder, g.players, g.table.team_of
        g.ask(P_CEDE, [(bidder + i) % n for i in range(1, n) if team_of[(bidder + i) % n] != team_of[bidder]])

    def defence_points(self, tricks: int, hand_size: int) -> int:
        return -hand_size if tricks == 0 else tricks    # defenders taking no trick lose 6

    def tie_winners(self, scores: Sequence[int], reached: list[int], bidding_team: int) -> tuple[int, ...]:
        top = max(scores[i] for i in reached)
        best = [i for i in reached if scores[i] == top]
        return (best[0],) if len(best) == 1 else (bidding_team,)   # the higher wins; a tie: the last bidding team


RULES = IowaRules()
