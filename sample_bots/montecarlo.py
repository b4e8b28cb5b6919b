"""Determinized Monte Carlo: sample the unseen cards, play each candidate out.

For card play the bot repeatedly deals the cards it cannot see to the other
seats, consistently with what it has seen (hand sizes, and voids shown by
failures to follow suit, cards it passed), builds that position with
:meth:`referee.rules.Game.at_play`, and plays the rest of the deal out with a
fast greedy policy for every seat. The card with the best average result
(its side's deal points minus the others') is played. Every other decision is
taken by :class:`~sample_bots.heuristic.HeuristicBot`.

The search stops at ``budget_ms`` per decision (or the request's deadline,
whichever is sooner), after at least one sample per candidate.
"""

from __future__ import annotations

import random
import time

from referee.rules import BUILTIN_RULESETS, Game
from referee.rules.cards import EFFECTIVE_SUIT, STRENGTH, TRICK_RANK

from .heuristic import HeuristicBot
from .view import Seen, cid


class MonteCarloBot:
    name = "montecarlo"

    def __init__(self, budget_ms: float = 4.0, max_samples: int = 64, bid_samples: int = 16,
                 simulate_bids: bool = False, seed: int | None = None, rulesets: dict | None = None):
        # Rulesets the bot can simulate, by name (a game's start message names its ruleset).
        self.rulesets = dict(BUILTIN_RULESETS) | (rulesets or {})
        # simulate_bids: choose bids and trump by greedy rollouts too. Measured: it helps in
        # 3-player pepper-30 and hurts in partnership games, so it is off by default.
        self.simulate_bids = simulate_bids
        self.budget_ms = budget_ms
        self.bid_samples = bid_samples
        self.max_samples = max_samples
        self.rng = random.Random(seed)
        self.heuristic = HeuristicBot()

    def decide(self, view: dict) -> str:
        legal = view["legal_actions"]
        phase = view["phase"]
        rs = self.rulesets.get(view["ruleset"])
        if len(legal) == 1 or rs is None or (rs.family == "five-handed" and phase != "play"):
            return self.heuristic.decide(view)
        try:
            if phase == "play":
                return self._search(view)
            if phase == "bid" and self.simulate_bids:
                return self._bid(view)
            if phase == "name-trump" and self.simulate_bids:
                return self._name_trump(view)
        except Exception:  # noqa: BLE001 - a search failure must never cost the game: fall back
            pass
        return self.heuristic.decide(view)

    # -- bidding by simulation ---------------------------------------------
    def _deal_samples(self, v: Seen, table, k: int) -> list[list[list[int]]]:
        """``k`` random full deals of the cards I cannot see (no constraints yet: nothing is played)."""
        unseen = list(table.deck)
        for c in v.hand:
            unseen.remove(c)
        out = []
        for _ in range(k):
            self.rng.shuffle(unseen)
            hands, pos = [], 0
            for s in range(v.players):
                if s == v.seat:
                    hands.append(list(v.hand))
                else:
                    hands.append(unseen[pos:pos + table.hand_size])
                    pos += table.hand_size
            out.append(hands)
        return out

    def _tricks_as_bidder(self, v: Seen, rs, table, samples, strain: int, bid: str) -> list[int]:
        """My side's tricks in each sampled deal, if I play ``bid`` in ``strain``."""
        out = []
        for hands in samples:
            g = Game.at_play(rs, v.players, dealer=v.view["dealer"], bidder=v.seat, bid=bid, trump=strain,
                             hands=hands, seed=self.rng.randrange(1 << 30))
            _rollout(g)
            tw = g.deals[0].tricks
            out.append(sum(tw[s] for s in range(v.players) if table.team_of[s] == table.team_of[v.seat]))
        return sorted(out)

    def _bid(self, view: dict) -> str:
        v = Seen.of(view)
        rs = self.rulesets[view["ruleset"]]
        table = rs.table(v.players)
        opts = [(a.split()[1], ("S", "H", "D", "C", "NT").index(a.split()[2]) if len(a.split()) == 3 else None, a)
                for a in v.legal if a.startswith("bid ")]
        if not opts:
            return "pass"
        samples = self._deal_samples(v, table, self.bid_samples)
        base = table.ladder[0].name
        strains = sorted({st for _, st, _ in opts if st is not None}) or list(range(5))
        results = {st: self._tricks_as_bidder(v, rs, table, samples, st, base) for st in strains}
        strain = max(strains, key=lambda st: sum(results[st]))
        tricks = results[strain]
        safe = tricks[int(len(tricks) * 0.35)]  # made about two times in three
        numbers = [(int(nm), st, a) for nm, st, a in opts if nm.isdigit() and st in (None, strain)]
        specials = [(nm, st, a) for nm, st, a in opts if not nm.isdigit() and st in (None, strain)]
        if specials and safe >= table.hand_size:
            lv = next(lv for lv in table.ladder if lv.name == specials[0][0])
            alone = self._tricks_as_bidder(v, rs, table, samples, strain, lv.name) if lv.alone else tricks
            if sum(t >= table.hand_size for t in alone) >= 0.8 * len(alone):
                return specials[0][2]
        fits = [x for x in numbers if x[0] <= safe]
        if fits:
            return (fits[0] if rs.family == "pepper-30" else fits[-1])[2]
        if "pass" in v.legal:
            return "pass"
        return numbers[0][2] if numbers else v.legal[0]

    def _name_trump(self, view: dict) -> str:
        v = Seen.of(view)
        rs = self.rulesets[view["ruleset"]]
        table = rs.table(v.players)
        samples = self._deal_samples(v, table, self.bid_samples)
        results = {st: sum(self._tricks_as_bidder(v, rs, table, samples, st, v.bid)) for st in range(5)}
        return "trump " + ("S", "H", "D", "C", "NT")[max(results, key=results.get)]

    # ------------------------------------------------------------------
    def _search(self, view: dict) -> str:
        v = Seen.of(view)
        rs = self.rulesets[view["ruleset"]]
        table = rs.table(v.players)
        candidates = [cid(a.split()[1]) for a in v.legal]
        budget = self.budget_ms / 1000.0
        if view.get("deadline_ms"):
            budget = min(budget, view["deadline_ms"] / 1000.0 * 0.5)
        stop = time.perf_counter() + budget
        totals = [0.0] * len(candidates)
        counts = [0] * len(candidates)
        plays = [(s, c) for _, ps, _ in v.tricks for s, c in ps] + v.trick
        my_side_team = table.team_of[v.seat]
        samples = 0
        while samples < self.max_samples:
            hands = self._sample(v, table, plays)
            root = Game.at_play(rs, v.players, dealer=view["dealer"], bidder=v.bidder, bid=v.bid, trump=v.trump,
                                hands=hands, plays=plays, seed=samples)
            for i, card in enumerate(candidates):
                g = root.copy()
                g.apply(card)
                _rollout(g)
                pts = g.deals[0].points
                if table.teams == v.players:  # individual scoring
                    mine = pts[v.seat]
                    others = (sum(pts) - mine) / (len(pts) - 1)
                else:
                    mine = pts[my_side_team]
                    others = (sum(pts) - mine) / (len(pts) - 1)
                totals[i] += mine - others
                counts[i] += 1
            samples += 1
            if time.perf_counter() > stop:
                break
        best = max(range(len(candidates)), key=lambda i: totals[i] / counts[i])
        return v.legal[best]

    def _sample(self, v: Seen, table, plays) -> list[list[int]]:
        """Current hands for every seat: mine as seen, the others sampled."""
        n = v.players
        unseen = list(table.deck)
        for c in v.hand + [c for _, c in plays] + [cid(x) for x in v.view.get("private", {}).get("discards", [])]:
            unseen.remove(c)
        played_by = [0] * n
        for s, _ in plays:
            played_by[s] += 1
        need = [0 if s == v.seat else table.hand_size - played_by[s] for s in range(n)]
        # Known: cards I passed to the bidder and that are not yet played sit in the bidder's hand.
        fixed: list[list[int]] = [[] for _ in range(n)]
        gave = [cid(x) for x in v.view.get("private", {}).get("gave", [])]
        for c in gave:
            if v.bidder is not None and v.bidder != v.seat and c in unseen and need[v.bidder] > 0:
                unseen.remove(c)
                fixed[v.bidder].append(c)
                need[v.bidder] -= 1
        voids = [set() for _ in range(n)]
        strain = v.strain
        eff = EFFECTIVE_SUIT[strain]
        for ld, ps, _ in v.tricks + ([(None, v.trick, None)] if v.trick else []):
            led = eff[ps[0][1]]
            for s, c in ps[1:]:
                if eff[c] != led:
                    voids[s].add(led)
        for _attempt in range(30):
            self.rng.shuffle(unseen)
            pool = list(unseen)
            hands = [list(f) for f in fixed]
            ok = True
            for s in sorted(range(n), key=lambda s: -len(voids[s])):
                k = need[s]
                if not k:
                    continue
                fits = [c for c in pool if eff[c] not in voids[s]]
                if len(fits) < k:
                    ok = False
                    break
                take = fits[:k]
                for c in take:
                    pool.remove(c)
                hands[s].extend(take)
            if ok:
                break
        else:  # constraints could not be met (inconsistent reads): ignore voids
            pool = list(unseen)
            hands = [list(f) for f in fixed]
            for s in range(n):
                hands[s].extend(pool[:need[s]])
                del pool[:need[s]]
        hands[v.seat] = list(v.hand)
        return hands


