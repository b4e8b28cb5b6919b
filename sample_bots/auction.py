"""What the auction says about the hidden hands: a fast replica of the heuristic's bidding.

:class:`AuctionModel` is built from a seat's view in the play phase. For every
other seat it replays that seat's auction decisions (and the bidder's choice
of trump) with :class:`~sample_bots.heuristic.HeuristicBot`'s bidding rules,
re-implemented on ints, and :meth:`AuctionModel.mismatches` counts, for a
guessed hand, the decisions the heuristic would have taken differently. A
hand that bid 4 in an ``iowa`` auction must be worth about four tricks in its
best strain, the named trump must be that strain, the seats that passed were
not worth a bid, a first-position "bid 1" holds an Ace. The Monte Carlo
sampler prefers guesses without mismatches (:class:`~sample_bots.montecarlo.HandSampler`).

The replica is exact for the heuristic (:func:`estimates` equals
:func:`~sample_bots.heuristic.estimate_tricks` to the last bit, see the tests)
and is only a likelihood model for other bots: a mismatch lowers a deal's
chance of being used, it never makes the deal impossible.
"""

from __future__ import annotations

import math

from referee.rules import Game
from referee.rules.cards import EFFECTIVE_SUIT, NO_TRUMP, STRENGTH, Strain

from .heuristic import bid_options, endgame_threat, five_handed_endgame, partner_bonus
from .view import family_of

__all__ = ["AuctionModel", "estimates", "best_strain"]

ACE, KING, JACK = 5, 4, 2
_TRUMP_VALUE = {7: 1.0, 6: 0.85, 5: 0.7, 4: 0.45}
# _TV[strain][card]: the value of a trump (0.0 for a card that is not a trump of strain).
_TV = [[(_TRUMP_VALUE.get(STRENGTH[s][c], 0.3) if s != NO_TRUMP and EFFECTIVE_SUIT[s][c] == s else None)
        for c in range(24)] for s in range(5)]
