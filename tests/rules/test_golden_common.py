"""Golden scenarios for the rules common to every ruleset (docs/rules.md, "Common rules").

Cards and actions, trump and no-trump ranking (the left bower is a trump and not
a card of its printed suit), trick winners, the deal, pass-outs, the
dealer-must-bid variant, the deal cap, and the typed errors.
"""

from __future__ import annotations

import pytest
from scenario import ALL6, SPLIT, SPLIT_3_3, SPLIT_4_2, act, build_deck, cards, events_of, new_game, play_tricks

from referee.rules import (
    ACTIONS,
    BUILTIN_RULESETS,
    CARDS,
    Action,
    ActionError,
    ActionKind,
    Card,
    Game,
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    Phase,
    Strain,
    effective_suit,
    legal_plays,
    load_ruleset_file,
    trick_winner_index,
)

S, H, D, C, NT = 0, 1, 2, 3, 4


def c(text):
    return Card.parse(text)


def winner(trick: str, trump: int) -> str:
    played = [c(x) for x in trick.split()]
    return str(played[trick_winner_index(played, trump)])


# ---------------------------------------------------------------- cards, actions

def test_card_parse_format_round_trip_for_every_card():
    assert len(CARDS) == 24
    texts = [str(x) for x in CARDS]
    assert len(set(texts)) == 24
    for x in CARDS:
        assert Card.parse(str(x)) is x
        assert Card.parse(str(x).lower()) is x
        assert f"{x}" == str(x)
    assert {t[-1] for t in texts} == set("SHDC")
    assert {t[:-1] for t in texts} == {"9", "10", "J", "Q", "K", "A"}


def test_card_parse_accepts_ten_spellings_and_spaces():
    assert str(Card.parse("10S")) == "10S"
    assert Card.parse("TS") is Card.parse("10s") is Card.parse(" 10S ")
    assert str(Card.parse("jd")) == "JD"
    assert repr(Card.parse("AH")) == "Card('AH')"


@pytest.mark.parametrize("bad", ["", "A", "S", "1S", "11H", "JX", "2C", "8D", "AHH", "10"])
def test_card_parse_rejects_non_cards(bad):
    with pytest.raises(ValueError):
        Card.parse(bad)


def test_card_suit_and_rank_and_colours():
    assert c("JH").suit.symbol == "H" and str(c("JH").rank) == "J"
    # Spades and clubs are black, hearts and diamonds red: the same-colour suit.
    from referee.rules import Suit
    assert Suit.SPADES.same_colour is Suit.CLUBS and Suit.CLUBS.same_colour is Suit.SPADES
    assert Suit.HEARTS.same_colour is Suit.DIAMONDS and Suit.DIAMONDS.same_colour is Suit.HEARTS


def test_action_parse_format_round_trip_for_every_action():
    seen = set()
    for a in ACTIONS:
        text = str(a)
        assert text not in seen
        seen.add(text)
        assert Action.parse(text) is a
        assert Action.parse("  " + text.upper().replace(" ", "   ") + " ") is a
        assert f"{a}" == text


@pytest.mark.parametrize("text,kind,detail", [
    ("pass", ActionKind.PASS, None),
    ("bid 3", ActionKind.BID, ("3", None)),
    ("bid 4 H", ActionKind.BID, ("4", Strain.HEARTS)),
    ("bid pepper NT", ActionKind.BID, ("pepper", Strain.NO_TRUMP)),
    ("bid double-pepper s", ActionKind.BID, ("double-pepper", Strain.SPADES)),
    ("trump S", ActionKind.TRUMP, Strain.SPADES),
    ("trump NT", ActionKind.TRUMP, Strain.NO_TRUMP),
    ("exchange yes", ActionKind.EXCHANGE, True),
    ("exchange no", ActionKind.EXCHANGE, False),
    ("give JH", ActionKind.GIVE, "JH"),
    ("give none", ActionKind.GIVE, None),
    ("discard 10S", ActionKind.DISCARD, "10S"),
    ("cede yes", ActionKind.CEDE, True),
    ("cede no", ActionKind.CEDE, False),
    ("play JH", ActionKind.PLAY, "JH"),
])
def test_action_parse_fields(text, kind, detail):
    a = Action.parse(text)
    assert a.kind is kind
    assert Action.parse(str(a)) is a
    if kind is ActionKind.BID:
        assert (a.bid_name, a.strain) == detail
    elif kind is ActionKind.TRUMP:
        assert a.strain == detail
    elif kind in (ActionKind.EXCHANGE, ActionKind.CEDE):
        assert a.yes is detail
    elif kind in (ActionKind.GIVE, ActionKind.DISCARD, ActionKind.PLAY):
        assert (None if a.card is None else str(a.card)) == detail


