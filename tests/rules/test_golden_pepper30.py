"""Golden scenarios for the ``pepper-30`` ruleset (docs/rules.md, "`pepper-30`").

2, 3 or 4 players; an elimination auction; Small and Big Pepper; a dead hand
with 2 players; game to 30 with ties all winning.
"""

from __future__ import annotations

import json

import pytest
from scenario import ALL6, ALL6_PLAY, FIVE_ONE, FIVE_ONE_PLAY, SPLIT, SPLIT_4_2, act, cards, new_game, play_tricks

from referee.rules import CARDS, Game, IllegalActionError, Phase


def legal(g):
    return [str(a) for a in g.legal_actions()]


LADDER_4 = ["bid 1", "bid 2", "bid 3", "bid 4", "bid 5", "bid small-pepper", "bid big-pepper"]
LADDER_23 = ["bid 1", "bid 2", "bid 3", "bid 4", "bid 5", "bid 6", "bid 7", "bid small-pepper", "bid big-pepper"]


# ------------------------------------------------------------------ tables

@pytest.mark.parametrize("n,hand,teams,team_of", [
    (4, 6, 2, (0, 1, 0, 1)),
    (3, 8, 3, (0, 1, 2)),
    (2, 8, 2, (0, 1)),
])
def test_tables(n, hand, teams, team_of):
    g = Game("pepper-30", n, seed=1)
    assert g.table.team_of == team_of and g.table.teams == teams
    assert len(g.table.deck) == 24
    assert all(len(g.view(s).hand) == hand for s in range(n))
    assert g.table.dead_hand == (n == 2)
    assert legal(g) == ["pass"] + (LADDER_4 if n == 4 else LADDER_23)


def test_both_peppers_are_contracts_for_every_trick():
    for n, hand in ((4, 6), (3, 8), (2, 8)):
        g = Game("pepper-30", n, seed=1, first_dealer=n - 1)
        act(g, "0: bid small-pepper")
        while g.phase == Phase.BID:
            g.apply("pass")
        assert g.contract.tricks_needed == hand and not g.contract.alone
        g = Game("pepper-30", n, seed=1, first_dealer=n - 1)
        act(g, "0: bid big-pepper")
        assert g.phase == Phase.NAME_TRUMP and g.contract.tricks_needed == hand


# ------------------------------------------------------------------ auction

def test_auction_goes_round_and_round_and_a_passer_is_out():
    g = Game("pepper-30", 4, seed=1, first_dealer=3)
    act(g, "0: bid 1", "1: bid 2", "2: pass", "3: bid 3")
    # Seat 2 passed: it is out, the auction goes on around the others.
    act(g, "0: bid 4")
    assert g.to_act == 1
    act(g, "1: pass")
    assert g.to_act == 3                      # seat 2 skipped
    act(g, "3: pass")
    # Only seat 0 is left after a bid: it wins.
    assert g.phase == Phase.NAME_TRUMP and g.to_act == 0 and g.contract.bid == "4"
    assert [b for _, b in g.view(1).bids] == ["bid 1", "bid 2", "pass", "bid 3", "bid 4", "pass", "pass"]


def test_bids_must_exceed_the_standing_bid():
    g = Game("pepper-30", 3, seed=1, first_dealer=2)
    act(g, "0: bid 3")
    assert legal(g) == ["pass"] + LADDER_23[3:]
    with pytest.raises(IllegalActionError):
        g.apply("bid 3")


def test_a_player_may_raise_its_partners_bid_with_four_players():
    g = Game("pepper-30", 4, seed=1, first_dealer=3)
    act(g, "0: bid 2", "1: pass", "2: bid 3", "3: pass")
    assert g.to_act == 0 and "bid 4" in legal(g)
    act(g, "0: bid 4")                        # raises its partner's bid
    assert g.to_act == 2
    act(g, "2: pass")
    assert g.phase == Phase.NAME_TRUMP and g.contract.bidder == 0 and g.contract.bid == "4"


def test_auction_ends_when_all_but_the_bidder_have_passed():
    g = Game("pepper-30", 3, seed=1, first_dealer=2)
    act(g, "0: bid 1", "1: pass", "2: pass")
    assert g.phase == Phase.NAME_TRUMP and g.contract.bidder == 0 and g.contract.bid == "1"


def test_bidder_outbid_may_pass_and_the_outbidder_wins():
    g = Game("pepper-30", 3, seed=1, first_dealer=2)
    act(g, "0: bid 1", "1: bid 2", "2: pass", "0: pass")
    assert g.phase == Phase.NAME_TRUMP and g.contract.bidder == 1 and g.contract.bid == "2"