_DISPLAY = sorted(range(24), key=lambda c: (c // 6, -(c % 6)))
_DISPLAY_POS = [0] * 24
for _i, _c in enumerate(_DISPLAY):
    _DISPLAY_POS[_c] = _i


def display_sorted(cards) -> list[int]:
    """Cards in the order a view shows a hand (suit S H D C, rank high to low)."""
    return sorted(cards, key=_DISPLAY_POS.__getitem__)


def estimates(hand: list[int], copies: bool) -> list[float]:
    """``estimate_tricks(hand, s, copies)`` for s = 0..4 (hand in display order), bit for bit."""
    out = []
    for s in range(5):
        tv = _TV[s]
        est = 0.0
        nt = 0
        for c in hand:
            x = tv[c]
            if x is not None:
                est += x
                nt += 1
        if nt >= 3:
            est += 0.35 * (nt - 2)
        ace_v, king_v = (0.85, 0.45) if s == NO_TRUMP else (0.7, 0.3)
        for c in hand:
            if tv[c] is not None:
                continue
            r = c % 6
            if r == ACE:
                est += ace_v
            elif r == KING and (c + 1) in hand:
                est += king_v
        out.append(est * 0.85 if copies else est)
    return out


def best_strain(hand: list[int], copies: bool) -> tuple[int, float]:
    """The heuristic's ``best_strain``: the first strain with the highest estimate."""
    e = estimates(hand, copies)
    best = 0
    for s in range(1, 5):
        if e[s] > e[best]:
            best = s
    return best, e[best]


class _BidStep:
    """One auction decision of one seat, ready to be replayed on a guessed hand."""

    __slots__ = ("seat", "action", "opts", "numbers", "specials", "has_pass", "cue_first", "cue1", "cue2",
                 "bonus", "pepper30", "hand_size", "endgame")

    def __init__(self, seat, action, legal, prior, view, team_of, players, hand_size, bonus):
        self.seat, self.action = seat, action
        self.opts = bid_options(legal)
        self.numbers = [(int(nm), st, a) for nm, st, a in self.opts if nm.isdigit()]
        self.specials = [(nm, st, a) for nm, st, a in self.opts if not nm.isdigit()]
        self.has_pass = "pass" in legal
        dealer = view["dealer"]
        iowa = family_of(view) == "iowa"
        self.pepper30 = family_of(view) == "pepper-30"
        position = (seat - dealer) % players
        self.cue_first = iowa and position in (1, 2) and not any(b != "pass" for _, b in prior)
        self.cue1 = self.cue2 = 0
        if iowa:
            for s, b in prior:
                if s != seat and team_of[s] == team_of[seat] and (s - dealer) % players in (1, 2):
                    if b == "bid 1":
                        self.cue1 += 1
                    elif b == "bid 2":
                        self.cue2 += 1
        self.bonus = bonus
        self.hand_size = hand_size
        # five-handed: a bid forced by the score does not depend on the hand.
        self.endgame = None
        if family_of(view) == "five-handed":
            target, scores = view.get("target_score") or 0, view["scores"]
            k = five_handed_endgame(scores[team_of[seat]], target, [k for k, _, _ in self.numbers],
                                    endgame_threat(prior, seat, scores, team_of, target))
            self.endgame = None if k is None else f"bid {k}"

    def choose(self, hand: list[int], copies: bool) -> str:
        """HeuristicBot._bid on ``hand`` (display order)."""
        if not self.opts:
            return "pass"
        if self.endgame is not None:
            return self.endgame
        strain, est = best_strain(hand, copies)
        for _ in range(self.cue1):
            est += 0.7
        if strain != NO_TRUMP:
            for _ in range(self.cue2):
                est += 0.9
        specials = self.specials
        if est >= self.hand_size - 0.35 and specials:
            name = specials[0][0]
            return next(a for nm, st, a in specials if nm == name and st in (None, strain))
        want = math.floor(est + self.bonus)
        numbers = self.numbers
        if self.cue_first and want < 3:
            jacks = {c // 6 for c in hand if c % 6 == JACK}
            if jacks & {0, 3} and jacks & {1, 2} and any(k == 2 for k, _, _ in numbers):
                return "bid 2"
            if any(c % 6 == ACE for c in hand) and any(k == 1 for k, _, _ in numbers):
                return "bid 1"
            return "pass" if self.has_pass else numbers[0][2]
        fits = [(k, st, a) for k, st, a in numbers if k <= want and st in (None, strain)]
        if fits:
            return (fits[0] if self.pepper30 else fits[-1])[2]
        if self.has_pass:
            return "pass"
        return next((a for k, st, a in numbers if st in (None, strain)), numbers[0][2] if numbers else "pass")


_LEGAL_CACHE: dict = {}


def _auction_legal(rs, players: int, dealer: int, bids: tuple) -> list[list[str]]:
    """Legal action texts before each bid of the auction (replayed through the engine; cached)."""
    key = (rs.name, id(rs), players, dealer, bids)
    hit = _LEGAL_CACHE.get(key)
    if hit is None:
        g = Game(rs, players, seed=0, first_dealer=dealer)
        hit = []
        for _, text in bids:
            hit.append([str(a) for a in g.legal_actions()])
            g.apply(text)
        if len(_LEGAL_CACHE) > 2000:
            _LEGAL_CACHE.clear()
        _LEGAL_CACHE[key] = hit
    return hit


class AuctionModel:
    """The auction decisions of the other seats, replayable on guessed hands.

    ``mismatches(seat, start_hand)`` counts the decisions of ``seat`` (its bids
    and passes, and the trump it named as the bidder) that the heuristic would
    have taken differently holding ``start_hand`` (its cards when play began).
    For a five-handed bidder, whose hand changed with the widow, only "too
    weak for its bid" counts.
    """

    def __init__(self, view: dict, rs, table, me: int):
        n = view["players"]
        self.n = n
        bids = tuple((s, b) for s, b in view.get("bids") or [])
        self.copies_rule = family_of(view) in ("bid-euchre", "five-handed")
        legal = _auction_legal(rs, n, view["dealer"], bids)
        team_of = table.team_of
        c = view.get("contract") or {}
        self.bidder = c.get("bidder")
        trump = c.get("trump")
        self.trump = None if trump in (None, "") else int(Strain.parse(trump))
        self.names_trump = not table.bid_names_strain
        self.five = rs.family == "five-handed"
        self.steps: list[list[_BidStep]] = [[] for _ in range(n)]
        for i, (s, b) in enumerate(bids):
            if s == me:
                continue
            bonus = partner_bonus(team_of, s, table.hand_size)
            self.steps[s].append(_BidStep(s, b, legal[i], bids[:i], view, team_of, n, table.hand_size, bonus))
        self.active = [bool(self.steps[s]) or (s == self.bidder and s != me and self.names_trump) for s in range(n)]

    def mismatches(self, seat: int, start_hand: list[int]) -> int:
        steps = self.steps[seat]
        if not steps and not (seat == self.bidder and self.names_trump):
            return 0
        hand = display_sorted(start_hand)
        copies = self.copies_rule or len(set(hand)) < len(hand)
        m = 0
        weak_only = self.five and seat == self.bidder
        for st in steps:
            got = st.choose(hand, copies)
            if got != st.action:
                if weak_only and st.action != "pass" and _rank(st, got) >= _rank(st, st.action):
                    continue
                m += 1
        if seat == self.bidder and self.names_trump and self.trump is not None:
            if best_strain(hand, copies)[0] != self.trump:
                m += 1
        return m


def _rank(step: _BidStep, action: str) -> int:
    """Order of an action among a step's options (pass lowest)."""
    for i, (_, _, a) in enumerate(step.opts):
        if a == action:
            return i + 1
    return 0