def _weakest(ids: list[int], trump: int) -> int:
    st, effs = STRENGTH[trump], EFFECTIVE_SUIT[trump]
    return min(ids, key=lambda c: (effs[c] == trump, st[c]))


def _rollout(g: Game) -> None:
    """Play the current deal out with a fast version of the heuristic bot's card play.

    Rolling out with (roughly) the heuristic itself makes the one-step search
    a policy improvement over it, rather than over some weaker policy.
    """
    team_of = g.table.team_of
    partnerships = g.table.teams < g.players
    bidder = g.contract.bidder
    while not g.deals:
        ids = g.legal_action_ids()
        if len(ids) == 1:
            g.apply(ids[0])
            continue
        trump = g.trump
        tc = g.trick_cards
        st, effs = STRENGTH[trump], EFFECTIVE_SUIT[trump]
        me = g.to_act
        if not tc:
            # Lead: the offence draws trumps with its best one; otherwise an Ace, else the weakest card.
            if partnerships and team_of[me] == team_of[bidder] or me == bidder:
                trumps = [c for c in ids if effs[c] == trump]
                if trumps:
                    g.apply(max(trumps, key=st.__getitem__))
                    continue
            aces = [c for c in ids if c % 6 == 5 and effs[c] != trump]
            g.apply(aces[0] if aces else _weakest(ids, trump))
            continue
        rank = TRICK_RANK[trump][effs[tc[0]]]
        bi = 0
        for i in range(1, len(tc)):
            if rank[tc[i]] > rank[tc[bi]]:
                bi = i
        if partnerships and team_of[g.trick_seats[bi]] == team_of[me]:
            if trump == 4 and g.trick_seats[bi] == bidder and effs[ids[0]] == effs[tc[0]]:
                g.apply(max(ids, key=st.__getitem__))  # no-trump: unblock under the bidder
            else:
                g.apply(_weakest(ids, trump))
            continue
        best = rank[tc[bi]]
        win = [c for c in ids if rank[c] > best]
        g.apply(min(win, key=rank.__getitem__) if win else _weakest(ids, trump))
