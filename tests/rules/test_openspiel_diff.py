"""Differential test of the card semantics against OpenSpiel's ``euchre``.

OpenSpiel's euchre uses the same bower rules as every trump contract here: the
Jack of trump is highest, the other Jack of the trump colour (the left bower)
is second and belongs to the trump suit for following suit and for winning.
Random OpenSpiel games are played and, at every play decision, OpenSpiel's
legal cards are compared with ``legal_plays(hand, led_card, trump)``; every
completed trick's winner is compared with ``trick_winner_index``. OpenSpiel's
going alone (the declarer's partner sits out, 3-card tricks) is included.

A second comparison lets our own :class:`Game` (iowa, 4 players) drive the
same play: each seat is dealt its OpenSpiel hand plus one of the four cards
OpenSpiel left out of play (kitty/discard), the OpenSpiel declarer wins the
auction in OpenSpiel's trump (Pepper when it went alone, so its partner sits
out), the four extra cards make up our first trick, arranged so that it is
won by OpenSpiel's first leader, and from then on both engines must agree on
the seat to act and the legal cards at every decision of the remaining tricks.

Card mapping. OpenSpiel: ``card = rank * 4 + suit``, suits C D H S (0..3),
ranks 9 T J Q K A (0..5), printed suit first ("HA", "S9"). Ours:
``card = suit * 6 + rank``, suits S H D C (0..3), the same rank order, printed
rank first ("AH", "9S", "10S"). So ``ours = (3 - c % 4) * 6 + c // 4`` and
trump ``ours = 3 - openspiel``. The mapping is verified from the card texts
of both libraries, and from OpenSpiel's observation strings, not assumed.
"""

from __future__ import annotations

import itertools
import random

import pyspiel

from referee.rules import CARDS, Card, Game, Phase, legal_plays, trick_winner_index
from referee.rules.actions import ActionKind

E = pyspiel.euchre
GAME = pyspiel.load_game("euchre")
PLAY = E.Phase.PLAY

N_GAMES = 3000
MIN_POSITIONS = 40_000


def to_ours(c: int) -> int:
    return (3 - c % 4) * 6 + c // 4


def trump_to_ours(t: int) -> int:
    return 3 - t


def os_text_to_ours_text(text: str) -> str:
    """OpenSpiel "HT" -> our "10H"."""
    suit, rank = text[0], text[1]
    return ("10" if rank == "T" else rank) + suit


def test_card_mapping_agrees_with_both_libraries():
    assert E.NUM_CARDS == 24 and E.NUM_SUITS == 4 and E.NUM_CARDS_PER_SUIT == 6 and E.JACK_RANK == 2
    assert sorted(to_ours(c) for c in range(24)) == list(range(24))
    for c in range(24):
        text = E.card_string(c)
        assert str(CARDS[to_ours(c)]) == os_text_to_ours_text(text)
        assert Card.parse(os_text_to_ours_text(text)) == to_ours(c)
        assert E.card_rank(c) == c // 4 and int(E.card_suit(c).value) == c % 4
    # A few spelled out, so that a symmetric mistake in the helpers cannot hide.
    assert [str(CARDS[to_ours(c)]) for c in (0, 3, 8, 10, 22, 23)] == ["9C", "9S", "JC", "JH", "AH", "AS"]
    # Suits: OpenSpiel's trump actions and suit enum, in our strain numbering.
    for os_suit, ours in (("CLUBS", "C"), ("DIAMONDS", "D"), ("HEARTS", "H"), ("SPADES", "S")):
        assert "SHDC"[trump_to_ours(int(getattr(E.Suit, os_suit).value))] == ours
    st = GAME.new_initial_state()
    st.apply_action(0)  # dealer selection; afterwards actions print as cards and bids
    assert [st.action_to_string(a) for a in (0, 3, 22, 24, 25, 28)] == ["C9", "S9", "HA", "Pass", "Clubs", "Spades"]


def parse_hand(obs: str) -> list[int]:
    """The acting player's hand, from OpenSpiel's observation string ("Hand:\\nS QJ9\\nH none...")."""
    lines = obs.split("\n")
    i = lines.index("Hand:")
    by_text = {E.card_string(c): c for c in range(24)}
    hand = []
    for line in lines[i + 1:i + 5]:
        suit, ranks = line.split(" ", 1)
        assert suit in "SHDC"
        if ranks != "none":
            hand += [by_text[suit + r] for r in ranks]
    return hand


