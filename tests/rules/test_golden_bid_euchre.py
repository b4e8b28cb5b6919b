"""Golden scenarios for the ``bid-euchre`` ruleset (docs/rules.md, "`bid-euchre`").

4, 6 or 8 players in two alternating teams, J-A decks (one set per two
players), bids that name their strain, Pepper (pass and discard) and Double
Pepper, teammates sitting out, game to 50.
"""

from __future__ import annotations

from collections import Counter

import pytest
from scenario import act, cards, events_of, new_game, play_tricks, seat_events

from referee.rules import CARDS, ActionError, Game, IllegalActionError, Phase

STRAINS = ["S", "H", "D", "C", "NT"]


def legal(g):
    return [str(a) for a in g.legal_actions()]


def priv(view):
    return {k: sorted(str(x) for x in v) for k, v in view.private.items()}


def hand(g, seat):
    return sorted(str(x) for x in g.view(seat).hand)


# 4 players, dealer 3, seat 0 bids first. No-trump.
SEVEN_ONE = {0: "AS AS KS KS QS QS JS JH", 1: "JS AH AH KH KH QH QH JH",
             2: "AD AD KD KD QD QD JD JD", 3: "AC AC KC KC QC QC JC JC"}
SEVEN_ONE_PLAY = ("AS JS JD JC / AS QH JD JC / KS QH QD QC / KS KH QD QC / QS KH KD KC / QS JH KD KC / "
                  "JS AH AD AC / JH AH AD AC")
SEVEN_ONE_ALONE = "AS JS JC / AS QH JC / KS QH QC / KS KH QC / QS KH KC / QS JH KC / JS AH AC / JH AH AC"
# Seat 1 keeps the other JH: the bidder's JH, played first, beats it.
EIGHT_ALONE = "AS JS JC / AS QH JC / KS QH QC / KS KH QC / QS KH KC / QS AH KC / JS AH AC / JH JH AC"
SIX_TWO_PLAY = ("AS JS JD JC / AS QH JD JC / KS QH QD QC / KS KH QD QC / QS KH KD KC / QS JH KD KC / "
                "JH AH AD AC / AH AD AC JS")


# ------------------------------------------------------------------ tables

