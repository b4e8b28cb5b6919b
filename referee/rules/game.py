"""The game state machine: one :class:`Game` is one game played to its end.

Each deal runs through phases (:class:`Phase`); each phase has its own legal
and apply logic (``_legal_<phase>`` / ``_apply_<phase>``). Actions are
integers from :mod:`.actions`; :meth:`Game.apply` accepts an :class:`Action`,
a plain id or the action's text.

Seats are numbered clockwise from 0; "left of X" is X + 1 (mod n). A deal is
one shuffle-to-score cycle. Events are logged with a visibility (public, or one
seat) so that :meth:`Game.view` and :meth:`Game.events_for` never hand a seat
what it may not know.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any, NamedTuple

from . import actions as A
from .actions import ACTIONS, Action, ActionKind
from .cards import CARDS, EFFECTIVE_SUIT, NO_TRUMP, Card, Strain, legal_plays, sort_key, trick_winner_index
from .errors import GameOverError, IllegalActionError, InvalidActionError, RecordError, ReplayMismatchError, RulesError
from .rulesets import BUILTIN_RULESETS, BidLevel, Ruleset, Table, get_ruleset, ruleset_from_dict
from .scoring import deal_points

__all__ = ["Game", "Phase", "Event", "EventKind", "Contract", "DealResult", "Outcome", "SeatView", "RECORD_FORMAT"]

RECORD_FORMAT = "pepper-game/1"
PUBLIC = -1   # event visibility: everyone
DEAD = -1     # receiver index of the 2-player dead hand while dealing

#: One tuple per distinct (kind, seat, small datum, visibility) event, shared by every game's log: most of a
#: log is plays and bids, and a tuple of its own for each cost 64 bytes a decision (docs/security.md, "8.").
_SHARED_EVENTS: dict[tuple, tuple] = {}


def _shared(event: tuple) -> tuple:
    """``event``, or an equal tuple already logged (an event's data here is an int or bool: a bounded set)."""
    return _SHARED_EVENTS.setdefault(event, event)


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


def _cards(xs) -> list[str]:
    return [str(CARDS[c]) for c in xs]


class Game:
    """One game of Pepper under one ruleset, from the first deal to the outcome.

    Start it from a seed (the first dealer and every shuffle come from
    ``random.Random(seed)``) or from explicit deck orders (``decks[k]`` is dealt
    for deal ``k``; deals beyond the list are shuffled from the seed).
    """

    def __init__(self, ruleset: Ruleset | str = "iowa", players: int | None = None, *, seed: int = 0,
                 decks: list | None = None, first_dealer: int | None = None):
        rs = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset)
        if players is None:
            players = rs.default_players
        t = rs.table(players)
        self.ruleset: Ruleset = rs
        self.table: Table = t
        self.players: int = players
        self.seed = seed
        self._rng = random.Random(seed)
        self._decks = [self._check_deck(d, k) for k, d in enumerate(decks)] if decks else []
        seeded_dealer = self._rng.randrange(players)  # always drawn, so shuffles do not depend on first_dealer
        if first_dealer is None:
            first_dealer = seeded_dealer
        elif not (isinstance(first_dealer, int) and 0 <= first_dealer < players):
            raise ValueError(f"first_dealer must be a seat 0..{players - 1}, got {first_dealer!r}")
        self.first_dealer: int = first_dealer
        self.scores: list[int] = [0] * t.teams
        self.deals: list[DealResult] = []
        self.decks_dealt: list[tuple[int, ...]] = []
        self.history: list[int] = []
        self.outcome: Outcome | None = None
        self._log: list[tuple] = []
        self._family = rs.family
        self.dealer = first_dealer
        self._start_deal()

    # ------------------------------------------------------------------ setup
    def _check_deck(self, deck, k: int) -> tuple[int, ...]:
        cards = tuple(Card.parse(c) if isinstance(c, str) else CARDS[c] for c in deck)
        if sorted(cards) != sorted(self.table.deck):
            raise ValueError(
                f"deck {k} is not a complete {self.ruleset.name} deck for {self.players} players: "
                f"expected {len(self.table.deck)} cards, each as many times as the deck holds it")
        return tuple(int(c) for c in cards)

    def _start_deal(self) -> None:
        t, n = self.table, self.players
        k = len(self.decks_dealt)
        if k:
            self.dealer = (self.dealer + 1) % n  # the deal passes to the left
        if k < len(self._decks):
            deck = self._decks[k]
        else:
            deck = list(t.deck)
            self._rng.shuffle(deck)
            deck = tuple(deck)
        self.decks_dealt.append(deck)
        d = self.dealer
        # One card at a time clockwise from the dealer's left. With 2 players the
        # dead hand is dealt as a third receiver after the dealer.
        receivers = [(d + 1 + i) % n for i in range(n)] + ([DEAD] if t.dead_hand else [])
        r = len(receivers)
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.widow: list[int] = []
        self.dead_hand: list[int] = []
        if t.widow_size:
            # five-handed [R]: one card to the widow after every third round.
            pos = 0
            per = t.hand_size // t.widow_size
            for rnd in range(t.hand_size):
                for s in receivers:
                    self.hands[s].append(deck[pos])
                    pos += 1
                if rnd % per == per - 1:
                    self.widow.append(deck[pos])
                    pos += 1
        else:
            for i, s in enumerate(receivers):
                (self.dead_hand if s == DEAD else self.hands[s]).extend(deck[i::r])
        # Per-deal state.
        self.phase = Phase.BID
        self.to_act: int | None = (d + 1) % n
        self.contract: Contract | None = None
        self._level: BidLevel | None = None
        self._bids: list[tuple[int, int]] = []
        self._high = -1                      # ladder index of the standing bid
        self._high_bidder: int | None = None
        self._bid_turns = 0
        self._in_auction = [True] * n        # pepper-30 elimination auction
        self._trump = NO_TRUMP
        self._queue: list[int] = []           # seats still to be asked (give / cede)
        self._pending_give: dict[int, int] = {}
        self._discards_left = 0
        self._ceded = False
        self._sitting_out: tuple[int, ...] = ()
        self._leader: int | None = None
        self._trick_seats: list[int] = []
        self._trick_cards: list[int] = []
        self._tricks: list[tuple[int, tuple, int]] = []
        self.tricks_won = [0] * n
        self._partner_card: int | None = None
        self._partner: int | None = None
        self._partner_open = False           # five-handed: partner card called, partner not yet known
        self._forced_lead_trump = False
        self._private: list[dict] = [{} for _ in range(n)]
        self._legal: list[int] | None = None
        log = self._log
        log.append((EventKind.DEAL, d, len(self.decks_dealt), PUBLIC))
        for s in range(n):
            log.append((EventKind.HAND, s, tuple(self.hands[s]), s))

    # ---------------------------------------------------------- public API
    @property
    def deal_number(self) -> int:
        """1-based number of the current (or last) deal."""
        return len(self.decks_dealt)

    @property
    def trump(self) -> int:
        """The strain of the current contract (4 = no-trump, also before trump is named)."""
        return self._trump

    @property
    def trick_cards(self) -> list[int]:
        """Cards of the trick in progress, in playing order (read-only)."""
        return self._trick_cards

    @property
    def trick_seats(self) -> list[int]:
        """Seats that played to the trick in progress, in order (read-only)."""
        return self._trick_seats

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def decision(self) -> Phase | None:
        """The kind of decision awaited from :attr:`to_act`, or None when the game is over."""
        return None if self.outcome else self.phase

    def legal_action_ids(self) -> list[int]:
        """Legal actions of the seat to act, as ids (fast path; do not mutate)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._LEGAL[self.phase](self)
        return legal

    def legal_actions(self) -> list[Action]:
        return [ACTIONS[i] for i in self.legal_action_ids()]

    def publicly_forced(self) -> int | None:
        """The only legal action of the seat to act, when every seat can tell it is forced; else None.

        A referee may play such an action without asking the seat (and no one
        learns anything from its not being asked). The legal calls of the
        auction, trump, exchange and cede phases follow from public facts alone;
        card choices follow from the seat's hidden cards, so one is public only
        when the seat holds a single card (its last card, say). A seat with one
        card of the suit led is forced too, but only it knows that: it is asked.
        """
        legal = self.legal_action_ids()
        if len(legal) != 1:
            return None
        if self.phase in (Phase.PLAY, Phase.GIVE_CARD, Phase.DISCARD) and len(self.hands[self.to_act]) != 1:
            return None
        return legal[0]

    def apply(self, action: Action | int | str) -> None:
        """Apply the action of the seat to act.

        Raises :class:`InvalidActionError` for something that is not an action
        of the kind this phase asks for, :class:`IllegalActionError` for a
        well-formed action the rules forbid here.
        """
        if self.outcome is not None:
            raise GameOverError(f"the game is over; cannot apply {action!s}")
        if isinstance(action, str):
            try:
                action = Action.parse(action)
            except ValueError as e:
                raise self._error(InvalidActionError, str(e), action) from None
        legal = self._legal
        if legal is None:
            legal = self._legal = self._LEGAL[self.phase](self)
        if action not in legal:
            raise self._refusal(action)
        self._legal = None
        self.history.append(int(action))
        self._APPLY[self.phase](self, int(action))

    def _refusal(self, action) -> Exception:
        if not (isinstance(action, int) and 0 <= action < A.N_ACTIONS):
            return self._error(InvalidActionError, f"not an action id: {action!r}", action)
        a = ACTIONS[action]
        wanted = {ACTIONS[i].kind for i in self._legal}
        if ActionKind.BID in wanted:
            wanted.add(ActionKind.PASS)  # a pass is a bidding decision (illegal, not invalid, for a dealer who must bid)
        if a.kind not in wanted:
            kinds = " or ".join(sorted(k.value for k in wanted))
            return self._error(InvalidActionError, f"{str(self.phase)} phase asks seat {self.to_act} for {kinds}, not {a.kind.value}", a)
        return self._error(IllegalActionError, self._why_illegal(a), a)

    def _error(self, cls, message: str, action) -> Exception:
        legal = [str(ACTIONS[i]) for i in self.legal_action_ids()]
        return cls(f"{message} (phase {self.phase}, seat {self.to_act}, action {action!s}; legal: {', '.join(legal)})",
                   phase=self.phase, seat=self.to_act, action=action, legal=legal)

    def _why_illegal(self, a: Action) -> str:
        seat, ph = self.to_act, self.phase
        c = a.card
        if ph is Phase.PLAY and c is not None:
            if int(c) not in self.hands[seat]:
                return f"seat {seat} does not hold {c}"
            if self._trick_cards:
                led = EFFECTIVE_SUIT[self._trump][self._trick_cards[0]]
                return f"seat {seat} must follow {'trump' if led == self._trump else 'SHDC'[led]} (or play the called partner card)"
            return f"seat {seat} must lead a trump to the first trick"
        if c is not None:
            return f"seat {seat} does not hold {c}"
        if a.kind is ActionKind.BID:
            return f"bid {a.bid_name} is not available: it must exceed the standing bid and be on this ruleset's ladder"
        if a.kind is ActionKind.PASS:
            return "the dealer must bid when everyone else has passed"
        return f"{a} is not allowed here"

    # -------------------------------------------------------------- auction
    def _legal_bid(self) -> list[int]:
        ids = self._bid_ids_above[self._high + 1] if hasattr(self, "_bid_ids_above") else self._init_bid_ids()
        if self._high_bidder is None and self.ruleset.pass_out == "dealer-must-bid" and self._last_chance():
            return ids
        return [A.PASS] + ids

    def _init_bid_ids(self) -> list[int]:
        t = self.table
        per_level = []
        for lv in t.ladder:
            if t.bid_names_strain:
                per_level.append([A.bid_action_id(lv.index, s) for s in range(5)])
            else:
                per_level.append([A.bid_action_id(lv.index, None)])
        self._bid_ids_above = [sum(per_level[i:], []) for i in range(len(per_level) + 1)]
        self._ladder_of = {a: i for i, ids in enumerate(per_level) for a in ids}
        return self._bid_ids_above[self._high + 1]

    def _last_chance(self) -> bool:
        # No bid so far: is the seat to act the last one who can still bid?
        if self._family == "pepper-30":
            return sum(self._in_auction) == 1
        return self._bid_turns == self.players - 1

    def _apply_bid(self, a: int) -> None:
        seat, n = self.to_act, self.players
        self._bids.append((seat, a))
        self._log.append(_shared((EventKind.BID, seat, a, PUBLIC)))
        elimination = self._family == "pepper-30"
        if a == A.PASS:
            if elimination:
                self._in_auction[seat] = False  # [R] a player who passes is out
        else:
            self._high = self._ladder_of[a]
            self._high_bidder = seat
            if self._high == len(self.table.ladder) - 1:
                return self._end_auction()  # the top bid ends the bidding
        self._bid_turns += 1
        if elimination:
            left = sum(self._in_auction)
            if left == 0 or (left == 1 and self._high_bidder is not None):
                return self._end_auction()
            s = (seat + 1) % n
            while not self._in_auction[s]:
                s = (s + 1) % n
            self.to_act = s
        elif self._bid_turns == n:
            self._end_auction()
        else:
            self.to_act = (seat + 1) % n

    def _end_auction(self) -> None:
        if self._high_bidder is None:
            return self._throw_in()
        lv = self._level = self.table.ladder[self._high]
        bidder = self._high_bidder
        if self.table.bid_names_strain:
            _, strain = A.bid_parts(self._winning_bid_id())
            self._set_trump(bidder, lv, strain)
        else:
            self.contract = Contract(bidder, lv.name, None, lv.alone, lv.tricks)
            self.phase, self.to_act = Phase.NAME_TRUMP, bidder

    def _winning_bid_id(self) -> int:
        return next(a for s, a in reversed(self._bids) if s == self._high_bidder and a != A.PASS)

    def _throw_in(self) -> None:
        # [R] Everyone passed: no score, the deal passes to the left.
        self._log.append((EventKind.THROWN_IN, None, None, PUBLIC))
        self._finish_deal(None, False, tuple([0] * self.table.teams))

    # ----------------------------------------------------------------- trump
    def _legal_name_trump(self) -> list[int]:
        return _TRUMP_IDS

    def _apply_name_trump(self, a: int) -> None:
        self._set_trump(self.to_act, self._level, a - A.TRUMP_BASE)

    def _set_trump(self, bidder: int, lv: BidLevel, strain: int) -> None:
        self._trump = strain
        self.contract = Contract(bidder, lv.name, Strain(strain), lv.alone, lv.tricks)
        self._log.append((EventKind.CONTRACT, bidder, (lv.name, strain), PUBLIC))
        rs, fam = self.ruleset, self._family
        if fam == "iowa" and lv.alone and rs.pepper_exchange:
            self.phase, self.to_act = Phase.EXCHANGE, bidder
        elif fam == "bid-euchre" and lv.name == "pepper" and rs.pepper_exchange:
            # [R] Teammates are asked in seat order from the bidder's left; the first to give stops it.
            n = self.players
            self._queue = [(bidder + i) % n for i in range(1, n) if self.table.team_of[(bidder + i) % n] == self.table.team_of[bidder]]
            self.phase, self.to_act = Phase.GIVE_CARD, self._queue.pop(0)
        elif fam == "five-handed" and lv.name != "moon-shot":
            # The bidder takes the widow (seen by the bidder alone) and discards as many.
            self.hands[bidder].extend(self.widow)
            self._private[bidder]["widow"] = list(self.widow)
            self._log.append((EventKind.WIDOW, bidder, tuple(self.widow), bidder))
            self._discards_left = len(self.widow)
            self.phase, self.to_act = Phase.DISCARD, bidder
        else:
            self._after_exchange()

    # --------------------------------------------- exchange, give, discard
    def _legal_exchange(self) -> list[int]:
        return _EXCHANGE_IDS

    def _apply_exchange(self, a: int) -> None:
        bidder = self.to_act
        self._log.append((EventKind.EXCHANGE, bidder, a == A.EXCHANGE_YES, PUBLIC))
        if a == A.EXCHANGE_YES:
            # [R] partner's card first, then the bidder's, then the swap; neither sees the other's choice.
            partner = next(s for s in self.table.team_seats(self.table.team_of[bidder]) if s != bidder)
            self._queue = [bidder]
            self.phase, self.to_act = Phase.GIVE_CARD, partner
        else:
            self._after_exchange()

    def _legal_give_card(self) -> list[int]:
        hand = self.hands[self.to_act]
        ids = [A.GIVE_BASE + c for c in (dict.fromkeys(hand) if self.table.has_copies else hand)]
        if self._family == "bid-euchre":
            ids.append(A.GIVE_NONE)
        return ids

    def _apply_give_card(self, a: int) -> None:
        seat = self.to_act
        bidder = self.contract.bidder
        if self._family == "iowa":
            card = a - A.GIVE_BASE
            self._pending_give[seat] = card
            self._private[seat]["gave"] = [card]
            self._log.append((EventKind.GIVE, seat, None, PUBLIC))
            self._log.append((EventKind.GAVE_CARD, seat, card, seat))
            if self._queue:
                self.to_act = self._queue.pop(0)
                return
            # Both chose: swap. Each side learns only the card it receives.
            partner = next(s for s in self._pending_give if s != bidder)
            pc, bc = self._pending_give[partner], self._pending_give[bidder]
            self.hands[partner].remove(pc)
            self.hands[bidder].remove(bc)
            self.hands[partner].append(bc)
            self.hands[bidder].append(pc)
            self._private[bidder]["received"] = [pc]
            self._private[partner]["received"] = [bc]
            self._log.append((EventKind.RECEIVED_CARD, bidder, pc, bidder))
            self._log.append((EventKind.RECEIVED_CARD, partner, bc, partner))
            return self._after_exchange()
        # bid-euchre Pepper
        if a == A.GIVE_NONE:
            self._log.append((EventKind.GIVE, seat, False, PUBLIC))
            if self._queue:
                self.to_act = self._queue.pop(0)
                return
            return self._after_exchange()  # nobody gave: no discard
        card = a - A.GIVE_BASE
        self.hands[seat].remove(card)
        self.hands[bidder].append(card)
        self._private[seat]["gave"] = [card]
        self._private[bidder]["received"] = [card]
        self._log.append((EventKind.GIVE, seat, True, PUBLIC))
        self._log.append((EventKind.GAVE_CARD, seat, card, seat))
        self._log.append((EventKind.RECEIVED_CARD, bidder, card, bidder))
        self._queue = []
        self._discards_left = 1
        self.phase, self.to_act = Phase.DISCARD, bidder

    def _legal_discard(self) -> list[int]:
        hand = self.hands[self.to_act]
        return [A.DISCARD_BASE + c for c in (dict.fromkeys(hand) if self.table.has_copies else hand)]

    def _apply_discard(self, a: int) -> None:
        seat, card = self.to_act, a - A.DISCARD_BASE
        self.hands[seat].remove(card)
        self._private[seat].setdefault("discards", []).append(card)
        self._log.append((EventKind.DISCARD, seat, None, PUBLIC))
        self._log.append((EventKind.DISCARDED_CARD, seat, card, seat))
        self._discards_left -= 1
        if not self._discards_left:
            self._after_exchange()

    # ------------------------------------------------------------------ cede
    def _after_exchange(self) -> None:
        if self._family == "iowa" and self.ruleset.defenders_may_cede:
            # [R] Defenders in seat order from the bidder's left; the second is
            # asked only if the first cedes; ceded only if both cede.
            bidder, n = self.contract.bidder, self.players
            bt = self.table.team_of[bidder]
            self._queue = [(bidder + i) % n for i in range(1, n) if self.table.team_of[(bidder + i) % n] != bt]
            self.phase, self.to_act = Phase.CEDE, self._queue.pop(0)
        else:
            self._start_play()

    def _legal_cede(self) -> list[int]:
        return _CEDE_IDS

    def _apply_cede(self, a: int) -> None:
        self._log.append((EventKind.CEDE, self.to_act, a == A.CEDE_YES, PUBLIC))
        if a == A.CEDE_NO:
            return self._start_play()
        if self._queue:
            self.to_act = self._queue.pop(0)
            return
        self._ceded = True
        self._log.append((EventKind.CEDED, None, None, PUBLIC))
        self._score_deal()

    # ------------------------------------------------------------------ play
    def _start_play(self) -> None:
        c, t, n = self.contract, self.table, self.players
        bidder = c.bidder
        if c.alone and self._family in ("iowa", "bid-euchre"):
            # Pepper: the bidder's teammates sit out; tricks have fewer cards.
            bt = t.team_of[bidder]
            self._sitting_out = tuple(s for s in range(n) if s != bidder and t.team_of[s] == bt)
        active = [s for s in range(n) if s not in self._sitting_out]
        self._n_active = len(active)
        self._next = [0] * n
        for i, s in enumerate(active):
            self._next[s] = active[(i + 1) % len(active)]
        if self._family == "five-handed" and not c.alone:
            self._partner_open = True
            self._forced_lead_trump = self._trump != NO_TRUMP
        self.phase = Phase.PLAY
        self._leader = self.to_act = bidder  # the winning bidder leads the first trick

    def _legal_play(self) -> list[int]:
        seat = self.to_act
        hand = self.hands[seat]
        eff = EFFECTIVE_SUIT[self._trump]
        trick = self._trick_cards
        if trick:
            legal = legal_plays(hand, trick[0], self._trump)
            led = eff[trick[0]]
            pc = self._partner_card
            if self._partner_open and pc is not None and pc in legal and eff[pc] == led and seat != self.contract.bidder:
                # Nobody may play a lower card to avoid partnering: a holder of
                # the called card who must follow its suit has to play it.
                return [pc]
        elif self._forced_lead_trump and not self._tricks:
            trump = self._trump
            legal = [c for c in hand if eff[c] == trump] or hand  # five-handed: lead a trump when holding one
        else:
            legal = hand
        if self.table.has_copies:
            return list(dict.fromkeys(legal))
        return legal if legal is not hand else list(hand)

    def _apply_play(self, card: int) -> None:
        seat = self.to_act
        self.hands[seat].remove(card)
        ts, tc = self._trick_seats, self._trick_cards
        ts.append(seat)
        tc.append(card)
        self._log.append(_shared((EventKind.PLAY, seat, card, PUBLIC)))
        if self._partner_open:
            self._track_partner(seat, card)
        if len(tc) < self._n_active:
            self.to_act = self._next[seat]
            return
        winner = ts[trick_winner_index(tc, self._trump)]
        self.tricks_won[winner] += 1
        self._tricks.append((self._leader, tuple(zip(ts, tc)), winner))
        self._log.append((EventKind.TRICK, winner, (self._leader, tuple(tc)), PUBLIC))
        self._trick_seats, self._trick_cards = [], []
        if len(self._tricks) == self.table.hand_size:
            self.to_act = None
            self._score_deal()
        else:
            self._leader = self.to_act = winner

    def _track_partner(self, seat: int, card: int) -> None:
        bidder = self.contract.bidder
        if seat == bidder and not self._tricks and len(self._trick_cards) == 1:
            self._partner_card = pc = self._call_partner_card(card)
            self._log.append((EventKind.PARTNER_CARD, bidder, pc, PUBLIC))
            if pc is None:
                self._partner_open = False  # [R] nobody else holds a qualifying card: no partner
        elif seat != bidder and card == self._partner_card:
            self._partner = seat
            self._partner_open = False
            self._log.append((EventKind.PARTNER, seat, card, PUBLIC))

    def _call_partner_card(self, lead: int) -> int | None:
        """five-handed: the highest card of which some copy is held by another player.

        Trump contract: right bower, left bower, A, K, Q of trump. No-trump [R]:
        A, K, Q, J of the suit led.
        """
        trump, bidder = self._trump, self.contract.bidder
        if trump != NO_TRUMP:
            suit = trump
            order = [suit * 6 + 2, (3 - suit) * 6 + 2, suit * 6 + 5, suit * 6 + 4, suit * 6 + 3]
        else:
            suit = lead // 6
            order = [suit * 6 + 5, suit * 6 + 4, suit * 6 + 3, suit * 6 + 2]
        for c in order:
            if any(c in h for s, h in enumerate(self.hands) if s != bidder):
                return c
        return None

    # --------------------------------------------------------------- scoring
    def _score_deal(self) -> None:
        c, lv, t = self.contract, self._level, self.table
        pts = deal_points(self._family, t.team_of, t.teams, t.hand_size, c.bidder, self._partner,
                          lv.tricks, lv.points, lv.alone, self.tricks_won, ceded=self._ceded)
        self._finish_deal(c, self._ceded, tuple(pts))

    def _finish_deal(self, contract: Contract | None, ceded: bool, pts: tuple[int, ...]) -> None:
        for i, p in enumerate(pts):
            self.scores[i] += p
        res = DealResult(len(self.decks_dealt), self.dealer, contract, ceded, self._partner,
                         tuple(self.tricks_won), pts, tuple(self.scores))
        self.deals.append(res)
        self._log.append((EventKind.DEAL_END, None, res, PUBLIC))
        self._legal = None
        winners = self._check_target(contract) if contract is not None else None
        reason = "target"
        if winners is None and len(self.deals) >= self.ruleset.deal_cap:
            # [R] The deal cap: the leader wins, a tie is a draw.
            top = max(self.scores)
            leaders = tuple(i for i, s in enumerate(self.scores) if s == top)
            winners, reason = (leaders if len(leaders) == 1 else ()), "deal-cap"
        if winners is None:
            return self._start_deal()
        seats = tuple(s for s in range(self.players) if self.table.team_of[s] in winners)
        self.outcome = Outcome(winners, seats, tuple(self.scores), len(self.deals), reason)
        self.phase, self.to_act = Phase.GAME_OVER, None
        self._log.append((EventKind.GAME_OVER, None, self.outcome, PUBLIC))

    def _check_target(self, c: Contract) -> tuple[int, ...] | None:
        """Winning teams if the game ends after this played or ceded deal, else None."""
        target, sc, fam = self.ruleset.target_score, self.scores, self._family
        bt = self.table.team_of[c.bidder]
        if fam == "five-handed":
            # Only the bidder of the deal can end the game, even with a failed contract.
            return (bt,) if sc[bt] >= target else None
        reached = [i for i, s in enumerate(sc) if s >= target]
        if not reached:
            return None
        if len(reached) == 1:
            return (reached[0],)
        if fam == "pepper-30":
            top = max(sc)
            return tuple(i for i, s in enumerate(sc) if s == top)  # all tied at the top win
        if fam == "iowa":
            top = max(sc[i] for i in reached)
            best = [i for i in reached if sc[i] == top]
            return (best[0],) if len(best) == 1 else (bt,)  # tie: the last deal's bidding team
        return (bt,)  # bid-euchre: both reached, the bidding team wins

    # ------------------------------------------------------------------ views
    @property
    def events(self) -> list[Event]:
        """Every event so far, with its visibility (for spectators and the referee)."""
        return [Event._make(e) for e in self._log]

    def events_for(self, seat: int, start: int = 0) -> list[tuple[int, Event]]:
        """(index, event) pairs from ``start`` that ``seat`` may see."""
        log = self._log
        return [(i, Event._make(log[i])) for i in range(start, len(log)) if log[i][3] in (PUBLIC, seat)]

    @property
    def event_count(self) -> int:
        return len(self._log)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now: its own cards and the public record, nothing more."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} at a {self.players}-player table")
        return SeatView(
            ruleset=self.ruleset.name, players=self.players, seat=seat, team_of=self.table.team_of,
            deal=len(self.decks_dealt), dealer=self.dealer, phase=self.phase, to_act=self.to_act,
            hand=tuple(CARDS[c] for c in sorted(self.hands[seat], key=sort_key)),
            bids=tuple((s, str(ACTIONS[a])) for s, a in self._bids),
            contract=self.contract,
            partner_card=None if self._partner_card is None else CARDS[self._partner_card],
            partner=self._partner, sitting_out=self._sitting_out, leader=self._leader,
            trick=tuple((s, CARDS[c]) for s, c in zip(self._trick_seats, self._trick_cards)),
            tricks=tuple((ld, tuple((s, CARDS[c]) for s, c in plays), w) for ld, plays, w in self._tricks),
            tricks_won=tuple(self.tricks_won), scores=tuple(self.scores),
            private={k: [CARDS[c] for c in v] for k, v in self._private[seat].items()},
            legal_actions=tuple(self.legal_actions()) if seat == self.to_act and self.outcome is None else (),
            family=self._family, target_score=self.ruleset.target_score,
        )

    def view_state(self, seat: int) -> tuple:
        """The live values behind :meth:`view` for ``seat``, uncopied, for fast encoders (referee.wire).

        ``(deal, dealer, phase, to_act, hand, bids, contract, partner_card, partner,
        sitting_out, leader, trick_seats, trick_cards, tricks, tricks_won, scores, private)``
        with cards, actions and bids as ids (``hand`` unsorted, ``bids`` as
        (seat, action id), ``private`` as name -> card ids). Exactly what
        :meth:`view` shows and nothing more; :meth:`view` stays the reference.
        The lists are the engine's own: read them, never mutate or keep them.
        """
        if not 0 <= seat < self.players:   # hands[-1] would be another seat's hand
            raise ValueError(f"no seat {seat} at a {self.players}-player table")
        return (len(self.decks_dealt), self.dealer, self.phase, self.to_act, self.hands[seat], self._bids,
                self.contract, self._partner_card, self._partner, self._sitting_out, self._leader,
                self._trick_seats, self._trick_cards, self._tricks, self.tricks_won, self.scores, self._private[seat])

    @property
    def event_log(self) -> list[tuple]:
        """The raw event log, ``(kind, seat, data, visible_to)`` tuples, uncopied (read-only; see :meth:`events_for`)."""
        return self._log

    def full_state(self) -> dict:
        """Everything, hidden cards included: for spectators once the game is over, and for tests."""
        return {
            "hands": [_cards(sorted(h, key=sort_key)) for h in self.hands],
            "widow": _cards(self.widow), "dead_hand": _cards(self.dead_hand),
            "decks": [_cards(d) for d in self.decks_dealt],
        }

    # ---------------------------------------------------------------- records
    def record(self) -> dict:
        """A JSON-ready record that replays to this exact game (see :meth:`replay`)."""
        rs = self.ruleset
        rec = {
            "format": RECORD_FORMAT,
            "ruleset": rs.name,
            "ruleset_params": None if rs.name in BUILTIN_RULESETS else rs.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "decks": [_cards(d) for d in self._decks] or None,
            "actions": [str(ACTIONS[a]) for a in self.history],
        }
        if self.outcome is not None:
            rec["outcome"] = self.outcome.to_dict()
            rec["deals"] = [d.to_dict() for d in self.deals]
        return rec

    def to_json(self, **kw) -> str:
        return json.dumps(self.record(), **kw)

    @classmethod
    def from_record(cls, rec: dict, *, verify: bool = True) -> Game:
        """Replay a record exactly.

        Raises :class:`RecordError` for something that is not a well-formed
        record, :class:`ActionError` (with ``.index``) at the first refused
        action, and :class:`ReplayMismatchError` if ``verify`` and the replayed
        outcome differs from the recorded one.
        """
        if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
            raise RecordError(f"not a game record: expected \"format\": \"{RECORD_FORMAT}\"")
        try:
            params = rec.get("ruleset_params")
            if params:
                rs = ruleset_from_dict({k: v for k, v in params.items() if k in _RECORD_PARAM_KEYS and v is not None}, source="record")
            else:
                rs = get_ruleset(rec["ruleset"])
            g = cls(rs, rec.get("players"), seed=rec.get("seed", 0), decks=rec.get("decks"), first_dealer=rec.get("first_dealer"))
            actions = rec.get("actions", [])
            if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
                raise RecordError("record field 'actions' must be a list of action texts")
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError) as e:
            raise RecordError(f"malformed game record: {e!s}") from None
        for i, text in enumerate(actions):
            try:
                g.apply(text)
            except RulesError as e:
                e.index = i
                e.args = (f"action {i} ({text!r}): {e}",)
                raise
        if verify and "outcome" in rec:
            got = g.outcome.to_dict() if g.outcome else None
            if got != rec["outcome"]:
                raise ReplayMismatchError(f"replay diverges from the record: recorded outcome {rec['outcome']}, replayed {got}")
        return g

    replay = from_record

    def copy(self) -> Game:
        """An independent copy (for search bots): lists are copied, immutable values shared."""
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.hands = [list(h) for h in self.hands]
        for name in ("scores", "deals", "decks_dealt", "history", "_log", "widow", "dead_hand", "_bids", "_in_auction",
                     "_queue", "_trick_seats", "_trick_cards", "_tricks", "tricks_won"):
            setattr(g, name, list(getattr(self, name)))
        g._pending_give = dict(self._pending_give)
        g._private = [{k: list(v) for k, v in p.items()} for p in self._private]
        g._rng = random.Random()
        g._rng.setstate(self._rng.getstate())
        return g

    @classmethod
    def at_play(cls, ruleset: Ruleset | str, players: int, *, dealer: int, bidder: int, bid: str, trump: int,
                hands: list[list[int]], plays: list[tuple[int, int]] = (), scores: list[int] | None = None,
                seed: int = 0) -> Game:
        """A game positioned in the play phase of a deal, for search bots (determinization).

        ``hands`` are the cards each seat holds *now* (the caller samples the
        ones it cannot see); ``plays`` are the deal's (seat, card) plays so far,
        in order. The plays are replayed through the normal rules, so partner
        calls and forced plays are recomputed and an inconsistent history
        raises :class:`ActionError`. Later deals are shuffled from ``seed``.
        """
        g = cls(ruleset, players, seed=seed, first_dealer=dealer)
        lv = next((lv for lv in g.table.ladder if lv.name == bid), None)
        if lv is None:
            raise ValueError(f"bid {bid!r} is not on the {g.ruleset.name} ladder")
        g.hands = [list(h) for h in hands]
        for s, c in plays:
            g.hands[s].append(c)
        if scores is not None:
            g.scores = list(scores)
        g._level, g._high_bidder = lv, bidder
        g.contract = Contract(bidder, lv.name, Strain(trump), lv.alone, lv.tricks)
        g._trump = trump
        g._legal = None
        g._start_play()
        for s, c in plays:
            if g.to_act != s:
                raise IllegalActionError(f"seat {s} played out of turn (seat {g.to_act} was to play)",
                                         phase=g.phase, seat=g.to_act, action=ACTIONS[c])
            g.apply(c)
        return g

    def __repr__(self) -> str:
        return (f"<Game {self.ruleset.name} {self.players}p deal {self.deal_number} phase {self.phase} "
                f"to_act {self.to_act} scores {self.scores}>")

    _LEGAL = {
        Phase.BID: _legal_bid, Phase.NAME_TRUMP: _legal_name_trump, Phase.EXCHANGE: _legal_exchange,
        Phase.GIVE_CARD: _legal_give_card, Phase.DISCARD: _legal_discard, Phase.CEDE: _legal_cede,
        Phase.PLAY: _legal_play, Phase.GAME_OVER: lambda self: [],
    }
    _APPLY = {
        Phase.BID: _apply_bid, Phase.NAME_TRUMP: _apply_name_trump, Phase.EXCHANGE: _apply_exchange,
        Phase.GIVE_CARD: _apply_give_card, Phase.DISCARD: _apply_discard, Phase.CEDE: _apply_cede,
        Phase.PLAY: _apply_play,
    }


_TRUMP_IDS = [A.TRUMP_BASE + s for s in range(5)]
_EXCHANGE_IDS = [A.EXCHANGE_YES, A.EXCHANGE_NO]
_CEDE_IDS = [A.CEDE_NO, A.CEDE_YES]
_RECORD_PARAM_KEYS = ("extends", "name", "description", "target_score", "deal_cap", "pass_out", "defenders_may_cede",
                      "pepper_exchange", "min_bid", "max_bid", "specials", "player_counts")
