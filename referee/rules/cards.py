"""Cards, strains and the two functions that carry all card semantics.

A card is a small integer ``suit * 6 + rank`` (24 distinct cards); decks with
several copies of a card simply hold the same integer more than once.
:class:`Card` is an ``int`` subclass so cards index the precomputed tables
directly, while still parsing and formatting symmetrically::

    >>> Card.parse("JH"), str(Card.parse("10S"))
    (Card('JH'), '10S')

Every rule about what a card *means* goes through exactly two functions,
:func:`effective_suit` and :func:`card_strength`. The tables below are built
from them once at import time so the hot path is a list lookup.
"""

from __future__ import annotations

from enum import IntEnum

from .errors import NotationError

__all__ = [
    "Suit", "Strain", "Rank", "Card", "CARDS", "NO_TRUMP",
    "effective_suit", "card_strength", "trick_winner_index", "legal_plays",
    "EFFECTIVE_SUIT", "STRENGTH", "TRICK_RANK", "SAME_COLOUR", "make_deck",
]


class Suit(IntEnum):
    """The four suits. Spades and clubs are black, hearts and diamonds red."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def symbol(self) -> str:
        return "SHDC"[self]

    @property
    def same_colour(self) -> Suit:
        """The other suit of this suit's colour (home of the left bower)."""
        return Suit(SAME_COLOUR[self])


#: SAME_COLOUR[suit]: the other suit of its colour, S <-> C (black) and H <-> D (red); the one place colours pair.
SAME_COLOUR = (3, 2, 1, 0)


