"""Five-handed Pepper: 5 players scoring alone, three J-A decks, a 3-card widow for the bidder, the partner
called by card, Pepper and Moon Shot; only the bidder can end the game, at 51 (docs/rules.md,
"five-handed").

Every five-handed rule is in this module: the widow's deal (:meth:`FiveHandedRules.deal`), the widow
taken and discarded (:meth:`~FiveHandedRules.after_contract`), the bidder's trump lead and the partner
call (:meth:`~FiveHandedRules.start_play`, :meth:`~FiveHandedRules.legal_play`,
:meth:`~FiveHandedRules.on_play`, :func:`partner_call_order`), the scoring
(:meth:`~FiveHandedRules.score`) and the game's end (:meth:`~FiveHandedRules.winners`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..cards import EFFECTIVE_SUIT, NO_TRUMP, card_strength, effective_suit, make_deck
from ..events import PUBLIC, EventKind
from .base import JACK_TO_ACE, Family, Layout, Rules

if TYPE_CHECKING:
    from ..game import Game
    from ..rulesets import Table

__all__ = ["FiveHandedRules", "RULES", "partner_call_order"]

_DISTINCT = sorted(set(make_deck(JACK_TO_ACE, 1)))


def _call_order(strain: int, suit: int) -> tuple[int, ...]:
    return tuple(sorted((c for c in _DISTINCT if effective_suit(c, strain) == suit),
                        key=lambda c: -card_strength(c, strain)))


#: _ORDER[strain][suit]: the cards of ``suit`` under ``strain``, highest first (from the card functions).
_ORDER = [[_call_order(t, s) for s in range(4)] for t in range(5)]


def partner_call_order(trump: int, lead: int) -> tuple[int, ...]:
    """The cards the bidder's first lead may call, highest first: the first one some other seat holds is called.

    A trump contract calls the highest trump (right bower, left bower, A, K, Q);
    no-trump [R] calls the highest card of the suit led (A, K, Q, J).
    """
    return _ORDER[trump][trump if trump != NO_TRUMP else lead // 6]


class FiveHandedRules(Rules):
    family = Family.FIVE_HANDED
    specials = ("pepper", "moon-shot")
    has_copies = True

    def layout(self, players: int) -> Layout:
        return Layout(tuple(make_deck(JACK_TO_ACE, 3)), 9, tuple(range(players)), widow_size=3)

    def special_level(self, name: str, hand_size: int) -> tuple[int, bool, int | None]:
        return hand_size, True, (12 if name == "pepper" else 18)   # Pepper +-12, Moon Shot +-18, alone

    def deal(self, table: Table, deck: Sequence[int], dealer: int) -> tuple[list[list[int]], list[int], list[int]]:
        # [R] one card at a time clockwise from the dealer's left, one to the widow after every third round.
        n = table.players
        receivers = [(dealer + 1 + i) % n for i in range(n)]
        hands: list[list[int]] = [[] for _ in range(n)]
        widow: list[int] = []
        pos, per = 0, table.hand_size // table.widow_size
        for rnd in range(table.hand_size):
            for s in receivers:
                hands[s].append(deck[pos])
                pos += 1
            if rnd % per == per - 1:
                widow.append(deck[pos])
                pos += 1
        return hands, widow, []

    def after_contract(self, g: Game) -> None:
        c = g.contract
        if c.bid == "moon-shot":
            return self.after_exchange(g)
        # The bidder takes the widow (seen by the bidder alone) and discards as many.
        widow = tuple(g.widow)
        g.hands[c.bidder].extend(widow)
        g.tell(c.bidder, "widow", list(widow))
        g.log_event(EventKind.WIDOW, c.bidder, widow, c.bidder)
        g.widow = []          # the widow is the bidder's now
        g.ask_discards(c.bidder, len(widow))

    def start_play(self, g: Game) -> None:
        if not g.contract.alone:
            g.watch_plays(True)    # the partner is open: the bidder's first lead calls it (on_play)

    def legal_play(self, g: Game) -> list[int]:
        legal = super().legal_play(g)
        if not g.watching_plays:   # the partner is known (or there is none)
            return legal
        trump = int(g.trump)
        eff = EFFECTIVE_SUIT[trump]
        trick = g.trick_cards
        if not trick:
            if not g.tricks and trump != NO_TRUMP:
                return [c for c in legal if eff[c] == trump] or legal   # the bidder leads a trump when holding one
            return legal
        pc = g.partner_card
        if pc is not None and pc in legal and eff[pc] == eff[trick[0]] and g.to_act != g.contract.bidder:
            # Nobody may play a lower card to avoid partnering: a holder of
            # the called card who must follow its suit has to play it.
            return [pc]
        return legal

    def on_play(self, g: Game, seat: int, card: int) -> None:
        bidder = g.contract.bidder
        if seat == bidder and not g.tricks and len(g.trick_cards) == 1:
            pc = next((c for c in partner_call_order(int(g.trump), card)
                       if any(c in h for s, h in enumerate(g.hands) if s != bidder)), None)
            g.set_partner_card(pc)
            g.log_event(EventKind.PARTNER_CARD, bidder, pc, PUBLIC)
            if pc is None:
                g.watch_plays(False)  # [R] nobody else holds a qualifying card: no partner
        elif seat != bidder and card == g.partner_card:
            g.set_partner(seat)
            g.watch_plays(False)
            g.log_event(EventKind.PARTNER, seat, card, PUBLIC)

    def score(self, team_of: Sequence[int], teams: int, hand_size: int, bidder: int, partner: int | None,
              tricks_needed: int, points: int | None, alone: bool, tricks_won: Sequence[int],
              ceded: bool = False) -> tuple[bool, list[int]]:
        """Per seat: the bidder (with the partner) scores its tricks or loses the bid; each defender scores its
        side's tricks. Alone (Pepper, Moon Shot): the bid's points won or lost; defenders score a failure."""
        n = len(team_of)
        side_tricks = tricks_won[bidder] + (tricks_won[partner] if partner is not None else 0)
        def_tricks = hand_size - side_tricks
        if alone:
            made = tricks_won[bidder] >= tricks_needed
            return made, [(points if made else -points) if s == bidder else (0 if made else def_tricks) for s in range(n)]
        made = side_tricks >= tricks_needed
        return made, [(side_tricks if made else -tricks_needed) if s in (bidder, partner) else def_tricks for s in range(n)]

    def winners(self, scores: Sequence[int], target: int, bidding_team: int) -> tuple[int, ...] | None:
        # Only the bidder of the deal can end the game, even with a failed contract.
        return (bidding_team,) if scores[bidding_team] >= target else None


RULES = FiveHandedRules()