@pytest.mark.parametrize("n,deck", [(4, 32), (6, 48), (8, 64)])
def test_tables_two_alternating_teams_j_to_a_one_set_per_two_players(n, deck):
    g = Game("bid-euchre", n, seed=1)
    assert g.table.team_of == tuple(s % 2 for s in range(n)) and g.table.teams == 2
    assert len(g.table.deck) == deck
    counts = Counter(str(CARDS[c]) for c in g.table.deck)
    assert set(counts) == {r + s for r in ("J", "Q", "K", "A") for s in "SHDC"}
    assert set(counts.values()) == {n // 2}
    assert all(len(g.view(s).hand) == 8 for s in range(n))


# ------------------------------------------------------------------ bidding

def test_bids_name_a_strain_one_to_eight_then_pepper_then_double_pepper():
    g = Game("bid-euchre", 4, seed=1, first_dealer=3)
    expect = ["pass"] + [f"bid {k} {s}" for k in range(1, 9) for s in STRAINS]
    expect += [f"bid pepper {s}" for s in STRAINS] + [f"bid double-pepper {s}" for s in STRAINS]
    assert legal(g) == expect
    with pytest.raises(ActionError):
        g.apply("bid 3")                         # a bid must name its strain


def test_each_bid_must_have_more_tricks_the_strain_does_not_rank():
    g = Game("bid-euchre", 4, seed=1, first_dealer=3)
    act(g, "0: bid 3 H")
    with pytest.raises(IllegalActionError):
        g.apply("bid 3 NT")
    with pytest.raises(IllegalActionError):
        g.apply("bid 3 S")
    assert "bid 4 C" in legal(g) and "bid 3 S" not in legal(g)
    act(g, "1: bid 4 C", "2: bid 8 H")
    assert g.to_act == 3
    assert legal(g) == ["pass"] + [f"bid pepper {s}" for s in STRAINS] + [f"bid double-pepper {s}" for s in STRAINS]


def test_the_strain_of_the_winning_bid_is_trump_one_circuit_ending_with_the_dealer():
    g = Game("bid-euchre", 4, seed=1, first_dealer=3)
    act(g, "0: bid 2 H", "1: bid 3 C", "2: pass", "3: pass")
    assert g.contract.bidder == 1 and str(g.contract.trump) == "C" and g.contract.bid == "3"
    # No separate naming of trump: play starts, the bidder leads.
    assert g.phase == Phase.PLAY and g.to_act == 1


def test_the_winning_strain_is_the_winners_even_when_the_dealer_bid_last():
    g = Game("bid-euchre", 6, seed=1, first_dealer=5)
    act(g, "0: bid 1 S", "1: pass", "2: bid 2 D", "3: pass", "4: pass", "5: bid 4 NT")
    assert g.contract.bidder == 5 and str(g.contract.trump) == "NT"
    g = Game("bid-euchre", 6, seed=1, first_dealer=5)
    act(g, "0: bid 1 S", "1: pass", "2: bid 2 D", "3: pass", "4: pass", "5: pass")
    assert g.contract.bidder == 2 and str(g.contract.trump) == "D"


def test_pepper_does_not_end_the_bidding_double_pepper_does():
    g = Game("bid-euchre", 4, seed=1, first_dealer=3)
    act(g, "0: bid pepper H")
    assert g.phase == Phase.BID and legal(g) == ["pass"] + [f"bid double-pepper {s}" for s in STRAINS]
    act(g, "1: bid double-pepper D")
    assert g.phase == Phase.PLAY and g.to_act == 1 and len(g.view(0).bids) == 2
    assert g.contract.bid == "double-pepper" and str(g.contract.trump) == "D" and g.contract.alone


# ------------------------------------------------------------------ Pepper passing

def _pepper4(hands=SEVEN_ONE, strain="NT"):
    g = new_game("bid-euchre", 4, 3, dict(hands=hands))
    act(g, f"0: bid pepper {strain}", "1: pass", "2: pass", "3: pass")
    return g


def test_pepper_teammate_gives_a_card_then_the_bidder_discards_one():
    g = _pepper4()
    assert g.phase == Phase.GIVE_CARD and g.to_act == 2
    assert "give none" in legal(g) and set(legal(g)) == {"give none"} | {f"give {x}" for x in ["AD", "KD", "QD", "JD"]}
    act(g, "2: give AD")
    assert g.phase == Phase.DISCARD and g.to_act == 0
    assert len(g.view(0).hand) == 9 and "discard AD" in legal(g)
    act(g, "0: discard JH")
    assert hand(g, 0) == sorted(cards("AS AS KS KS QS QS JS AD"))
    assert len(g.view(2).hand) == 7
    assert priv(g.view(0)) == {"received": ["AD"], "discards": ["JH"]}
    assert priv(g.view(2)) == {"gave": ["AD"]}
    for s in (1, 3):
        assert g.view(s).private == {}
        assert all(e.kind not in ("gave_card", "received_card", "discarded_card") for e in seat_events(g, s))
    assert g.phase == Phase.PLAY and g.to_act == 0 and g.view(1).sitting_out == (2,)


def test_pepper_bidder_may_discard_the_card_just_received():
    g = _pepper4()
    act(g, "2: give KD", "0: discard KD")
    assert hand(g, 0) == sorted(cards(SEVEN_ONE[0]))
    assert g.phase == Phase.PLAY


def test_pepper_nobody_gives_so_there_is_no_discard():
    g = _pepper4()
    act(g, "2: give none")
    assert g.phase == Phase.PLAY and g.to_act == 0
    assert hand(g, 0) == sorted(cards(SEVEN_ONE[0]))
    assert not events_of(g, "discard")
    assert [(e.seat, e.data) for e in events_of(g, "give")] == [(2, False)]


def test_six_players_teammates_asked_from_the_bidders_left_first_giver_stops_it():
    g = Game("bid-euchre", 6, seed=4, first_dealer=4)
    act(g, "5: bid pepper S")
    for s in (0, 1, 2, 3, 4):
        act(g, f"{s}: pass")
    # Teammates of seat 5 are 1 and 3, asked in that order (left of the bidder first).
    assert g.phase == Phase.GIVE_CARD and g.to_act == 1
    act(g, "1: give none")
    assert g.phase == Phase.GIVE_CARD and g.to_act == 3
    card = str(g.legal_actions()[0].card)
    act(g, f"3: give {card}")
    assert g.phase == Phase.DISCARD and g.to_act == 5
    g.apply(g.legal_actions()[0])
    assert g.phase == Phase.PLAY and g.to_act == 5 and set(g.view(0).sitting_out) == {1, 3}
    assert [(e.seat, e.data) for e in events_of(g, "give")] == [(1, False), (3, True)]
    assert all(e.kind != "gave_card" for e in seat_events(g, 1))   # the other teammate does not see it


def test_six_players_the_first_teammate_gives_and_the_second_is_not_asked():
    g = Game("bid-euchre", 6, seed=4, first_dealer=4)
    act(g, "5: bid pepper S", "0: pass", "1: pass", "2: pass", "3: pass", "4: pass")
    g.apply(g.legal_actions()[0])
    assert g.phase == Phase.DISCARD and g.to_act == 5
    assert [e.seat for e in events_of(g, "give")] == [1]


def test_eight_players_nobody_gives_no_discard():
    g = Game("bid-euchre", 8, seed=4, first_dealer=5)
    act(g, "6: bid pepper H", "7: pass", "0: pass", "1: pass", "2: pass", "3: pass", "4: pass", "5: pass")
    asked = []
    while g.phase == Phase.GIVE_CARD:
        asked.append(g.to_act)
        g.apply("give none")
    assert asked == [0, 2, 4]
    assert g.phase == Phase.PLAY and g.to_act == 6 and len(g.view(6).hand) == 8


def test_double_pepper_has_no_passing_and_no_discard():
    g = new_game("bid-euchre", 4, 3, dict(hands=SEVEN_ONE))
    act(g, "0: bid double-pepper NT")
    assert g.phase == Phase.PLAY and g.to_act == 0
    assert hand(g, 0) == sorted(cards(SEVEN_ONE[0]))
    assert not events_of(g, "give") and not events_of(g, "discard")
    assert g.view(1).sitting_out == (2,)


# ------------------------------------------------------------------ sitting out

@pytest.mark.parametrize("n,bidder,dealer", [(4, 0, 3), (6, 1, 0), (8, 3, 2)])
def test_teammates_sit_out_and_tricks_have_fewer_cards(n, bidder, dealer):
    g = Game("bid-euchre", n, seed=7, first_dealer=dealer)
    act(g, f"{bidder}: bid double-pepper S")
    out = {s for s in range(n) if s != bidder and s % 2 == bidder % 2}
    assert set(g.view(0).sitting_out) == out
    active = [s for s in range(n) if s not in out]
    order = []
    while not g.deals:
        order.append(g.to_act)
        g.apply(g.legal_actions()[0])
    tricks = [e for e in g.events if e.kind == "trick"]
    assert len(tricks) == 8 and all(len(e.data[1]) == n // 2 + 1 for e in tricks)
    assert not {e.seat for e in g.events if e.kind == "play"} & out
    # Turn order skips the teammates: each seat is followed by the next active seat.
    nxt = {a: active[(i + 1) % len(active)] for i, a in enumerate(active)}
    plays = [e.seat for e in g.events if e.kind == "play"]
    for i in range(0, len(plays), len(active)):
        chunk = plays[i:i + len(active)]
        assert all(nxt[a] == b for a, b in zip(chunk, chunk[1:]))
    assert all(g.deals[-1].tricks[s] == 0 for s in out)


# ------------------------------------------------------------------ trick play

def test_first_played_duplicate_wins_in_team_play():
    g = new_game("bid-euchre", 4, 3, dict(hands=SEVEN_ONE))
    act(g, "0: bid 1 NT", "1: pass", "2: pass", "3: pass")
    winners = play_tricks(g, "AS JS JD JC / AS QH JD JC / KS QH QD QC / KS KH QD QC / QS KH KD KC / QS AH KD KC / "
                             "JH JH AD AC")
    assert winners[-1] == 0                      # S0's JH played before S1's JH


def test_first_played_duplicate_right_bower_wins():
    hands = {0: "JS AS KS QS AH AH KH KH", 1: "JS JC AD AD KD KD QD QD", 2: "JC AS KS QS AC AC KC KC",
             3: "JH JH QH QH JD JD QC QC"}
    g = new_game("bid-euchre", 4, 3, dict(hands=hands))
    act(g, "0: bid 1 S", "1: pass", "2: pass", "3: pass")
    assert play_tricks(g, "JS JS JC JH") == [0]   # two right bowers: the first one played wins
    assert play_tricks(g, "AS JC AS JH") == [1]   # the left bower beats the Aces


# ------------------------------------------------------------------ scoring

def _team(bid, script, hands=SEVEN_ONE):
    g = new_game("bid-euchre", 4, 3, dict(hands=hands))
    act(g, f"0: {bid}", "1: pass", "2: pass", "3: pass")
    play_tricks(g, script)
    return g.deals[-1]


def test_made_bid_scores_its_tricks_other_team_its_tricks():
    d = _team("bid 5 NT", SEVEN_ONE_PLAY)
    assert d.tricks == (7, 1, 0, 0) and d.points == (7, 1)


def test_euchred_loses_the_number_bid():
    d = _team("bid 8 NT", SEVEN_ONE_PLAY)
    assert d.points == (-8, 1)
    d = _team("bid 7 NT", SIX_TWO_PLAY)
    assert d.tricks == (6, 2, 0, 0) and d.points == (-7, 2)
    d = _team("bid 6 NT", SIX_TWO_PLAY)
    assert d.points == (6, 2)


def _alone(bid, script, give="give none"):
    g = new_game("bid-euchre", 4, 3, dict(hands=SEVEN_ONE))
    act(g, f"0: {bid}")
    while g.phase == Phase.BID:
        g.apply("pass")
    if g.phase == Phase.GIVE_CARD:
        act(g, f"2: {give}")
    play_tricks(g, script)
    return g.deals[-1]


def test_pepper_made_twelve():
    d = _alone("bid pepper NT", EIGHT_ALONE)
    assert d.tricks == (8, 0, 0, 0) and d.points == (12, 0)


def test_pepper_failed_minus_twelve_other_team_scores_its_tricks():
    d = _alone("bid pepper NT", SEVEN_ONE_ALONE)
    assert d.tricks == (7, 1, 0, 0) and d.points == (-12, 1)


def test_double_pepper_made_twenty_four():
    d = _alone("bid double-pepper NT", EIGHT_ALONE)
    assert d.points == (24, 0)


def test_double_pepper_failed_minus_twenty_four():
    d = _alone("bid double-pepper NT", SEVEN_ONE_ALONE)
    assert d.points == (-24, 1)


def test_pepper_after_passing_and_discarding_plays_the_new_hand():
    g = new_game("bid-euchre", 4, 3, dict(hands=SEVEN_ONE))
    act(g, "0: bid pepper NT", "1: pass", "2: pass", "3: pass", "2: give AD", "0: discard JH")
    play_tricks(g, "AS JS JC / AS QH JC / KS QH QC / KS KH QC / QS KH KC / QS JH KC / JS AH AC / AD AH AC")
    assert g.deals[-1].tricks == (8, 0, 0, 0) and g.deals[-1].points == (12, 0)


# ------------------------------------------------------------------ game end

def _final(scores, bid, script):
    g = new_game("bid-euchre", 4, 3, dict(hands=SEVEN_ONE))
    g.scores[:] = scores   # artificial: scores earned in earlier deals
    act(g, f"0: {bid}", "1: pass", "2: pass", "3: pass")
    play_tricks(g, script)
    return g


def test_first_team_to_50_wins():
    g = _final([42, 0], "bid 5 NT", SEVEN_ONE_PLAY)
    assert g.scores == [49, 1] and not g.is_over
    g = _final([43, 0], "bid 5 NT", SEVEN_ONE_PLAY)
    assert g.is_over and g.outcome.winners == (0,) and g.outcome.winning_seats == (0, 2)


def test_the_other_team_reaching_50_alone_wins():
    g = _final([0, 49], "bid 5 NT", SEVEN_ONE_PLAY)
    assert g.scores == [7, 50] and g.outcome.winners == (1,)


def test_both_reach_50_the_bidding_team_wins_even_with_fewer_points():
    g = _final([44, 49], "bid 5 NT", SIX_TWO_PLAY)
    assert g.scores == [50, 51]
    assert g.is_over and g.outcome.winners == (0,) and g.outcome.winning_seats == (0, 2)


def test_both_reach_50_tied_the_bidding_team_wins():
    g = _final([43, 49], "bid 5 NT", SEVEN_ONE_PLAY)
    assert g.scores == [50, 50] and g.outcome.winners == (0,) and not g.outcome.draw
