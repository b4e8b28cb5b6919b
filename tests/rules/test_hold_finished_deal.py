"""A finished deal can be inspected before the next is dealt (``Game(hold_finished_deal=True)``).

With the option a deal that does not end the game stops the game in a held state (``deal_over``) until
``next_deal()``; without it ``apply()`` that ends a deal deals the next. The two must play the same game.
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from referee.rules import (
    BUILTIN_RULESETS,
    CARDS,
    DealInProgressError,
    DealOverError,
    Game,
    GameOverError,
    Phase,
    RulesError,
)

TABLES = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]


def play_held(g: Game, rng: random.Random, check=None) -> Game:
    """Random play to the end, calling ``check(g)`` at each held deal, then ``next_deal()``."""
    while not g.is_over:
        if g.deal_over:
            if check:
                check(g)
            g.next_deal()
        else:
            g.apply(rng.choice(g.legal_action_ids()))
    return g


def check_held(g: Game) -> None:
    """What a held deal shows: its result, tricks, hands and scores; no seat to act, no action accepted."""
    d = g.deals[-1]
    assert g.deal_over and not g.is_over
    assert d.number == g.deal_number == len(g.decks_dealt)
    assert g.to_act is None and g.decision is None and g.decision_kind is None
    assert g.legal_action_ids() == [] and g.legal_actions() == [] and g.publicly_forced() is None
    assert d.scores == tuple(g.scores) and d.tricks == tuple(g.tricks_won)
    assert d.trick_history == tuple(g._tricks)
    if d.thrown_in or d.ceded:
        assert sum(map(len, g.hands)) > 0                       # the hands as the deal left them
    else:
        assert all(not h for s, h in enumerate(g.hands) if s not in d.sitting_out)   # every card played
    assert all(v.legal_actions == () and v.to_act is None for v in map(g.view, range(g.players)))
    before = (len(g.history), g.event_count, list(g.scores))
    for action in ["pass", "play JH", 0, g.history[-1]]:
        with pytest.raises(DealOverError, match=rf"deal {d.number} is over \(phase deal-over") as e:
            g.apply(action)
        assert isinstance(e.value, RulesError) and e.value.deal == d.number
    assert (len(g.history), g.event_count, list(g.scores)) == before   # nothing changed


@pytest.mark.parametrize("name,players", TABLES)
def test_holding_each_deal_plays_exactly_the_game_played_without_it(name, players):
    for seed in (1, 2):
        plain = Game(name, players, seed=seed, deal_cap=6)
        rng = random.Random(seed)
        while not plain.is_over:
            assert not plain.deal_over
            plain.apply(rng.choice(plain.legal_action_ids()))
        held = play_held(Game(name, players, seed=seed, deal_cap=6, hold_finished_deal=True), random.Random(seed),
                         check_held)
        assert held.history == plain.history and held.scores == plain.scores and held.outcome == plain.outcome
        assert held.deals == plain.deals and held.event_log == plain.event_log
        assert held.full_state() == plain.full_state()
        rec = held.record()
        assert rec.pop("hold_finished_deal") is True and rec.pop("deal_over") is False
        assert rec == plain.record()


def test_the_last_deal_ends_the_game_and_is_not_held():
    g = play_held(Game("iowa", seed=3, deal_cap=3, hold_finished_deal=True), random.Random(3))
    assert g.is_over and not g.deal_over and g.phase is Phase.GAME_OVER and len(g.deals) == 3
    with pytest.raises(GameOverError):
        g.next_deal()


def test_without_the_option_no_deal_is_held_and_next_deal_is_refused():
    g = Game("bid-euchre", seed=4)
    with pytest.raises(DealInProgressError, match="deal 1 is in progress"):
        g.next_deal()
    held = Game("bid-euchre", seed=4, hold_finished_deal=True)
    with pytest.raises(DealInProgressError):
        held.next_deal()   # the first deal is being played, not held


def test_the_option_must_be_a_bool():
    with pytest.raises(ValueError, match="hold_finished_deal must be True or False"):
        Game("iowa", hold_finished_deal="yes")


@pytest.mark.parametrize("clone", ["copy", "pickle", "deepcopy"])
def test_a_held_game_copies_and_pickles_and_each_copy_plays_on_alone(clone):
    g = Game("five-handed", seed=8, deal_cap=5, hold_finished_deal=True)
    rng = random.Random(8)
    while not g.deal_over:
        g.apply(rng.choice(g.legal_action_ids()))
    c = {"copy": Game.copy, "pickle": lambda g: pickle.loads(pickle.dumps(g)), "deepcopy": copy.deepcopy}[clone](g)
    assert c.deal_over and c.hold_finished_deal and c.deals == g.deals and c.hands == g.hands
    check_held(c)
    state = g.record(), g.full_state()
    c.next_deal()
    assert g.deal_over and (g.record(), g.full_state()) == state   # the original is untouched
    play_held(c, random.Random(9))
    g.next_deal()
    play_held(g, random.Random(9))
    assert c.history == g.history and c.outcome == g.outcome


def test_a_record_taken_while_held_replays_to_the_held_deal():
    g = Game("pepper-30", 4, seed=6, hold_finished_deal=True)
    rng = random.Random(6)
    for _ in range(3):
        while not g.deal_over:
            g.apply(rng.choice(g.legal_action_ids()))
        if g.deal_number < 3:
            g.next_deal()
    r = Game.from_record(g.record())
    assert r.deal_over and r.deal_number == 3 and r.deals == g.deals and r.full_state() == g.full_state()
    r.next_deal()
    g.next_deal()
    assert r.full_state() == g.full_state()
    # A record without the key (every record before the option) replays as before: nothing held.
    rec = g.record()
    del rec["hold_finished_deal"], rec["deal_over"]
    assert not Game.from_record(rec).deal_over


def test_the_next_deck_can_be_set_while_a_deal_is_held():
    g = Game("iowa", seed=2, hold_finished_deal=True)
    rng = random.Random(2)
    while not g.deal_over:
        g.apply(rng.choice(g.legal_action_ids()))
    deck = [str(CARDS[c]) for c in sorted(g.table.deck)]
    g.set_next_deck(deck)
    g.next_deal()
    assert [str(CARDS[c]) for c in g.decks_dealt[1]] == deck
    r = Game.from_record(g.record())
    assert r.decks_dealt == g.decks_dealt and r.hands == g.hands


def test_the_golden_example_of_docs_rules_md():
    # docs/rules.md, "Holding a finished deal": the same figures.
    g = Game("iowa", seed=7, hold_finished_deal=True)
    for a in ["bid 1", "pass", "pass", "pass", "trump S"]:
        g.apply(a)
    while not g.deal_over:
        g.apply(g.legal_actions()[0])
    d = g.deals[-1]
    assert (d.contract.bidder, d.contract.bid, str(d.contract.trump), d.made) == (3, "1", "S", True)
    assert (d.tricks, d.points, g.scores) == ((3, 1, 2, 0), (5, 1), [5, 1])
    t = d.trick_history[0]
    assert (t.leader, [(s, str(c)) for s, c in t.plays], t.winner) == (3, [(3, "10D"), (0, "KD"), (1, "QD"), (2, "KC")], 0)
    assert (g.to_act, g.legal_actions(), g.hands) == (None, [], [[], [], [], []])
    with pytest.raises(DealOverError, match=r"^deal 1 is over \(phase deal-over, held by hold_finished_deal\); "
                                            r"call next_deal\(\) before applying pass$"):
        g.apply("pass")
    g.next_deal()
    assert (g.deal_number, g.phase, g.dealer, g.to_act) == (2, Phase.BID, 3, 0)