@pytest.mark.parametrize("bad", ["", "dance", "bid", "bid 3 X", "bid 99", "play", "play ZZ", "play JH JD",
                                 "trump X", "trump", "exchange maybe", "cede", "give", "pass 3", "discard none"])
def test_action_parse_rejects_non_actions(bad):
    with pytest.raises(ValueError):
        Action.parse(bad)


# ------------------------------------------------------------- ranking, tricks

def test_trump_ranking_right_bower_left_bower_then_a_k_q_10_9():
    order = ["JH", "JD", "AH", "KH", "QH", "10H", "9H"]   # hearts trump: high to low
    for i, hi in enumerate(order):
        for lo in order[i + 1:]:
            assert winner(f"{lo} {hi}", H) == hi
            assert winner(f"{hi} {lo}", H) == hi
    order_s = ["JS", "JC", "AS", "KS", "QS", "10S", "9S"]   # spades trump: Jack of clubs is the Jick
    for i, hi in enumerate(order_s):
        for lo in order_s[i + 1:]:
            assert winner(f"{lo} {hi}", S) == hi


def test_no_trump_ranking_a_k_q_j_10_9_and_no_bowers():
    for suit in "SHDC":
        order = [r + suit for r in ("A", "K", "Q", "J", "10", "9")]
        for i, hi in enumerate(order):
            for lo in order[i + 1:]:
                assert winner(f"{lo} {hi}", NT) == hi
    # Without trump the Jacks are plain cards of their printed suit.
    assert effective_suit(c("JD"), NT) == D and effective_suit(c("JH"), NT) == H
    assert winner("10H JD", NT) == "10H"       # JD is a diamond, not a heart
    assert winner("QH JH", NT) == "QH"         # no right bower either


def test_left_bower_is_a_trump_and_not_its_printed_suit():
    assert effective_suit(c("JD"), H) == H     # hearts trump: JD is a trump
    assert effective_suit(c("JD"), D) == D     # diamonds trump: JD is the right bower
    assert effective_suit(c("JD"), S) == D     # black trump: JD is a plain diamond
    assert effective_suit(c("JC"), S) == S and effective_suit(c("JS"), C) == C
    # A diamond lead with hearts trump: the JD wins as a trump, over the AD.
    assert winner("AD JD", H) == "JD"
    # The JD does not count as a diamond lead card's suit: a diamond led, JD
    # played, then AH (trump) by another: AH loses to the left bower.
    assert winner("9D JD AH", H) == "JD"
    # When the JD is led, the suit led is trump: the AD cannot win.
    assert winner("JD AD", H) == "JD"
    assert winner("JD 9H", H) == "JD"
    assert winner("JD JH", H) == "JH"


def test_left_bower_follows_trump_and_cannot_follow_its_printed_suit():
    # Holding only the left bower of the led printed suit: void in it, any card may be played.
    hand = [c("JD"), c("AS"), c("9C")]
    assert sorted(legal_plays(hand, c("AD"), H)) == sorted(hand)
    # Holding real diamonds too: must follow with them, and the JD is not one of them.
    hand = [c("JD"), c("10D"), c("AS")]
    assert legal_plays(hand, c("AD"), H) == [c("10D")]
    # Trump led: the left bower is the only trump, so it must be played.
    hand = [c("JD"), c("AD"), c("AS")]
    assert legal_plays(hand, c("9H"), H) == [c("JD")]
    # In no-trump the JD is a diamond again.
    assert legal_plays([c("JD"), c("AS")], c("AD"), NT) == [c("JD")]
    assert legal_plays([c("JD"), c("AS")], c("9H"), NT) == [c("JD"), c("AS")]