@pytest.mark.parametrize("n", [2, 3, 4])
def test_last_player_left_with_no_bid_may_bid_which_ends_the_auction(n):
    g = Game("pepper-30", n, seed=1, first_dealer=n - 1)
    for s in range(n - 1):
        act(g, f"{s}: pass")
    assert g.to_act == n - 1 and legal(g)[0] == "pass" and "bid 1" in legal(g)
    act(g, f"{n - 1}: bid 1")
    assert g.phase == Phase.NAME_TRUMP and g.contract.bidder == n - 1 and g.contract.bid == "1"


@pytest.mark.parametrize("n", [2, 3, 4])
def test_last_player_left_with_no_bid_may_pass_which_throws_in(n):
    g = Game("pepper-30", n, seed=1, first_dealer=n - 1)
    for s in range(n):
        act(g, f"{s}: pass")
    d = g.deals[-1]
    assert d.thrown_in and d.points == (0,) * g.table.teams
    assert g.deal_number == 2 and g.dealer == 0 and g.to_act == 1 % n


@pytest.mark.parametrize("n", [2, 3, 4])
def test_big_pepper_ends_the_auction(n):
    g = Game("pepper-30", n, seed=1, first_dealer=n - 1)
    act(g, "0: bid 1", "1: bid big-pepper")
    assert g.phase == Phase.NAME_TRUMP and g.to_act == 1 and g.contract.bid == "big-pepper"


def test_small_pepper_does_not_end_the_auction():
    g = Game("pepper-30", 3, seed=1, first_dealer=2)
    act(g, "0: bid small-pepper")
    assert g.phase == Phase.BID and legal(g) == ["pass", "bid big-pepper"]
    act(g, "1: bid big-pepper")
    assert g.contract.bidder == 1


def test_two_player_auction_alternates():
    g = Game("pepper-30", 2, seed=1, first_dealer=1)
    act(g, "0: bid 1", "1: bid 2", "0: bid 5", "1: pass")
    assert g.phase == Phase.NAME_TRUMP and g.contract.bidder == 0 and g.contract.bid == "5"


def test_winner_names_trump_no_exchange_nobody_sits_out():
    g = new_game("pepper-30", 4, 3, dict(hands=SPLIT))
    act(g, "0: bid small-pepper", "1: pass", "2: pass", "3: pass")
    assert legal(g) == ["trump S", "trump H", "trump D", "trump C", "trump NT"]
    act(g, "0: trump NT")
    # No exchange, no cede: play starts, the bidder leads, every seat plays.
    assert g.phase == Phase.PLAY and g.to_act == 0 and g.view(0).sitting_out == ()
    order = []
    for _ in range(4):
        order.append(g.to_act)
        g.apply(g.legal_actions()[0])
    assert order == [0, 1, 2, 3]


# ------------------------------------------------------------------ dead hand

DEAD_DEAL = {
    "hands": {0: "AS KS QS JS 10S 9S AH 9D", 1: "KH QH JH 10H 9H AD KD QD"},
    "dead": "JD 10D AC KC QC JC 10C 9C",
}


def test_two_players_the_dead_hand_is_never_seen_or_played():
    g = new_game("pepper-30", 2, 1, DEAD_DEAL)
    dead = set(cards(DEAD_DEAL["dead"]))
    assert sorted(g.full_state()["dead_hand"]) == sorted(dead)
    act(g, "0: bid 7", "1: pass", "0: trump NT")
    while not g.deals:
        for s in (0, 1):
            v = g.view(s)
            mine = [x for _, plays, _ in v.tricks for t, x in plays if t == s] + [x for t, x in v.trick if t == s]
            assert len(v.hand) + len(mine) == 8
            text = json.dumps(v.to_dict())
            assert not any(f'"{x}"' in text for x in dead)
        g.apply(g.legal_actions()[0])
    end = next(i for i, e in enumerate(g.events) if e.kind == "deal_end")
    for s in (0, 1):
        for i, e in g.events_for(s):
            if i < end and e.kind in ("hand", "play"):
                shown = {str(CARDS[x]) for x in (e.data if e.kind == "hand" else [e.data])}
                assert not dead & shown
    played = {str(CARDS[e.data]) for e in g.events if e.kind == "play"}
    assert len(played) == 16 and not played & dead
    assert sum(g.deals[-1].tricks) == 8


# ------------------------------------------------------------------ scoring

def _four(hands, bid, script, strain="NT"):
    g = new_game("pepper-30", 4, 3, dict(hands=hands))
    act(g, f"0: {bid}")
    while g.phase == Phase.BID:
        g.apply("pass")
    act(g, f"0: trump {strain}")
    play_tricks(g, script)
    return g.deals[-1]


