"""Golden scenarios for the ``iowa`` ruleset (docs/rules.md, "`iowa`").

Seat 0 and 2 are team A, seats 1 and 3 team B. Most deals use dealer 3 so
seat 0 bids first.
"""

from __future__ import annotations

import json

import pytest
from scenario import (
    ALL6,
    ALL6_ALONE,
    ALL6_PLAY,
    FIVE_ONE,
    FIVE_ONE_ALONE,
    SPLIT,
    SPLIT_4_2,
    SPLIT_4_2_WINNERS,
    act,
    cards,
    events_of,
    new_game,
    play_tricks,
    rot,
    seat_events,
)

from referee.rules import CARDS, ActionError, Game, IllegalActionError, Phase

BIDS = ["bid 1", "bid 2", "bid 3", "bid 4", "bid 5", "bid 6", "bid pepper"]


def priv(view):
    return {k: [str(x) for x in v] for k, v in view.private.items()}


def legal(g):
    return [str(a) for a in g.legal_actions()]


# ------------------------------------------------------------------ setup

def test_table_four_players_partners_opposite_24_cards_six_each():
    g = Game("iowa", seed=1)
    assert g.players == 4
    assert g.table.team_of == (0, 1, 0, 1)
    assert len(g.table.deck) == 24 and len(set(g.table.deck)) == 24
    assert all(len(g.view(s).hand) == 6 for s in range(4))
    assert sorted(c for s in range(4) for c in g.view(s).hand) == sorted(g.table.deck)
    with pytest.raises(ValueError):
        Game("iowa", 5)


# ---------------------------------------------------------------- bidding

def test_one_circuit_from_the_dealers_left_each_bid_must_exceed():
    g = Game("iowa", seed=1, first_dealer=1)
    assert g.to_act == 2 and legal(g) == ["pass"] + BIDS
    act(g, "2: bid 2")
    assert legal(g) == ["pass"] + BIDS[2:]
    with pytest.raises(IllegalActionError):
        g.apply("bid 2")                       # must exceed the standing bid
    with pytest.raises(IllegalActionError):
        g.apply("bid 1")
    act(g, "3: pass")
    act(g, "0: bid 4")
    assert legal(g) == ["pass", "bid 5", "bid 6", "bid pepper"]
    act(g, "1: pass")                         # the dealer speaks last
    # One chance each: the auction is over, seat 2 does not bid again.
    assert g.phase == Phase.NAME_TRUMP and g.to_act == 0
    assert g.contract.bidder == 0 and g.contract.bid == "4" and g.contract.trump is None
    assert [b for _, b in g.view(3).bids] == ["bid 2", "pass", "bid 4", "pass"]


def test_no_suit_is_named_while_bidding():
    g = Game("iowa", seed=1, first_dealer=3)
    assert all(a.strain is None for a in g.legal_actions())
    with pytest.raises(ActionError):
        g.apply("bid 3 H")


def test_a_later_seat_can_outbid_and_wins_the_contract():
    g = Game("iowa", seed=1, first_dealer=3)
    act(g, "0: bid 1", "1: bid 2", "2: bid 3", "3: bid 5")
    assert g.phase == Phase.NAME_TRUMP and g.to_act == 3 and g.contract.bid == "5"


def test_pepper_ends_the_bidding():
    g = Game("iowa", seed=1, first_dealer=3)
    act(g, "0: bid 2", "1: bid pepper")
    assert g.phase == Phase.NAME_TRUMP and g.to_act == 1
    assert g.contract.bid == "pepper" and g.contract.alone and g.contract.tricks_needed == 6
    assert len(g.view(0).bids) == 2          # seats 2 and 3 never spoke


def test_winning_bidder_names_a_suit_or_no_trump():
    g = Game("iowa", seed=1, first_dealer=3)
    act(g, "0: pass", "1: bid 3", "2: pass", "3: pass")
    assert legal(g) == ["trump S", "trump H", "trump D", "trump C", "trump NT"]
    with pytest.raises(ActionError):
        g.apply("pass")
    act(g, "1: trump D")
    assert str(g.contract.trump) == "D" and g.view(0).contract.trump == g.contract.trump
    # Then the defenders (seat 2 first: left of the bidder) decide.
    assert g.phase == Phase.CEDE and g.to_act == 2


# --------------------------------------------------------- Pepper exchange

def _pepper(hands, dealer=3, bidder=0, strain="S"):
    g = new_game("iowa", 4, dealer, dict(hands=hands))
    for k in range(4):
        seat = (dealer + 1 + k) % 4
        act(g, f"{seat}: " + ("bid pepper" if seat == bidder else "pass"))
        if seat == bidder:
            break
    act(g, f"{bidder}: trump {strain}")
    return g