def test_highest_trump_wins_else_highest_of_suit_led_other_suits_never_win():
    assert winner("9H AS AD AC", S) == "AS"          # lowest trump... here AS is the only trump
    assert winner("AD 9S KD", S) == "9S"             # a 9 of trump beats the Ace led
    assert winner("9H AS AD AC", NT) == "9H"         # nobody followed: the led 9 wins
    assert winner("9H AS 10H AC", NT) == "10H"
    assert winner("KC AD AH AS", H) == "AH"
    assert winner("KC AD QC AS", H) == "KC"          # off-suit Aces never win


def test_identical_cards_the_one_played_first_ranks_higher():
    assert trick_winner_index([c("AS"), c("AS")], NT) == 0
    assert trick_winner_index([c("KS"), c("AS"), c("AS")], NT) == 1
    assert trick_winner_index([c("QS"), c("JS"), c("KS"), c("JS")], S) == 1
    assert trick_winner_index([c("QS"), c("JC"), c("JC"), c("JS")], S) == 3


# ----------------------------------------------------------- in-game scenarios

def _iowa_bid1(hands, strain, dealer=3, bidder=0):
    g = new_game("iowa", 4, dealer, dict(hands=hands))
    for k in range(4):
        seat = (dealer + 1 + k) % 4
        act(g, f"{seat}: " + ("bid 1" if seat == bidder else "pass"))
    act(g, f"{bidder}: trump {strain}")
    act(g, f"{(bidder + 1) % 4}: cede no")
    assert g.phase == Phase.PLAY and g.to_act == bidder   # the winning bidder leads the first trick
    return g


def test_in_game_left_bower_holder_is_void_in_its_printed_suit_and_wins_as_trump():
    hands = {0: "AD KD QD AS KS QS", 1: "JD JS 10S 9S AC KC", 2: "10D 9D AH KH QH 10H", 3: "JH 9H QC JC 10C 9C"}
    g = _iowa_bid1(hands, "H")
    act(g, "0: play AD")
    # Seat 1's only "diamond" is the JD, a trump: it is void in diamonds and may play anything.
    assert {str(a) for a in g.legal_actions()} == {f"play {x}" for x in cards(hands[1])}
    act(g, "1: play JD")
    assert {str(a) for a in g.legal_actions()} == {"play 10D", "play 9D"}   # seat 2 must follow diamonds
    with pytest.raises(IllegalActionError):
        g.apply("play AH")
    act(g, "2: play 9D")
    assert {str(a) for a in g.legal_actions()} == {f"play {x}" for x in cards(hands[3])}   # void in diamonds
    act(g, "3: play 9C")
    assert g.view(0).tricks[-1][2] == 1       # the left bower won as a trump over the AD
    assert g.to_act == 1                      # the trick winner leads the next trick
    assert g.view(2).tricks_won == (0, 1, 0, 0)


def test_in_game_left_bower_must_follow_trump_and_ranks_below_the_right_bower():
    hands = {0: "AH AD KD QD AS KS", 1: "JD JS 10S 9S AC KC", 2: "10D 9D KH QH 10H 9H", 3: "JH QS QC JC 10C 9C"}
    g = _iowa_bid1(hands, "H")
    act(g, "0: play AH")
    assert [str(a) for a in g.legal_actions()] == ["play JD"]   # its only trump is the left bower
    act(g, "1: play JD")
    assert {str(a) for a in g.legal_actions()} == {"play KH", "play QH", "play 10H", "play 9H"}
    act(g, "2: play 9H")
    assert [str(a) for a in g.legal_actions()] == ["play JH"]
    act(g, "3: play JH")
    assert g.view(1).tricks[-1][2] == 3       # right bower > left bower > Ace
    assert g.to_act == 3