def test_four_players_made_bid_scores_tricks_others_score_tricks():
    d = _four(SPLIT, "bid 3", SPLIT_4_2)
    assert d.tricks == (4, 0, 0, 2) and d.points == (4, 2)


@pytest.mark.parametrize("bid", ["bid 5", "bid small-pepper"])
def test_four_players_set_loses_six_whatever_the_bid(bid):
    d = _four(SPLIT, bid, SPLIT_4_2)
    assert d.points == (-6, 2)


def test_four_players_set_on_a_bid_of_one_loses_six():
    # Seat 0 holds every heart and names spades: whatever is played, team A
    # (seat 2 holds only diamonds, which nobody leads) never wins a trick.
    hands = {0: "AH KH QH JH 10H 9H", 1: "AS KS QS JS 10S 9S", 2: "AD KD QD JD 10D 9D", 3: "AC KC QC JC 10C 9C"}
    g = new_game("pepper-30", 4, 3, dict(hands=hands))
    act(g, "0: bid 1", "1: pass", "2: pass", "3: pass", "0: trump S")
    while not g.deals:
        g.apply(g.legal_actions()[0])
    d = g.deals[-1]
    assert d.tricks[0] + d.tricks[2] == 0 and d.tricks[1] + d.tricks[3] == 6
    assert d.points == (-6, 6)


def test_four_players_small_pepper_made_scores_like_a_number():
    d = _four(ALL6, "bid small-pepper", ALL6_PLAY)
    assert d.tricks == (6, 0, 0, 0) and d.points == (6, 0)


def test_four_players_big_pepper_made_twelve():
    d = _four(ALL6, "bid big-pepper", ALL6_PLAY)
    assert d.points == (12, 0)


def test_four_players_big_pepper_failed_minus_twelve_others_score_tricks():
    d = _four(FIVE_ONE, "bid big-pepper", FIVE_ONE_PLAY)
    assert d.tricks == (5, 1, 0, 0) and d.points == (-12, 1)


def test_four_players_the_partners_tricks_count_for_the_bidding_team():
    # Seat 2 (partner) wins the first trick with its AD, then seat 0 takes the rest.
    hands = {0: "AS KS QS JS 10S 9D", 1: "AH KH QH JH 10H 9H", 2: "AD KD QD JD 10D 9S", 3: "AC KC QC JC 10C 9C"}
    d = _four(hands, "bid big-pepper", "9D 9H AD 9C / 9S 10C AS 10H / KS JH KD JC / QS QH QD QC / JS KH JD KC / "
                                       "10S AH 10D AC")
    assert d.tricks == (5, 0, 1, 0) and d.points == (12, 0)


def test_four_players_small_pepper_failed_minus_six():
    d = _four(FIVE_ONE, "bid small-pepper", FIVE_ONE_PLAY)
    assert d.points == (-6, 1)


# 3 players, no-trump, seat 0 the bidder (dealer 2).
SEVEN_ONE = {0: "AS KS QS JS 10S 9S AH 9D", 1: "KH QH JH 10H 9H AD KD QD", 2: "JD 10D AC KC QC JC 10C 9C"}
SEVEN_ONE_PLAY = ("AS KH AC / KS QH KC / QS JH QC / JS KD JC / 10S QD 10C / 9S 10H 9C / "
                  "AH 9H JD / 9D AD 10D")
SIX_TWO = {0: "AS KS QS JS 10S 9S 9H 9D", 1: "AH KH QH JH 10H AD KD QD", 2: "JD 10D AC KC QC JC 10C 9C"}
SIX_TWO_PLAY = "AS 10H AC / KS JH KC / QS QH QC / JS KH JC / 10S KD 10C / 9S QD 9C / 9H AH JD / AD 10D 9D"
ALL8 = {0: "AS KS QS JS 10S 9S AH KH", 1: "QH JH 10H 9H AD KD QD JD", 2: "10D 9D AC KC QC JC 10C 9C"}
ALL8_PLAY = "AS QH AC / KS JH KC / QS 10H QC / JS 9H JC / 10S AD 10C / 9S KD 9C / AH QD 10D / KH JD 9D"


def _three(hands, bid, script, strain="NT"):
    g = new_game("pepper-30", 3, 2, dict(hands=hands))
    act(g, f"0: {bid}")
    while g.phase == Phase.BID:
        g.apply("pass")
    act(g, f"0: trump {strain}")
    play_tricks(g, script)
    return g.deals[-1]


def test_three_players_made_bid_and_others_score_individually():
    d = _three(SEVEN_ONE, "bid 6", SEVEN_ONE_PLAY)
    assert d.tricks == (7, 1, 0) and d.points == (7, 1, 0)


