"""The replay viewer's frames (web.replay) for every built-in ruleset and player count, 2 to 8 seats: all hands
end on the engine's final score, and one seat's frames never hold a card it was not shown, at any step."""

from __future__ import annotations

import random
import re

import pytest
from web_harness import CARD, cards_in, hidden_cards, seat_knowledge

from referee.rules import BUILTIN_RULESETS, Game, ruleset_from_dict
from web.replay import frames

TABLES = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]


def played(name: str, players: int, seed: int = 3) -> dict:
    """A finished random game of at most two deals."""
    rs = ruleset_from_dict({"name": f"{name}-2", "extends": name, "deal_cap": 2}, source="test")
    g = Game(rs, players, seed=seed)
    r = random.Random(seed)
    while not g.is_over:
        g.apply(r.choice(g.legal_actions()))
    return g.record()


def test_every_table_is_covered():
    assert {n for _, n in TABLES} >= {2, 3, 4, 5, 6, 8}


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_frames_follow_the_game_and_hide_what_each_seat_did_not_see(name, players):
    record = played(name, players)
    names = [f"bot{s}" for s in range(players)]
    everything = frames(record, names)
    assert len(everything["frames"]) == len(record["actions"]) + 1
    assert everything["frames"][-1]["scores"] == record["outcome"]["scores"] == everything["outcome"]["scores"]
    assert set(everything["frames"][0]["hands"]) == {str(s) for s in range(players)}
    assert any("Trick to bot" in line for f in everything["frames"] for line in f["lines"])
    for seat in range(players):
        mine = frames(record, names, seat)
        assert mine["frames"][-1]["scores"] == record["outcome"]["scores"]
        for k, (f, (known, secret)) in enumerate(zip(mine["frames"], seat_knowledge(record, seat), strict=True)):
            assert set(f["hands"]) == {str(seat)} and set(f["private"]) <= {str(seat)}
            shown = cards_in(f)
            assert shown <= known and not shown & secret, (name, players, seat, k, shown - known, f)
    # The check bites: the all-hands frames show other seats' cards.
    assert cards_in(everything["frames"][1]) & hidden_cards(record, 0)[1]


def test_a_seat_that_is_not_at_the_table_is_refused():
    with pytest.raises(ValueError, match="no seat 4 at a 4-player table"):
        frames(played("iowa", 4), ["a"] * 4, 4)


def test_each_step_shows_its_decision_time_and_faults_from_the_record():
    # The referee adds decision_ms and fault_steps to a game's record (tests/service/test_record_times.py);
    # the frames carry them per action. A record without them (an older one) shows no time.
    record = played("iowa", 4)
    n = len(record["actions"])
    timed = {**record, "decision_ms": [None if i % 3 == 0 else i / 4 for i in range(n)], "fault_steps": [[3, 2, "timeout"]]}
    fs = frames(timed, ["a", "b", "c", "d"])["frames"]
    assert [f["ms"] for f in fs[1:]] == timed["decision_ms"]
    assert fs[4]["faults"] == ["c (seat 2): timeout, the referee played for it"] and not any(f["faults"] for f in fs[5:])
    assert all(f["ms"] is None for f in frames(record, ["a", "b", "c", "d"])["frames"][1:])


def test_the_replay_says_how_a_five_handed_game_is_won_and_each_deals_result():
    """Five-handed is won only by a bidder who ends a deal at the target; the replay says so, and sums up each deal
    (contract, made or set, points) at the step that ended it, in the notation of the pages (suit symbols)."""
    record = played("five-handed", 5)
    rep = frames(record, [f"bot{s}" for s in range(5)])
    assert "winning bidder" in rep["winner_rule"] and "51" in rep["winner_rule"]
    g = Game.from_record(record)
    assert [(d["number"], d["made"], d["points"], d["scores"]) for d in rep["deals"]] == [
        (d.number, d.made, list(d.points), list(d.scores)) for d in g.deals]
    for d in rep["deals"]:   # the step that ended the deal scored it
        assert rep["frames"][d["step"]]["scores"] == d["scores"] and any(
            line.startswith(f"Deal {d['number']} points") for line in rep["frames"][d["step"]]["lines"])
    lines = [line for f in rep["frames"] for line in f["lines"]]
    assert not any(CARD.search(line) or "bids bid" in line or " in " in line for line in lines), lines
    assert any(re.search(r"plays (?:10|[JQKA])[♠♥♦♣]", line) for line in lines)
    assert all(f["hand_sizes"] == [len(h) for h in Game.from_record(
        {**record, "actions": record["actions"][:k]}, verify=False).hands] for k, f in enumerate(rep["frames"][:30]))
