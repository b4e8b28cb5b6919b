"""Decks that deal chosen cards to chosen seats, so a check can force a hand (six top trumps, duplicates...)."""

from __future__ import annotations

import random
from collections.abc import Iterable


def make_deck(base: str, players: int, dealer: int, fixed: dict[int, list[str]], widow: Iterable[str] = (),
              dead: Iterable[str] = (), seed: int = 0) -> list[str]:
    """A deck order that deals ``fixed[seat]`` (cards as text) to those seats, ``widow`` to the
    five-handed widow and ``dead`` to the 2-player dead hand; the other cards are shuffled from ``seed``.
    The result is checked by dealing it with the rules engine."""
    from referee.rules import CARDS, Game, get_ruleset

    t = get_ruleset(base).table(players)
    pool = [str(CARDS[c]) for c in t.deck]
    for c in [c for cs in fixed.values() for c in cs] + list(widow) + list(dead):
        pool.remove(c)   # ValueError: the deck has no (more) such card
    random.Random(seed).shuffle(pool)
    hands = {s: list(fixed.get(s, [])) for s in range(players)}
    for s in range(players):
        while len(hands[s]) < t.hand_size:
            hands[s].append(pool.pop())
    widow = list(widow) + [pool.pop() for _ in range(t.widow_size - len(widow))]
    dead = list(dead) + (pool if t.dead_hand else [])
    receivers = [(dealer + 1 + i) % players for i in range(players)] + (["dead"] if t.dead_hand else [])
    if t.widow_size:
        per = t.hand_size // t.widow_size
        order = []
        for rnd in range(t.hand_size):
            order += receivers
            if rnd % per == per - 1:
                order.append("widow")
    else:
        order = [receivers[p % len(receivers)] for p in range(len(t.deck))]
    src = {s: iter(h) for s, h in hands.items()} | {"widow": iter(widow), "dead": iter(dead)}
    deck = [next(src[slot]) for slot in order]
    g = Game(base, players, decks=[deck], first_dealer=dealer)
    st = g.full_state()
    assert all(sorted(st["hands"][s]) == sorted(hands[s]) for s in range(players)), "make_deck: hands differ"
    assert sorted(st["widow"]) == sorted(widow if t.widow_size else []), "make_deck: widow differs"
    assert sorted(st["dead_hand"]) == sorted(dead), "make_deck: dead hand differs"
    return deck
