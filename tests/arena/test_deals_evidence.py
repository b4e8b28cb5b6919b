"""arena.deals_evidence against hand-computed duplicate blocks, and read from games the engine plays."""

from __future__ import annotations

import math
import random

import pytest

from arena import schedule
from arena.deals_evidence import (
    STATISTICS,
    Deal,
    GameDeals,
    block_of_records,
    deal_results,
    game_deals,
    game_result,
    multiplier,
    paired_deals,
    separation,
)
from referee.rules import Game, get_ruleset

A, B, C = ("a", 1), ("b", 1), ("c", 1)
MIRROR = (0, 1, 0, 1)   # iowa's teams by seat


def made(points, bidder_team, ok=True) -> Deal:
    return Deal(tuple(points), bidder_team, ok)


# A mirrored iowa block written by hand. Game 1: A on team 0; game 2: the same cards, B on team 0.
#   deal 1: team 0 bids and makes both times; with team 0's cards A scored 6 - 2, B only 3 - 3: A's sum +4 + 0;
#   deal 2: team 1 bids: B's contract set in game 1 (A +4 - -4), A's made in game 2 (A +3 - 1): A's sum +8 + 2;
#   deal 3: thrown in both times (no points);
#   deal 4: only game 1 reached it (game 2 ended after 3 deals): not paired.
GAME1 = GameDeals((A, B, A, B), MIRROR, (30, 20), (0,),
                  (made((6, 2), 0), made((4, -4), 1, False), Deal((0, 0), None, None), made((20, 22), 0)))
GAME2 = GameDeals((B, A, B, A), MIRROR, (42, 10), (0,),
                  (made((3, 3), 0), made((1, 3), 1), Deal((0, 0), None, None)))
BLOCK = [GAME1, GAME2]


def test_per_deal_results_are_a_minus_b_by_team():
    # Game 1, A on team 0. Deal 2: team 1 (B) set: A's contract value +1, B's -1, difference +2.
    assert deal_results(GAME1, A, B) == [(4, 2), (8, 2), (0, 0), (-2, 2)]
    # Game 2, A on team 1. Deal 1: team 0 (B) made: A -1, B +1; deal 2: team 1 (A) made: +1 - -1.
    assert deal_results(GAME2, A, B) == [(0, -2), (2, 2), (0, 0)]
    assert deal_results(GAME2, B, A) == [(0, 2), (-2, -2), (0, 0)]
    assert deal_results(GAME1, A, C) == []   # C did not play


def test_paired_deals_sum_the_block_over_the_deals_every_game_played():
    deals = paired_deals(BLOCK, A, B)
    assert [(d.number, d.points, d.contracts) for d in deals] == [(1, 4, 0), (2, 10, 4), (3, 0, 0)]
    assert [d.deal_score for d in deals] == [1, 1, 0.5]
    assert [(d.points, d.contracts) for d in paired_deals(BLOCK, B, A)] == [(-4, 0), (-10, -4), (0, 0)]


def test_each_statistic_of_the_hand_computed_block():
    value = {name: s.of_block(BLOCK, A, B) for name, s in STATISTICS.items()}
    assert value["score"] == 0.5                      # won game 1, lost game 2
    assert value["margin"] == pytest.approx((10 - 32) / 2)   # 30 - 20, then 10 - 42
    assert value["points"] == pytest.approx(14 / 3)   # (4 + 10 + 0) / 3 paired deals
    assert value["deals"] == pytest.approx(2.5 / 3)
    assert value["contracts"] == pytest.approx(4 / 3)
    # From B's side each is the mirror image about its centre.
    for name, s in STATISTICS.items():
        assert s.of_block(BLOCK, B, A) - s.centre == pytest.approx(s.centre - value[name]), name
    assert all(s.of_block(BLOCK, A, C) is None for s in STATISTICS.values())


def test_a_free_for_all_side_in_two_seats_is_the_mean_over_them():
    # Three seats, each its own team: A in seats 0 and 2, B in seat 1.
    g = GameDeals((A, B, A), (0, 1, 2), (12, 10, 3), (0,), (made((5, 2, -1), 0), made((1, 4, 0), 1, False)))
    assert deal_results(g, A, B) == [((3 - 3) / 2, (2 + 0) / 2), ((-3 - 4) / 2, (2 + 2) / 2)]   # deal 2: B set, +1 - -1 from either seat
    assert game_result(g, A, B) == ((1 + 0) / 2, (2 - 7) / 2)   # seat 0 won, seat 2 did not


