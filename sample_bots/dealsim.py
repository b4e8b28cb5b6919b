"""Simulating a whole deal from the end of the auction, for searches before play starts.

:class:`DealSim` takes a full guess of the hands (and of the widow or dead
hand) and a contract (bidder, bid level, trump), and plays out everything that
follows with the heuristic's decisions, re-implemented on ints: the iowa
Pepper exchange (the partner passes its best card, the bidder gives back its
weakest), the bid-euchre Pepper pass and discard, the five-handed widow and
discards, the iowa defenders' decision to cede (only when no card of theirs
could take a trick), then the card play (:class:`~sample_bots.playout.PlayOut`).
It returns the deal's points per team, or one seat's score difference.

The Monte Carlo bot uses it to name trump and to decide whether to cede by
comparing the candidates on the same sampled deals.
"""

from __future__ import annotations

from referee.rules.cards import EFFECTIVE_SUIT, NO_TRUMP, STRENGTH
from referee.rules.families import Family, rules_of
from referee.rules.scoring import deal_points

from .playout import POWER, PlayOut

__all__ = ["DealSim", "weakest", "cede_threats"]

ACE = 5


def weakest(cards: list[int], trump: int) -> int:
    """HeuristicBot._weakest: the lowest non-trump, preferring short suits (ties: display order)."""
    eff, pw = EFFECTIVE_SUIT[trump], POWER[trump]
    counts = [0, 0, 0, 0]
    for c in cards:
        counts[eff[c]] += 1
    best, bk = None, None
    for c in sorted(cards, key=lambda c: (c // 6, -(c % 6))):
        k = (eff[c] == trump, pw[c], counts[eff[c]])
        if bk is None or k < bk:
            best, bk = c, k
    return best


def strongest(cards: list[int], trump: int) -> int:
    """max(hand, key=strength) in display order (the first of equals)."""
    pw = POWER[trump]
    best = None
    for c in sorted(cards, key=lambda c: (c // 6, -(c % 6))):
        if best is None or pw[c] > pw[best]:
            best = c
    return best


def cede_threats(hand: list[int], trump: int) -> int:
    """HeuristicBot._cede's count of the cards that could take a trick."""
    eff, st = EFFECTIVE_SUIT[trump], STRENGTH[trump]
    threats = 0
    ntr = 0
    for c in hand:
        if trump != NO_TRUMP and eff[c] == trump:
            ntr += 1
            if st[c] >= 4:
                threats += 1
        elif c % 6 == ACE:
            threats += 1
    return threats + (1 if ntr >= 2 else 0)


class DealSim:
    """The rest of a deal after the auction, for one ruleset, table and point of view (``me``)."""

    def __init__(self, rs, table, me: int):
        self.rs, self.table, self.me = rs, table, me
        self.family = rs.family
        self.rules = rules_of(rs.family)
        self._po: dict = {}

    def playout(self, bidder: int, level, trump: int) -> PlayOut:
        """The play-out from the first lead (its policy depends on the level only through ``alone``)."""
        key = (bidder, level.alone, trump)
        po = self._po.get(key)
        if po is None:
            t = self.table
            out = self.rules.sitting_out(t, bidder, level.alone)   # the alone bidder's partners, in partnerships
            po = self._po[key] = PlayOut(
                family=self.family, players=t.players, team_of=t.team_of, hand_size=t.hand_size, deck_cards=t.deck,
                bidder=bidder, trump=trump, tricks_needed=level.tricks, points=level.points, alone=level.alone,
                sitting_out=out, seat=self.me)
        return po

    def value(self, hands: list[list[int]], extra: list[int], bidder: int, level, trump: int,
              cede: dict | None = None, after_exchange: bool = False) -> float:
        """``me``'s score difference for the deal (hands as dealt; ``extra``: the widow).

        ``cede`` may force defenders' answers: {seat: True/False}; others answer as the heuristic.
        With ``after_exchange`` the hands are those after any Pepper exchange, widow or discard.
        """
        return self.score(bidder, level, *self.outcome(hands, extra, bidder, level, trump, cede, after_exchange))

    def score(self, bidder: int, level, tricks_won, partner, ceded: bool) -> float:
        """``me``'s deal points minus the average of the other teams' (or players')."""
        t = self.table
        pts = deal_points(self.family, t.team_of, t.teams, t.hand_size, bidder, partner, level.tricks, level.points,
                          level.alone, tricks_won, ceded=ceded)
        me = pts[t.team_of[self.me]]
        return me - (sum(pts) - me) / (len(pts) - 1)

    def outcome(self, hands: list[list[int]], extra: list[int], bidder: int, level, trump: int,
                cede: dict | None = None, after_exchange: bool = False):
        """(tricks won per seat, partner, ceded) of the deal after the auction."""
        t, fam, rs = self.table, self.family, self.rs
        po = self.playout(bidder, level, trump)
        hands = [list(h) for h in hands]
        if after_exchange:
            pass
        elif fam == Family.IOWA and level.alone and rs.pepper_exchange:
            partner = next(s for s in range(t.players) if s != bidder and t.team_of[s] == t.team_of[bidder])
            pc = strongest(hands[partner], trump)
            bc = weakest(hands[bidder], trump)
            hands[partner].remove(pc)
            hands[bidder].remove(bc)
            hands[partner].append(bc)
            hands[bidder].append(pc)
        elif fam == Family.BID_EUCHRE and level.name == "pepper" and rs.pepper_exchange:
            eff = EFFECTIVE_SUIT[trump]
            n = t.players
            for i in range(1, n):
                s = (bidder + i) % n
                if t.team_of[s] != t.team_of[bidder]:
                    continue
                best = strongest(hands[s], trump)
                if eff[best] != trump and best % 6 != ACE:
                    continue
                hands[s].remove(best)
                hands[bidder].append(best)
                hands[bidder].remove(weakest(hands[bidder], trump))
                break
        elif fam == Family.FIVE_HANDED and level.name != "moon-shot":   # the bidder takes the widow
            hands[bidder].extend(extra)
            for _ in range(len(extra)):
                hands[bidder].remove(weakest(hands[bidder], trump))
        if self.rules.may_cede and rs.defenders_may_cede:
            n = t.players
            bt = t.team_of[bidder]
            defenders = [(bidder + i) % n for i in range(1, n) if t.team_of[(bidder + i) % n] != bt]
            ceded = True
            for s in defenders:
                yes = cede[s] if cede and s in cede else cede_threats(hands[s], trump) == 0
                if not yes:
                    ceded = False
                    break
            if ceded:
                return None, None, True
        out = po.run(po.split(hands))
        return out.tricks_won, out.partner, False
