"""Actions: every decision a seat can make, as small interned values.

Like :class:`~referee.rules.cards.Card`, an :class:`Action` is an ``int``
subclass with a fixed id space shared by every ruleset, so legal-action lists
are plain integer lists on the hot path and format/parse symmetrically::

    pass                 bid: pass
    bid 3                bid: three tricks (strain named later)
    bid 4 H              bid: four tricks in hearts (bid-euchre names the strain)
    bid pepper NT        bid: a special bid, with strain where the ruleset needs one
    trump S | trump NT   name trump (or no-trump)
    exchange yes|no      Pepper bidder: ask the partner for a card, or play as dealt
    give JH | give none  pass a card to the bidder (``none``: decline, bid-euchre)
    discard JH           discard one card face down
    cede yes|no          defender: cede the deal, or play it
    play JH              play a card to the trick
"""

from __future__ import annotations

from enum import Enum

from .cards import CARDS, STRAIN_SYMBOLS, Card, Strain
from .errors import NotationError

__all__ = ["Action", "ActionKind", "BID_NAMES", "ACTIONS"]


class ActionKind(Enum):
    PASS = "pass"
    BID = "bid"
    TRUMP = "trump"
    EXCHANGE = "exchange"
    GIVE = "give"
    DISCARD = "discard"
    CEDE = "cede"
    PLAY = "play"


# Every bid level any ruleset may use, low to high. A ruleset's ladder is a
# selection from these; the ladder, not this list, decides what outranks what.
BID_NAMES: tuple[str, ...] = tuple(str(i) for i in range(1, 14)) + (
    "pepper", "small-pepper", "big-pepper", "double-pepper", "moon-shot",
)
_NO_STRAIN = 5

# Id layout (stable: game records store text, but ids appear in hot loops).
PLAY_BASE = 0          # play c        -> c
DISCARD_BASE = 24      # discard c     -> 24 + c
GIVE_BASE = 48         # give c        -> 48 + c
GIVE_NONE = 72
TRUMP_BASE = 73        # trump s       -> 73 + s (s = 4: no-trump)
EXCHANGE_YES, EXCHANGE_NO = 78, 79
CEDE_YES, CEDE_NO = 80, 81
PASS = 82
BID_BASE = 83          # bid (level, strain) -> 83 + level * 6 + strain (5: none)
N_ACTIONS = BID_BASE + len(BID_NAMES) * 6