def test_pepper_exchange_order_and_secrecy():
    hands = {1: "JS AS KS QS 9H 9D", 3: "JC AH KH 10S 9S 9C"}
    g = _pepper(hands, dealer=0, bidder=1)
    # 1. The bidder chooses: exchange or play as dealt.
    assert g.phase == Phase.EXCHANGE and g.to_act == 1 and legal(g) == ["exchange yes", "exchange no"]
    act(g, "1: exchange yes")
    # 2. The partner (seat 3) chooses its card first.
    assert g.phase == Phase.GIVE_CARD and g.to_act == 3
    assert set(legal(g)) == {f"give {x}" for x in cards(hands[3])}
    act(g, "3: give JC")
    # 3. Then the bidder, who has not seen the partner's card.
    assert g.phase == Phase.GIVE_CARD and g.to_act == 1
    assert set(legal(g)) == {f"give {x}" for x in cards(hands[1])}
    v1 = g.view(1)
    assert "JC" not in json.dumps(v1.to_dict())
    assert sorted(str(x) for x in v1.hand) == sorted(cards(hands[1]))
    assert all(e.kind not in ("gave_card", "received_card") for e in seat_events(g, 1))
    assert priv(g.view(3)) == {"gave": cards("JC")}
    act(g, "1: give 9H")
    # 4. The swap: each receives the other's card.
    v1, v3 = g.view(1), g.view(3)
    assert sorted(str(x) for x in v1.hand) == sorted(cards("JS AS KS QS JC 9D"))
    assert sorted(str(x) for x in v3.hand) == sorted(cards("9H AH KH 10S 9S 9C"))
    assert priv(v1) == {"gave": cards("9H"), "received": cards("JC")}
    assert priv(v3) == {"gave": cards("JC"), "received": cards("9H")}
    # The defenders never learn either card.
    for d in (0, 2):
        assert g.view(d).private == {}
        assert all(e.kind not in ("gave_card", "received_card") for e in seat_events(g, d))
        assert all(e.data is None for e in seat_events(g, d) if e.kind == "give")
    # Public order of the Pepper hand: bids, trump, exchange, partner's card, bidder's card, then the cede question.
    kinds = [(e.kind, e.seat) for e in g.events if e.visible_to == -1 and e.kind in ("bid", "contract", "exchange", "give")]
    assert kinds == [("bid", 1), ("contract", 1), ("exchange", 1), ("give", 3), ("give", 1)]
    assert g.phase == Phase.CEDE and g.to_act == 2


def test_pepper_exchange_private_events_reach_only_their_seat():
    g = _pepper({0: "JS AS KS QS 9H 9D", 2: "JC AH KH 10S 9S 9C"})
    act(g, "0: exchange yes", "2: give JC", "0: give 9D")
    gave = [e for e in g.events if e.kind == "gave_card"]
    recv = [e for e in g.events if e.kind == "received_card"]
    assert {(e.seat, e.visible_to) for e in gave} == {(2, 2), (0, 0)}
    assert {(e.seat, e.visible_to) for e in recv} == {(0, 0), (2, 2)}
    # The bidder's gave_card is logged only after the partner chose.
    idx = {e.kind + str(e.seat): i for i, e in enumerate(g.events)}
    assert idx["gave_card2"] < idx["gave_card0"] < idx["received_card0"]


def test_pepper_play_as_dealt_skips_the_exchange():
    hands = {0: "JS AS KS QS 9H 9D", 2: "JC AH KH 10S 9S 9C"}
    g = _pepper(hands)
    act(g, "0: exchange no")
    assert g.phase == Phase.CEDE and g.to_act == 1
    assert sorted(str(x) for x in g.view(0).hand) == sorted(cards(hands[0]))
    assert sorted(str(x) for x in g.view(2).hand) == sorted(cards(hands[2]))
    assert not events_of(g, "give") and g.view(0).private == {}


def test_partner_sits_out_tricks_of_three_and_turns_skip_the_partner():
    g = _pepper(ALL6, strain="NT")
    act(g, "0: exchange no", "1: cede no")
    assert g.phase == Phase.PLAY and g.to_act == 0
    assert g.view(1).sitting_out == (2,)
    order = []
    while g.phase == Phase.PLAY:
        order.append(g.to_act)
        g.apply(g.legal_actions()[0])
    assert order == [0, 1, 3] * 6
    tricks = [e for e in g.events if e.kind == "trick"]
    assert len(tricks) == 6 and all(len(e.data[1]) == 3 for e in tricks)
    assert all(e.seat != 2 for e in g.events if e.kind == "play")
    d = g.deals[-1]
    assert d.tricks == (6, 0, 0, 0) and d.points == (12, -6)


