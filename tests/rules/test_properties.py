"""Property tests: random play under every ruleset and player count, checked against the spec.

Every game is played with random legal actions drawn by hypothesis. Along the
way a small *reference model* written here from docs/rules.md (not
from the engine) shadows the game and checks, at every action:

- the deal: sizes, dealer rotation, one-at-a-time clockwise dealing, the deck;
- card conservation: every hand equals the model's hand, and hands + cards
  played + widow + dead hand + discards are exactly the deck multiset;
- no card is played more often than the deck holds it;
- the legal plays are exactly what the spec allows (follow the effective suit
  led, the left bower being a trump; five-handed: lead trump to the first
  trick, a holder of the called partner card who must follow its suit plays it);
- the seat to act (first lead by the bidder, then the trick winner, sitting-out
  seats skipped) and every trick winner (own reference, not the engine's);
- each deal's points, recomputed from the tricks and the contract, the
  running scores, and whether and how the game ends (target rules, deal cap);
- termination within the deal cap;
- views and per-seat event streams leak no hidden card;
- records replay identically (directly and through JSON), also from mid-game.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HPhase
from hypothesis import strategies as st

from referee.rules import ACTIONS, BUILTIN_RULESETS, CARDS, Action, ActionKind, Game, Phase

CONFIGS = [
    ("iowa", 4),
    ("bid-euchre", 4), ("bid-euchre", 6), ("bid-euchre", 8),
    ("pepper-30", 2), ("pepper-30", 3), ("pepper-30", 4),
    ("five-handed", 5),
]

# ---------------------------------------------------------------------------
# Reference card semantics, from the spec (cards are identified by their text).

SUITS = "SHDC"
COLOUR = {"S": "black", "C": "black", "H": "red", "D": "red"}
PLAIN_ORDER = ("9", "10", "J", "Q", "K", "A")
RANK = {}   # card id -> printed rank text
SUIT = {}   # card id -> printed suit letter
for _c in range(24):
    _t = str(CARDS[_c])
    RANK[_c], SUIT[_c] = _t[:-1], _t[-1]
ID = {RANK[c] + SUIT[c]: c for c in range(24)}
assert sorted(ID) == sorted(r + s for r in PLAIN_ORDER for s in SUITS)


def ref_suit(card: int, trump: str | None) -> str:
    """Effective suit: the Jick (other Jack of the trump colour) is a trump."""
    r, s = RANK[card], SUIT[card]
    if trump is not None and r == "J" and s != trump and COLOUR[s] == COLOUR[trump]:
        return trump
    return s


def ref_power(card: int, trump: str | None, led: str) -> tuple[int, int]:
    """Higher beats lower: trumps, then the suit led, then nothing."""
    es = ref_suit(card, trump)
    if trump is not None and es == trump:
        if RANK[card] == "J":
            return (2, 101 if SUIT[card] == trump else 100)  # right bower, then the Jick
        return (2, PLAIN_ORDER.index(RANK[card]))
    if es == led:
        return (1, PLAIN_ORDER.index(RANK[card]))
    return (0, 0)


def ref_winner(cards: list[int], trump: str | None) -> int:
    """Index of the winning card; of identical cards the first played wins."""
    led = ref_suit(cards[0], trump)
    best = 0
    for i in range(1, len(cards)):
        if ref_power(cards[i], trump, led) > ref_power(cards[best], trump, led):
            best = i
    return best


def test_reference_semantics_sanity():
    # The reference itself, on hand-checked tricks (so a broken reference cannot pass silently).
    c = ID
    assert ref_suit(c["JD"], "H") == "H" and ref_suit(c["JD"], "D") == "D" and ref_suit(c["JD"], None) == "D"
    assert ref_suit(c["JC"], "S") == "S" and ref_suit(c["JS"], "H") == "S"
    assert ref_winner([c["AH"], c["JD"], c["JH"]], "H") == 2
    assert ref_winner([c["AH"], c["JD"], c["KH"]], "H") == 1
    assert ref_winner([c["AD"], c["JD"], c["KD"]], "H") == 1      # the Jick trumps its printed suit
    assert ref_winner([c["9D"], c["AS"], c["10D"]], "H") == 2     # off-suit Ace never wins
    assert ref_winner([c["9D"], c["AS"], c["10D"]], None) == 2
    assert ref_winner([c["JD"], c["AD"], c["KD"]], None) == 1     # no bowers in no-trump
    assert ref_winner([c["QS"], c["AS"], c["AS"]], "C") == 1      # first of identical cards


# ---------------------------------------------------------------------------
# The spec's numbers per family.

def spec_table(name: str, n: int) -> dict:
    fam = BUILTIN_RULESETS[name].family
    nine_to_ace = [ID[r + s] for s in SUITS for r in PLAIN_ORDER]
    jack_to_ace = [ID[r + s] for s in SUITS for r in ("J", "Q", "K", "A")]
    if fam == "iowa":
        return dict(fam=fam, deck=nine_to_ace, hand=6, widow=0, dead=0, team_of=[s % 2 for s in range(n)], target=42)
    if fam == "bid-euchre":
        return dict(fam=fam, deck=jack_to_ace * (n // 2), hand=8, widow=0, dead=0, team_of=[s % 2 for s in range(n)], target=50)
    if fam == "pepper-30":
        hand = 6 if n == 4 else 8
        return dict(fam=fam, deck=nine_to_ace, hand=hand, widow=0, dead=8 if n == 2 else 0,
                    team_of=[s % 2 for s in range(n)] if n == 4 else list(range(n)), target=30)
    return dict(fam=fam, deck=jack_to_ace * 3, hand=9, widow=3, dead=0, team_of=list(range(n)), target=51)


def contract_terms(spec: dict, n: int, bid: str) -> tuple[int, bool, int | None]:
    """(tricks needed, bidder alone, fixed points or None for numeric scoring)."""
    fam, hand = spec["fam"], spec["hand"]
    if bid.isdigit():
        return int(bid), False, None
    fixed = {
        ("iowa", "pepper"): (True, 12),
        ("bid-euchre", "pepper"): (True, 12), ("bid-euchre", "double-pepper"): (True, 24),
        ("pepper-30", "small-pepper"): (False, None), ("pepper-30", "big-pepper"): (False, 12 if n == 4 else 16),
        ("five-handed", "pepper"): (True, 12), ("five-handed", "moon-shot"): (True, 18),
    }[(fam, bid)]
    return hand, fixed[0], fixed[1]


def expected_points(spec, n, bidder, bid, tricks, ceded, partner) -> list[int]:
    fam, team_of, hand = spec["fam"], spec["team_of"], spec["hand"]
    teams = max(team_of) + 1
    need, alone, fixed = contract_terms(spec, n, bid)
    pts = [0] * teams
    if fam == "five-handed":
        if alone:
            made = tricks[bidder] >= need
            for s in range(n):
                if s == bidder:
                    pts[s] = fixed if made else -fixed
                else:
                    pts[s] = 0 if made else hand - tricks[bidder]
        else:
            side = {bidder} | ({partner} if partner is not None else set())
            side_tricks = sum(tricks[s] for s in side)
            made = side_tricks >= need
            for s in range(n):
                pts[s] = (side_tricks if made else -need) if s in side else hand - side_tricks
        return pts
    bt = team_of[bidder]
    team_tricks = [sum(tricks[s] for s in range(n) if team_of[s] == t) for t in range(teams)]
    if ceded:  # iowa: bidding team +6 (+12 on Pepper), defenders nothing
        assert fam == "iowa"
        pts[bt] = 12 if bid == "pepper" else 6
        return pts
    made = team_tricks[bt] >= need
    if fam == "iowa":
        pts[bt] = (12 if bid == "pepper" else team_tricks[bt]) if made else (-12 if bid == "pepper" else -6)
        for t in range(teams):
            if t != bt:
                pts[t] = team_tricks[t] if team_tricks[t] > 0 else -6
    elif fam == "bid-euchre":
        if made:
            pts[bt] = fixed if fixed is not None else team_tricks[bt]
        else:
            pts[bt] = -fixed if fixed is not None else -need
        for t in range(teams):
            if t != bt:
                pts[t] = team_tricks[t]
    else:  # pepper-30
        fail = 6 if n == 4 else 8
        if made:
            pts[bt] = fixed if fixed is not None else team_tricks[bt]
        else:
            pts[bt] = -fixed if fixed is not None else -fail
        for t in range(teams):
            if t != bt:
                pts[t] = team_tricks[t]
    return pts


def expected_end(spec, scores, bidder_team, deals, cap):
    """None if the game goes on, else (winners, reason)."""
    fam, target = spec["fam"], spec["target"]
    winners = None
    if bidder_team is not None:  # decided only after a played or ceded deal
        if fam == "five-handed":
            if scores[bidder_team] >= target:
                winners = (bidder_team,)
        else:
            reached = [t for t, s in enumerate(scores) if s >= target]
            if len(reached) == 1:
                winners = (reached[0],)
            elif reached:
                if fam == "pepper-30":
                    top = max(scores)
                    winners = tuple(t for t in reached if scores[t] == top)
                elif fam == "iowa":
                    top = max(scores[t] for t in reached)
                    best = [t for t in reached if scores[t] == top]
                    winners = (best[0],) if len(best) == 1 else (bidder_team,)
                else:
                    winners = (bidder_team,)
    if winners is not None:
        return winners, "target"
    if deals >= cap:
        top = max(scores)
        leaders = tuple(t for t, s in enumerate(scores) if s == top)
        return (leaders if len(leaders) == 1 else ()), "deal-cap"
    return None


# ---------------------------------------------------------------------------
# Leak checks.

_CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])((?:10|[9JQKA])[SHDC])(?![0-9A-Za-z])")


def cards_mentioned(obj) -> Counter:
    """Every card written anywhere in a JSON-like value."""
    return Counter(ID[t] for t in _CARD_TOKEN.findall(json.dumps(obj)))


def test_cards_mentioned():
    assert cards_mentioned({"a": ["play 10S", "JH"], "bid 8 S": "9C", "x": "AH10S"}) == Counter([ID["10S"], ID["JH"], ID["9C"]])


PUBLIC_KINDS_NO_CARDS = {"deal", "bid", "contract", "exchange", "give", "discard", "cede", "ceded",
                         "deal_end", "thrown_in", "game_over"}
PUBLIC_KINDS_PLAYED = {"play", "trick", "partner_card", "partner"}
PRIVATE_KINDS = {"hand", "widow", "gave_card", "received_card", "discarded_card"}


# ---------------------------------------------------------------------------
# The shadow model of one game.

class Shadow:
    def __init__(self, g: Game, name: str, n: int):
        self.g, self.n = g, n
        self.spec = spec_table(name, n)
        self.fam = self.spec["fam"]
        self.deals_seen = 0
        self.scores = [0] * (max(self.spec["team_of"]) + 1)
        self.view_checks = 0
        self.plays_checked = 0
        self.ev_next = 0
        self.left_bower_leads = 0
        assert list(g.table.team_of) == self.spec["team_of"]
        assert Counter(g.table.deck) == Counter(self.spec["deck"])
        assert g.table.hand_size == self.spec["hand"]
        self.start_deal()
        self.check_new_events()

    # -- deal lifecycle -----------------------------------------------------
    def start_deal(self):
        g, n, spec = self.g, self.n, self.spec
        k = len(self.g.decks_dealt)
        assert k == self.deals_seen + 1
        assert g.dealer == (g.first_dealer + k - 1) % n, "the deal passes to the left"
        deck = list(g.decks_dealt[-1])
        assert Counter(deck) == Counter(spec["deck"])
        self.dealer = d = g.dealer
        for s in range(n):
            assert len(g.hands[s]) == spec["hand"]
        assert len(g.widow) == spec["widow"] and len(g.dead_hand) == spec["dead"]
        if not spec["widow"] and not spec["dead"]:
            # one card at a time, clockwise, starting left of the dealer
            for i in range(n):
                assert Counter(g.hands[(d + 1 + i) % n]) == Counter(deck[i::n])
        assert Counter(sum(g.hands, []) + g.widow + g.dead_hand) == Counter(deck)
        self.deck = deck
        self.sorted_deck = sorted(deck)
        self.deck_counts = Counter(deck)
        self.hands = [list(h) for h in g.hands]
        self.dealt = [list(h) for h in g.hands]
        self.widow = list(g.widow)
        self.dead = list(g.dead_hand)
        self.widow_taken = False
        self.played: list[int] = []
        self.discards: list[int] = []
        self.known = [set() for _ in range(n)]    # cards a seat legitimately learnt privately
        self.bids: list[tuple[int, str, str | None]] = []
        self.in_auction = set(range(n))
        self.high_bidder = None
        self.high_name = None
        self.high_strain = None
        self.alone = False
        self.play_started = False
        self.card_given = False
        self.give_answers = 0
        self.exchange = None
        self.bid = None
        self.trump = None
        self.trump_named = False
        self.pending_gives: list[tuple[int, int]] = []
        self.cede_answers: list[bool] = []
        self.ceded = False
        self.sitting_out: set[int] = set()
        self.trick: list[tuple[int, int]] = []
        self.tricks_done = 0
        self.tricks_won = [0] * n
        self.next_leader = None
        self.partner_card = None
        self.partner = None
        self.partner_open = False
        assert g.phase is Phase.BID and g.to_act == (d + 1) % n, "bidding starts left of the dealer"

    def end_deal(self):
        g, spec, n = self.g, self.spec, self.n
        res = g.deals[self.deals_seen]
        self.deals_seen += 1
        assert res.number == self.deals_seen and res.dealer == self.dealer
        if self.bid is None:
            assert res.thrown_in and all(b == "pass" for _, b, _ in self.bids)
            assert all(p == 0 for p in res.points)
            bidder_team = None
        else:
            c = res.contract
            assert c is not None and c.bidder == self.high_bidder and c.bid == self.bid
            assert res.ceded == self.ceded
            if not self.ceded:
                assert self.tricks_done == spec["hand"], "every trick is played"
                for s in range(n):
                    assert (self.hands[s] == []) == (s not in self.sitting_out)
            assert list(res.tricks) == self.tricks_won
            if self.fam == "five-handed":
                assert res.partner == self.partner
            exp = expected_points(spec, n, self.high_bidder, self.bid, self.tricks_won, self.ceded, self.partner)
            assert list(res.points) == exp, (res, exp)
            bidder_team = spec["team_of"][self.high_bidder]
        self.scores = [a + b for a, b in zip(self.scores, res.points)]
        assert list(res.scores) == self.scores
        end = expected_end(spec, self.scores, bidder_team, self.deals_seen, g.ruleset.deal_cap)
        if end is None:
            assert g.outcome is None
            self.start_deal()
        else:
            o = g.outcome
            assert o is not None and g.phase is Phase.GAME_OVER
            assert (o.winners, o.reason) == end
            assert list(o.scores) == self.scores and o.deals == self.deals_seen
            assert set(o.winning_seats) == {s for s in range(n) if spec["team_of"][s] in o.winners}

    # -- per-action checks --------------------------------------------------
    def before(self, a: Action):
        """Checks of the decision point, before the action is applied."""
        if self.g.phase is Phase.BID:
            assert self.bid is None
            self.check_bid_point()
            return
        phase, seat = self.expected_decision()
        assert self.g.phase is phase, (self.g.phase, phase)
        if phase is Phase.PLAY:
            self.check_play_point()
        else:
            assert self.g.to_act == seat, f"{phase} asks seat {self.g.to_act}, the spec says seat {seat}"

    def expected_decision(self) -> tuple[Phase, int | None]:
        """The decision the spec expects between the auction and the play (the play's seat is checked apart)."""
        b, n, team_of = self.high_bidder, self.n, self.spec["team_of"]
        if not self.trump_named:
            return Phase.NAME_TRUMP, b
        if self.fam == "iowa":
            if self.bid == "pepper":
                if self.exchange is None:
                    return Phase.EXCHANGE, b
                if self.exchange and len(self.pending_gives) < 2:
                    # the partner chooses its card first, then the bidder
                    return Phase.GIVE_CARD, ((b + 2) % n if not self.pending_gives else b)
            # defenders from the bidder's left; the second only if the first cedes
            if not self.cede_answers:
                return Phase.CEDE, (b + 1) % n
            if self.cede_answers == [True]:
                return Phase.CEDE, (b + 3) % n
            assert self.cede_answers[-1] is False
        elif self.fam == "bid-euchre" and self.bid == "pepper":
            mates = [(b + i) % n for i in range(1, n) if team_of[(b + i) % n] == team_of[b]]
            if not self.card_given and self.give_answers < len(mates):
                return Phase.GIVE_CARD, mates[self.give_answers]
            if self.card_given and not self.discards:
                return Phase.DISCARD, b
        elif self.fam == "five-handed" and self.bid != "moon-shot" and len(self.discards) < 3:
            return Phase.DISCARD, b
        return Phase.PLAY, None

    def check_play_point(self):
        g, seat = self.g, self.g.to_act
        assert seat not in self.sitting_out
        hand = self.hands[seat]
        trump = self.trump
        if not self.trick:
            expected_seat = self.high_bidder if self.tricks_done == 0 else self.next_leader
            assert seat == expected_seat, "the bidder leads the first trick, the trick winner the next"
            legal = set(hand)
            if self.fam == "five-handed" and self.tricks_done == 0 and trump is not None and not self.alone:
                legal = {c for c in hand if ref_suit(c, trump) == trump} or legal  # lead a trump when holding one
        else:
            nxt = (self.trick[-1][0] + 1) % self.n
            while nxt in self.sitting_out:
                nxt = (nxt + 1) % self.n
            assert seat == nxt, "play goes clockwise, skipping seats that sit out"
            led = ref_suit(self.trick[0][1], trump)
            legal = {c for c in hand if ref_suit(c, trump) == led} or set(hand)
            pc = self.partner_card
            if self.partner_open and seat != self.high_bidder and pc in hand and ref_suit(pc, trump) == led:
                legal = {pc}  # nobody may play a lower card to avoid partnering
        got = self.g.legal_actions()
        assert all(x.kind is ActionKind.PLAY for x in got)
        got_cards = [int(x.card) for x in got]
        assert len(got_cards) == len(set(got_cards)), "duplicate legal actions"
        assert set(got_cards) == legal, (g, [str(CARDS[c]) for c in legal], [str(x) for x in got])
        self.plays_checked += 1

    def ladder(self) -> list[str]:
        fam, n = self.fam, self.n
        if fam == "iowa":
            return [str(k) for k in range(1, 7)] + ["pepper"]
        if fam == "bid-euchre":
            return [str(k) for k in range(1, 9)] + ["pepper", "double-pepper"]
        if fam == "pepper-30":
            return [str(k) for k in range(1, 6 if n == 4 else 8)] + ["small-pepper", "big-pepper"]
        return [str(k) for k in range(3, 10)] + ["pepper", "moon-shot"]

    def check_bid_point(self):
        ladder = self.ladder()
        above = ladder[ladder.index(self.high_name) + 1:] if self.high_bidder is not None else ladder
        strains = [" S", " H", " D", " C", " NT"] if self.fam == "bid-euchre" else [""]
        expected = {"pass"} | {f"bid {b}{s}" for b in above for s in strains}
        got = [str(x) for x in self.g.legal_actions()]
        assert len(got) == len(set(got)) and set(got) == expected, (got, sorted(expected))

    def on_bid(self, seat: int, a: Action, deal_over: bool):
        g, n = self.g, self.n
        words = str(a).split()
        if a.kind is ActionKind.PASS:
            self.bids.append((seat, "pass", None))
            self.in_auction.discard(seat)
        else:
            strain = words[2] if len(words) > 2 else None
            self.bids.append((seat, words[1], strain))
            self.high_bidder, self.high_name, self.high_strain = seat, words[1], strain
        top = a.kind is ActionKind.BID and words[1] == self.ladder()[-1]
        if self.fam == "pepper-30":
            # elimination auction: ends when all but one have passed after a bid, or on the top bid
            left = len(self.in_auction)
            over = top or left == 0 or (left == 1 and self.high_bidder is not None)
            nxt = (seat + 1) % n
            while not over and nxt not in self.in_auction:
                nxt = (nxt + 1) % n
        else:
            over = top or len(self.bids) == n  # one circuit
            nxt = (seat + 1) % n
        if not over:
            assert not deal_over and g.phase is Phase.BID and g.to_act == nxt
        elif self.high_bidder is None:
            assert deal_over, "everyone passed: the hand is thrown in"
        else:
            assert not deal_over and g.phase is not Phase.BID
            self.set_contract()

    def after(self, a: Action, seat: int):
        g, spec = self.g, self.spec
        kind = a.kind
        deal_over = len(g.deals) > self.deals_seen
        if kind in (ActionKind.BID, ActionKind.PASS):
            self.on_bid(seat, a, deal_over)
        elif kind is ActionKind.TRUMP:
            assert seat == self.high_bidder and not self.trump_named
            strain = str(a).split()[1]
            self.trump = None if strain == "NT" else strain
            self.trump_named = True
            self.after_trump()
        elif kind is ActionKind.EXCHANGE:
            assert self.fam == "iowa" and seat == self.high_bidder and self.bid == "pepper"
            self.exchange = a.yes
        elif kind is ActionKind.GIVE:
            c = a.card
            if self.fam == "iowa":
                assert c is not None
                self.pending_gives.append((seat, int(c)))
                self.known[seat].add(int(c))
                if len(self.pending_gives) == 2:
                    (p, pcard), (b, bcard) = self.pending_gives
                    assert b == self.high_bidder and spec["team_of"][p] == spec["team_of"][b] and p != b, \
                        "the partner chooses first, then the bidder"
                    self.hands[p].remove(pcard)
                    self.hands[b].remove(bcard)
                    self.hands[p].append(bcard)
                    self.hands[b].append(pcard)
                    self.known[p].add(bcard)
                    self.known[b].add(pcard)
            else:
                assert self.fam == "bid-euchre" and self.bid == "pepper" and not self.card_given
                assert seat != self.high_bidder and spec["team_of"][seat] == spec["team_of"][self.high_bidder]
                self.give_answers += 1
                if c is not None:
                    self.card_given = True
                    self.hands[seat].remove(int(c))
                    self.hands[self.high_bidder].append(int(c))
                    self.known[seat].add(int(c))
                    self.known[self.high_bidder].add(int(c))
        elif kind is ActionKind.DISCARD:
            assert seat == self.high_bidder
            self.hands[seat].remove(int(a.card))
            self.discards.append(int(a.card))
            self.known[seat].add(int(a.card))
        elif kind is ActionKind.CEDE:
            assert self.fam == "iowa" and spec["team_of"][seat] != spec["team_of"][self.high_bidder]
            self.cede_answers.append(a.yes)
            if len(self.cede_answers) == 2 and all(self.cede_answers):
                self.ceded = True
        elif kind is ActionKind.PLAY:
            self.apply_play(seat, int(a.card), deal_over)
        if deal_over:
            self.check_conservation(final=True)
            self.check_new_events(stop_at_deal=True)
            self.end_deal()
            self.check_new_events()  # the next deal's first events
            return
        if g.phase is Phase.PLAY and not self.play_started:
            self.start_play()
        self.check_conservation()
        self.check_new_events()

    def set_contract(self):
        assert self.bid is None and self.high_bidder is not None
        self.bid = self.high_name
        need, alone, fixed = contract_terms(self.spec, self.n, self.bid)
        self.alone = alone
        if self.fam == "bid-euchre":
            self.trump = None if self.high_strain == "NT" else self.high_strain
            self.trump_named = True
            self.after_trump()
        else:
            assert self.high_strain is None, "only bid-euchre bids name a strain"
            assert self.g.phase is Phase.NAME_TRUMP and self.g.to_act == self.high_bidder

    def after_trump(self):
        g = self.g
        c = g.contract
        assert c is not None and c.bidder == self.high_bidder and c.bid == self.bid
        assert (None if str(c.trump) == "NT" else str(c.trump)) == self.trump
        if self.fam == "five-handed" and self.bid != "moon-shot":
            # the bidder takes the pool into hand and will discard as many
            self.hands[self.high_bidder].extend(self.widow)
            self.widow_taken = True
            self.known[self.high_bidder].update(self.widow)

    def start_play(self):
        self.play_started = True
        if self.alone and self.fam in ("iowa", "bid-euchre"):
            bt = self.spec["team_of"][self.high_bidder]
            self.sitting_out = {s for s in range(self.n) if s != self.high_bidder and self.spec["team_of"][s] == bt}
        assert set(self.g.view(0).sitting_out) == self.sitting_out
        if self.fam == "five-handed" and not self.alone:
            self.partner_open = True  # called with the first lead
        if self.fam == "five-handed":
            # the bidder discarded as many as taken (none with Moon Shot)
            assert len(self.discards) == (0 if self.bid == "moon-shot" else 3)
        elif self.fam == "bid-euchre":
            assert len(self.discards) == (1 if self.card_given else 0)
        else:
            assert not self.discards
        for s in range(self.n):
            if s not in self.sitting_out:
                assert len(self.hands[s]) == self.spec["hand"]

    def apply_play(self, seat: int, card: int, deal_over: bool):
        assert card in self.hands[seat]
        self.hands[seat].remove(card)
        self.played.append(card)
        self.trick.append((seat, card))
        trump = self.trump
        if len(self.trick) == 1 and trump is not None and RANK[card] == "J" and SUIT[card] != trump \
                and ref_suit(card, trump) == trump:
            self.left_bower_leads += 1
        if self.fam == "five-handed" and not self.alone:
            if self.tricks_done == 0 and len(self.trick) == 1:
                assert seat == self.high_bidder
                if trump is not None:
                    jick = [ID["J" + s] for s in SUITS if s != trump and COLOUR[s] == COLOUR[trump]]
                    order = [ID["J" + trump]] + jick + [ID[r + trump] for r in ("A", "K", "Q")]
                else:
                    order = [ID[r + SUIT[card]] for r in ("A", "K", "Q", "J")]
                held = [c for c in order if any(c in h for s, h in enumerate(self.hands) if s != seat)]
                self.partner_card = held[0] if held else None
                self.partner_open = self.partner_card is not None
                got = self.g.view(seat).partner_card
                assert (None if got is None else int(got)) == self.partner_card
            elif self.partner_open and seat != self.high_bidder and card == self.partner_card:
                self.partner = seat
                self.partner_open = False
                if not deal_over:
                    assert self.g.view((seat + 1) % self.n).partner == seat
        n_active = self.n - len(self.sitting_out)
        if len(self.trick) == n_active:
            seats = [s for s, _ in self.trick]
            winner = seats[ref_winner([c for _, c in self.trick], trump)]
            self.tricks_won[winner] += 1
            self.tricks_done += 1
            self.next_leader = winner
            self.trick = []
            assert deal_over == (self.tricks_done == self.spec["hand"])
            if not deal_over:
                assert self.g.to_act == winner, "the trick winner leads the next trick"
                assert list(self.g.tricks_won) == self.tricks_won
                assert self.g.view(winner).tricks[-1][2] == winner
        else:
            assert not deal_over

    def check_conservation(self, final: bool = False):
        g = self.g
        if not final:
            for s in range(self.n):
                assert sorted(g.hands[s]) == sorted(self.hands[s]), f"seat {s} hand differs from the model"
            # Game.widow: the cards still in the widow (none once the bidder took it).
            assert list(g.widow) == (self.widow if not self.widow_taken else []) and list(g.dead_hand) == self.dead
        pool = sum(self.hands, []) + self.played + self.discards + (self.widow if not self.widow_taken else []) + self.dead
        assert sorted(pool) == self.sorted_deck, "cards are not conserved"
        if self.played:
            counts = Counter(self.played)
            assert all(k <= self.deck_counts[c] for c, k in counts.items()), "a card was played more often than the deck holds it"

    # -- leak checks --------------------------------------------------------
    def check_views(self):
        g, n = self.g, self.n
        public_played = set(self.played)
        if self.partner_card is not None:
            public_played.add(self.partner_card)
        for s in range(n):
            v = g.view(s)
            d = v.to_dict()
            assert Counter(int(c) for c in v.hand) == Counter(self.hands[s])
            if s != g.to_act or g.outcome is not None:
                assert d["legal_actions"] == []
            allowed = set(self.hands[s]) | public_played | self.known[s]
            mentioned = cards_mentioned(d)
            leaked = set(mentioned) - allowed
            assert not leaked, f"view of seat {s} shows {[str(CARDS[c]) for c in leaked]}: {d}"
            for c in self.dead:
                assert c not in mentioned, "a dead-hand card is visible"
            if "widow" in d["private"]:
                assert self.widow_taken and s == self.high_bidder
        self.view_checks += 1

    def check_new_events(self, stop_at_deal: bool = False):
        """Check the events logged since the last call, as every seat receives them.

        Each event must reach exactly the seats allowed to see it (all, or the
        one seat named), and carry no card that seat may not know. With
        ``stop_at_deal`` it stops before the next deal's first event, so that
        the events of a finished deal are checked against that deal's model.
        """
        g, n = self.g, self.n
        start = self.ev_next
        per_seat = [g.events_for(s, start) for s in range(n)]
        events, receivers = {}, {}
        for s, evs in enumerate(per_seat):
            for i, e in evs:
                assert e.visible_to in (-1, s), f"seat {s} receives {e}"
                assert events.setdefault(i, e) == e
                receivers.setdefault(i, []).append(s)
        assert sorted(events) == list(range(start, g.event_count)), "an event reaches nobody"
        for i in sorted(events):
            e = events[i]
            if stop_at_deal and e.kind == "deal":
                self.ev_next = i
                return
            assert receivers[i] == (list(range(n)) if e.visible_to == -1 else [e.visible_to])
            self.check_event(e)
        self.ev_next = g.event_count

    def check_event(self, e):
        kind = e.kind
        if kind in PRIVATE_KINDS:
            s = e.seat
            assert e.visible_to == s, f"private event {e} is not private to its seat"
            if kind == "hand":
                assert Counter(e.data) == Counter(self.dealt[s])
            elif kind == "widow":
                assert s == self.high_bidder and self.widow_taken and Counter(e.data) == Counter(self.widow)
            else:
                assert e.data in self.known[s]
                if kind == "discarded_card":
                    assert e.data in self.discards
            return
        assert e.visible_to == -1, f"event {e} is neither public nor private to a seat"
        if kind == "play":
            assert e.data == self.played[-1]
        elif kind == "trick":
            assert set(e.data[1]) <= set(self.played)
        elif kind in ("partner_card", "partner"):
            assert e.data == self.partner_card
            if kind == "partner":
                assert e.seat == self.partner
        elif kind in PUBLIC_KINDS_NO_CARDS:
            if kind in ("give", "discard", "exchange", "cede", "ceded", "thrown_in"):
                assert e.data is None or isinstance(e.data, bool), f"public {kind} event carries {e.data!r}"
            elif kind == "deal":
                assert isinstance(e.data, int)
            elif kind == "bid":
                assert ACTIONS[e.data].kind in (ActionKind.BID, ActionKind.PASS)
            elif kind == "contract":
                assert e.data[0] == self.bid
        else:
            pytest.fail(f"unknown event kind {kind!r}: classify it in this test (public or private, with cards or not)")


# ---------------------------------------------------------------------------

def choose(g: Game, r: random.Random, policy: str) -> int:
    ids = g.legal_action_ids()
    if policy == "cautious" and g.phase is Phase.BID:
        # Pass often and bid low: games then also end by reaching the target.
        bids = [i for i in ids if ACTIONS[i].kind is ActionKind.BID]
        if ACTIONS[ids[0]].kind is ActionKind.PASS and (not bids or r.random() < 0.6):
            return ids[0]
        return bids[r.randrange(max(1, min(len(bids), 5)))]
    return ids[r.randrange(len(ids))]


def play_checked(name: str, players: int, seed: int, r: random.Random, policy: str,
                 deep_deals: int = 3, view_rate: float = 0.05) -> tuple[Game, Shadow, tuple | None]:
    """Play one whole game with random legal actions under the shadow model.

    Views and event streams of every seat are checked before every action of
    the first ``deep_deals`` deals, then at a random ``view_rate`` of the points.
    """
    g = Game(name, players, seed=seed)
    sh = Shadow(g, name, players)
    cap = g.ruleset.deal_cap
    max_actions = cap * (g.table.hand_size * players + 4 * players + 20)
    snapshot_at = r.randrange(1, 200)
    snapshot = None
    steps = 0
    while not g.is_over:
        steps += 1
        assert steps <= max_actions, "the game does not terminate"
        if sh.deals_seen < deep_deals or r.random() < view_rate:
            sh.check_views()
        a = ACTIONS[choose(g, r, policy)]
        seat = g.to_act
        sh.before(a)
        g.apply(a)
        sh.after(a, seat)
        if steps == snapshot_at:
            snapshot = (g.record(), {s: g.view(s).to_dict() for s in range(players)}, g.full_state(), list(g.legal_action_ids()))
    sh.check_views()
    assert g.outcome.deals == len(g.deals) == sh.deals_seen <= cap
    return g, sh, snapshot


def check_replay(g: Game, snapshot):
    rec = g.record()
    for again in (Game.from_record(rec), Game.from_record(json.loads(json.dumps(rec)))):
        assert again.history == g.history
        assert again.outcome == g.outcome
        assert again.deals == g.deals
        assert again.decks_dealt == g.decks_dealt
        assert again.events == g.events
        assert again.record() == rec
    if snapshot is not None:
        rec, views, full, legal = snapshot
        again = Game.from_record(json.loads(json.dumps(rec)))
        assert {s: again.view(s).to_dict() for s in range(again.players)} == views
        assert again.full_state() == full and list(again.legal_action_ids()) == legal


# No shrinking: a failure already names its seeds, and shrinking whole games is slow.
# `make test-fast` (PEPPER_TEST_FAST=1) plays one game per configuration and policy instead of 4 and 6.
_FAST = os.environ.get("PEPPER_TEST_FAST") == "1"
_SETTINGS = dict(deadline=None, derandomize=True, phases=[HPhase.explicit, HPhase.generate],
                 suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name,players", CONFIGS)
@settings(max_examples=1 if _FAST else 4, **_SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), choice_seed=st.integers(0, 2**32 - 1))
def test_uniform_random_games_follow_the_spec(name, players, seed, choice_seed):
    """Uniformly random legal actions (high bids dominate; most games run to the deal cap)."""
    # seed: the game's shuffles and first dealer; choice_seed: the random choice stream.
    g, sh, snapshot = play_checked(name, players, seed, random.Random(choice_seed), "uniform")
    assert sh.plays_checked > 0 and sh.view_checks > 0
    check_replay(g, snapshot)


@pytest.mark.parametrize("name,players", CONFIGS)
@settings(max_examples=1 if _FAST else 6, **_SETTINGS)
@given(seed=st.integers(0, 2**32 - 1), choice_seed=st.integers(0, 2**32 - 1))
def test_cautious_random_games_follow_the_spec(name, players, seed, choice_seed):
    """Random play that passes often and bids low, so that games also end at the target score."""
    g, sh, snapshot = play_checked(name, players, seed, random.Random(choice_seed), "cautious")
    assert sh.plays_checked > 0 and sh.view_checks > 0
    check_replay(g, snapshot)


def test_random_play_reaches_the_interesting_rules():
    """The properties above are not vacuous: random play does reach the special rules."""
    seen: Counter = Counter()
    for name, players in (("iowa", 4), ("bid-euchre", 4), ("five-handed", 5), ("pepper-30", 2)):
        for k in range(4):
            policy = ("uniform", "cautious")[k % 2]
            g, sh, _ = play_checked(name, players, 1000 + k, random.Random(k), policy, deep_deals=0, view_rate=0.0)
            seen[f"{name}:{g.outcome.reason}"] += 1
            seen["lead:left-bower"] += sh.left_bower_leads
            for d in g.deals:
                if d.contract is None:
                    seen["thrown-in"] += 1
                    continue
                seen[f"{name}:{d.contract.bid}"] += 1
                seen["ceded"] += d.ceded
                seen["no-trump"] += str(d.contract.trump) == "NT"
                seen["partner"] += d.partner is not None
                seen["no-partner-yet-made"] += name == "five-handed" and d.partner is None and not d.contract.alone
            for a in g.history:
                seen[f"{name}:{str(ACTIONS[a]).split()[0]}"] += 1
            seen["give none"] += sum(1 for a in g.history if str(ACTIONS[a]) == "give none")
    wanted = ["iowa:target", "iowa:deal-cap", "bid-euchre:target", "bid-euchre:deal-cap", "five-handed:target",
              "pepper-30:target", "iowa:pepper", "iowa:exchange", "iowa:give", "iowa:cede", "ceded",
              "bid-euchre:pepper", "bid-euchre:double-pepper", "bid-euchre:give", "bid-euchre:discard", "give none",
              "five-handed:moon-shot", "five-handed:pepper", "five-handed:discard", "partner", "no-trump",
              "thrown-in", "lead:left-bower"]
    missing = [w for w in wanted if not seen[w]]
    assert not missing, (missing, seen)


@pytest.mark.parametrize("name,players", [(n, p) for n, rs in BUILTIN_RULESETS.items() for p in rs.player_counts])
def test_publicly_forced_depends_on_public_facts_only(name, players):
    """Game.publicly_forced: the only legal action, and only when no hidden card decides it.

    Every position of random games is checked against the definition: a card choice counts only when the
    seat holds a single card; a one-card-of-the-suit-led position is forced but not publicly so."""
    private_seen = 0
    for seed in range(15):
        g = Game(BUILTIN_RULESETS[name], players, seed=seed)
        rng = random.Random(seed)
        for _ in range(400):
            if g.is_over:
                break
            legal = g.legal_action_ids()
            forced = g.publicly_forced()
            card_choice = g.phase in (Phase.PLAY, Phase.GIVE_CARD, Phase.DISCARD)
            if len(legal) != 1:
                assert forced is None
            elif card_choice and len(g.hands[g.to_act]) > 1:
                assert forced is None
                private_seen += 1
            else:
                assert forced == legal[0]
            g.apply(rng.choice(legal))
    assert private_seen > 0
