"""Memory per game in flight: the event log keeps TRICK, HAND and DEAL_END entries compact, and
``Game.log_entry`` / ``Game.events`` fill them in with what the game showed when it happened: each seat's hand as
dealt (to that seat only), each trick's leader and cards, each deal's result. Checked against the game's own state
captured as it was played, for every ruleset and player count."""

from __future__ import annotations

import pickle
import random

import pytest

from referee.rules import ACTIONS, BUILTIN_RULESETS, EventKind, Game, Phase, ruleset_from_dict

CASES = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]
COMPACT = (EventKind.TRICK, EventKind.HAND, EventKind.DEAL_END)


def _played(name: str, players: int, seed: int) -> tuple[Game, dict, list]:
    """A seeded random game of a few deals, with each deal's hands as dealt and each trick's (leader, cards),
    read from the game's state before the actions that ended them."""
    rs = ruleset_from_dict({"extends": name, "name": f"{name}-short", "deal_cap": 4})
    g = Game(rs, players, seed=seed)
    rng = random.Random(seed)
    hands: dict[int, list[tuple]] = {}
    tricks: list[tuple] = []
    while not g.is_over:
        hands.setdefault(g.deal_number, [tuple(h) for h in g.hands])
        a = rng.choice(g.legal_action_ids())
        if g.phase is Phase.PLAY and len(g.trick_cards) == g._n_active - 1:   # this play ends the trick
            leader = g.trick_seats[0] if g.trick_seats else g.to_act
            tricks.append((leader, (*g.trick_cards, int(ACTIONS[a].card))))
        g.apply(a)
    return g, hands, tricks


@pytest.mark.parametrize("name,players", CASES)
def test_compact_entries_fill_in_to_what_the_game_showed(name, players):
    for seed in (1, 2):
        g, hands, tricks = _played(name, players, seed)
        log = g.event_log
        assert all(type(e[2]) is int for e in log if e[0] in COMPACT)   # compact: no cards, no result
        assert [e.data for e in g.events if e.kind == EventKind.TRICK] == tricks
        deal, seen_hands = 0, {}
        for i, e in enumerate(g.events):
            assert tuple(e) == g.log_entry(i) and g.event_at(i) == e
            if e.kind == EventKind.DEAL:
                deal = e.data
            elif e.kind == EventKind.HAND:
                assert e.visible_to == e.seat
                seen_hands.setdefault(deal, []).append(e.data)
            elif e.kind == EventKind.DEAL_END:
                assert e.data is g.deals[e.data.number - 1] and e.data.number == deal
        assert seen_hands == hands
        # A seat's events hold its own hand each deal and no other seat's.
        for s in range(players):
            mine = [e.data for _, e in g.events_for(s) if e.kind == EventKind.HAND]
            assert mine == [hands[k][s] for k in sorted(hands)]
            assert all(e.visible_to in (-1, s) for _, e in g.events_for(s))
        # Copies, pickles and replays fill them in alike.
        for other in (g.copy(), pickle.loads(pickle.dumps(g)), Game.from_record(g.record())):
            assert other.event_log == log and other.events == g.events


def test_log_entry_takes_a_negative_index_and_leaves_other_entries_as_they_are():
    g, _, _ = _played("iowa", 4, 3)
    assert g.log_entry(-1) == g.log_entry(len(g.event_log) - 1)
    plays = [i for i, e in enumerate(g.event_log) if e[0] == EventKind.PLAY]
    assert all(g.log_entry(i) is g.event_log[i] for i in plays)