def test_in_game_no_trump_has_no_bowers_and_jacks_follow_their_printed_suit():
    hands = {0: "10H AS KS QS 9S 10S", 1: "9H JD AD KD QD 10D", 2: "JS AC KC QC JC 10C", 3: "JH AH KH QH 9C 9D"}
    g = _iowa_bid1(hands, "NT")
    act(g, "0: play 10H")
    assert [str(a) for a in g.legal_actions()] == ["play 9H"]   # JD is a diamond in no-trump
    act(g, "1: play 9H")
    assert len(g.legal_actions()) == 6                          # seat 2 has no heart
    act(g, "2: play JS")
    assert {str(a) for a in g.legal_actions()} == {"play JH", "play AH", "play KH", "play QH"}
    act(g, "3: play JH")
    assert g.view(0).tricks[-1][2] == 3       # J beats 10 of the suit led; JS off-suit never wins
    act(g, "3: play 9D")
    act(g, "0: play AS")                      # void in diamonds
    act(g, "1: play 10D")
    act(g, "2: play AC")
    assert g.view(0).tricks[-1][2] == 1       # the 10D beats the led 9D; the Aces are off-suit


def test_trick_winner_leads_and_the_deal_ends_after_hand_size_tricks():
    g = _iowa_bid1(SPLIT, "NT")
    assert play_tricks(g, SPLIT_3_3) == [0, 0, 0, 3, 3, 3]
    d = g.deals[-1]
    assert d.tricks == (3, 0, 0, 3)
    assert d.contract.bidder == 0 and str(d.contract.trump) == "NT"


# ------------------------------------------------------------------- the deal

def test_deal_one_card_at_a_time_clockwise_from_the_dealers_left():
    deck = list(BUILTIN_RULESETS["iowa"].table(4).deck)
    deck = deck[::-1]   # any fixed order
    g = Game("iowa", 4, decks=[deck], first_dealer=2)
    for i in range(4):
        seat = (2 + 1 + i) % 4
        assert sorted(int(x) for x in g.view(seat).hand) == sorted(deck[i::4])
    assert g.dealer == 2 and g.to_act == 3    # bidding starts left of the dealer


def test_deal_five_handed_widow_gets_a_card_after_every_third_round():
    deck = [str(CARDS[x]) for x in BUILTIN_RULESETS["five-handed"].table(5).deck]
    g = Game("five-handed", 5, decks=[deck], first_dealer=4)
    # Rounds of 5 cards; after rounds 3, 6 and 9 one card to the widow.
    widow = [deck[15], deck[31], deck[47]]
    assert g.full_state()["widow"] == widow
    seat0 = deck[0:15:5] + deck[16:31:5] + deck[32:47:5]
    assert sorted(str(x) for x in g.view(0).hand) == sorted(seat0)
    assert all(len(g.view(s).hand) == 9 for s in range(5))


def test_deal_two_player_dead_hand_is_a_third_receiver_after_the_dealer():
    deck = [str(CARDS[x]) for x in BUILTIN_RULESETS["pepper-30"].table(2).deck]
    g = Game("pepper-30", 2, decks=[deck], first_dealer=1)
    assert sorted(str(x) for x in g.view(0).hand) == sorted(deck[0::3])   # left of the dealer
    assert sorted(str(x) for x in g.view(1).hand) == sorted(deck[1::3])   # the dealer
    assert sorted(g.full_state()["dead_hand"]) == sorted(deck[2::3])


def test_helper_layout_matches_the_engine_for_every_ruleset():
    for name, rs in BUILTIN_RULESETS.items():
        for n in rs.player_counts:
            hands = {s: [] for s in range(n)}
            deck = build_deck(name, n, n - 1, hands)
            g = Game(name, n, decks=[deck], first_dealer=n - 1)
            assert len(g.view(0).hand) == rs.table(n).hand_size


def test_first_dealer_comes_from_the_seed_and_the_game_replays_from_it():
    dealers = {Game("iowa", seed=s).dealer for s in range(40)}
    assert len(dealers) > 1
    a, b = Game("iowa", seed=11), Game("iowa", seed=11)
    assert a.dealer == b.dealer and a.decks_dealt == b.decks_dealt


# ------------------------------------------------------------- pass-outs

CONFIGS = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]


@pytest.mark.parametrize("name,n", CONFIGS)
def test_pass_out_throws_the_hand_in_without_score_and_the_deal_passes_left(name, n):
    g = Game(name, n, seed=5, first_dealer=1)
    for k in range(n):
        act(g, f"{(1 + 1 + k) % n}: pass")
    d = g.deals[-1]
    assert d.thrown_in and d.contract is None and not d.ceded
    assert set(d.points) == {0} and set(g.scores) == {0}
    assert d.dealer == 1 and d.number == 1
    assert not g.is_over
    assert g.deal_number == 2 and g.dealer == 2 % n and g.phase == Phase.BID and g.to_act == 3 % n
    assert len(events_of(g, "thrown_in")) == 1