class Stats:
    def __init__(self):
        self.positions = 0
        self.tricks = 0
        self.alone_tricks = 0
        self.left_bower_led = 0
        self.left_bower_followed = 0
        self.left_bower_held_printed_suit_led = 0   # the bower may not follow its printed suit
        self.left_bower_held_trump_led = 0          # ... and must follow trump
        self.game_positions = 0
        self.game_deals = 0


def play_openspiel_game(rng: random.Random, stats: Stats) -> dict:
    """One random OpenSpiel game, compared position by position. Returns what the Game replay needs."""
    s = GAME.new_initial_state()
    info = {"positions": []}
    while not s.is_terminal():
        if s.is_chance_node():
            outcomes = [o for o, _ in s.chance_outcomes()]
            s.apply_action(outcomes[rng.randrange(len(outcomes))])
            continue
        legal = s.legal_actions()
        if s.current_phase() != PLAY:
            s.apply_action(legal[rng.randrange(len(legal))])
            continue
        player = s.current_player()
        trump = trump_to_ours(s.trump_suit())
        if "trump" not in info:
            # first play decision: the deal as play starts
            assert str(CARDS[to_ours(s.right_bower())]) == "J" + "SHDC"[trump]
            assert str(CARDS[to_ours(s.left_bower())]) == "J" + "SHDC"[3 - trump]
            holder = s.card_holder()
            info.update(trump=trump, dealer=s.dealer(), declarer=s.declarer(), alone=bool(s.declarer_go_alone()),
                        leader=player, active=list(s.active_players()),
                        hands=[[c for c in range(24) if holder[c] == p] for p in range(4)],
                        extras=[c for c in range(24) if holder[c] is None])
            assert len(info["extras"]) == 4 and all(len(h) == 5 for h in info["hands"])
            assert info["active"] == [not (info["alone"] and p == (info["declarer"] + 2) % 4) for p in range(4)]
        n_active = sum(s.active_players())
        holder = s.card_holder()
        hand = [c for c in range(24) if holder[c] == player]
        assert sorted(parse_hand(s.observation_string(player))) == hand
        trick = [] if s.num_cards_played() % n_active == 0 else list(s.current_trick().cards())
        assert len(trick) == s.num_cards_played() % n_active
        led = to_ours(trick[0]) if trick else None
        ours = legal_plays([to_ours(c) for c in hand], led, trump)
        assert sorted(ours) == sorted(to_ours(c) for c in legal), (
            f"trump {'SHDC'[trump]}, trick {[E.card_string(c) for c in trick]}, hand {[E.card_string(c) for c in hand]}: "
            f"OpenSpiel allows {[E.card_string(c) for c in legal]}, we allow {[str(CARDS[c]) for c in ours]}")
        for c in legal:
            assert s.action_to_string(player, c) == E.card_string(c)
        stats.positions += 1
        lb = s.left_bower()
        if lb in hand and trick:
            if trick[0] % 4 == lb % 4 and trick[0] != lb:
                stats.left_bower_held_printed_suit_led += 1
            elif to_ours(trick[0]) // 6 == trump or trick[0] == lb:
                stats.left_bower_held_trump_led += 1
        card = legal[rng.randrange(len(legal))]
        info["positions"].append((player, sorted(to_ours(c) for c in legal), to_ours(card)))
        s.apply_action(card)
    # Every trick: OpenSpiel's winner against ours.
    winners = []
    for t in s.tricks():
        cards = list(t.cards())
        seats = [t.leader()]
        while len(seats) < len(cards):
            nxt = (seats[-1] + 1) % 4
            while not info["active"][nxt]:
                nxt = (nxt + 1) % 4
            seats.append(nxt)
        assert len(cards) == (3 if info["alone"] else 4)
        i = trick_winner_index([to_ours(c) for c in cards], info["trump"])
        assert (seats[i], cards[i]) == (t.winner(), t.winning_card()), (
            f"trump {'SHDC'[info['trump']]}, trick {[E.card_string(c) for c in cards]} led by {t.leader()}: "
            f"OpenSpiel's winner {E.card_string(t.winning_card())}, ours {E.card_string(cards[i])}")
        winners.append(seats[i])
        stats.tricks += 1
        stats.alone_tricks += len(cards) == 3
        stats.left_bower_led += cards[0] == s.left_bower()
        stats.left_bower_followed += s.left_bower() in cards[1:]
    info["winners"] = winners
    return info