class Action(int):
    """One decision. Interned: ``Action("play JH")`` (= :meth:`parse`), ``Action(8)`` (= ``ACTIONS[8]``) or the
    constructors. ``repr(action)`` is ``Action('play JH')``, which evaluates back to the action."""

    __slots__ = ()

    def __new__(cls, value: str | int) -> Action:
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < N_ACTIONS:
            return ACTIONS[value]
        raise NotationError(f"not an action: {value!r} (expected an action text such as 'play JH', or an id)",
                            text=value)

    # -- constructors -------------------------------------------------------
    @staticmethod
    def play(card: int) -> Action:
        return ACTIONS[PLAY_BASE + card]

    @staticmethod
    def discard(card: int) -> Action:
        return ACTIONS[DISCARD_BASE + card]

    @staticmethod
    def give(card: int | None) -> Action:
        return ACTIONS[GIVE_NONE if card is None else GIVE_BASE + card]

    @staticmethod
    def trump(strain: int) -> Action:
        return ACTIONS[TRUMP_BASE + strain]

    @staticmethod
    def exchange(yes: bool) -> Action:
        return ACTIONS[EXCHANGE_YES if yes else EXCHANGE_NO]

    @staticmethod
    def cede(yes: bool) -> Action:
        return ACTIONS[CEDE_YES if yes else CEDE_NO]

    @staticmethod
    def pass_() -> Action:
        return ACTIONS[PASS]

    @staticmethod
    def bid(level: str, strain: int | None = None) -> Action:
        try:
            li = BID_NAMES.index(level)
        except ValueError:
            raise NotationError(f"unknown bid {level!r}: expected one of {', '.join(BID_NAMES)}", text=level) from None
        return ACTIONS[BID_BASE + li * 6 + (_NO_STRAIN if strain is None else strain)]

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the canonical text form (case-insensitive, extra spaces ignored); else :class:`NotationError`."""
        if not isinstance(text, str):
            raise NotationError(f"not an action: {text!r} (expected an action text such as 'play JH')", text=text)
        words = text.strip().lower().split()
        try:
            head, rest = words[0], words[1:]
            if head == "pass" and not rest:
                return ACTIONS[PASS]
            if head == "bid" and 1 <= len(rest) <= 2:
                strain = Strain.parse(rest[1]) if len(rest) == 2 else None
                return cls.bid(rest[0], strain)
            if len(rest) == 1:
                arg = rest[0]
                if head == "play":
                    return cls.play(Card.parse(arg))
                if head == "discard":
                    return cls.discard(Card.parse(arg))
                if head == "give":
                    return cls.give(None if arg == "none" else Card.parse(arg))
                if head == "trump":
                    return cls.trump(Strain.parse(arg))
                if head in ("exchange", "cede") and arg in ("yes", "no"):
                    return (cls.exchange if head == "exchange" else cls.cede)(arg == "yes")
        except (IndexError, ValueError) as e:
            detail = f": {e}" if str(e) else ""
            raise NotationError(f"not an action: {text!r}{detail}", text=text) from None
        raise NotationError(
            f"not an action: {text!r} (expected e.g. 'pass', 'bid 3', 'bid 4 H', 'trump NT', "
            "'exchange yes', 'give JH', 'give none', 'discard JH', 'cede no', 'play JH')", text=text
        )

    # -- accessors ----------------------------------------------------------
    @property
    def kind(self) -> ActionKind:
        return _KIND[self]

    @property
    def card(self) -> Card | None:
        """The card of a play, discard or give; None otherwise."""
        c = _CARD[self]
        return None if c is None else CARDS[c]

    @property
    def strain(self) -> Strain | None:
        """The strain of a trump action or of a bid that names one."""
        s = _STRAIN[self]
        return None if s is None else Strain(s)

    @property
    def bid_name(self) -> str | None:
        """The bid level (``"3"``, ``"pepper"``...) of a bid; None otherwise."""
        li = _BID_LEVEL[self]
        return None if li is None else BID_NAMES[li]

    @property
    def yes(self) -> bool | None:
        """For exchange and cede actions, the answer."""
        return _YES.get(int(self))

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Action({_TEXT[self]!r})"

    def __format__(self, spec: str) -> str:
        return format(_TEXT[self], spec)


def _build():
    text, kind, card, strain, level = [None] * N_ACTIONS, [None] * N_ACTIONS, [None] * N_ACTIONS, [None] * N_ACTIONS, [None] * N_ACTIONS
    for c in range(24):
        cs = str(CARDS[c])
        for base, k, word in ((PLAY_BASE, ActionKind.PLAY, "play"), (DISCARD_BASE, ActionKind.DISCARD, "discard"), (GIVE_BASE, ActionKind.GIVE, "give")):
            text[base + c], kind[base + c], card[base + c] = f"{word} {cs}", k, c
    text[GIVE_NONE], kind[GIVE_NONE] = "give none", ActionKind.GIVE
    for s in range(5):
        text[TRUMP_BASE + s], kind[TRUMP_BASE + s], strain[TRUMP_BASE + s] = f"trump {STRAIN_SYMBOLS[s]}", ActionKind.TRUMP, s
    for i, word in ((EXCHANGE_YES, "exchange yes"), (EXCHANGE_NO, "exchange no")):
        text[i], kind[i] = word, ActionKind.EXCHANGE
    for i, word in ((CEDE_YES, "cede yes"), (CEDE_NO, "cede no")):
        text[i], kind[i] = word, ActionKind.CEDE
    text[PASS], kind[PASS] = "pass", ActionKind.PASS
    for li, name in enumerate(BID_NAMES):
        for s in range(6):
            i = BID_BASE + li * 6 + s
            kind[i], level[i] = ActionKind.BID, li
            if s == _NO_STRAIN:
                text[i] = f"bid {name}"
            else:
                text[i], strain[i] = f"bid {name} {STRAIN_SYMBOLS[s]}", s
    return text, kind, card, strain, level


_TEXT, _KIND, _CARD, _STRAIN, _BID_LEVEL = _build()
_YES = {EXCHANGE_YES: True, EXCHANGE_NO: False, CEDE_YES: True, CEDE_NO: False}
ACTIONS: list[Action] = [int.__new__(Action, i) for i in range(N_ACTIONS)]


def bid_action_id(level_index: int, strain: int | None) -> int:
    return BID_BASE + level_index * 6 + (_NO_STRAIN if strain is None else strain)


def bid_parts(action_id: int) -> tuple[int, int | None]:
    """(global bid level index, strain or None) of a bid action id."""
    li, s = divmod(action_id - BID_BASE, 6)
    return li, (None if s == _NO_STRAIN else s)
