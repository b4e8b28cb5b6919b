"""referee.rules.text: a game as plain text lines (what `pepper replay` prints, for any front end)."""

from __future__ import annotations

import random

from referee.rules import Game
from referee.rules.text import ended_early_line, game_lines, outcome_line, result_line, scores, side, unfinished_line


def _random_game(name: str, players: int, seed: int, actions: int | None = None) -> Game:
    g = Game(name, players, seed=seed)
    rng = random.Random(seed)
    while g.outcome is None and (actions is None or len(g.history) < actions):
        g.apply(rng.choice(g.legal_action_ids()))
    return g


def test_sides_are_seats_when_everyone_scores_alone_and_teams_otherwise():
    iowa, five = Game("iowa", 4).table, Game("five-handed", 5).table
    assert side(iowa, 1) == "team 1 (seats 1, 3)" and side(iowa, 1, seats=False) == "team 1"
    assert side(five, 3) == "seat 3" and side(five, 3, seats=False) == "seat 3"
    assert scores(iowa, [12, -4]) == "team 0 12, team 1 -4"
    assert scores(iowa, [12, -4], "+") == "team 0 +12, team 1 -4"


def test_a_finished_game_deal_by_deal():
    g = _random_game("iowa", 4, seed=7)
    lines = game_lines(g)
    assert lines[0] == (f"Game: iowa, 4 players, seed 7, first dealer seat {g.first_dealer}, {len(g.history)} actions. "
                        "Tricks list seat:card in playing order.")
    assert lines[1] == "Teams: team 0 (seats 0, 2); team 1 (seats 1, 3)"
    deals = [i for i, line in enumerate(lines) if line.startswith("Deal ")]
    assert len(deals) == len(g.deals) and all(lines[i - 1] == "" for i in deals)   # a blank line before each deal
    assert lines[deals[0]] == f"Deal 1, dealer seat {g.first_dealer}"
    assert sum(line.startswith("  points: ") for line in lines) == len(g.deals)
    assert not any("hand of seat" in line for line in lines)
    assert all(isinstance(line, str) and "\n" not in line for line in lines)
    d = g.deals[-1]
    assert lines[-1] == f"  points: {scores(g.table, d.points, '+')}; scores: {scores(g.table, d.scores)}"


def test_hands_are_shown_on_request():
    g = _random_game("pepper-30", 2, seed=3)
    hands = [line for line in game_lines(g, hands=True) if line.startswith("  hand of seat ")]
    assert len(hands) == 2 * len(g.deals)
    assert len(hands[0].split(": ")[1].split()) == g.table.hand_size


def test_outcome_and_result_lines():
    g = _random_game("five-handed", 5, seed=3)
    o = g.outcome
    line = outcome_line(g)
    assert line.startswith(" and ".join(f"seat {w}" for w in o.winners) if o.winners else "draw")
    assert f"after {o.deals} deals" in line and line.endswith(f"final scores: {scores(g.table, o.scores)}")
    assert result_line(g) == f"Result: {line}"
    assert result_line(g, checked=True) == f"Result: {line} (matches the record)"


def test_an_unfinished_game_shows_where_it_stands():
    g = _random_game("iowa", 4, seed=1, actions=30)
    assert g.outcome is None
    assert unfinished_line(g) == f"Unfinished: 30 actions replayed; deal {g.deal_number} awaits seat {g.to_act} ({g.phase})"
    lines = game_lines(g)
    assert lines[-1].startswith(("  trick ", "  bids: ", "  points: ", "  contract: ", "  seat ", "Deal "))


def test_a_game_that_ended_early():
    g = _random_game("iowa", 4, seed=1, actions=30)
    line = ended_early_line(g, "forfeited", ["ok", "forfeited", "ok", "ok"], ["a", "b", "a", "b"],
                            [{}, {"timeout": 4, "illegal": 0}, {}, {}], winning_seats=[0, 2], seat_scores=[5, -3, 5, -3])
    assert line == (f"Ended: forfeited during deal {g.deal_number}: seat 1 (b) forfeited, faults: timeout 4. "
                    "Team 0 (seats 0, 2) wins; scores when it ended: team 0 5, team 1 -3")
    line = ended_early_line(g, "aborted", ["ok"] * 4, ["a", "b", "a", "b"], [{}] * 4, winning_seats=[], seat_scores=[0] * 4)
    assert line == f"Ended: aborted during deal {g.deal_number}. No winner; scores when it ended: team 0 0, team 1 0"
