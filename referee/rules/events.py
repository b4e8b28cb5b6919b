"""What a game reports: its phases, events, contracts, deal results, outcome and seat views.

Plain values, shared by the phase machine (:mod:`.game`), the family rules
(:mod:`.families`) and every layer above; none of them holds a reference to a
:class:`~referee.rules.game.Game`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum, StrEnum
from typing import Any, NamedTuple

from .actions import ACTIONS, Action
from .cards import CARDS, Card, Strain

__all__ = ["Phase", "Decision", "DECISION_OF", "EventKind", "Event", "Contract", "Trick", "CardPass", "DealResult", "Outcome", "SeatView", "PUBLIC"]

PUBLIC = -1   # event visibility: everyone

#: One tuple per distinct (kind, seat, small datum, visibility) event, shared by every game's log: most of a
#: log is plays and bids, and a tuple of its own for each cost 64 bytes a decision (docs/security.md, "8."),
#: and every kept tuple is work for the cyclic GC.
SHARED_EVENTS: dict[tuple, tuple] = {}

#: ``shared(event, event)``: ``event``, or an equal tuple already logged (an event's data here is an int, a bool,
#: None or a pair of them: a bounded set). The dict's own method, so that the hot path makes no Python call for it.
shared = SHARED_EVENTS.setdefault


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


class Decision(StrEnum):
    """What the seat to act decides, named apart where one :class:`Phase` covers different decisions.

    :class:`Phase` is what the wire carries (``pepper.v1``'s ``DecisionKind``);
    :attr:`Game.decision_kind <referee.rules.game.Game.decision_kind>` tells the
    three decisions of :attr:`Phase.GIVE_CARD` apart.
    """

    BID = "bid"
    NAME_TRUMP = "name-trump"
    EXCHANGE = "exchange"
    OFFER_CARD = "offer-card"      # iowa exchange: the partner picks the card it hands the bidder (blind)
    RETURN_CARD = "return-card"    # iowa exchange: the bidder picks the card it hands back (blind)
    GIVE_CARD = "give-card"        # bid-euchre Pepper: a teammate gives the bidder a card, or declines
    DISCARD = "discard"
    CEDE = "cede"
    PLAY = "play"


#: The decision of each phase where a phase is one decision.
DECISION_OF = {Phase.BID: Decision.BID, Phase.NAME_TRUMP: Decision.NAME_TRUMP, Phase.EXCHANGE: Decision.EXCHANGE,
               Phase.GIVE_CARD: Decision.GIVE_CARD, Phase.DISCARD: Decision.DISCARD, Phase.CEDE: Decision.CEDE,
               Phase.PLAY: Decision.PLAY}


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


@dataclass(frozen=True, slots=True)
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


class Trick(NamedTuple):
    """One trick: who led, the (seat, card) plays in order, who won it."""

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int


class CardPass(NamedTuple):
    """A card handed from one seat to another (the iowa exchange, a bid-euchre Pepper give)."""

    giver: int
    receiver: int
    card: Card


@dataclass(frozen=True, slots=True)
class DealResult:
    """How one deal ended, and the whole story of it.

    The first fields are the summary (kept in records). The story (bids,
    exchange, passes, discards, widow, partner card, cede votes, every trick)
    is read from the game's event log on demand, so a finished deal costs
    next to nothing to keep. A deal's hidden cards (passes, discards, the
    widow) are in the story of :attr:`Game.deals <referee.rules.game.Game.deals>`
    (spectators, records); the result a seat receives with its events
    (:meth:`seen_by`) shows only the hidden cards that seat saw.
    """

    number: int                     # 1-based
    dealer: int
    contract: Contract | None       # None: thrown in
    ceded: bool
    partner: int | None             # five-handed called partner, once revealed
    tricks: tuple[int, ...]         # tricks won, per seat
    points: tuple[int, ...]         # per team, this deal
    scores: tuple[int, ...]         # per team, after this deal
    made: bool | None = None        # the contract made (a ceded deal counts as made); None: thrown in
    sitting_out: tuple[int, ...] = ()
    _widow: tuple[int, ...] = field(default=(), compare=False, repr=False)   # five-handed: the widow as dealt
    _log: list | None = field(default=None, compare=False, repr=False)   # the game's event log ...
    _start: int = field(default=0, compare=False, repr=False)   # ... and where this deal's events start in it
    _viewer: int | None = field(default=None, compare=False, repr=False)   # None: everything; else that seat's story

    @property
    def thrown_in(self) -> bool:
        return self.contract is None

    def seen_by(self, seat: int) -> DealResult:
        """This result as ``seat`` may know it: the hidden cards of other seats left out."""
        return replace(self, _viewer=seat)

    # -- the story ---------------------------------------------------------------
    def _events(self) -> list[tuple]:
        if self._log is None:
            return []
        log, a = self._log, self._start
        b = a
        while log[b][0] != EventKind.DEAL_END:   # the deal's events end at its DEAL_END
            b += 1
        v = self._viewer
        evs = log[a:b]
        return evs if v is None else [e for e in evs if e[3] == PUBLIC or e[3] == v]

    def _of(self, kind: EventKind) -> list[tuple]:
        return [e for e in self._events() if e[0] == kind]

    @property
    def widow(self) -> tuple[Card, ...]:
        """five-handed: the widow as dealt (hidden: a seat sees it only if it took it)."""
        if self._viewer is None:
            return tuple(CARDS[c] for c in self._widow)
        return tuple(CARDS[c] for e in self._of(EventKind.WIDOW) for c in e[2])

    @property
    def bids(self) -> tuple[tuple[int, Action], ...]:
        """(seat, call) of the auction, in order."""
        return tuple((e[1], ACTIONS[e[2]]) for e in self._of(EventKind.BID))

    @property
    def exchange(self) -> bool | None:
        """iowa Pepper: whether the bidder asked for the exchange; None: not asked."""
        return next((e[2] for e in self._of(EventKind.EXCHANGE)), None)

    @property
    def gives(self) -> tuple[tuple[int, bool | None], ...]:
        """(seat, answer) of each give decision: True gave, False declined (bid-euchre), None an exchange card."""
        return tuple((e[1], e[2]) for e in self._of(EventKind.GIVE))

    @property
    def passes(self) -> tuple[CardPass, ...]:
        """The cards handed between teammates, in order (hidden: see :meth:`seen_by`)."""
        got = [(e[1], e[2]) for e in self._events() if e[0] == EventKind.RECEIVED_CARD]
        gave = [(e[1], e[2]) for e in self._events() if e[0] == EventKind.GAVE_CARD]
        out = []
        for giver, card in gave:
            receiver = next((r for r, c in got if c == card and r != giver), None)
            if receiver is not None:
                got.remove((receiver, card))
            out.append(CardPass(giver, receiver, CARDS[card]))
        return tuple(out)

    @property
    def discards(self) -> tuple[tuple[int, Card], ...]:
        """(seat, card) of each discard, in order (hidden: see :meth:`seen_by`)."""
        return tuple((e[1], CARDS[e[2]]) for e in self._of(EventKind.DISCARDED_CARD))

    @property
    def partner_card(self) -> Card | None:
        """five-handed: the card the bidder's first lead called (None: no call, or no card qualified)."""
        c = next((e[2] for e in self._of(EventKind.PARTNER_CARD)), None)
        return None if c is None else CARDS[c]

    @property
    def cede_votes(self) -> tuple[tuple[int, bool], ...]:
        """(defender, cedes) in the order asked."""
        return tuple((e[1], e[2]) for e in self._of(EventKind.CEDE))

    @property
    def trick_history(self) -> tuple[Trick, ...]:
        """Every trick played: leader, (seat, card) plays in order, winner."""
        out, plays = [], []
        for e in self._events():
            if e[0] == EventKind.PLAY:
                plays.append((e[1], CARDS[e[2]]))
            elif e[0] == EventKind.TRICK:
                out.append(Trick(plays[0][0], tuple(plays), e[1]))   # the lead is the first play
                plays = []
        return tuple(out)

    def to_dict(self, story: bool = False) -> dict:
        """The summary, as records keep it; with ``story``, every field above as JSON-ready values."""
        c = self.contract
        d = {
            "number": self.number, "dealer": self.dealer, "thrown_in": self.thrown_in, "ceded": self.ceded,
            "contract": None if c is None else {"bidder": c.bidder, "bid": c.bid, "trump": str(c.trump), "alone": c.alone},
            "partner": self.partner, "tricks": list(self.tricks), "points": list(self.points), "scores": list(self.scores),
        }
        if story:
            pc = self.partner_card
            d.update({
                "made": self.made, "sitting_out": list(self.sitting_out), "widow": [str(x) for x in self.widow],
                "bids": [[s, str(a)] for s, a in self.bids], "exchange": self.exchange,
                "gives": [[s, g] for s, g in self.gives],
                "passes": [[p.giver, p.receiver, str(p.card)] for p in self.passes],
                "discards": [[s, str(x)] for s, x in self.discards],
                "partner_card": None if pc is None else str(pc),
                "cede_votes": [[s, v] for s, v in self.cede_votes],
                "trick_history": [[t.leader, [[s, str(x)] for s, x in t.plays], t.winner] for t in self.trick_history],
            })
        return d


@dataclass(frozen=True, slots=True)
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
