"""Sampling the deals a seat cannot tell apart (for IS-MCTS and the arena entrant).

A seat knows its own dealt hand, every public action, and its own secrets
(cards it gave, received, discarded, the widow it took). :func:`sample_deal`
draws a deck of the current deal that agrees with all of that: the seat's hand
stays where it was dealt, every card another seat has played is put in that
seat's hand, the rest is shuffled; actions the seat did not see (another
seat's give or discard) are replaced by a random legal one of the same kind.
A draw that the replay refuses (a play the sampled hands cannot make) is drawn
again, up to ``tries`` times.
"""

from __future__ import annotations

import random
from collections import Counter

from referee.rules import ActionKind, EventKind, Game, Phase, RulesError, Table
from referee.rules.actions import ACTIONS, GIVE_NONE

__all__ = ["WIDOW", "DEAD", "deal_facts", "deal_receivers", "hidden_to", "sample_deal"]

WIDOW, DEAD = -1, -2


def deal_receivers(table: Table, dealer: int) -> list[int]:
    """Who receives each position of a deck: a seat, :data:`WIDOW` or :data:`DEAD` (docs/rules.md, the deal).

    One card at a time clockwise from the dealer's left; the 2-player dead hand
    is a third receiver after the dealer; five-handed puts one card in the widow
    after every third round. (tests/pepper_spiel check this against the engine.)
    """
    n = table.players
    receivers = [(dealer + 1 + i) % n for i in range(n)] + ([DEAD] if table.dead_hand else [])
    if not table.widow_size:
        return [receivers[i % len(receivers)] for i in range(len(table.deck))]
    out, per = [], table.hand_size // table.widow_size
    for rnd in range(table.hand_size):
        out += receivers
        if rnd % per == per - 1:
            out.append(WIDOW)
    return out


def hidden_to(seat: int, actor: int, action: int, received: list[int]) -> bool:
    """Whether ``seat`` cannot know ``action`` of ``actor`` (the card of another seat's give or discard)."""
    a = ACTIONS[action]
    if actor == seat or a.kind not in (ActionKind.GIVE, ActionKind.DISCARD) or action == GIVE_NONE:
        return False
    return not (a.kind == ActionKind.GIVE and a.card in received)   # a card given to this seat is seen


def sample_deal(table: Table, make_game, seat: int, dealer: int, hand: list[int], actions: list[int | None],
                played: dict[int, list[int]], gave: list[int], received: list[int], rng: random.Random, tries: int = 100) -> Game | None:
    """A game of the current deal that ``seat`` cannot tell from the real one, or None after ``tries`` draws.

    ``make_game(deck)`` returns the engine game at the start of the deal dealt from ``deck``; ``hand`` is
    the seat's dealt hand; ``actions`` the deal's actions so far, None where the seat did not see which
    (another seat's give or discard); ``played`` the cards each seat has played this deal; ``gave`` the
    cards ``seat`` gave (the receiver may have played them) and ``received`` the cards it was given.
    """
    receivers = deal_receivers(table, dealer)
    for _ in range(tries):
        pool = Counter(table.deck)
        pool.subtract(hand)
        fixed: dict[int, list[int]] = {seat: list(hand)}
        ok = True
        for s, cards in played.items():
            if s == seat:
                continue
            need = Counter(cards)
            need.subtract(gave)
            need = +need
            if any(pool[c] < k for c, k in need.items()):
                ok = False
                break
            pool.subtract(need)
            fixed[s] = list(need.elements())
        if not ok:
            continue
        rest = list(pool.elements())
        rng.shuffle(rest)
        deck, cursor = [], {s: 0 for s in fixed}
        for r in receivers:
            mine = fixed.get(r)
            if mine is not None and cursor[r] < len(mine):
                deck.append(mine[cursor[r]])
                cursor[r] += 1
            else:
                deck.append(rest.pop())
        if any(cursor[s] < len(cards) for s, cards in fixed.items()):
            continue   # more cards played than a hand holds: a card came from a hidden give
        g = make_game(deck)
        try:
            for a in actions:
                if a is None or hidden_to(seat, g.to_act, a, received):
                    legal = [x for x in g.legal_action_ids() if x != GIVE_NONE] if g.phase == Phase.GIVE_CARD \
                        else g.legal_action_ids()
                    a = rng.choice(legal)
                g.apply(a)
        except RulesError:
            continue
        return g
    return None


def deal_facts(events: list[tuple], seat: int) -> tuple[list[int], dict[int, list[int]]]:
    """The seat's dealt hand and each seat's plays, from the seat's events of the current deal (kind, seat, data)."""
    hand: list[int] = []
    played: dict[int, list[int]] = {}
    for kind, who, data in events:
        if kind == EventKind.DEAL:
            hand, played = [], {}
        elif kind == EventKind.HAND and who == seat:
            hand = list(data)
        elif kind == EventKind.PLAY:
            played.setdefault(who, []).append(data)
    return hand, played
