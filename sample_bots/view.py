"""Reading a seat's view dict into card ids and the facts the bots reason about."""

from __future__ import annotations

from dataclasses import dataclass

from referee.rules.cards import CARDS, EFFECTIVE_SUIT, NO_TRUMP, STRENGTH, TRICK_RANK, Card, Strain

# The canonical text of every card ("JH", "10S"): what views carry, looked up without parsing.
_CARD_ID = {str(c): int(c) for c in CARDS}


def cid(text: str) -> int:
    """A card's id from its text (any spelling Card.parse accepts)."""
    c = _CARD_ID.get(text)
    return c if c is not None else int(Card.parse(text))


def family_of(view: dict) -> str:
    """The ruleset family of a view ("iowa", ...): the rules that apply, whatever a variant is named."""
    return view.get("family") or view["ruleset"]


@dataclass
class Seen:
    """A parsed view. Card values are ints (see referee.rules.cards)."""

    view: dict
    seat: int
    players: int
    team_of: list[int]
    hand: list[int]
    trump: int | None            # None before trump is named
    bidder: int | None
    bid: str | None
    alone: bool
    trick: list[tuple[int, int]]
    tricks: list[tuple[int, list[tuple[int, int]], int]]
    played: list[int]            # every card played this deal, in order
    sitting_out: list[int]
    partner: int | None
    partner_card: int | None
    legal: list[str]

    @classmethod
    def of(cls, view: dict) -> Seen:
        c = view.get("contract")
        trump = None if not c or c.get("trump") in (None, "", "?") else int(Strain.parse(c["trump"]))
        tricks = [(ld, [(s, cid(x)) for s, x in plays], w) for ld, plays, w in view.get("tricks", [])]
        trick = [(s, cid(x)) for s, x in view.get("trick", [])]
        played = [x for _, plays, _ in tricks for _, x in plays] + [x for _, x in trick]
        pc = view.get("partner_card")
        return cls(
            view=view, seat=view["seat"], players=view["players"], team_of=list(view["team_of"]),
            hand=[cid(x) for x in view["hand"]], trump=trump,
            bidder=c["bidder"] if c else None, bid=c["bid"] if c else None, alone=bool(c and c.get("alone")),
            trick=trick, tricks=tricks, played=played, sitting_out=list(view.get("sitting_out", [])),
            partner=view.get("partner"), partner_card=None if pc in (None, "") else cid(pc),
            legal=list(view["legal_actions"]),
        )

    @property
    def strain(self) -> int:
        return NO_TRUMP if self.trump is None else self.trump

    def teammates(self) -> set[int]:
        """Seats on my side this deal (five-handed: the bidder and the called partner)."""
        if len(set(self.team_of)) == self.players:  # individual scoring: sides form per deal
            if self.bidder is None:
                return {self.seat}
            side = {self.bidder} | ({self.partner} if self.partner is not None else set())
            if self.partner is None and self.partner_card is not None and self.partner_card in self.hand:
                side.add(self.seat)  # I hold the called card: I am the (secret) partner
            return side if self.seat in side else {self.seat}
        return {s for s in range(self.players) if self.team_of[s] == self.team_of[self.seat]}

    def trick_winner(self) -> tuple[int, int] | None:
        """(seat, card) currently winning the trick."""
        if not self.trick:
            return None
        table = TRICK_RANK[self.strain][EFFECTIVE_SUIT[self.strain][self.trick[0][1]]]
        best = self.trick[0]
        for s, c in self.trick[1:]:
            if table[c] > table[best[1]]:
                best = (s, c)
        return best

    def beats(self, card: int, other: int) -> bool:
        """Would ``card``, played now, beat ``other`` (already in the trick)?"""
        table = TRICK_RANK[self.strain][EFFECTIVE_SUIT[self.strain][self.trick[0][1]]]
        return table[card] > table[other]

    def eff(self, card: int) -> int:
        return EFFECTIVE_SUIT[self.strain][card]

    def strength(self, card: int) -> int:
        """Overall power: trumps above everything, then rank in suit."""
        s = self.strain
        return (16 if EFFECTIVE_SUIT[s][card] == s else 0) + STRENGTH[s][card]
