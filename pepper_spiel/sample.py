"""Sampling the deals a seat cannot tell apart (for IS-MCTS and the arena entrant).

A seat knows its own dealt hand, every public action, and its own secrets
(cards it gave, received, discarded, the widow it took). :func:`sample_deal`
draws a deck of the current deal that agrees with all of that: the seat's hand
stays where it was dealt, every card another seat has played (or given this
seat) is put in that seat's hand, the rest is shuffled; actions the seat did not see (another
seat's give or discard) are replaced by a random legal one of the same kind.
A seat that did not follow the suit led holds no card of that suit
(:func:`deal_voids`, by the engine's :func:`~referee.rules.effective_suit`):
the shuffled cards are dealt so that it gets none, and a seat that passed cards
unseen passes those first. A draw that the replay refuses (a play the sampled
hands cannot make) is drawn again, up to ``tries`` times.
"""

from __future__ import annotations

import random
from collections import Counter

from referee.rules import ActionKind, EventKind, Game, Phase, RulesError, Strain, Table, effective_suit
from referee.rules.actions import (
    ACTIONS,
    CEDE_NO,
    CEDE_YES,
    DISCARD_BASE,
    EXCHANGE_NO,
    EXCHANGE_YES,
    GIVE_BASE,
    GIVE_NONE,
    TRUMP_BASE,
)

__all__ = ["WIDOW", "DEAD", "deal_actions", "deal_facts", "deal_voids", "shown_events", "taken_widow", "deal_receivers",
           "hidden_to", "sample_deal"]

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
                played: dict[int, list[int]], gave: list[int], received: list[int], rng: random.Random, tries: int = 100,
                unseen: list[tuple[int, int]] = (), shown: list[tuple] = (), widow: list[int] = (),
                voids: tuple[dict[int, frozenset[int]], set[int]] = ({}, set())) -> Game | None:
    """A game of the current deal that ``seat`` cannot tell from the real one, or None after ``tries`` draws.

    ``make_game(deck)`` returns the engine game at the start of the deal dealt from ``deck``; ``hand`` is
    the seat's dealt hand; ``actions`` the deal's actions so far, None where the seat did not see which
    (another seat's give or discard); ``played`` the cards the seat knows each other seat was dealt
    (:func:`deal_facts`: those played, and those given to the seat); ``gave`` the
    cards ``seat`` gave (the receiver may have played them) and ``received`` the cards it was given;
    ``unseen`` the gives it did not see, (giver, receiver): the receiver may have played the card given;
    ``shown`` the deal's public events that depend on hidden cards (:func:`shown_events`): a draw must show
    the same (five-handed calls its partner card from what the other seats hold); ``widow`` the widow
    when the seat took it; ``voids`` (:func:`deal_voids`) the cards each seat cannot hold, and the seats that
    passed cards unseen (they may have been dealt such cards and passed them on).
    """
    receivers = deal_receivers(table, dealer)
    banned, passers = voids
    slots = Counter(receivers)
    for _ in range(tries):
        pool = Counter(table.deck)
        pool.subtract(hand)
        pool.subtract(widow)
        fixed: dict[int, list[int]] = {seat: list(hand), WIDOW: list(widow)}
        known = {s: list(cards) for s, cards in played.items() if s != seat}
        for giver, receiver in unseen:   # half the draws: one of the receiver's cards came from the giver
            if known.get(receiver) and rng.random() < 0.5:
                known.setdefault(giver, []).append(known[receiver].pop(rng.randrange(len(known[receiver]))))
        ok = True
        for s, cards in known.items():
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
        # A seat void in a suit is dealt none of it: the most constrained first, each from what is left.
        for s in sorted((s for s in banned if s not in passers and s != seat), key=lambda s: -len(banned[s])):
            room = slots[s] - len(fixed.get(s, ()))
            can = set([i for i, c in enumerate(rest) if c not in banned[s]][:max(room, 0)])
            if len(can) < room:
                ok = False
                break
            fixed[s] = fixed.get(s, []) + [rest[i] for i in sorted(can)]
            rest = [c for i, c in enumerate(rest) if i not in can]
        if not ok:
            continue
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
        to_play = {s: Counter(cards) for s, cards in played.items()}   # what each seat must still hold to play
        try:
            for a in actions:
                actor = g.to_act
                if a is None or hidden_to(seat, actor, a, received):
                    wants = {s: +(left - Counter(g.hands[s])) for s, left in to_play.items()}
                    a = _hidden_choice(g, to_play.get(actor, Counter()), rng, wants, banned.get(actor, ()))
                elif a < 24 and actor in to_play:
                    to_play[actor][a] -= 1
                g.apply(a)
        except RulesError:
            continue
        if shown_events([(e.kind, e.seat, e.data) for _, e in g.events_for(seat)]) != list(shown):
            continue
        return g
    return None


def _hidden_choice(g: Game, keep: Counter, rng: random.Random, wants: dict[int, Counter] | None = None,
                   banned: frozenset[int] = frozenset()) -> int:
    """A give or discard the seat to act may have made: of a card it does not play later, where it can, and
    first of a card it is known not to hold (a suit it did not follow)."""
    legal = g.legal_action_ids()
    if g.phase == Phase.GIVE_CARD:
        legal = [x for x in legal if x != GIVE_NONE]   # the seat saw that a card was given
    held = Counter(g.hands[g.to_act])
    spare = [x for x in legal if held[ACTIONS[x].card] > keep[ACTIONS[x].card]]
    spare = [x for x in spare if ACTIONS[x].card in banned] or spare
    if g.phase == Phase.GIVE_CARD and wants:   # a card another seat plays later and does not hold
        wanted = [x for x in spare if any(w[ACTIONS[x].card] > 0 for s, w in wants.items() if s != g.to_act)]
        spare = wanted or spare
    return rng.choice(spare or legal)