class Strain(IntEnum):
    """What a contract is played in: a trump suit or no-trump."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3
    NO_TRUMP = 4

    def __str__(self) -> str:
        return STRAIN_SYMBOLS[self]

    @classmethod
    def parse(cls, text: str) -> Strain:
        """Parse ``"S"``, ``"h"``, ``"NT"``; anything else raises :class:`NotationError`."""
        try:
            return cls(STRAIN_SYMBOLS.index(text.strip().upper()))
        except (ValueError, AttributeError):
            raise NotationError(
                f"unknown strain {text!r}: expected one of {', '.join(STRAIN_SYMBOLS)}", text=text
            ) from None


STRAIN_SYMBOLS = ("S", "H", "D", "C", "NT")
NO_TRUMP = int(Strain.NO_TRUMP)


class Rank(IntEnum):
    """Printed ranks, in their plain (no-trump) order, low to high."""

    NINE = 0
    TEN = 1
    JACK = 2
    QUEEN = 3
    KING = 4
    ACE = 5

    def __str__(self) -> str:
        return RANK_SYMBOLS[self]


RANK_SYMBOLS = ("9", "10", "J", "Q", "K", "A")
_RANK_PARSE = {s: i for i, s in enumerate(RANK_SYMBOLS)} | {"T": 1}


class Card(int):
    """One card. Interned: ``Card("JH")`` (= :meth:`parse`), ``Card(8)`` (= ``CARDS[8]``) or :meth:`of`.

    ``repr(card)`` is ``Card('JH')``, which evaluates back to the card.
    """

    __slots__ = ()

    def __new__(cls, value: str | int) -> Card:
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 24:
            return CARDS[value]
        raise NotationError(f"not a card: {value!r} (expected a card text such as 'JH', or an id 0..23)", text=value)

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        return CARDS[suit * 6 + rank]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"JH"``, ``"10S"``, ``"9d"`` (``T`` is accepted for ten)."""
        t = text.strip().upper() if isinstance(text, str) else ""
        rank = _RANK_PARSE.get(t[:-1])
        suit = "SHDC".find(t[-1:]) if t else -1
        if rank is None or suit < 0:
            raise NotationError(
                f"not a card: {text!r} (expected rank 9 10 J Q K A then suit S H D C, e.g. 'JH', '10S')", text=text
            )
        return CARDS[suit * 6 + rank]

    @property
    def rank(self) -> Rank:
        return Rank(self % 6)

    @property
    def suit(self) -> Suit:
        return Suit(self // 6)

    def __str__(self) -> str:
        return _CARD_TEXT[self]

    def __repr__(self) -> str:
        return f"Card({_CARD_TEXT[self]!r})"

    def __format__(self, spec: str) -> str:
        return format(_CARD_TEXT[self], spec)


_CARD_TEXT = [RANK_SYMBOLS[i % 6] + "SHDC"[i // 6] for i in range(24)]
CARDS: list[Card] = [int.__new__(Card, i) for i in range(24)]


def effective_suit(card: int, trump: int) -> int:
    """The suit a card belongs to under ``trump`` (a :class:`Strain`).

    The left bower (the other Jack of the trump colour) is a trump, not a card
    of its printed suit: it follows trump, cannot follow its printed suit, and
    wins as a trump. In no-trump every card keeps its printed suit.
    """
    suit, rank = divmod(card, 6)
    if trump != NO_TRUMP and rank == Rank.JACK and suit in (trump, SAME_COLOUR[trump]):
        return trump
    return suit


def card_strength(card: int, trump: int) -> int:
    """Rank of a card within its effective suit (higher beats lower).

    Plain order 9 < 10 < J < Q < K < A. In the trump suit the Jacks are
    promoted: ... Q(3) < K(4) < A(5) < left bower(6) < right bower(7).
    """
    suit, rank = divmod(card, 6)
    if trump != NO_TRUMP and rank == Rank.JACK:
        if suit == trump:
            return 7  # right bower
        if suit == SAME_COLOUR[trump]:
            return 6  # left bower ("Jick")
    return rank


# Precomputed tables, indexed [trump][card] (trump 0..4 where 4 is no-trump).
EFFECTIVE_SUIT = [[effective_suit(c, t) for c in range(24)] for t in range(5)]
STRENGTH = [[card_strength(c, t) for c in range(24)] for t in range(5)]


def _trick_rank(card: int, trump: int, led: int) -> int:
    # Trumps beat the suit led, which beats everything else (worth 0: it can
    # never win). Only the order matters.
    suit = EFFECTIVE_SUIT[trump][card]
    if suit == trump:
        return 16 + STRENGTH[trump][card]
    if suit == led:
        return 8 + STRENGTH[trump][card]
    return 0


# TRICK_RANK[trump][led_suit][card]
TRICK_RANK = [[[_trick_rank(c, t, led) for c in range(24)] for led in range(4)] for t in range(5)]


def trick_winner_index(cards: list[int] | tuple[int, ...], trump: int) -> int:
    """Index of the winning card in a trick, given in playing order.

    Of identical cards the one played first ranks higher, hence the strict
    comparison: a later copy never displaces an earlier one.
    """
    table = TRICK_RANK[trump][EFFECTIVE_SUIT[trump][cards[0]]]
    best, best_rank = 0, table[cards[0]]
    for i in range(1, len(cards)):
        r = table[cards[i]]
        if r > best_rank:
            best, best_rank = i, r
    return best


def legal_plays(hand: list[int], led_card: int | None, trump: int) -> list[int]:
    """Cards of ``hand`` that may be played: follow the effective suit led when able.

    ``led_card`` is the first card of the trick, or None when leading. A hand
    holding only the left bower of the led *printed* suit cannot follow it with
    that card (the bower is a trump), and must follow trump with it.
    """
    if led_card is None:
        return list(hand)
    eff = EFFECTIVE_SUIT[trump]
    led = eff[led_card]
    legal = []
    for c in hand:   # a loop rather than a comprehension: compiled, cards.pxd types c and led as C ints
        if eff[c] == led:
            legal.append(c)
    return legal or list(hand)


def make_deck(ranks: tuple[int, ...], copies: int) -> list[int]:
    """A fresh, ordered deck of ``copies`` sets of the given ranks in all suits."""
    return [s * 6 + r for _ in range(copies) for s in range(4) for r in ranks]


def sort_key(card: int) -> tuple[int, int]:
    """Display order: by suit (S H D C), then by rank high to low."""
    return (card // 6, -(card % 6))