def test_separation_and_multiplier():
    s = separation([0.5, 1.0, 1.0, 0.5], 0.5)
    # Mean .75, distance .25 from the centre; SD sqrt(.25/3 * ... ) = sqrt(1/12).
    assert (s.blocks, s.mean) == (4, pytest.approx(0.25)) and s.sd == pytest.approx(math.sqrt(1 / 12))
    assert s.z == pytest.approx(0.25 / math.sqrt(1 / 12))
    t = separation([2.0, 4.0, 0.0, 2.0], 0.0)       # mean 2, SD sqrt(8/3)
    assert multiplier(t, s) == pytest.approx((2 / math.sqrt(8 / 3)) ** 2 / s.z ** 2)
    assert separation([1.0], 0.0) is None and separation([3.0, 3.0], 0.0) is None


def _play(rs, players: int, seed: int, seats: list[str], rates: dict[str, float]) -> Game:
    from sample_bots import HeuristicBot
    from sample_bots.mixed import Mixed

    g = Game(rs, players, seed=seed)
    bots = [Mixed(HeuristicBot(), rates[b], random.Random(f"{seed}/{s}")) for s, b in enumerate(seats)]
    while not g.is_over:
        g.apply(bots[g.to_act].decide(g.view(g.to_act).to_dict()))
    return g


def _hands_by_deal(g: Game) -> list[tuple]:
    """Per deal, the (seat, cards) of every hand dealt."""
    out: list[list] = []
    for e in g.events:
        if e.kind == "deal":
            out.append([])
        elif e.kind == "hand":
            out[-1].append((e.seat, tuple(str(c) for c in e.data)))
    return [tuple(h) for h in out]


@pytest.mark.parametrize(("ruleset", "players"), [("iowa", 4), ("pepper-30", 3), ("five-handed", 5)])
def test_the_games_of_a_block_are_dealt_the_same_cards_seat_by_seat(ruleset, players):
    """What the pairing rests on: one deck seed deals every game of a block the same cards to the same seats, deal by
    deal, whoever sits there and however the play went; read back through game_deals, the block's statistics agree
    with the games' own outcomes."""
    rs = get_ruleset(ruleset)
    up = schedule.lineups(["a", "b"], rs, players, "mirrored")[0]
    rots = schedule.rotations(up, schedule.is_partnership(rs, players))
    games = [_play(rs, players, 11, seats, {"a": 0.0, "b": 0.5}) for seats in rots]
    paired = min(len(g.deals) for g in games)
    dealt = [_hands_by_deal(g)[:paired] for g in games]
    assert len(dealt[0]) == paired and all(d == dealt[0] for d in dealt), "a deal's cards differ between the games"
    block = [game_deals(g, [(b, 1) for b in seats]) for g, seats in zip(games, rots, strict=True)]
    for g, gd in zip(games, block, strict=True):
        assert gd.scores == tuple(g.outcome.scores) and sum(map(sum, (d.points for d in gd.deals))) == sum(g.outcome.scores)
    score = STATISTICS["score"].of_block(block, A, B)
    assert score in {x / (2 * len(rots)) for x in range(2 * len(rots) + 1)}
    assert len(paired_deals(block, A, B)) == min(len(g.deals) for g in games)


def test_a_match_test_reads_its_statistic_from_the_block_rows_or_the_records():
    """BlockTest: score and margin from the store's sums (no record read), the deal statistics from the block's
    records; the normalized test takes its games per block from the first block's plan."""
    from arena.sprt import BlockTest, Normalized, Sequential, Sprt
    from arena.store.rows import BlockRow

    row = BlockRow(1, 0, "a", 1, "b", 1, 2, 2, 1.0, 1.0, 20.0, 250.0)   # won one of two games, +20 points in all

    def unread():
        raise AssertionError("the records were read")

    score, margin = BlockTest(Sprt(), "score"), BlockTest(Sprt(), "margin")
    assert isinstance(score.test, Sequential) and margin.test is None and margin.verdict is None and margin.llr == 0
    assert score.value(row, unread) == 0.5 and margin.value(row, unread) == 10.0
    margin.feed(row, unread)
    assert isinstance(margin.test, Normalized) and margin.test.t1 == Normalized(Sprt(), 0.0, 2).t1
    assert margin.adjusted() is None
    # The deals: read from real records, replayed; a record that does not replay is passed over.
    from referee.rules.records import game_record

    rs = get_ruleset("iowa")
    rots = schedule.rotations(["a", "b", "a", "b"], True)
    games = [_play(rs, 4, 5, seats, {"a": 0.0, "b": 0.3}) for seats in rots]
    stored = [(tuple((x, 1) for x in seats), game_record(g)) for g, seats in zip(games, rots, strict=True)]
    want = STATISTICS["points"].of_block([game_deals(g, sides) for g, (sides, _) in zip(games, stored, strict=True)],
                                         A, B)
    assert BlockTest(Sprt(), "points").value(row, lambda: stored) == pytest.approx(want)
    broken = [stored[0], (stored[1][0], {**stored[1][1], "actions": ["nonsense"]})]
    assert len(block_of_records(broken)) == 1
