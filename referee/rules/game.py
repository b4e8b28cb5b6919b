"""The game state machine: one :class:`Game` is one game played to its end.

Each deal runs through phases (:class:`Phase`); each phase has its own legal
and apply logic (``_legal_<phase>`` / ``_apply_<phase>``), and where the
families differ the phase machine asks the family's rules
(:mod:`.families`: one module per family). Actions are
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

from . import actions as A
from .actions import ACTIONS, Action, ActionKind
from .cards import CARDS, EFFECTIVE_SUIT, NO_TRUMP, Card, Strain, legal_plays, trick_winner_index
from .errors import DealInProgressError, DealOverError, GameOverError, IllegalActionError, InvalidActionError
from .events import PUBLIC, SHARED_EVENTS, Contract, DealResult, Decision, Event, EventKind, Outcome, Phase, SeatView, shared
from .families import FAMILIES, Rules
from .machinery import (
    HAND_EVENTS,
    PAIRS,
    RESULT_FIELDS,
    TRICK_EVENTS,
    bid_ids,
    contract,
    copied,
    copied_rng,
    made,
    play_events,
    positive,
    restore,
    shuffle,
    small,
    state_of,
    untrack,
)
from .records import RECORD_FORMAT, game_record, replay_record
from .rulesets import BidLevel, Ruleset, Table, get_ruleset
from .views import full_state, seat_view

__all__ = ["Game", "Phase", "Event", "EventKind", "Contract", "DealResult", "Outcome", "SeatView", "RECORD_FORMAT"]


# Enum members as module constants: compiled, a global reads in a few ns, a member through its class ~70 ns.
E_DEAL, E_HAND, E_BID, E_CONTRACT, E_THROWN_IN = EventKind.DEAL, EventKind.HAND, EventKind.BID, EventKind.CONTRACT, EventKind.THROWN_IN
E_CEDE, E_CEDED, E_PLAY, E_TRICK = EventKind.CEDE, EventKind.CEDED, EventKind.PLAY, EventKind.TRICK
E_DEAL_END, E_GAME_OVER = EventKind.DEAL_END, EventKind.GAME_OVER
P_BID, P_NAME_TRUMP, P_PLAY, P_GAME_OVER = Phase.BID, Phase.NAME_TRUMP, Phase.PLAY, Phase.GAME_OVER
STRAINS = tuple(Strain)   # STRAINS[s] is Strain(s), without the enum's call
# Action ids the hot path compares with, as module constants (compiled, A.PASS is a module attribute lookup).
_PASS, _CEDE_YES, _CEDE_NO, _TRUMP_BASE = A.PASS, A.CEDE_YES, A.CEDE_NO, A.TRUMP_BASE


_shared = shared   # events.shared: one tuple per distinct small event, shared by every game's log
_SHARED_EVENTS = SHARED_EVENTS
# The machinery's values and helpers under the names the hot path reads (module globals: compiled, a few ns).
_HAND_EVENTS, _TRICK_EVENTS, _PAIRS, _RESULT_FIELDS = HAND_EVENTS, TRICK_EVENTS, PAIRS, RESULT_FIELDS
_contract, _small, _made, _play_events, _bid_ids, _positive = contract, small, made, play_events, bid_ids, positive
#: ``_untrack(t)``: compiled, the C API's ``PyObject_GC_UnTrack`` (game.pxd declares it; see machinery.untrack);
#: in pure Python, nothing. Bound through globals(): Cython resolves the name to the C function.
globals()["_untrack"] = untrack


class Game:
    """One game of Pepper under one ruleset, from the first deal to the outcome.

    Start it from a seed (the first dealer and every shuffle come from
    ``random.Random(seed)``) or from explicit deck orders (``decks[k]`` is dealt
    for deal ``k``; deals beyond the list are shuffled from the seed).

    With ``hold_finished_deal=True`` a deal that does not end the game is held
    for inspection (:attr:`deal_over`: no seat to act, no legal action, its
    :class:`DealResult` in :attr:`deals`, the hands and tricks as they ended)
    until :meth:`next_deal` deals the next one; by default :meth:`apply` that
    ends a deal deals the next in the same call. Both play the same game.
    """

    def __init__(self, ruleset: Ruleset | str = "iowa", players: int | None = None, *, seed: int = 0,
                 decks: list | None = None, first_dealer: int | None = None, scores: list[int] | None = None,
                 target_score: int | None = None, deal_cap: int | None = None, hold_finished_deal: bool = False):
        rs = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset)
        if players is None:
            players = rs.default_players
        t = rs.table(players)
        self.ruleset: Ruleset = rs
        self.rules: Rules = FAMILIES[rs.family]
        self.table: Table = t
        self._hand_size: int = t.hand_size          # the table's, read by the hot path from a C slot
        self._has_copies: bool = t.has_copies
        self.players: int = players
        self.seed = seed
        #: The score to reach and the deal cap: the ruleset's unless given (a record carries them).
        self.target_score: int = _positive("target_score", rs.target_score if target_score is None else target_score)
        self.deal_cap: int = _positive("deal_cap", rs.deal_cap if deal_cap is None else deal_cap)
        #: Stop after each deal that does not end the game, until :meth:`next_deal` (a record carries it).
        if not isinstance(hold_finished_deal, bool):
            raise ValueError(f"hold_finished_deal must be True or False, got {hold_finished_deal!r}")
        self.hold_finished_deal: bool = hold_finished_deal
        self._rng = random.Random(seed)
        # decks[k] is dealt for deal k; None (or past the list): shuffled from the seed.
        self._decks: list[tuple[int, ...] | None] = [None if d is None else self._check_deck(d, k)
                                                     for k, d in enumerate(decks or ())]
        seeded_dealer = self._rng.randrange(players)  # always drawn, so shuffles do not depend on first_dealer
        if first_dealer is None:
            first_dealer = seeded_dealer
        elif not (isinstance(first_dealer, int) and 0 <= first_dealer < players):
            raise ValueError(f"first_dealer must be a seat 0..{players - 1}, got {first_dealer!r}")
        self.first_dealer: int = first_dealer
        if scores is None:
            self.start_scores: tuple[int, ...] = (0,) * t.teams
        elif (not isinstance(scores, (list, tuple)) or len(scores) != t.teams
              or not all(isinstance(x, int) and not isinstance(x, bool) for x in scores)):
            raise ValueError(f"scores must be {t.teams} integers (one per team), got {scores!r}")
        else:
            self.start_scores = tuple(scores)
        self.scores: list[int] = list(self.start_scores)
        self.deals: list[DealResult] = []
        self.decks_dealt: list[tuple[int, ...]] = []
        self.history: list[int] = []
        self.outcome: Outcome | None = None
        self._log: list[tuple] = []
        self._family = rs.family
        self._derive()
        self.dealer = first_dealer
        self._start_deal()

    # ------------------------------------------------------------------ setup
    def _derive(self) -> None:
        """The tables a game derives from its ruleset and table, shared by every game alike (pickles leave them out)."""
        self._legal_of, self._apply_of = _dispatch(self.rules)   # phase -> legal, phase -> apply
        self._plays_follow_suit = self._legal_of[P_PLAY] is _FOLLOW_SUIT   # the common play rule
        self._bids_from, self._rung_of = _bid_ids(self.table)   # bid ids from each rung up; bid id -> rung
        self._play_events = _play_events(self.players)         # [seat][card] -> its shared PLAY event

    def _check_deck(self, deck, k: int) -> tuple[int, ...]:
        try:
            cards = tuple(Card.parse(c) if isinstance(c, str) else CARDS[c] for c in deck)
        except (TypeError, IndexError):
            cards = ()
        if sorted(cards) != sorted(self.table.deck):
            raise ValueError(
                f"deck {k} is not a complete {self.ruleset.name} deck for {self.players} players: "
                f"expected {len(self.table.deck)} cards, each as many times as the deck holds it")
        return tuple(int(c) for c in cards)

    def set_next_deck(self, deck) -> None:
        """Deal ``deck`` (cards or their texts, in dealing order) for the next deal instead of a shuffle.

        The record keeps it, so the game still replays; the seed's shuffles of
        later deals are not affected (a given deck draws nothing from the seed).
        """
        if self.outcome is not None:
            raise GameOverError("the game is over; there is no next deal")
        k = len(self.decks_dealt)    # the next deal's index
        d = self._check_deck(deck, k)
        self._decks.extend([None] * (k + 1 - len(self._decks)))
        self._decks[k] = d

    def _start_deal(self) -> None:
        k = len(self.decks_dealt)
        if k:
            self.dealer = (self.dealer + 1) % self.players  # the deal passes to the left
        deck = self._decks[k] if k < len(self._decks) else None
        if deck is None:
            shuffled = list(self.table.deck)
            shuffle(self._rng, shuffled)
            deck = tuple(shuffled)
            _untrack(deck)  # noqa: F821 (bound through globals())
        self.decks_dealt.append(deck)
        self._new_deal(*self.rules.deal(self.table, deck, self.dealer))

    def _new_deal(self, hands: list[list[int]], widow: list[int], dead_hand: list[int]) -> None:
        """Every piece of per-deal state, set here and nowhere else first (:meth:`copy` relies on it)."""
        n, d = self.players, self.dealer
        self.hands: list[list[int]] = hands
        self.widow: list[int] = widow                    # five-handed: until the bidder takes it
        self.dead_hand: list[int] = dead_hand            # 2-player pepper-30
        self.phase: Phase = P_BID
        self.to_act: int | None = (d + 1) % n
        self.contract: Contract | None = None
        # the auction
        self._level: BidLevel | None = None
        self._bids: list[tuple[int, int]] = []           # (seat, action id)
        self._high = -1                                   # ladder index of the standing bid
        self._high_bidder: int | None = None
        # after the contract
        self._trump = NO_TRUMP                            # the hot path's strain (see the trump property)
        self._queue: list[int] = []                       # seats still to be asked (give / cede)
        self._discards_left = 0
        self._ceded = False
        self._private: list[dict] = [{} for _ in range(n)]   # each seat's secrets: widow, gave, received, discards
        # the play
        self._sitting_out: tuple[int, ...] = ()
        self._n_active = n
        self._next: list[int] = [(s + 1) % n for s in range(n)]
        self._leader: int | None = None
        self._trick_seats: list[int] = []
        self._trick_cards: list[int] = []
        self._tricks: list[tuple[int, tuple, int]] = []   # (leader, ((seat, card), ...), winner)
        self.tricks_won = [0] * n
        self._partner_card: int | None = None              # five-handed: the called card, and who holds it
        self._partner: int | None = None
        self._watch_plays = False                           # each card goes to the family's on_play
        self._legal: list[int] | None = None
        self._held = False                                  # hold_finished_deal: this deal is over, held
        self._deal_start = len(self._log)                   # this deal's first event
        self._dealt_widow: tuple[int, ...] = tuple(widow)
        #: The family's own state for this deal (:meth:`Rules.deal_state <.families.base.Rules.deal_state>`).
        self.family_state = self.rules.deal_state(self)
        log = self._log
        log.append(_shared(e := (E_DEAL, d, len(self.decks_dealt), PUBLIC), e))
        # Each seat's HAND entry names no card: its cards are the dealt deck's (Game.log_entry derives them).
        hand_events = _HAND_EVENTS
        for s in range(n):
            log.append(hand_events[s])

    def _enter(self, phase: Phase, seat: int | None) -> None:
        """Every phase change goes through here: what the game waits for, and from whom."""
        self.phase, self.to_act = phase, seat

    # ------------------------------------------------------- the family interface
    # What a family's hooks (:mod:`.families`) may do to a game besides changing its public ``hands`` and ``widow``
    # and calling :meth:`start_play`; the game keeps the state behind each. A family's own per-deal state is its
    # :attr:`family_state`. Not for players: a bot or a referee changes a game through :meth:`apply` alone.
    def log_event(self, kind: EventKind, seat: int | None, data, visible_to: int) -> None:
        """Log an event (``visible_to``: PUBLIC, or the one seat that may see it; ``data``: a value or a tuple)."""
        e = (kind, seat, data, visible_to)
        self._log.append(e if type(data) is tuple else _shared(e, e))   # a scalar datum: one of a bounded set

    def tell(self, seat: int, name: str, cards: list[int]) -> None:
        """Show ``seat`` alone a list of cards under ``name`` for the rest of the deal (its view's ``private``:
        widow, gave, received)."""
        self._private[seat][name] = cards

    def ask(self, phase: Phase, seats) -> None:
        """Wait for a ``phase`` decision from ``seats[0]``; the other seats are asked in order by :meth:`ask_next`
        (the cede phase asks them itself)."""
        self._queue = list(seats[1:])
        self._enter(phase, seats[0])

    def ask_next(self, phase: Phase) -> bool:
        """Ask the next seat of :meth:`ask`'s for a ``phase`` decision; False when none is left."""
        if not self._queue:
            return False
        self._enter(phase, self._queue.pop(0))
        return True

    def ask_discards(self, seat: int, count: int) -> None:
        """Have ``seat`` discard ``count`` cards, one decision each; then the family's ``after_exchange``."""
        self._discards_left = count
        self.ask(Phase.DISCARD, (seat,))

    def watch_plays(self, on: bool) -> None:
        """Send each card played to the family's ``on_play`` from now on (or no longer)."""
        self._watch_plays = on

    @property
    def watching_plays(self) -> bool:
        """Each card played goes to the family's ``on_play`` (:meth:`watch_plays`)."""
        return self._watch_plays

    def set_partner_card(self, card: int | None) -> None:
        """The card whose holder partners the bidder this deal (five-handed's call; every view shows it)."""
        self._partner_card = card

    def set_partner(self, seat: int) -> None:
        """The bidder's partner for this deal, now known (every view and the deal's result show it)."""
        self._partner = seat

    @property
    def partner_card(self) -> int | None:
        """The called partner card of this deal (five-handed), None if none."""
        return self._partner_card

    @property
    def partner(self) -> int | None:
        """The bidder's partner this deal once known (five-handed), else None."""
        return self._partner

    @property
    def bids(self) -> list[tuple[int, int]]:
        """This deal's calls so far, ``(seat, action id)`` in order (read-only)."""
        return self._bids

    @property
    def high_bidder(self) -> int | None:
        """The seat of this deal's standing bid; None while every call has been a pass."""
        return self._high_bidder

    @property
    def tricks(self) -> list[tuple[int, tuple, int]]:
        """This deal's finished tricks, ``(leader, ((seat, card), ...), winner)`` in order (read-only)."""
        return self._tricks

    # ---------------------------------------------------------- public API
    @property
    def deal_number(self) -> int:
        """1-based number of the current (or last) deal."""
        return len(self.decks_dealt)

    @property
    def trump(self) -> Strain | None:
        """The strain of the current contract; None until trump is named."""
        c = self.contract
        return None if c is None else c.trump

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
    def deal_over(self) -> bool:
        """The last deal is over and held for inspection (``hold_finished_deal``): :meth:`next_deal` deals on.

        While held, :attr:`to_act` and :attr:`decision` are None, there is no
        legal action, :attr:`phase` is the phase the deal ended in, and the
        finished deal is :attr:`deals`\\ ``[-1]`` with the hands, tricks and
        scores as it left them. A deal that ends the game is not held: the game
        is over (:attr:`is_over`).
        """
        return self._held

    def next_deal(self) -> None:
        """Deal the next deal after a held one (``hold_finished_deal``); the same deal :meth:`apply` deals
        on its own without the option. Raises :class:`GameOverError` once the game is over, and
        :class:`DealInProgressError` while a deal is being played."""
        if self.outcome is not None:
            raise GameOverError("the game is over; there is no next deal")
        if not self._held:
            raise DealInProgressError(
                f"deal {self.deal_number} is in progress (phase {self.phase}, seat {self.to_act} to act); "
                "next_deal() follows a deal held by hold_finished_deal", deal=self.deal_number)
        self._start_deal()

    @property
    def decision(self) -> Phase | None:
        """The kind of decision awaited from :attr:`to_act`, or None when the game is over."""
        return None if self.outcome is not None or self._held else self.phase

    @property
    def decision_kind(self) -> Decision | None:
        """The decision awaited from :attr:`to_act`, by name: like :attr:`decision`, but the iowa exchange's
        card choices (``offer-card``, ``return-card``) and bid-euchre's ``give-card`` are told apart."""
        return None if self.outcome is not None or self._held else self.rules.decision(self)

    def legal_action_ids(self) -> list[int]:
        """Legal actions of the seat to act, as ids (fast path; do not mutate)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self.follow_suit() if self._plays_follow_suit and self.phase is P_PLAY \
                else self._legal_of[self.phase](self)
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
            legal = self._legal = self._legal_of[self.phase](self)
        if action not in legal:
            raise self._refusal(action)
        self._legal = None
        a = int(action)
        self.history.append(a)
        if self.phase is P_PLAY:   # most decisions: compiled, a C call rather than a call through the phase table
            self._apply_play(a)
        else:
            self._apply_of[self.phase](self, a)

    def _refusal(self, action) -> Exception:
        if self._held:   # the held deal's legal list is empty: every action ends here, off the hot path
            return DealOverError(f"deal {self.deal_number} is over (phase deal-over, held by hold_finished_deal); "
                                 f"call next_deal() before applying {action!s}", deal=self.deal_number, action=action)
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
        ids, or_pass = self._bids_from[self._high + 1]   # shared lists: a legal list is never mutated
        if self._high_bidder is None and self.ruleset.pass_out == "dealer-must-bid" and self.rules.last_chance(self):
            return ids
        return or_pass

    def _apply_bid(self, a: int) -> None:
        seat = self.to_act
        self._bids.append((seat, a))
        self._log.append(_shared(e := (E_BID, seat, a, PUBLIC), e))
        if a != _PASS:
            self._high = self._rung_of[a]
            self._high_bidder = seat
            if self._high == len(self.table.ladder) - 1:
                return self._end_auction()  # the top bid ends the bidding
        nxt = self.rules.next_bidder(self, seat, a == _PASS)
        if nxt is None:
            return self._end_auction()
        self.to_act = nxt

    def _end_auction(self) -> None:
        if self._high_bidder is None:
            return self._throw_in()
        lv = self._level = self.table.ladder[self._high]
        bidder = self._high_bidder
        if self.table.bid_names_strain:
            _, strain = A.bid_parts(self._winning_bid_id())
            self._set_trump(bidder, lv, strain)
        else:
            self.contract = _contract((bidder, lv.name, None, lv.alone, lv.tricks))
            self._enter(P_NAME_TRUMP, bidder)

    def _winning_bid_id(self) -> int:
        return next(a for s, a in reversed(self._bids) if s == self._high_bidder and a != A.PASS)

    def _throw_in(self) -> None:
        # [R] Everyone passed: no score, the deal passes to the left.
        self._log.append((E_THROWN_IN, None, None, PUBLIC))
        self._finish_deal(None, False, False, _small(z := tuple([0] * self.table.teams), z))

    # ----------------------------------------------------------------- trump
    def _legal_name_trump(self) -> list[int]:
        return _TRUMP_IDS

    def _apply_name_trump(self, a: int) -> None:
        self._set_trump(self.to_act, self._level, a - _TRUMP_BASE)

    def _set_trump(self, bidder: int, lv: BidLevel, strain: int) -> None:
        self._trump = strain
        self.contract = _contract((bidder, lv.name, STRAINS[strain], lv.alone, lv.tricks))
        self._log.append(_shared(e := (E_CONTRACT, bidder, (lv.name, strain), PUBLIC), e))
        self.rules.after_contract(self)   # exchange, give, widow, cede or play: the family's

    # --------------------------------------------- exchange, give, discard
    def _legal_exchange(self) -> list[int]:
        return _EXCHANGE_IDS

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
            self.rules.after_exchange(self)

    # ------------------------------------------------------------------ cede
    def _legal_cede(self) -> list[int]:
        return _CEDE_IDS

    def _apply_cede(self, a: int) -> None:
        self._log.append(_shared(e := (E_CEDE, self.to_act, a == _CEDE_YES, PUBLIC), e))
        if a == _CEDE_NO:
            return self.start_play()
        if self._queue:
            self.to_act = self._queue.pop(0)
            return
        self._ceded = True
        self._log.append((E_CEDED, None, None, PUBLIC))
        self._score_deal()

    # ------------------------------------------------------------------ play
    def follow_suit(self) -> list[int]:
        """The cards the seat to act may play by the common rule (:func:`~.cards.legal_plays`: follow the effective
        suit led when able), each named once where the deck has copies: :meth:`Rules.legal_play
        <referee.rules.families.base.Rules.legal_play>`, which a family may narrow."""
        hand = self.hands[self.to_act]
        trick = self._trick_cards
        legal = legal_plays(hand, trick[0], self._trump) if trick else list(hand)
        return list(dict.fromkeys(legal)) if self._has_copies else legal

    def start_play(self) -> None:
        """Start the deal's play (family hook :meth:`~.families.base.Rules.after_exchange` calls it): who sits
        out, the family's :meth:`~.families.base.Rules.start_play`, and the bidder leads."""
        c, n = self.contract, self.players
        self._sitting_out = out = self.rules.sitting_out(self.table, c.bidder, c.alone)
        if out:
            active = [s for s in range(n) if s not in out]
            self._n_active = len(active)
            for i, s in enumerate(active):
                self._next[s] = active[(i + 1) % len(active)]
        self.rules.start_play(self)
        self._enter(P_PLAY, c.bidder)
        self._leader = c.bidder  # the winning bidder leads the first trick

    def _apply_play(self, card: int) -> None:
        seat = self.to_act
        self.hands[seat].remove(card)
        ts, tc = self._trick_seats, self._trick_cards
        ts.append(seat)
        tc.append(card)
        self._log.append(self._play_events[seat][card])
        if self._watch_plays:
            self.rules.on_play(self, seat, card)
        if len(tc) < self._n_active:
            self.to_act = self._next[seat]
            return
        winner = ts[trick_winner_index(tc, self._trump)]
        self.tricks_won[winner] += 1
        pairs = _PAIRS
        self._tricks.append(t := (self._leader, plays := tuple([pairs[ts[i]][tc[i]] for i in range(len(tc))]), winner))
        _untrack(plays)  # noqa: F821 (bound through globals())
        _untrack(t)  # noqa: F821 (bound through globals())
        # The TRICK entry names no card: it says how far back the trick's lead is (its plays are the PLAY
        # entries from there; Game.log_entry derives the leader and cards), so one tuple serves every game.
        log = self._log
        j = len(log) - len(tc)
        if log[j] is not self._play_events[ts[0]][tc[0]]:   # entries between the plays (five-handed: the partner)
            m = len(tc)
            j = len(log)
            while m:
                j -= 1
                if log[j][0] is E_PLAY:
                    m -= 1
        back = len(log) - j
        log.append(_TRICK_EVENTS[winner][back] if back < 16 else _shared(e := (E_TRICK, winner, back, PUBLIC), e))
        self._trick_seats, self._trick_cards = [], []
        if len(self._tricks) == self._hand_size:
            self.to_act = None
            self._score_deal()
        else:
            self._leader = self.to_act = winner

    # --------------------------------------------------------------- scoring
    def _score_deal(self) -> None:
        c, lv, t = self.contract, self._level, self.table
        made, pts = self.rules.score(t.team_of, t.teams, t.hand_size, c.bidder, self._partner, lv.tricks, lv.points,
                                     lv.alone, self.tricks_won, ceded=self._ceded)
        self._finish_deal(c, self._ceded, made, _small(pts := tuple(pts), pts))

    def _finish_deal(self, contract: Contract | None, ceded: bool, made: bool, pts: tuple[int, ...]) -> None:
        for i, p in enumerate(pts):
            self.scores[i] += p
        summary = (len(self.decks_dealt), self.dealer, contract, ceded, self._partner, _small(t := tuple(self.tricks_won), t), pts,
                   tuple(self.scores), made if contract is not None else None, self._sitting_out, self._dealt_widow)
        # The log's DEAL_END entry names the deal; Game.deals holds its result, linked to its story in the log
        # (Game.log_entry puts the two together: one result per deal, and no reference cycle).
        self._log.append(_shared(e := (E_DEAL_END, None, len(self.decks_dealt), PUBLIC), e))
        self.deals.append(_made(DealResult, _RESULT_FIELDS, summary, (self._log, self._deal_start, None)))
        self._legal = None
        winners = None
        if contract is not None:
            winners = self.rules.winners(self.scores, self.target_score, self.table.team_of[contract.bidder])
        reason = "target"
        if winners is None and len(self.deals) >= self.deal_cap:
            # [R] The deal cap: the leader wins, a tie is a draw.
            top = max(self.scores)
            leaders = tuple([i for i, s in enumerate(self.scores) if s == top])
            winners, reason = (leaders if len(leaders) == 1 else ()), "deal-cap"
        if winners is None:
            if not self.hold_finished_deal:
                return self._start_deal()
            self._held = True   # held for inspection until next_deal()
            self._legal = []
            self.to_act = None
            return
        seats = tuple([s for s in range(self.players) if self.table.team_of[s] in winners])
        self.outcome = Outcome(winners, seats, tuple(self.scores), len(self.deals), reason)
        self._enter(P_GAME_OVER, None)
        self._log.append((E_GAME_OVER, None, self.outcome, PUBLIC))

    # ------------------------------------------------------------------ views
    @property
    def events(self) -> list[Event]:
        """Every event so far, with its visibility (for spectators and the referee)."""
        return [self._event(i, None) for i in range(len(self._log))]

    def events_for(self, seat: int, start: int = 0) -> list[tuple[int, Event]]:
        """(index, event) pairs from ``start`` that ``seat`` may see (a deal's result as that seat saw it)."""
        log = self._log
        return [(i, self._event(i, seat)) for i in range(start, len(log)) if log[i][3] in (PUBLIC, seat)]

    def event_at(self, index: int) -> Event:
        """The event at ``index`` of the log, as spectators see it (``events[index]``, without building the rest)."""
        return self._event(index, None)

    def _event(self, i: int, seat: int | None) -> Event:
        """The :class:`Event` of log entry ``i``; a deal's end carries its whole story (as ``seat`` saw it)."""
        e = self._log[i]
        k = e[0]
        if k is E_DEAL_END:
            story = self.deals[e[2] - 1]
            return Event(k, e[1], story if seat is None else story.seen_by(seat), e[3])
        if k is E_TRICK or k is E_HAND:
            return Event._make(self.log_entry(i))
        return Event._make(e)

    def log_entry(self, index: int) -> tuple:
        """Entry ``index`` of :attr:`event_log` as ``(kind, seat, data, visible_to)`` with its data filled in.

        The log keeps three kinds compact, each derived here from what the game keeps anyway: a TRICK entry's
        data is how far back its lead is (the trick's cards are the PLAY entries from there), a HAND entry's how
        far back its deal's DEAL entry is (the seat's cards are the dealt deck's), a DEAL_END entry's the deal
        number (the result is :attr:`deals`'). Every other entry is returned as it is.
        """
        log = self._log
        if index < 0:
            index += len(log)
        e = log[index]
        k = e[0]
        if k is E_TRICK:
            j = index - e[2]    # the lead's PLAY entry
            return (k, e[1], (log[j][1], tuple([x[2] for x in log[j:index] if x[0] is E_PLAY])), e[3])
        if k is E_HAND:
            deal = log[index - e[2]]    # (DEAL, dealer, deal number, PUBLIC)
            return (k, e[1], self.rules.dealt_hand(self.table, self.decks_dealt[deal[2] - 1], deal[1], e[1]), e[3])
        if k is E_DEAL_END:
            return (k, e[1], self.deals[e[2] - 1], e[3])
        return e

    @property
    def event_count(self) -> int:
        return len(self._log)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now: its own cards and the public record, nothing more (:mod:`.views`)."""
        return seat_view(self, seat)

    def view_state(self, seat: int) -> tuple:
        """The live values behind :meth:`view` for ``seat``, uncopied, for fast encoders (referee.wire).

        ``(deal, dealer, phase, to_act, hand, bids, contract, partner_card, partner,
        sitting_out, leader, trick_seats, trick_cards, tricks, tricks_won, scores, private)``
        with cards, actions and bids as ids (``hand`` unsorted, ``bids`` as
        (seat, action id), ``private`` as name -> card ids). Exactly what
        :meth:`view` shows and nothing more; :func:`.views.seat_view` stays the reference.
        The lists are the engine's own: read them, never mutate or keep them.
        """
        # A method (not a function in .views) so that the compiled engine reads its C slots.
        if not 0 <= seat < self.players:   # hands[-1] would be another seat's hand
            raise ValueError(f"no seat {seat} at a {self.players}-player table")
        return (len(self.decks_dealt), self.dealer, self.phase, self.to_act, self.hands[seat], self._bids,
                self.contract, self._partner_card, self._partner, self._sitting_out, self._leader,
                self._trick_seats, self._trick_cards, self._tricks, self.tricks_won, self.scores, self._private[seat])

    def full_state(self) -> dict:
        """Everything, hidden cards included: for spectators once the game is over, and for tests."""
        return full_state(self)

    @property
    def event_log(self) -> list[tuple]:
        """The raw event log, ``(kind, seat, data, visible_to)`` tuples, uncopied (read-only; see :meth:`events_for`).
        TRICK, HAND and DEAL_END entries are compact: :meth:`log_entry` fills in their data."""
        return self._log

    # ---------------------------------------------------------------- records
    def record(self) -> dict:
        """A JSON-ready record that replays to this exact game (:mod:`.records`)."""
        return game_record(self)

    def to_json(self, **kw) -> str:
        return json.dumps(self.record(), **kw)

    @classmethod
    def from_record(cls, rec: dict, *, verify: bool = True) -> Game:
        """Replay a record exactly (:func:`.records.replay_record`: :class:`RecordError` for a malformed record,
        :class:`ActionError` with ``.index`` at the first refused action, :class:`ReplayMismatchError` if
        ``verify`` and the outcome differs)."""
        return replay_record(cls, rec, verify=verify)

    def copy(self) -> Game:
        """An independent copy (for search bots): containers copied, immutable values shared.

        Derived from the state itself rather than listed: every list and dict
        attribute is copied (with the lists and dicts inside it), so a new
        piece of state is copied without anyone remembering to.
        """
        g = type(self).__new__(type(self))
        restore(g, {k: copied(v) for k, v in state_of(self).items()})
        g._rng = copied_rng(self._rng)
        return g

    # Pickling (OpenSpiel's serialization, multiprocessing) leaves out the dispatch tables and bid tables,
    # which hold functions and read-only mappings, and derives them again from the ruleset.
    _DERIVED = ("_legal_of", "_apply_of", "_plays_follow_suit", "_bids_from", "_rung_of", "_play_events")

    def __getstate__(self) -> dict:
        return {k: v for k, v in state_of(self).items() if k not in self._DERIVED}

    def __setstate__(self, state: dict) -> None:
        restore(self, state)
        self._derive()

    def __deepcopy__(self, memo) -> Game:
        # copy.deepcopy (OpenSpiel's state cloning, for one) means copy(): the shared values are immutable,
        # and some (the bid tables' read-only mappings) cannot be pickled, which deepcopy would try.
        g = memo[id(self)] = self.copy()
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
            g.start_scores = tuple(scores)
        g._level, g._high_bidder = lv, bidder
        g.contract = Contract(bidder, lv.name, Strain(trump), lv.alone, lv.tricks)
        g._trump = trump
        g._legal = None
        g.start_play()
        for s, c in plays:
            if g.to_act != s:
                raise IllegalActionError(f"seat {s} played out of turn (seat {g.to_act} was to play)",
                                         phase=g.phase, seat=g.to_act, action=ACTIONS[c])
            g.apply(c)
        return g

    def __repr__(self) -> str:
        return (f"<Game {self.ruleset.name} {self.players}p deal {self.deal_number} phase {self.phase} "
                f"to_act {self.to_act} scores {self.scores}>")


_TRUMP_IDS = [A.TRUMP_BASE + s for s in range(5)]
_EXCHANGE_IDS = [A.EXCHANGE_YES, A.EXCHANGE_NO]
_CEDE_IDS = [A.CEDE_NO, A.CEDE_YES]


_COMMON_LEGAL = {
    Phase.BID: Game._legal_bid, Phase.NAME_TRUMP: Game._legal_name_trump, Phase.EXCHANGE: Game._legal_exchange,
    Phase.DISCARD: Game._legal_discard, Phase.CEDE: Game._legal_cede, Phase.GAME_OVER: lambda g: [],
}
_COMMON_APPLY = {
    Phase.BID: Game._apply_bid, Phase.NAME_TRUMP: Game._apply_name_trump, Phase.DISCARD: Game._apply_discard,
    Phase.CEDE: Game._apply_cede, Phase.PLAY: vars(Game)["_apply_play"],   # (compiled, Game._apply_play is the C method)
}
#: Per family: phase -> legal(game) and phase -> apply(game, action id); where families differ, the family's hook.


def _by_phase(handlers: dict) -> tuple:
    # Indexed by the phase's value: a tuple lookup on the hot path, and shared (not copied) by Game.copy().
    return tuple(handlers.get(p) for p in range(max(Phase) + 1))


#: Game.follow_suit as the class holds it (compiled, Game.follow_suit in this module would be the C method).
_FOLLOW_SUIT = vars(Game)["follow_suit"]


def _legal_play(r: Rules):
    # A family that keeps the common rule gets Game.follow_suit itself: the same list, one call fewer a card
    # (and Game.legal_action_ids calls it directly, _plays_follow_suit).
    return _FOLLOW_SUIT if type(r).legal_play is Rules.legal_play else r.legal_play


_DISPATCH: dict[Rules, tuple[tuple, tuple]] = {}


def _dispatch(r: Rules) -> tuple[tuple, tuple]:
    """A family's (phase -> legal, phase -> apply) tables, made once per registered family."""
    got = _DISPATCH.get(r)
    if got is None:
        got = _DISPATCH[r] = (_by_phase({**_COMMON_LEGAL, Phase.GIVE_CARD: r.legal_give, Phase.PLAY: _legal_play(r)}),
                              _by_phase({**_COMMON_APPLY, Phase.EXCHANGE: r.apply_exchange, Phase.GIVE_CARD: r.apply_give}))
    return got
