"""What a game reports: its phases, events, contracts, deal results, outcome and seat views.

Plain values, shared by the phase machine (:mod:`.game`), the family rules
(:mod:`.families`) and every layer above; none of them holds a reference to a
:class:`~referee.rules.game.Game`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any, NamedTuple

from .actions import Action
from .cards import Card, Strain

__all__ = ["Phase", "EventKind", "Event", "Contract", "DealResult", "Outcome", "SeatView", "PUBLIC"]

PUBLIC = -1   # event visibility: everyone


class Phase(IntEnum):
    """What the game is waiting for. Every phase but GAME_OVER is a decision kind."""

    BID = 1          # pass or bid
    NAME_TRUMP = 2   # the winning bidder names trump or no-trump
    EXCHANGE = 3     # iowa Pepper: the bidder asks for a card, or plays as dealt
    GIVE_CARD = 4    # pass a card to a teammate (iowa exchange, bid-euchre Pepper)
    DISCARD = 5      # discard a card face down (bid-euchre Pepper, five-handed widow)
    CEDE = 6         # iowa defenders: cede the deal or play it
    PLAY = 7         # play a card to the trick
    GAME_OVER = 8

    def __str__(self) -> str:
        return self.name.lower().replace("_", "-")


class EventKind(StrEnum):
    """What an :class:`Event` records. The values are the words every layer uses: the wire's
    ``EVENT_KIND_<NAME>``, the SDK's event dicts and the record renderers all name kinds so."""

    DEAL = "deal"                      # data: the deal number (public)
    HAND = "hand"                      # data: the seat's cards (to that seat)
    BID = "bid"                        # data: the action id
    CONTRACT = "contract"              # data: (bid name, strain)
    THROWN_IN = "thrown_in"            # everyone passed
    WIDOW = "widow"                    # data: the widow's cards (to the bidder)
    EXCHANGE = "exchange"              # data: whether the bidder exchanges
    GIVE = "give"                      # data: whether a card was given (None: asked)
    GAVE_CARD = "gave_card"            # data: the card (to the giver)
    RECEIVED_CARD = "received_card"    # data: the card (to the receiver)
    DISCARD = "discard"
    DISCARDED_CARD = "discarded_card"  # data: the card (to the discarder)
    CEDE = "cede"                      # data: whether the defender cedes
    CEDED = "ceded"
    PLAY = "play"                      # data: the card
    TRICK = "trick"                    # data: (leader, cards); seat: the winner
    PARTNER_CARD = "partner_card"      # data: the called card, or None
    PARTNER = "partner"                # data: the card that showed the partner
    DEAL_END = "deal_end"              # data: the DealResult
    GAME_OVER = "game_over"            # data: the Outcome


class Event(NamedTuple):
    """One thing that happened. ``visible_to`` is -1 (public) or the one seat that may see it."""

    kind: EventKind
    seat: int | None
    data: Any
    visible_to: int


@dataclass(frozen=True)
class Contract:
    """The winning bid with its trump (``trump`` is None until named)."""

    bidder: int
    bid: str
    trump: Strain | None
    alone: bool
    tricks_needed: int

    def __str__(self) -> str:
        t = "?" if self.trump is None else str(self.trump)
        return f"seat {self.bidder} bid {self.bid} in {t}" + (" alone" if self.alone else "")


@dataclass(frozen=True)
class DealResult:
    """How one deal ended."""

    number: int                     # 1-based
    dealer: int
    contract: Contract | None       # None: thrown in
    ceded: bool
    partner: int | None             # five-handed called partner, once revealed
    tricks: tuple[int, ...]         # per seat
    points: tuple[int, ...]         # per team, this deal
    scores: tuple[int, ...]         # per team, after this deal

    @property
    def thrown_in(self) -> bool:
        return self.contract is None

    def to_dict(self) -> dict:
        c = self.contract
        return {
            "number": self.number, "dealer": self.dealer, "thrown_in": self.thrown_in, "ceded": self.ceded,
            "contract": None if c is None else {"bidder": c.bidder, "bid": c.bid, "trump": str(c.trump), "alone": c.alone},
            "partner": self.partner, "tricks": list(self.tricks), "points": list(self.points), "scores": list(self.scores),
        }


@dataclass(frozen=True)
class Outcome:
    """How the game ended. ``winners`` are teams (a seat's team is ``team_of[seat]``)."""

    winners: tuple[int, ...]        # empty: a draw
    winning_seats: tuple[int, ...]
    scores: tuple[int, ...]         # per team
    deals: int
    reason: str                     # "target" or "deal-cap"

    @property
    def draw(self) -> bool:
        return not self.winners

    def to_dict(self) -> dict:
        return {"winners": list(self.winners), "winning_seats": list(self.winning_seats), "scores": list(self.scores),
                "deals": self.deals, "reason": self.reason, "draw": self.draw}


@dataclass(frozen=True)
class SeatView:
    """Exactly what one seat may know at this moment."""

    ruleset: str
    players: int
    seat: int
    team_of: tuple[int, ...]
    deal: int
    dealer: int
    phase: Phase
    to_act: int | None
    hand: tuple[Card, ...]
    bids: tuple[tuple[int, str], ...]
    contract: Contract | None
    partner_card: Card | None
    partner: int | None
    sitting_out: tuple[int, ...]
    leader: int | None
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[tuple[int, tuple[tuple[int, Card], ...], int], ...]   # (leader, plays, winner)
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    private: dict = field(default_factory=dict)   # this seat's own secrets: widow taken, cards given/received, discards
    legal_actions: tuple[Action, ...] = ()
    family: str = ""                              # the ruleset's family: which rules apply, whatever its name
    target_score: int = 0                         # the ruleset's target score

    def to_dict(self) -> dict:
        c = self.contract
        return {
            "ruleset": self.ruleset, "family": self.family, "target_score": self.target_score,
            "players": self.players, "seat": self.seat,
            "team_of": list(self.team_of), "deal": self.deal, "dealer": self.dealer, "phase": str(self.phase), "to_act": self.to_act,
            "hand": [str(x) for x in self.hand], "bids": [[s, b] for s, b in self.bids],
            "contract": None if c is None else {"bidder": c.bidder, "bid": c.bid, "trump": None if c.trump is None else str(c.trump), "alone": c.alone},
            "partner_card": None if self.partner_card is None else str(self.partner_card), "partner": self.partner,
            "sitting_out": list(self.sitting_out), "leader": self.leader,
            "trick": [[s, str(x)] for s, x in self.trick],
            "tricks": [[ld, [[s, str(x)] for s, x in plays], w] for ld, plays, w in self.tricks],
            "tricks_won": list(self.tricks_won), "scores": list(self.scores),
            "private": {k: ([str(x) for x in v] if isinstance(v, (list, tuple)) else v) for k, v in self.private.items()},
            "legal_actions": [str(a) for a in self.legal_actions],
        }