def _write(tmp_path, text, name="house.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("name,n", CONFIGS)
def test_dealer_must_bid_variant_from_a_ruleset_file(tmp_path, name, n):
    rs = load_ruleset_file(_write(tmp_path, f'extends = "{name}"\npass_out = "dealer-must-bid"\n'))
    g = Game(rs, n, seed=3, first_dealer=0)
    for k in range(n - 1):
        act(g, f"{k + 1}: pass")
    assert g.to_act == 0
    legal = g.legal_actions()
    assert legal and all(a.kind is ActionKind.BID for a in legal)
    with pytest.raises(IllegalActionError) as ei:
        g.apply("pass")
    assert ei.value.seat == 0 and ei.value.phase == Phase.BID
    g.apply(legal[0])
    assert g.contract is not None and g.contract.bidder == 0
    assert not g.deals   # not thrown in


def test_dealer_must_bid_only_when_everyone_else_passed(tmp_path):
    rs = load_ruleset_file(_write(tmp_path, 'extends = "iowa"\npass_out = "dealer-must-bid"\n'))
    g = Game(rs, 4, seed=3, first_dealer=0)
    act(g, "1: bid 2", "2: pass", "3: pass")
    assert "pass" in [str(a) for a in g.legal_actions()]
    act(g, "0: pass")
    assert g.phase == Phase.NAME_TRUMP and g.to_act == 1


# -------------------------------------------------------------- deal cap

def test_thrown_in_hands_count_toward_the_deal_cap_and_a_tie_is_a_draw(tmp_path):
    rs = load_ruleset_file(_write(tmp_path, 'extends = "iowa"\ndeal_cap = 3\n'))
    g = Game(rs, 4, seed=1, first_dealer=0)
    for _ in range(3):
        assert not g.is_over
        for _ in range(4):
            g.apply("pass")
    assert g.is_over and g.phase == Phase.GAME_OVER and g.to_act is None
    o = g.outcome
    assert o.draw and o.winners == () and o.winning_seats == ()
    assert o.reason == "deal-cap" and o.deals == 3 and all(d.thrown_in for d in g.deals)
    with pytest.raises(GameOverError):
        g.apply("pass")


def test_deal_cap_leader_wins(tmp_path):
    rs = load_ruleset_file(_write(tmp_path, 'extends = "iowa"\ndeal_cap = 2\n'))
    g = new_game(rs, 4, 2, dict(), dict(hands=SPLIT))
    for _ in range(4):
        g.apply("pass")                        # deal 1 thrown in (counts toward the cap)
    assert not g.is_over and g.dealer == 3
    act(g, "0: bid 3", "1: pass", "2: pass", "3: pass", "0: trump NT", "1: cede no")
    play_tricks(g, SPLIT_4_2)
    assert g.is_over
    assert g.outcome.reason == "deal-cap" and g.outcome.winners == (0,) and g.outcome.winning_seats == (0, 2)
    assert g.outcome.scores == (4, 2) and g.outcome.deals == 2


def test_deal_cap_tie_after_a_played_hand_is_a_draw(tmp_path):
    rs = load_ruleset_file(_write(tmp_path, 'extends = "iowa"\ndeal_cap = 1\n'))
    g = new_game(rs, 4, 3, dict(hands=SPLIT))
    act(g, "0: bid 3", "1: pass", "2: pass", "3: pass", "0: trump NT", "1: cede no")
    play_tricks(g, SPLIT_3_3)
    assert g.scores == [3, 3]
    assert g.is_over and g.outcome.draw and g.outcome.reason == "deal-cap"


def test_deal_cap_individual_leader_wins_five_handed(tmp_path):
    rs = load_ruleset_file(_write(tmp_path, 'extends = "five-handed"\ndeal_cap = 1\n'))
    g = Game(rs, 5, seed=9, first_dealer=4)
    act(g, "0: bid 3", "1: pass", "2: pass", "3: pass", "4: pass", "0: trump NT")
    for _ in range(3):
        g.apply(g.legal_actions()[0])
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    top = max(g.scores)
    leaders = [s for s in range(5) if g.scores[s] == top]
    assert g.outcome.reason == "deal-cap"
    assert g.outcome.winners == (tuple(leaders) if len(leaders) == 1 else ())


def test_default_deal_cap_is_200():
    assert all(rs.deal_cap == 200 for rs in BUILTIN_RULESETS.values())


def test_game_over_is_never_decided_after_a_thrown_in_hand():
    g = Game("iowa", 4, seed=2, first_dealer=0)
    # Artificial: a team at or above the target before a thrown-in hand. The
    # deal that is thrown in must not end the game (only played or ceded deals do).
    g.scores[:] = [45, 0]
    for _ in range(4):
        g.apply("pass")
    assert not g.is_over and g.deal_number == 2 and g.phase == Phase.BID


# ---------------------------------------------------------------- errors

def test_invalid_action_error_for_text_that_is_not_an_action():
    g = Game("iowa", 4, seed=1, first_dealer=3)
    with pytest.raises(InvalidActionError) as ei:
        g.apply("dance")
    e = ei.value
    assert isinstance(e, ActionError) and isinstance(e, ValueError)
    assert e.phase == Phase.BID and e.seat == 0 and e.action == "dance"
    assert "bid" in str(e) and "seat 0" in str(e) and "dance" in str(e)
    assert "pass" in e.legal
    assert g.history == [] and g.to_act == 0


def test_invalid_action_error_for_the_wrong_kind_of_action():
    g = Game("iowa", 4, seed=1, first_dealer=3)
    with pytest.raises(InvalidActionError) as ei:
        g.apply("play JH")
    e = ei.value
    assert not isinstance(e, IllegalActionError)
    assert e.phase == Phase.BID and e.seat == 0 and str(e.action) == "play JH"
    assert "phase bid" in str(e) and "seat 0" in str(e) and "play JH" in str(e)
    act(g, "0: bid 2", "1: pass", "2: pass", "3: pass")
    with pytest.raises(InvalidActionError) as ei:
        g.apply("bid 3")
    assert ei.value.phase == Phase.NAME_TRUMP and ei.value.seat == 0
    assert "name-trump" in str(ei.value)
    with pytest.raises(InvalidActionError):
        g.apply(10_000)


def test_illegal_action_error_for_a_forbidden_bid_and_play():
    g = new_game("iowa", 4, 3, dict(hands=SPLIT))
    act(g, "0: bid 3")
    with pytest.raises(IllegalActionError) as ei:
        g.apply("bid 3")
    e = ei.value
    assert not isinstance(e, InvalidActionError)
    assert e.phase == Phase.BID and e.seat == 1 and str(e.action) == "bid 3"
    assert "seat 1" in str(e) and "bid 3" in str(e) and "phase bid" in str(e)
    act(g, "1: pass", "2: pass", "3: pass", "0: trump NT", "1: cede no")
    with pytest.raises(IllegalActionError) as ei:
        g.apply("play AD")                     # seat 0 does not hold it
    assert ei.value.phase == Phase.PLAY and ei.value.seat == 0 and "AD" in str(ei.value)
    act(g, "0: play AS")
    with pytest.raises(IllegalActionError) as ei:
        g.apply("play JH")                     # seat 1 holds spades: must follow
    assert ei.value.seat == 1 and "play JH" in str(ei.value) and "play" in str(ei.value)
    assert g.to_act == 1 and len(g.view(1).hand) == 6


def test_game_over_error_after_the_end():
    g = Game("iowa", 4, seed=4)
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    assert g.legal_actions() == [] and g.to_act is None
    with pytest.raises(GameOverError):
        g.apply("pass")


def test_no_ruleset_accepts_a_card_the_seat_does_not_hold():
    g = new_game("iowa", 4, 3, dict(hands=ALL6))
    act(g, "0: bid 1", "1: pass", "2: pass", "3: pass", "0: trump NT", "1: cede no")
    with pytest.raises(IllegalActionError):
        g.apply("play AH")