def test_three_players_set_loses_eight_whatever_the_bid():
    d = _three(SIX_TWO, "bid 7", SIX_TWO_PLAY)
    assert d.tricks == (6, 2, 0) and d.points == (-8, 2, 0)


def test_three_players_made_with_the_six_two_deal():
    d = _three(SIX_TWO, "bid 6", SIX_TWO_PLAY)
    assert d.points == (6, 2, 0)


@pytest.mark.parametrize("bid,points", [("bid small-pepper", -8), ("bid big-pepper", -16), ("bid 7", 7)])
def test_three_players_seven_tricks(bid, points):
    d = _three(SEVEN_ONE, bid, SEVEN_ONE_PLAY)
    assert d.points == (points, 1, 0)


@pytest.mark.parametrize("bid,points", [("bid small-pepper", 8), ("bid big-pepper", 16), ("bid 1", 8)])
def test_three_players_all_eight_tricks(bid, points):
    d = _three(ALL8, bid, ALL8_PLAY)
    assert d.tricks == (8, 0, 0) and d.points == (points, 0, 0)


@pytest.mark.parametrize("bid,points", [("bid 7", 7), ("bid small-pepper", -8), ("bid big-pepper", -16)])
def test_two_players_scoring_with_the_dead_hand(bid, points):
    g = new_game("pepper-30", 2, 1, DEAD_DEAL)
    act(g, f"0: {bid}")
    while g.phase == Phase.BID:
        g.apply("pass")
    act(g, "0: trump NT")
    play_tricks(g, "AS KH / KS QH / QS JH / JS 10H / 10S 9H / 9S KD / AH QD / 9D AD")
    d = g.deals[-1]
    assert d.tricks == (7, 1) and d.points == (points, 1)


def test_second_bidder_scores_and_seat_one_bidder():
    g = new_game("pepper-30", 2, 0, {"hands": {1: DEAD_DEAL["hands"][0], 0: DEAD_DEAL["hands"][1]}, "dead": DEAD_DEAL["dead"]})
    act(g, "1: bid big-pepper", "1: trump NT")
    assert g.phase == Phase.PLAY and g.to_act == 1
    play_tricks(g, "AS KH / KS QH / QS JH / JS 10H / 10S 9H / 9S KD / AH QD / 9D AD")
    assert g.deals[-1].points == (1, -16)


# ------------------------------------------------------------------ game end

def _three_final(scores, hands=SEVEN_ONE, bid="bid 6", script=SEVEN_ONE_PLAY):
    g = new_game("pepper-30", 3, 2, dict(hands=hands))
    g.scores[:] = scores   # artificial: scores earned in earlier deals
    act(g, f"0: {bid}", "1: pass", "2: pass", "0: trump NT")
    play_tricks(g, script)
    return g


def test_game_ends_after_the_hand_in_which_anyone_reaches_30():
    g = _three_final([22, 0, 0])
    assert g.scores == [29, 1, 0] and not g.is_over
    g = _three_final([23, 0, 0])
    assert g.scores == [30, 1, 0] and g.is_over
    assert g.outcome.winners == (0,) and g.outcome.winning_seats == (0,) and g.outcome.reason == "target"


def test_a_non_bidder_reaching_30_wins():
    g = _three_final([0, 29, 5])
    assert g.scores == [7, 30, 5] and g.outcome.winners == (1,)


def test_highest_score_at_or_above_30_wins():
    g = _three_final([23, 29, 0])
    # 23 + 7 and 29 + 1: a tie at the top: both win.
    assert g.scores == [30, 30, 0]
    assert g.outcome.winners == (0, 1) and g.outcome.winning_seats == (0, 1) and not g.outcome.draw


def test_highest_of_two_at_or_above_30_wins_alone():
    g = _three_final([25, 29, 0])           # 32 and 30
    assert g.outcome.winners == (0,)
    g = _three_final([24, 29, 0], SIX_TWO, "bid 6", SIX_TWO_PLAY)   # bidder 30, seat 1 31
    assert g.scores == [30, 31, 0] and g.outcome.winners == (1,)


def test_four_players_teams_tied_at_the_top_both_win():
    g = new_game("pepper-30", 4, 3, dict(hands=SPLIT))
    g.scores[:] = [27, 29]   # artificial: scores from earlier deals
    act(g, "0: bid 3", "1: pass", "2: pass", "3: pass", "0: trump NT")
    play_tricks(g, SPLIT_4_2)
    assert g.scores == [31, 31]
    assert g.is_over and g.outcome.winners == (0, 1) and g.outcome.winning_seats == (0, 1, 2, 3)