def test_exchanged_cards_are_played_by_their_new_owner():
    hands = {0: "AS KS QS JS 10S 9H", 2: "9S AD KD QD JD 10D"}
    g = _pepper(hands, strain="NT")
    act(g, "0: exchange yes", "2: give 9S", "0: give 9H", "1: cede no")
    assert "9S" in [str(x) for x in g.view(0).hand] and "9H" in [str(x) for x in g.view(2).hand]
    while g.deal_number == 1:
        g.apply(g.legal_actions()[0])
    plays = [(e.seat, str(CARDS[e.data])) for e in events_of(g, "play")]
    assert (0, "9S") in plays and not any(card == "9H" for _, card in plays)   # 9H went to the partner, who sits out
    d = g.deals[-1]
    assert d.tricks == (6, 0, 0, 0) and d.points == (12, -6)


# ----------------------------------------------------------------- ceding

def _numeric(hands=SPLIT, bid="bid 3", dealer=3, bidder=0, strain="NT"):
    g = new_game("iowa", 4, dealer, dict(hands=hands))
    for k in range(4):
        seat = (dealer + 1 + k) % 4
        act(g, f"{seat}: " + (bid if seat == bidder else "pass"))
    act(g, f"{bidder}: trump {strain}")
    return g


def test_first_defender_plays_and_the_second_is_not_asked():
    g = _numeric()
    assert g.phase == Phase.CEDE and g.to_act == 1 and legal(g) == ["cede no", "cede yes"]
    act(g, "1: cede no")
    assert g.phase == Phase.PLAY and g.to_act == 0
    assert [(e.seat, e.data) for e in events_of(g, "cede")] == [(1, False)]


def test_first_defender_cedes_second_plays():
    g = _numeric()
    act(g, "1: cede yes")
    assert g.phase == Phase.CEDE and g.to_act == 3
    assert seat_events(g, 3)[-1].kind == "cede" and seat_events(g, 3)[-1].data is True   # sees the first answer
    act(g, "3: cede no")
    assert g.phase == Phase.PLAY and g.to_act == 0
    play_tricks(g, SPLIT_4_2)
    assert g.deals[-1].ceded is False and g.deals[-1].points == (4, 2)


def test_defenders_are_asked_from_the_bidders_left():
    g = _numeric(hands=rot(SPLIT, 2, 4), dealer=1, bidder=2)
    assert g.to_act == 3
    act(g, "3: cede yes")
    assert g.to_act == 1
    act(g, "1: cede no")
    assert g.phase == Phase.PLAY and g.to_act == 2


@pytest.mark.parametrize("bid", ["bid 1", "bid 3", "bid 6"])
def test_both_defenders_cede_numeric_bid_scores_six(bid):
    g = _numeric(bid=bid)
    act(g, "1: cede yes", "3: cede yes")
    d = g.deals[-1]
    assert d.ceded and d.points == (6, 0) and g.scores == [6, 0]
    assert d.tricks == (0, 0, 0, 0)
    assert not events_of(g, "play")
    assert g.deal_number == 2 and g.dealer == 0 and g.phase == Phase.BID


def test_both_defenders_cede_pepper_scores_twelve():
    g = _pepper(ALL6, bidder=0, strain="H")
    act(g, "0: exchange no", "1: cede yes", "3: cede yes")
    d = g.deals[-1]
    assert d.ceded and d.points == (12, 0) and d.contract.bid == "pepper"


def test_bidding_team_b_ceded_scores_for_team_b():
    g = Game("iowa", seed=8, first_dealer=0)
    act(g, "1: bid 2", "2: pass", "3: pass", "0: pass", "1: trump C", "2: cede yes", "0: cede yes")
    assert g.deals[-1].points == (0, 6)


# ---------------------------------------------------------------- scoring

def _played(hands, bid, script, strain="NT", alone=False):
    if alone:
        g = _pepper(hands, strain=strain)
        act(g, "0: exchange no", "1: cede no")
    else:
        g = _numeric(hands, bid, strain=strain)
        act(g, "1: cede no")
    play_tricks(g, script)
    return g.deals[-1]


def test_made_bid_scores_one_per_trick_and_defenders_their_tricks():
    d = _played(SPLIT, "bid 3", SPLIT_4_2)
    assert d.tricks == (4, 0, 0, 2)
    assert d.points == (4, 2) and d.scores == (4, 2)


def test_bid_exactly_made():
    d = _played(SPLIT, "bid 4", SPLIT_4_2)
    assert d.points == (4, 2)


def test_set_bid_loses_six_and_defenders_score_their_tricks():
    d = _played(SPLIT, "bid 5", SPLIT_4_2)
    assert d.points == (-6, 2)


def test_bid_six_made_scores_like_a_number():
    d = _played(ALL6, "bid 6", ALL6_PLAY)
    assert d.tricks == (6, 0, 0, 0)
    assert d.points == (6, -6)                # defenders with no trick lose 6


def test_bid_six_set_loses_six():
    d = _played(SPLIT, "bid 6", SPLIT_4_2)
    assert d.points == (-6, 2)