def first_trick_arrangement(info: dict) -> dict[int, int] | None:
    """Give each seat one extra card so that our first trick (the bidder leads) is legal and won by
    OpenSpiel's first leader; afterwards every hand equals its OpenSpiel hand. None if impossible."""
    trump, bidder = info["trump"], info["declarer"]
    order = [(bidder + i) % 4 for i in range(4) if info["active"][(bidder + i) % 4]]
    extras = [to_ours(c) for c in info["extras"]]
    hands = [[to_ours(c) for c in h] for h in info["hands"]]
    for perm in itertools.permutations(extras):
        give = dict(zip(range(4), perm))
        cards = [give[s] for s in order]
        if any(cards[k] not in legal_plays(hands[s] + [cards[k]], cards[0], trump) for k, s in enumerate(order) if k):
            continue
        if order[trick_winner_index(cards, trump)] == info["leader"]:
            return give
    return None


def replay_in_our_game(info: dict, stats: Stats) -> bool:
    give = first_trick_arrangement(info)
    if give is None:
        return False
    dealer, bidder, trump = info["dealer"], info["declarer"], info["trump"]
    hands = [[to_ours(c) for c in info["hands"][s]] + [give[s]] for s in range(4)]
    receivers = [(dealer + 1 + i) % 4 for i in range(4)]
    deck = [hands[receivers[i]][k] for k in range(6) for i in range(4)]
    g = Game("iowa", 4, seed=0, decks=[deck], first_dealer=dealer)
    for s in range(4):
        assert sorted(g.hands[s]) == sorted(hands[s])
    # The auction: the OpenSpiel declarer wins it (Pepper = alone, its partner sits out).
    while g.phase is Phase.BID:
        g.apply(("bid pepper" if info["alone"] else "bid 6") if g.to_act == bidder else "pass")
    g.apply("trump " + "SHDC"[trump])
    if g.phase is Phase.EXCHANGE:
        g.apply("exchange no")
    while g.phase is Phase.CEDE:
        g.apply("cede no")
    assert g.phase is Phase.PLAY and g.to_act == bidder
    assert set(g.view(0).sitting_out) == ({(bidder + 2) % 4} if info["alone"] else set())
    while not g.view(0).tricks:  # our first trick: the extra cards
        g.apply(f"play {CARDS[give[g.to_act]]}")
    assert g.view(0).tricks[0][2] == info["leader"], "our first trick is not won by OpenSpiel's first leader"
    for player, legal, card in info["positions"]:
        assert g.to_act == player, "the seat to act differs from OpenSpiel"
        got = sorted(int(a.card) for a in g.legal_actions())
        assert all(a.kind is ActionKind.PLAY for a in g.legal_actions())
        assert got == legal, (f"trump {'SHDC'[trump]}, trick {g.view(0).trick}: OpenSpiel allows "
                              f"{[str(CARDS[c]) for c in legal]}, our Game {[str(CARDS[c]) for c in got]}")
        g.apply(f"play {CARDS[card]}")
        stats.game_positions += 1
    deal = g.deals[0]
    expected = [info["winners"].count(s) + (s == info["leader"]) for s in range(4)]
    assert list(deal.tricks) == expected
    stats.game_deals += 1
    return True


def test_legal_plays_and_trick_winners_match_openspiel_euchre():
    rng = random.Random(20240611)
    stats = Stats()
    for _ in range(N_GAMES):
        info = play_openspiel_game(rng, stats)
        replay_in_our_game(info, stats)
    # Loud failure if the comparison did not really happen.
    assert stats.positions >= MIN_POSITIONS, stats.positions
    assert stats.tricks >= 5 * N_GAMES
    assert stats.alone_tricks >= 1000
    assert stats.left_bower_led >= 300 and stats.left_bower_followed >= 300
    assert stats.left_bower_held_printed_suit_led >= 300 and stats.left_bower_held_trump_led >= 300
    assert stats.game_deals >= 500 and stats.game_positions >= 10_000, vars(stats)
