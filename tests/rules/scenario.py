"""Helpers for golden-scenario tests: explicit decks, scripted actions and tricks.

The layout follows the spec (docs/rules.md, "Common rules"): the dealer deals one card at
a time clockwise starting left of the dealer, so with R receivers seat
``(dealer + 1 + i) % n`` gets ``deck[i::R]``. Five-handed puts one card into
the widow after every third round; the 2-player pepper-30 dead hand is dealt as
a third receiver after the dealer.

Only the public API of :mod:`referee.rules` is used.
"""

from __future__ import annotations

from collections import Counter

from referee.rules import CARDS, Card, Game, Ruleset, get_ruleset

__all__ = ["cards", "build_deck", "new_game", "act", "play_tricks", "trick_winners", "rot", "events_of", "seat_events"]


def cards(spec) -> list[str]:
    """Normalise ``"AS 10h jd"`` (or a list) to canonical card texts."""
    items = spec.split() if isinstance(spec, str) else list(spec)
    return [str(Card.parse(x)) for x in items]


def _table(ruleset, players):
    rs = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset)
    return rs.table(players)


def build_deck(ruleset, players: int, dealer: int, hands: dict, widow=(), dead=()) -> list[str]:
    """An explicit deck order so that ``hands[seat]`` (partial hands allowed) reach those seats.

    Cards not named are filled in deterministically from what is left of the
    deck (seats in order, then the widow, then the dead hand).
    """
    t = _table(ruleset, players)
    n = players
    pool = Counter(str(CARDS[c]) for c in t.deck)
    want = {s: cards(h) for s, h in hands.items()}
    widow, dead = cards(widow), cards(dead)
    for group in list(want.values()) + [widow, dead]:
        for c in group:
            if pool[c] <= 0:
                raise AssertionError(f"scenario uses {c} more often than the deck holds it")
            pool[c] -= 1
    # Deterministic filler: deck order, each card as many times as still unused.
    filler = []
    left = Counter(pool)
    for c in (str(CARDS[x]) for x in t.deck):
        if left[c] > 0:
            filler.append(c)
            left[c] -= 1
    filler.reverse()

    def fill(lst, size):
        lst = list(lst)
        if len(lst) > size:
            raise AssertionError(f"too many cards: {lst}")
        while len(lst) < size:
            lst.append(filler.pop())
        return lst

    full = {s: fill(want.get(s, []), t.hand_size) for s in range(n)}
    widow = fill(widow, t.widow_size)
    dead = fill(dead, t.hand_size if t.dead_hand else 0)
    assert not filler
    receivers = [full[(dealer + 1 + i) % n] for i in range(n)] + ([dead] if t.dead_hand else [])
    deck: list[str] = []
    if t.widow_size:
        per = t.hand_size // t.widow_size
        w = iter(widow)
        for rnd in range(t.hand_size):
            for h in receivers:
                deck.append(h[rnd])
            if rnd % per == per - 1:
                deck.append(next(w))
    else:
        for rnd in range(t.hand_size):
            for h in receivers:
                deck.append(h[rnd])
    return deck


def new_game(ruleset, players: int, dealer: int, *deals: dict, check: bool = True) -> Game:
    """A game whose k-th deal gives ``deals[k]`` (keys: hands, widow, dead); dealer of deal k is dealer + k."""
    decks = [build_deck(ruleset, players, (dealer + k) % players, d.get("hands", {}), d.get("widow", ()), d.get("dead", ()))
             for k, d in enumerate(deals)]
    g = Game(ruleset, players, decks=decks, first_dealer=dealer)
    if check and deals:
        for s, h in deals[0].get("hands", {}).items():
            held = Counter(str(c) for c in g.view(s).hand)
            assert not Counter(cards(h)) - held, f"seat {s} was not dealt {h}"
    return g


def act(g: Game, *steps: str) -> None:
    """Apply actions by text. ``"2: bid 3"`` also asserts that seat 2 is to act."""
    for step in steps:
        if ":" in step:
            seat, text = step.split(":", 1)
            assert g.to_act == int(seat), f"expected seat {seat} to act for {text.strip()!r}, got {g.to_act} ({g!r})"
            step = text
        g.apply(step.strip())