def test_defenders_with_zero_tricks_lose_six_on_a_numeric_bid():
    d = _played(ALL6, "bid 2", ALL6_PLAY)
    assert d.points == (6, -6)


def test_pepper_made_scores_twelve_and_defenders_with_no_trick_lose_six():
    d = _played(ALL6, None, ALL6_ALONE, alone=True)
    assert d.tricks == (6, 0, 0, 0)
    assert d.points == (12, -6) and not d.ceded


def test_pepper_failed_loses_twelve_and_defenders_score_their_tricks():
    d = _played(FIVE_ONE, None, FIVE_ONE_ALONE, alone=True)
    assert d.tricks == (5, 1, 0, 0)
    assert d.points == (-12, 1)


def test_scores_accumulate_over_deals_and_the_deal_passes_left():
    g = new_game("iowa", 4, 3, dict(hands=SPLIT), dict(hands=rot(SPLIT, 1, 4)))
    act(g, "0: bid 3", "1: pass", "2: pass", "3: pass", "0: trump NT", "1: cede no")
    assert play_tricks(g, SPLIT_4_2) == SPLIT_4_2_WINNERS
    assert g.dealer == 0 and g.to_act == 1
    act(g, "1: bid 5", "2: pass", "3: pass", "0: pass", "1: trump NT", "2: cede no")
    # The same deal one seat to the left: seat 1 is the bidder, takes 4 of 5.
    play_tricks(g, SPLIT_4_2)
    assert g.deals[-1].points == (2, -6)
    assert g.scores == [6, -4] and g.deals[-1].scores == (6, -4)


# ---------------------------------------------------------------- game end

def _cede_pepper_for_team_a(g):
    while g.to_act % 2 != 0:
        g.apply("pass")
    act(g, "bid pepper", "trump S", "exchange no", "cede yes", "cede yes")


def test_game_ends_when_a_team_reaches_42():
    g = Game("iowa", seed=3, first_dealer=0)
    for _ in range(3):
        _cede_pepper_for_team_a(g)
    assert g.scores == [36, 0] and not g.is_over
    # A ceded numeric bid: +6 reaches exactly 42.
    while g.to_act % 2 != 0:
        g.apply("pass")
    act(g, "bid 1")
    while g.phase == Phase.BID:
        g.apply("pass")
    act(g, "trump H", "cede yes", "cede yes")
    assert g.scores == [42, 0]
    assert g.is_over and g.outcome.winners == (0,) and g.outcome.winning_seats == (0, 2)
    assert g.outcome.reason == "target" and g.outcome.deals == 4 and not g.outcome.draw


def _final_split(scores, bidder=0):
    """Team A (or B, bidder 1) bids 3 in no-trump and takes 4 tricks, the others 2."""
    hands = SPLIT if bidder == 0 else rot(SPLIT, 1, 4)
    g = new_game("iowa", 4, (bidder + 3) % 4, dict(hands=hands))
    # Artificial start: the scores before this last deal, as if earned earlier.
    g.scores[:] = scores
    b = bidder
    act(g, f"{b}: bid 3", f"{(b + 1) % 4}: pass", f"{(b + 2) % 4}: pass", f"{(b + 3) % 4}: pass",
        f"{b}: trump NT", f"{(b + 1) % 4}: cede no")
    play_tricks(g, SPLIT_4_2)
    return g


def test_both_reach_42_higher_score_wins_even_against_the_bidder():
    g = _final_split([38, 41])               # A +4 -> 42, B +2 -> 43
    assert g.scores == [42, 43]
    assert g.is_over and g.outcome.winners == (1,) and g.outcome.winning_seats == (1, 3)


def test_both_reach_42_higher_score_wins():
    g = _final_split([39, 40])               # A 43, B 42
    assert g.outcome.winners == (0,)


def test_both_reach_42_equal_scores_last_deals_bidding_team_wins():
    g = _final_split([38, 40])               # A 42, B 42, A bid
    assert g.scores == [42, 42] and g.outcome.winners == (0,) and not g.outcome.draw
    g = _final_split([40, 38], bidder=1)     # B bid this time: B 42, A 42
    assert g.scores == [42, 42] and g.outcome.winners == (1,)


def test_only_one_team_reaching_42_wins_even_if_lower_than_before():
    g = _final_split([10, 40])               # A 14, B 42
    assert g.is_over and g.outcome.winners == (1,)


def test_record_replays_a_pepper_hand_exactly():
    g = _pepper({0: "JS AS KS QS 9H 9D", 2: "JC AH KH 10S 9S 9C"})
    act(g, "0: exchange yes", "2: give JC", "0: give 9D", "1: cede no")
    while g.deal_number == 1:
        g.apply(g.legal_actions()[0])
    again = Game.from_record(g.record())
    assert again.history == g.history and again.deals == g.deals
