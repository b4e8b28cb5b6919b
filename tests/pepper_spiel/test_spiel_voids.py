"""The deal sampler and the voids a seat has seen: a seat that did not follow suit is dealt none of that suit."""

from __future__ import annotations

import random

import pytest

from pepper_spiel.sample import deal_actions, deal_facts, deal_voids, sample_deal, shown_events, taken_widow
from referee.rules import EventKind, Game, Phase, effective_suit, ruleset_from_dict

CONFIGS = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("pepper-30", 2), ("pepper-30", 3), ("five-handed", 5)]


def _known(events: list[tuple]) -> tuple[dict[int, set[int]], set[int], dict[int, list[int]]]:
    """From the public events of the deal: the effective suits each seat did not follow, the seats that gave
    or discarded cards, and the cards each seat played (the test's own reading, not the sampler's)."""
    voids: dict[int, set[int]] = {}
    passed, played, trump, trick = set(), {}, 4, []
    for kind, who, data in events:
        if kind == EventKind.CONTRACT:
            trump = data[1]
        elif kind in (EventKind.GIVE, EventKind.DISCARD) and data is not False:
            passed.add(who)
        elif kind == EventKind.TRICK:
            trick = []
        elif kind == EventKind.PLAY:
            played.setdefault(who, []).append(data)
            if trick and effective_suit(data, trump) != effective_suit(trick[0], trump):
                voids.setdefault(who, set()).add(effective_suit(trick[0], trump))
            trick.append(data)
    return {s: {c for c in range(24) if effective_suit(c, trump) in v} for s, v in voids.items()}, passed, played


def _checking(rs, players: int, dealer: int, seat: int, banned: dict, passed: set, played: dict):
    """A ``make_game`` for the sampler that fails on a deck dealing a seat a card of a suit it did not follow
    (but the cards it played; a seat that passed cards may have passed them on)."""
    def make_game(deck):
        dealt = Game(rs, players, decks=[deck], first_dealer=dealer)
        for s, cards in banned.items():
            if s != seat and s not in passed:
                left = list(dealt.hands[s])
                for c in played.get(s, ()):
                    left.remove(c)
                assert not set(left) & cards, (s, sorted(set(left) & cards))
        return dealt
    return make_game


@pytest.mark.parametrize("ruleset,players", CONFIGS)
def test_sampled_deals_give_no_seat_a_suit_it_did_not_follow(ruleset, players):
    # At every play of 4 seeded one-deal games after a seat first failed to follow, the seat to act samples its
    # deal as the entrant does. Every deck the sampler draws (every call of make_game, kept or refused by the
    # replay) deals a seat that passed no card none of a suit it did not follow but the cards it played
    # (the old sampler dealt such decks and let the replay refuse them); and a deal is found every time.
    rs = ruleset_from_dict({"extends": ruleset, "name": "x", "deal_cap": 1})
    checked = 0
    for seed in range(4):
        g, rng = Game(rs, players, seed=seed), random.Random(seed)
        while not g.is_over:
            p = g.to_act
            public = [(e.kind, e.seat, e.data) for _, e in g.events_for(-1)]   # -1: public only
            if g.phase == Phase.PLAY and _known(public)[0]:
                events = [(e.kind, e.seat, e.data) for _, e in g.events_for(p)]
                hand, known, unseen = deal_facts(events, p, g.table.team_of)
                private = g.view(p).private
                make_game = _checking(rs, players, g.dealer, p, *_known(public))
                got = sample_deal(g.table, make_game, p, g.dealer, hand, deal_actions(events, p, g.table.bid_names_strain),
                                  known, [int(c) for c in private.get("gave", ())],
                                  [int(c) for c in private.get("received", ())], random.Random(seed * 1000 + checked),
                                  unseen=unseen, shown=shown_events(events), widow=taken_widow(events, p),
                                  voids=deal_voids(events, p))
                assert got is not None, (seed, len(g.history))
                checked += 1
            g.apply(rng.choice(g.legal_action_ids()))
    assert checked >= 8
