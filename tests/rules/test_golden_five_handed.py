"""Golden scenarios for the ``five-handed`` ruleset (docs/rules.md, "`five-handed`").

5 players scoring alone, three J-A decks, a 3-card widow, the partner called by
card, Pepper and Moon Shot, and a game only the bidder can win at 51.
Dealer 4 everywhere, so seat 0 bids first.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from scenario import act, cards, events_of, new_game, play_tricks, seat_events

from referee.rules import CARDS, ActionError, Game, IllegalActionError, Phase


def legal(g):
    return [str(a) for a in g.legal_actions()]


def hand(g, seat):
    return sorted(str(x) for x in g.view(seat).hand)


def priv(view):
    return {k: sorted(str(x) for x in v) for k, v in view.private.items()}


def start(hands, widow, bid="bid 5", strain="S", discards=None):
    """Seat 0 wins the auction with ``bid``, names ``strain`` and discards ``discards`` (default: the widow)."""
    g = new_game("five-handed", 5, 4, dict(hands=hands, widow=widow))
    act(g, f"0: {bid}")
    while g.phase == Phase.BID:
        g.apply("pass")
    act(g, f"0: trump {strain}")
    if bid != "bid moon-shot":
        for x in cards(widow if discards is None else discards):
            act(g, f"0: discard {x}")
    assert g.phase == Phase.PLAY and g.to_act == 0
    return g


# ------------------------------------------------------------------ table & bidding

def test_table_five_individual_players_three_j_to_a_decks_nine_each_and_a_widow():
    g = Game("five-handed", seed=1)
    assert g.players == 5 and g.table.team_of == (0, 1, 2, 3, 4) and g.table.teams == 5
    counts = Counter(str(CARDS[c]) for c in g.table.deck)
    assert len(g.table.deck) == 48 and set(counts.values()) == {3}
    assert set(counts) == {r + s for r in ("J", "Q", "K", "A") for s in "SHDC"}
    assert all(len(g.view(s).hand) == 9 for s in range(5)) and len(g.full_state()["widow"]) == 3


def test_bids_three_to_nine_then_pepper_then_moon_shot_no_suit_named():
    g = Game("five-handed", seed=1, first_dealer=4)
    assert legal(g) == ["pass"] + [f"bid {k}" for k in range(3, 10)] + ["bid pepper", "bid moon-shot"]
    for bad in ("bid 2", "bid 10"):
        with pytest.raises(ActionError):
            g.apply(bad)
    with pytest.raises(ActionError):
        g.apply("bid 4 S")
    act(g, "0: bid 4")
    with pytest.raises(IllegalActionError):
        g.apply("bid 4")
    act(g, "1: bid 9", "2: bid pepper")
    assert legal(g) == ["pass", "bid moon-shot"]           # Pepper does not end the bidding
    act(g, "3: pass", "4: pass")                            # one circuit, ending with the dealer
    assert g.phase == Phase.NAME_TRUMP and g.to_act == 2 and g.contract.bid == "pepper"
    assert legal(g) == ["trump S", "trump H", "trump D", "trump C", "trump NT"]


def test_moon_shot_ends_the_bidding():
    g = Game("five-handed", seed=1, first_dealer=4)
    act(g, "0: bid 3", "1: bid moon-shot")
    assert g.phase == Phase.NAME_TRUMP and g.to_act == 1 and g.contract.bid == "moon-shot"
    assert g.contract.alone and g.contract.tricks_needed == 9


# ------------------------------------------------------------------ widow

def test_widow_taken_by_the_bidder_who_discards_three_and_nobody_else_sees_it():
    widow = "AH AH QD"
    g = new_game("five-handed", 5, 4, dict(hands={0: "JS JS AS KS QS QS QS KH KH"}, widow=widow))
    # Before: nobody, the bidder included, has seen the widow.
    act(g, "0: bid 5", "1: pass", "2: pass", "3: pass", "4: pass")
    for s in range(5):
        assert g.view(s).private == {} and all(e.kind != "widow" for e in seat_events(g, s))
    before = {s: hand(g, s) for s in range(1, 5)}
    act(g, "0: trump S")
    # Taken into the bidder's hand: 12 cards, and the bidder alone sees which.
    assert g.phase == Phase.DISCARD and g.to_act == 0 and len(g.view(0).hand) == 12
    assert priv(g.view(0)) == {"widow": sorted(cards(widow))}
    assert [e.data for e in seat_events(g, 0) if e.kind == "widow"] and all(
        e.kind != "widow" for s in range(1, 5) for e in seat_events(g, s))
    act(g, "0: discard KH", "0: discard QD")
    assert g.phase == Phase.DISCARD                    # three discards
    act(g, "0: discard QS")
    assert g.phase == Phase.PLAY and len(g.view(0).hand) == 9
    assert priv(g.view(0)) == {"widow": sorted(cards(widow)), "discards": sorted(cards("KH QD QS"))}
    # After: the others' views and event streams still hold nothing of the widow or the discards.
    for s in range(1, 5):
        v = g.view(s)
        assert v.private == {} and hand(g, s) == before[s]
        assert all(e.kind not in ("widow", "discarded_card") for e in seat_events(g, s))
        assert all(e.data is None for e in seat_events(g, s) if e.kind == "discard")
    assert len(events_of(g, "discard")) == 3


def test_moon_shot_takes_no_widow():
    g = start({0: "AS AS AS KS KS KS QS QS QH"}, "QD QD QD", bid="bid moon-shot")
    assert hand(g, 0) == sorted(cards("AS AS AS KS KS KS QS QS QH"))
    assert not events_of(g, "widow") and g.view(0).private == {}


# ------------------------------------------------------------------ forced lead of trump

def test_bidder_must_lead_a_trump_to_the_first_trick_in_a_trump_contract():
    g = start({0: "JS JS QS QS", 1: "KS KS KS", 3: "JS AS AS", 4: "JC JC JC AS QS"}, "AH AH AH")
    assert set(legal(g)) == {"play JS", "play QS"}
    with pytest.raises(IllegalActionError):
        g.apply(next(f"play {x}" for x in hand(g, 0) if x[-1] != "S"))


def test_the_left_bower_counts_as_a_trump_for_the_forced_lead():
    g = start({0: "JC AH AH AH KH KH KH QH QH", 1: "JS JS JS"}, "AD AD AD")
    assert legal(g) == ["play JC"]


def test_no_forced_lead_when_the_bidder_holds_no_trump():
    g = start({0: "AS AS AS KS KS KS QS QS QS", 1: "JH JS", 2: "JH", 4: "JH", 3: "JS JS"}, "AC AC AC", strain="H")
    assert set(legal(g)) == {"play AS", "play KS", "play QS"}
    act(g, "0: play AS")
    assert str(g.view(1).partner_card) == "JH"
    # The partner card is only forced on a holder who must follow its suit:
    assert legal(g) == ["play JS"]                  # seat 1 follows spades, so its JH may not be played
    act(g, "1: play JS")
    assert len(legal(g)) == len(set(hand(g, 2)))   # seat 2 is void in spades: any card, not only its JH


@pytest.mark.parametrize("bid,strain", [("bid 5", "NT"), ("bid pepper", "S"), ("bid moon-shot", "S")])
def test_no_forced_lead_in_no_trump_pepper_or_moon_shot(bid, strain):
    g = start({0: "AS AS AS KS KS KS QS QS QH"}, "QD QD QD", bid=bid, strain=strain)
    assert set(legal(g)) == {"play AS", "play KS", "play QS", "play QH"}


def test_forced_lead_only_on_the_first_trick():
    g = start({0: "JS JS JS JC JC JC AS AS AH"}, "AD AD AD")
    act(g, "0: play JS")
    for _ in range(4):
        g.apply(g.legal_actions()[0])
    assert g.to_act == 0                            # the bidder's JS won; it leads again
    assert "play AH" in legal(g)


# ------------------------------------------------------------------ partner card

def test_partner_card_right_bower_forced_on_its_holder_who_becomes_partner():
    g = start({0: "JS JS QS QS", 1: "KS KS KS", 3: "JS AS AS", 4: "JC JC JC AS QS"}, "AH AH AH")
    assert g.view(2).partner_card is None           # fixed only when the bidder leads
    act(g, "0: play QS")
    assert all(str(g.view(s).partner_card) == "JS" for s in range(5))
    assert legal(g) == ["play KS"]                   # seat 1 just follows trump
    act(g, "1: play KS")
    g.apply(g.legal_actions()[0])                    # seat 2 holds no trump
    assert legal(g) == ["play JS"]                   # seat 3 may not play a lower trump to avoid partnering
    act(g, "3: play JS")
    assert g.view(0).partner == 3
    assert set(legal(g)) == {"play JC", "play AS", "play QS"}   # seat 4: partner known, nothing forced
    act(g, "4: play QS")
    assert g.view(0).tricks[-1][2] == 3
    assert [(e.seat, str(CARDS[e.data])) for e in events_of(g, "partner")] == [(3, "JS")]


def test_first_other_player_to_play_a_copy_is_the_partner_a_later_copy_changes_nothing():
    g = start({0: "JS QS QS QS", 1: "JS KS KS", 3: "JS AS KS", 4: "JC JC JC AS AS"}, "AH AH AH")
    act(g, "0: play QS")
    assert legal(g) == ["play JS"]
    act(g, "1: play JS")
    g.apply(g.legal_actions()[0])
    assert set(legal(g)) == {"play JS", "play AS", "play KS"}   # seat 3 no longer forced
    act(g, "3: play AS", "4: play JC")
    assert g.view(0).tricks[-1][2] == 1 and g.to_act == 1
    act(g, "1: play KS")
    g.apply(g.legal_actions()[0])
    act(g, "3: play JS")                              # a second copy of the partner card
    act(g, "4: play AS", "0: play QS")
    assert g.view(2).partner == 1
    assert len(events_of(g, "partner")) == 1
    while not g.deals:
        g.apply(g.legal_actions()[0])
    assert g.deals[-1].partner == 1


def test_left_bower_is_called_when_the_bidder_holds_all_three_right_bowers_counting_discards():
    g = start({0: "JS JS QS QS", 1: "KS KS KS", 3: "JC AS AS", 4: "JC JC AS QS"}, "JS AH AH")
    assert priv(g.view(0))["discards"] == ["AH", "AH", "JS"]
    act(g, "0: play QS")
    assert str(g.view(1).partner_card) == "JC"
    act(g, "1: play KS")
    g.apply(g.legal_actions()[0])
    assert legal(g) == ["play JC"]
    act(g, "3: play JC")
    assert g.view(0).partner == 3


def test_ace_is_called_when_the_bidder_holds_all_right_and_left_bowers():
    g = start({0: "JS JS JS JC JC", 1: "AS KS KS", 3: "AS AS KS", 4: "QS QS QS"}, "JC AH AH")
    act(g, "0: play JC")
    assert str(g.view(1).partner_card) == "AS"
    assert legal(g) == ["play AS"]
    act(g, "1: play AS")
    assert g.view(0).partner == 1


def test_no_trump_partner_card_is_the_highest_rank_of_the_suit_led_held_by_another():
    g = start({0: "AH AH KH", 1: "KH QH QH", 2: "KH"}, "AH QD QD", strain="NT")
    assert set(legal(g)) == {f"play {x}" for x in set(hand(g, 0))}   # no forced lead in no-trump
    act(g, "0: play KH")
    assert str(g.view(3).partner_card) == "KH"       # every AH is the bidder's (one discarded)
    assert legal(g) == ["play KH"]
    act(g, "1: play KH")
    assert g.view(0).partner == 1
    assert "play KH" in legal(g)                      # seat 2 may play its KH or another heart
    g.apply(g.legal_actions()[0])
    g.apply(g.legal_actions()[0])
    g.apply(g.legal_actions()[0])
    assert g.view(0).tricks[-1][2] == 0               # the bidder's KH was played first


def test_no_trump_no_partner_when_nobody_else_holds_a_qualifying_card():
    g = start({0: "AS AS AS KS KS KS QS QS QS"}, "JS JS JS", bid="bid 9", strain="NT")
    act(g, "0: play AS")
    assert g.view(1).partner_card is None and g.view(1).partner is None
    assert [e.data for e in events_of(g, "partner_card")] == [None]
    while not g.deals:
        g.apply(g.legal_actions()[0])
    d = g.deals[-1]
    assert d.partner is None and d.tricks == (9, 0, 0, 0, 0)
    assert d.points == (9, 0, 0, 0, 0)


# ------------------------------------------------------------------ scoring

# No-trump. Seat 0 (bidder) runs five spades, calls the AS held by seat 2, which
# must play it (partner). Seat 2 then wins a heart, seat 1 the last three diamonds.
BASE = {0: "AS AS KS KS KS JH JC JC JC", 1: "AD AD AD KD KD JD JD JD AC", 2: "AS QS QS QS JS JS JS AH KD",
        3: "AH AH KH KH KH QH QH QH JH", 4: "JH AC AC KC KC KC QC QC QC"}
BASE_WIDOW = "QD QD QD"
BASE_PLAY = ("AS JD AS KH KC / AS JD QS KH KC / KS JD QS KH KC / KS KD QS QH QC / KS KD JS QH QC / "
             "JH AC AH AH JH / KD AH AC JC AD / AD JS QH AC JC / AD JS JH QC JC")
BASE_WINNERS = [0, 0, 0, 0, 0, 2, 1, 1, 1]


def _base(bid):
    g = start(BASE, BASE_WIDOW, bid=bid, strain="NT")
    assert play_tricks(g, BASE_PLAY) == BASE_WINNERS
    return g


def test_made_bidder_and_partner_score_the_side_tricks_defenders_theirs():
    g = _base("bid 5")
    d = g.deals[-1]
    assert d.partner == 2 and d.tricks == (5, 3, 1, 0, 0)
    assert d.points == (6, 3, 6, 3, 3) and g.scores == [6, 3, 6, 3, 3]


def test_failed_bidder_and_partner_lose_the_bid_defenders_score_their_tricks():
    d = _base("bid 7").deals[-1]
    assert d.points == (-7, 3, -7, 3, 3)


def test_bid_exactly_made():
    d = _base("bid 6").deals[-1]
    assert d.points == (6, 3, 6, 3, 3)


# No-trump, alone: eight spade tricks, then the QH loses to seat 1's AH.
ALONE_8 = {0: "AS AS AS KS KS KS QS QS QH", 1: "JD JD JD KH KH KH AH AH AH", 2: "JS JS JS QS QH QH JH JH JH",
           3: "KD KD KD AC AC AC AD AD AD", 4: "JC JC JC QC QC QC KC KC KC"}
ALONE_8_PLAY = ("AS JD JS KD JC / AS JD JS KD JC / AS JD JS KD JC / KS KH QS AC QC / KS KH QH AC QC / "
                "KS KH QH AC QC / QS AH JH AD KC / QS AH JH AD KC / QH AH JH AD KC")
ALONE_9 = {0: "AS AS AS KS KS KS QS QS QS", 1: "JD JD JD KH KH KH AH AH AH", 2: "JS JS JS QH QH QH JH JH JH",
           3: "KD KD KD AC AC AC AD AD AD", 4: "JC JC JC QC QC QC KC KC KC"}


@pytest.mark.parametrize("bid,value", [("bid pepper", 12), ("bid moon-shot", 18)])
def test_pepper_and_moon_shot_made_others_score_zero(bid, value):
    g = start(ALONE_9, "QD QD QD", bid=bid, strain="NT")
    assert g.view(1).sitting_out == ()               # everyone plays: alone against the other four
    while not g.deals:
        g.apply(g.legal_actions()[0])
    d = g.deals[-1]
    assert d.tricks == (9, 0, 0, 0, 0) and d.partner is None
    assert d.points == (value, 0, 0, 0, 0)
    assert not events_of(g, "partner_card")


@pytest.mark.parametrize("bid,value", [("bid pepper", 12), ("bid moon-shot", 18)])
def test_pepper_and_moon_shot_failed_others_each_score_the_tricks_they_took_between_them(bid, value):
    g = start(ALONE_8, "QD QD QD", bid=bid, strain="NT")
    assert play_tricks(g, ALONE_8_PLAY) == [0] * 8 + [1]
    d = g.deals[-1]
    assert d.tricks == (8, 1, 0, 0, 0)
    assert d.points == (-value, 1, 1, 1, 1)


def test_pepper_takes_the_widow_and_discards_three():
    g = new_game("five-handed", 5, 4, dict(hands=ALONE_9, widow="QD QD QD"))
    act(g, "0: bid pepper", "1: pass", "2: pass", "3: pass", "4: pass", "0: trump NT")
    assert g.phase == Phase.DISCARD and len(g.view(0).hand) == 12


# ------------------------------------------------------------------ game end

def _final(scores, bid):
    g = start(BASE, BASE_WIDOW, bid=bid, strain="NT")
    g.scores[:] = scores   # artificial: scores earned in earlier deals
    assert play_tricks(g, BASE_PLAY) == BASE_WINNERS
    return g


def test_the_bidder_reaching_51_wins():
    g = _final([45, 0, 0, 0, 0], "bid 5")
    assert g.scores == [51, 3, 6, 3, 3]
    assert g.is_over and g.outcome.winners == (0,) and g.outcome.winning_seats == (0,) and g.outcome.reason == "target"


def test_the_partner_reaching_51_does_not_end_the_game():
    g = _final([0, 0, 45, 0, 0], "bid 5")
    assert g.scores == [6, 3, 51, 3, 3] and not g.is_over and g.deal_number == 2


def test_a_defender_reaching_51_does_not_end_the_game_nor_does_a_thrown_in_hand():
    g = _final([0, 48, 0, 0, 0], "bid 5")
    assert g.scores[1] == 51 and not g.is_over
    for _ in range(5):
        g.apply("pass")
    assert g.deals[-1].thrown_in and not g.is_over and g.deal_number == 3


def test_the_bidder_finishing_with_51_wins_even_when_the_contract_failed():
    g = _final([58, 0, 0, 0, 0], "bid 7")
    assert g.scores == [51, 3, -7, 3, 3]
    assert g.is_over and g.outcome.winners == (0,)


def test_the_bidder_dropping_below_51_does_not_win():
    g = _final([55, 0, 0, 0, 0], "bid 7")
    assert g.scores[0] == 48 and not g.is_over


def test_only_the_bidder_wins_even_if_another_player_has_more():
    g = _final([45, 50, 0, 0, 0], "bid 5")
    assert g.scores == [51, 53, 6, 3, 3]
    assert g.outcome.winners == (0,) and g.outcome.winning_seats == (0,)


def test_views_never_show_other_hands_or_the_widow_during_a_five_handed_deal():
    g = start(BASE, BASE_WIDOW, bid="bid 5", strain="NT")
    for s in range(1, 5):
        text = json.dumps(g.view(s).to_dict())
        assert '"QD"' not in text                     # the widow (all three QD) went to the bidder's discards