_SHOWN = (EventKind.PARTNER_CARD, EventKind.PARTNER)


def taken_widow(events: list[tuple], seat: int) -> list[int]:
    """The widow of the current deal if ``seat`` took it (five-handed), else []."""
    widow: list[int] = []
    for kind, who, data in events:
        if kind == EventKind.DEAL:
            widow = []
        elif kind == EventKind.WIDOW and who == seat:
            widow = list(data)
    return widow


def shown_events(events: list[tuple]) -> list[tuple]:
    """The current deal's events (kind, seat, data) that follow from hidden cards: the partner calls."""
    out: list[tuple] = []
    for e in events:
        if e[0] == EventKind.DEAL:
            out = []
        elif e[0] in _SHOWN:
            out.append(tuple(e))
    return out


def deal_facts(events: list[tuple], seat: int, team_of: tuple[int, ...] = ()) -> tuple:
    """From the seat's events of the current deal (kind, seat, data): its dealt hand, the cards it knows
    each other seat was dealt (those it played, and those it gave this seat), and the gives it did not see,
    as (giver, receiver) pairs (``team_of`` names the receiver: the bidder, or the bidder's partner)."""
    hand: list[int] = []
    dealt: dict[int, list[int]] = {}
    giver = bidder = None
    unseen: list[tuple[int, int]] = []
    for kind, who, data in events:
        if kind == EventKind.DEAL:
            hand, dealt, unseen = [], {}, []
        elif kind == EventKind.CONTRACT:
            bidder = who
        elif kind == EventKind.GIVE and who != seat and data is not False and bidder is not None and team_of:
            giver = who
            mates = [s for s in range(len(team_of)) if team_of[s] == team_of[bidder] and s != bidder]
            receiver = bidder if who != bidder else (mates[0] if mates else bidder)
            if receiver != seat:
                unseen.append((who, receiver))
        elif kind == EventKind.HAND and who == seat:
            hand = list(data)
        elif kind == EventKind.PLAY:
            dealt.setdefault(who, []).append(data)
        elif kind == EventKind.RECEIVED_CARD and who == seat and giver is not None:
            dealt.setdefault(giver, []).append(data)
    return hand, dealt, unseen


def deal_voids(events: list[tuple], seat: int) -> tuple[dict[int, frozenset[int]], set[int]]:
    """From the seat's events of the current deal (kind, seat, data): the cards each other seat cannot hold
    now, and the other seats that gave or discarded cards ``seat`` did not see.

    A seat that played a card of another effective suit than the card led (the engine's
    :func:`~referee.rules.effective_suit` under the contract's strain: a left bower is a trump) holds no
    card of the suit led: of the cards it is known not to hold, every card id of that effective suit.
    """
    suits: dict[int, set[int]] = {}
    passers: set[int] = set()
    trump, led = Strain.NO_TRUMP, None
    for kind, who, data in events:
        if kind == EventKind.DEAL:
            suits, passers, trump, led = {}, set(), Strain.NO_TRUMP, None
        elif kind == EventKind.CONTRACT:
            trump = int(data[1])
        elif kind in (EventKind.GIVE, EventKind.DISCARD) and who != seat and data is not False:
            passers.add(who)
        elif kind == EventKind.TRICK:
            led = None
        elif kind == EventKind.PLAY:
            suit = effective_suit(int(data), trump)
            if led is None:
                led = suit
            elif suit != led and who != seat:
                suits.setdefault(who, set()).add(led)
    return {s: frozenset(c for c in range(24) if effective_suit(c, trump) in out) for s, out in suits.items()}, passers


def deal_actions(events: list[tuple], seat: int, names_strain: bool) -> list[int | None]:
    """The actions of the current deal as ``seat`` knows them, from its events (kind, seat, data): None where
    it cannot know the card (another seat's give or discard). ``names_strain``: bids name trump (bid-euchre),
    so a contract event is not a trump action."""
    out: list[int | None] = []
    unresolved: list[int] = []   # indexes of other seats' gives whose card this seat has not received
    for kind, who, data in events:
        if kind == EventKind.DEAL:
            out, unresolved = [], []
        elif kind == EventKind.BID:
            out.append(int(data))
        elif kind == EventKind.CONTRACT and not names_strain:
            out.append(TRUMP_BASE + int(data[1]))
        elif kind == EventKind.EXCHANGE:
            out.append(EXCHANGE_YES if data else EXCHANGE_NO)
        elif kind == EventKind.CEDE:
            out.append(CEDE_YES if data else CEDE_NO)
        elif kind == EventKind.PLAY:
            out.append(int(data))
        elif kind == EventKind.GIVE:
            if data is False:
                out.append(GIVE_NONE)
            else:
                out.append(None)   # the card: from GAVE_CARD (our own give) or RECEIVED_CARD (given to us)
                if who != seat:
                    unresolved.append(len(out) - 1)
        elif kind == EventKind.GAVE_CARD and who == seat:
            out[-1] = GIVE_BASE + int(data)
        elif kind == EventKind.RECEIVED_CARD and who == seat and unresolved:
            out[unresolved.pop()] = GIVE_BASE + int(data)
        elif kind == EventKind.DISCARD:
            out.append(None)
        elif kind == EventKind.DISCARDED_CARD and who == seat:
            out[-1] = DISCARD_BASE + int(data)
    return out