def trick_winners(g: Game) -> list[int]:
    """Winners of the tricks played so far in the current deal (public record)."""
    return [w for _, _, w in g.view(0).tricks]


def play_tricks(g: Game, spec: str) -> list[int]:
    """Play whole tricks: ``"AS 9S 9D JC / KS 10S 10D QC"`` (cards in playing order).

    Returns the winners of the tricks just played (each trick as the engine
    recorded it, checked to hold exactly the cards given).
    """
    winners = []
    for chunk in spec.split("/"):
        played = cards(chunk)
        before = len(g.deals)
        start = len(g.view(0).tricks) if len(g.deals) == before else None
        for c in played:
            g.apply(f"play {c}")
        if len(g.deals) > before:
            # The deal just ended: its last trick is in the events.
            last = [e for e in g.events if e.kind == "trick"][-1]
            _, tc = last.data
            assert [str(CARDS[x]) for x in tc] == played
            winners.append(last.seat)
        else:
            tr = g.view(0).tricks
            assert len(tr) == start + 1, "a trick chunk did not complete exactly one trick"
            assert [str(c) for _, c in tr[-1][1]] == played
            winners.append(tr[-1][2])
    return winners


def rot(hands: dict, k: int, n: int) -> dict:
    """The same hands moved k seats to the left (seat s's hand goes to seat s + k)."""
    return {(s + k) % n: h for s, h in hands.items()}


def events_of(g: Game, kind: str) -> list:
    return [e for e in g.events if e.kind == kind]


def seat_events(g: Game, seat: int) -> list:
    return [e for _, e in g.events_for(seat)]


# ---------------------------------------------------------------------------
# Reusable 24-card deals for 4 players (iowa, pepper-30), written from the spec.
# Seat 0 is the bidder (dealer 3, so seat 0 also bids first); team A = 0 and 2.

# No-trump: seat 0 has three top spades and two top hearts, seat 2 (partner)
# holds all the diamonds, which nobody else can lead, seat 3 the clubs.
SPLIT = {0: "AS KS QS AH KH 9C", 1: "JS 10S 9S JH 10H 9H", 2: "AD KD QD JD 10D 9D", 3: "AC KC QC JC 10C QH"}
# Team A takes 4 (seat 0: AS, KS, QS, AH), team B 2 (seat 3 wins the 9C lead, then its AC).
SPLIT_4_2 = "AS 9S 9D JC / KS 10S 10D QC / QS JS JD QH / AH 9H QD 10C / 9C 10H KD KC / AC KH JH AD"
SPLIT_4_2_WINNERS = [0, 0, 0, 0, 3, 3]
# Same deal, seat 0 gives up the lead early: 3 tricks each.
SPLIT_3_3 = "AS 9S 9D JC / KS 10S 10D QC / QS JS JD QH / 9C 9H QD 10C / AC KH 10H KD / KC AH JH AD"
SPLIT_3_3_WINNERS = [0, 0, 0, 3, 3, 3]

# No-trump: seat 0 holds every spade and wins every trick however it is played.
ALL6 = {0: "AS KS QS JS 10S 9S", 1: "AH KH QH JH 10H 9H", 2: "AD KD QD JD 10D 9D", 3: "AC KC QC JC 10C 9C"}
ALL6_PLAY = "AS AH AD AC / KS KH KD KC / QS QH QD QC / JS JH JD JC / 10S 10H 10D 10C / 9S 9H 9D 9C"
ALL6_ALONE = "AS AH AC / KS KH KC / QS QH QC / JS JH JC / 10S 10H 10C / 9S 9H 9C"   # seat 2 sits out

# No-trump: seat 0 runs five spades, then its 9H loses to seat 1's AH: 5 tricks to 1.
FIVE_ONE = {0: "AS KS QS JS 10S 9H", 1: "9S AH KH QH JH 10H", 2: "AD KD QD JD 10D 9D", 3: "AC KC QC JC 10C 9C"}
FIVE_ONE_ALONE = "AS 9S 9C / KS 10H 10C / QS JH JC / JS QH QC / 10S KH KC / 9H AH AC"   # seat 2 sits out
FIVE_ONE_PLAY = "AS 9S 9D 9C / KS 10H 10D 10C / QS JH JD JC / JS QH QD QC / 10S KH KD KC / 9H AH AD AC"
