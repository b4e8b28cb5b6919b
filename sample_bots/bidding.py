"""Bidding by simulation: finish the auction, then the deal, for each candidate bid.

:class:`AuctionSim` is built from a seat's view at its turn to bid. For one
full guess of the hands it plays the rest of the auction after a candidate
action (every later decision, including the seat's own later turns in a
``pepper-30`` auction, is the heuristic's, replayed on ints as in
:mod:`sample_bots.auction`), lets the winner name trump as the heuristic does,
and values the resulting contract with :class:`~sample_bots.dealsim.DealSim`
(exchanges, widow, cede, card play). The card play does not depend on the bid
level, so one play-out per (bidder, trump, kind of contract) serves every
level: a sample costs a few play-outs however many bids are compared.
"""

from __future__ import annotations

import math

from referee.rules.cards import NO_TRUMP

from .auction import best_strain, display_sorted
from .dealsim import DealSim
from .heuristic import five_handed_endgame, partner_bonus
from .view import family_of

__all__ = ["AuctionSim"]

ACE, JACK = 5, 2
_STRAIN_TEXT = ("S", "H", "D", "C", "NT")


class AuctionSim:
    """The rest of an auction and deal, from the view of the seat about to bid (``me``)."""

    def __init__(self, view: dict, rs, table):
        self.rs, self.table = rs, table
        n = self.n = view["players"]
        self.me = view["seat"]
        self.dealer = view["dealer"]
        self.ladder = table.ladder
        self.names_strain = table.bid_names_strain
        self.family = rs.family
        self.elimination = rs.family == "pepper-30"
        self.must_bid = rs.pass_out == "dealer-must-bid"
        self.iowa = family_of(view) == "iowa"
        self.pepper30 = family_of(view) == "pepper-30"
        self.copies_rule = family_of(view) in ("bid-euchre", "five-handed")
        self.hand_size = table.hand_size
        self.top = len(self.ladder) - 1
        self.number = [lv.number for lv in self.ladder]           # None for special levels
        self.idx_of_name = {lv.name: i for i, lv in enumerate(self.ladder)}
        team_of = table.team_of
        self.bonus = [partner_bonus(team_of, s, table.hand_size) for s in range(n)]
        self.position = [(s - self.dealer) % n for s in range(n)]
        # five-handed: the scores and target decide some bids (heuristic.five_handed_endgame).
        self.scores = list(view.get("scores") or [0] * table.teams)
        self.target = (view.get("target_score") or 0) if self.family == "five-handed" else 0
        self.sim = DealSim(rs, table, self.me)
        # The auction so far.
        self.high, self.high_bidder, self.high_strain = -1, None, None
        self.turns = 0
        self.in_auction = [True] * n
        self.history: list[tuple[int, int, int | None]] = []   # (seat, level index or -1, strain)
        for s, text in view.get("bids") or []:
            self._apply(s, *self.parse(text))
        self.to_act = self.me

    # ----------------------------------------------------------- actions
    def parse(self, text: str) -> tuple[int, int | None]:
        w = text.split()
        if w[0] == "pass":
            return -1, None
        return self.idx_of_name[w[1]], (_STRAIN_TEXT.index(w[2]) if len(w) == 3 else None)

    def text(self, idx: int, strain: int | None) -> str:
        if idx < 0:
            return "pass"
        name = self.ladder[idx].name
        return f"bid {name}" if strain is None else f"bid {name} {_STRAIN_TEXT[strain]}"

    def _apply(self, seat: int, idx: int, strain: int | None) -> bool:
        """Record an action; True when the auction is over."""
        self.history.append((seat, idx, strain))
        if idx < 0:
            if self.elimination:
                self.in_auction[seat] = False
        else:
            self.high, self.high_bidder, self.high_strain = idx, seat, strain
            if idx == self.top:
                return True
        self.turns += 1
        if self.elimination:
            left = sum(self.in_auction)
            return left == 0 or (left == 1 and self.high_bidder is not None)
        return self.turns == self.n

    def _next(self, seat: int) -> int:
        n = self.n
        s = (seat + 1) % n
        if self.elimination:
            while not self.in_auction[s]:
                s = (s + 1) % n
        return s

    def _may_pass(self) -> bool:
        if self.high_bidder is None and self.must_bid:
            return not (sum(self.in_auction) == 1 if self.elimination else self.turns == self.n - 1)
        return True

    # ------------------------------------------------------ the heuristic
    def heuristic_action(self, seat: int, info, history, high: int, may_pass: bool) -> tuple[int, int | None]:
        """HeuristicBot._bid for ``seat`` (``info``: its (best strain, estimate, has Ace, red and black Jacks))."""
        top = self.top
        if high >= top:
            return -1, None
        strain, est, ace, rbj = info
        forced = self.endgame(seat)
        if forced is not None:
            return forced, None
        if self.iowa:
            for s, idx, _ in history:
                if s != seat and self.table.team_of[s] == self.table.team_of[seat] and self.position[s] in (1, 2):
                    nm = self.number[idx] if idx >= 0 else None
                    if nm == 1:
                        est += 0.7
                    elif nm == 2 and strain != NO_TRUMP:
                        est += 0.9
        names = self.names_strain
        st = strain if names else None
        first_special = next((i for i in range(high + 1, top + 1) if self.number[i] is None), None)
        if first_special is not None and est >= self.hand_size - 0.35:
            return first_special, st
        want = math.floor(est + self.bonus[seat])
        numeric = [i for i in range(high + 1, top + 1) if self.number[i] is not None]
        if self.iowa and self.position[seat] in (1, 2) and not any(idx >= 0 for _, idx, _ in history) and want < 3:
            if rbj and any(self.number[i] == 2 for i in numeric):
                return self.idx_of_name["2"], None
            if ace and any(self.number[i] == 1 for i in numeric):
                return self.idx_of_name["1"], None
            if may_pass or not numeric:
                return -1, None
            return numeric[0], (0 if names else None)
        fits = [i for i in numeric if self.number[i] <= want]
        if fits:
            return (fits[0] if self.pepper30 else fits[-1]), st
        if may_pass or not numeric:
            return -1, None
        return numeric[0], st

    def endgame(self, seat: int) -> int | None:
        """five-handed: the level index ``seat`` bids because of the score (heuristic.five_handed_endgame), or None."""
        if not self.target:
            return None
        high, hb, team_of = self.high, self.high_bidder, self.table.team_of
        numeric = [i for i in range(high + 1, self.top + 1) if self.number[i] is not None]
        threat = (hb is not None and hb != seat and self.number[high] is not None
                  and self.scores[team_of[hb]] - self.number[high] >= self.target)
        k = five_handed_endgame(self.scores[team_of[seat]], self.target, [self.number[i] for i in numeric], threat)
        return None if k is None else self.idx_of_name[str(k)]

    @staticmethod
    def seat_info(hand: list[int], copies: bool):
        h = display_sorted(hand)
        strain, est = best_strain(h, copies)
        jacks = {c // 6 for c in h if c % 6 == JACK}
        return strain, est, any(c % 6 == ACE for c in h), bool(jacks & {0, 3} and jacks & {1, 2})

    # ------------------------------------------------------------ rollout
    def finish(self, first: tuple[int, int | None], infos) -> tuple[int, int, int] | None:
        """The contract (bidder, level index, trump) after ``me`` plays ``first``; None: thrown in."""
        saved = (self.high, self.high_bidder, self.high_strain, self.turns, list(self.in_auction), len(self.history))
        try:
            seat = self.me
            done = self._apply(seat, *first)
            while not done:
                seat = self._next(seat)
                act = self.heuristic_action(seat, infos[seat], self.history, self.high, self._may_pass())
                done = self._apply(seat, *act)
            if self.high_bidder is None:
                return None
            bidder = self.high_bidder
            trump = self.high_strain if self.names_strain else infos[bidder][0]
            return bidder, self.high, trump
        finally:
            self.high, self.high_bidder, self.high_strain, self.turns, ipa, hl = saved
            self.in_auction = ipa
            del self.history[hl:]

    def values(self, hands: list[list[int]], extra: list[int], candidates) -> list[float]:
        """``me``'s score difference after each candidate action, on one full guess of the deal."""
        infos = _LazyInfos(hands, self.copies_rule)   # most seats never need theirs
        cache: dict = {}
        out = []
        for cand in candidates:
            con = self.finish(cand, infos)
            if con is None:
                out.append(0.0)
                continue
            bidder, idx, trump = con
            lv = self.ladder[idx]
            key = (bidder, trump, lv.alone, lv.name if lv.special else "")
            res = cache.get(key)
            if res is None:
                res = cache[key] = self.sim.outcome(hands, extra, bidder, lv, trump)
            out.append(self.sim.score(bidder, lv, *res))
        return out


class _LazyInfos:
    """``AuctionSim.seat_info`` of each seat's hand, computed when first asked for."""

    __slots__ = ("hands", "copies_rule", "cache")

    def __init__(self, hands, copies_rule: bool):
        self.hands, self.copies_rule = hands, copies_rule
        self.cache: dict = {}

    def __getitem__(self, seat: int):
        got = self.cache.get(seat)
        if got is None:
            h = self.hands[seat]
            got = self.cache[seat] = AuctionSim.seat_info(h, self.copies_rule or len(set(h)) < len(h))
        return got
