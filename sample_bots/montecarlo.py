"""Determinized Monte Carlo over fast, exact re-implementations of the heuristic.

The bot is a one-step policy improvement over :class:`~sample_bots.heuristic.HeuristicBot`:
at each decision it compares its options by sampling the cards it cannot see
and finishing the deal, for each option, with the heuristic's own policy for
every seat, then takes the option with the best mean result. Because the
play-outs use the very policy of the opponents, the mean of an option is an
estimate of what that option is worth against them, and the heuristic's
choice is always among the options, so (with enough samples) the bot can
only gain.

Card play (:meth:`MonteCarloBot._play`)
    1. The public position is built once, a :class:`~sample_bots.playout.PlayOut`:
       contract, tricks so far, the trick in progress, five-handed partner state.
    2. Legal cards are grouped into classes of *equivalent* cards (same
       effective suit, no unseen card ranking between them); one class: play.
    3. Deals of the unseen cards are sampled (:class:`HandSampler`) consistently
       with what the seat knows: hand sizes, voids shown by failures to follow
       suit, cards it passed or discarded, the five-handed partner card (a holder
       who followed its suit would have had to play it), and the auction: the
       bidder's hand is re-drawn (up to ``auction_tries`` times) until the
       heuristic's bids and trump choice replay on it
       (:class:`~sample_bots.auction.AuctionModel`).
    4. Every candidate is played out on every sampled deal (common random
       numbers: candidates are compared on the same deals), scored as the
       seat's side's deal points minus the others'. Candidates that fall
       ``prune`` standard errors behind the best stop being sampled.
    5. The best mean wins, but it must beat the heuristic's card by
       ``conservative`` standard errors of the paired differences, over at
       least ``min_overrule`` deals; otherwise the heuristic's card is played.

Bids, trump, cede (:meth:`MonteCarloBot._bid`, ``_name_trump``, ``_cede``)
    The same comparison over full deals sampled from the auction so far
    (every other seat's bids replayed on its guessed hand): for a bid, the rest
    of the auction is played with the heuristic's bidding
    (:class:`~sample_bots.bidding.AuctionSim`), the winner names trump as the
    heuristic would, and the deal is finished by
    :class:`~sample_bots.dealsim.DealSim` (Pepper exchange, widow and discards,
    the defenders' cede, card play). Exchanges, gifts and discards stay the
    heuristic's.

Speed
    The play-out simulator works on plain lists of card ints and the engine's
    tables, about 1.5 microseconds a card, and reproduces the engine and the
    heuristic move for move (tests/test_mc_simulators.py checks the play-out,
    the auction replay and the deal simulation against real games). A card
    search at 1 ms samples about 10 deals (iowa) where building
    :class:`~referee.rules.Game` objects afforded about one; bench/bots.py
    measures the resulting strength.

Time
    ``budget_ms`` (default ``$PEPPER_MC_BUDGET_MS``, else 1 ms) is the *average*
    CPU time per decision: every decision deposits it in a bank (capped at
    ``bank`` budgets) and each search may spend what the bank holds, up to
    ``max_search`` budgets for a card and ``max_pre`` for a bid, trump or cede,
    and never more than a fraction of the request's ``deadline_ms``. Trivial
    decisions (one legal action, one class of cards, exchanges) cost almost
    nothing, so the hard ones get several budgets. With ``samples`` the search
    uses exactly that many deals instead of the clock (deterministic with a
    ``seed``). Any exception inside a search falls back to the heuristic.
"""

from __future__ import annotations

import math
import os
import random
import time
from types import SimpleNamespace

from referee.rules import BUILTIN_RULESETS, Family
from referee.rules.cards import EFFECTIVE_SUIT, NO_TRUMP, Card

from .auction import AuctionModel
from .bidding import AuctionSim
from .dealsim import DealSim, weakest
from .heuristic import HeuristicBot
from .playout import POWER, PlayOut
from .view import Seen, cid

__all__ = ["MonteCarloBot", "HandSampler"]

DEFAULT_BUDGET_MS = 1.0


def _env_budget() -> float:
    try:
        return float(os.environ.get("PEPPER_MC_BUDGET_MS", "")) or DEFAULT_BUDGET_MS
    except ValueError:
        return DEFAULT_BUDGET_MS


class HandSampler:
    """Deals the cards a seat cannot see to the seats that hold them.

    ``unseen`` is the multiset of cards not in my hand and not played;
    ``need[s]`` how many each other seat holds now; cards left over are out of
    play (widow discards, a dead hand, a sitting-out partner's hand).
    ``voids[s]`` are effective suits seat ``s`` cannot hold, ``excl[s]`` single
    cards it cannot hold. ``must`` is an optional (card, seats) pair: at least
    one copy of ``card`` goes to one of ``seats`` (the five-handed partner card).

    With an ``auction`` model (:class:`~sample_bots.auction.AuctionModel`) the
    seats are dealt one at a time, the bidder first: up to ``tries`` hands are
    drawn for a seat and the first whose auction replays without mismatch (else
    the one with the fewest) is kept. :meth:`deal` returns the hands and the
    total number of auction mismatches left.
    """

    def __init__(self, rng: random.Random, n: int, me: int, my_hand: list[int], unseen: list[int], need: list[int],
                 voids, excl, eff, must=None, auction=None, played=None, tries: int = 1, first: int | None = None):
        self.rng, self.n, self.me = rng, n, me
        self.my_hand = sorted(my_hand)
        self.unseen = list(unseen)
        self.need = list(need)
        self.out = len(unseen) - sum(need)
        if self.out < 0:
            raise ValueError("more hidden cards needed than unseen")
        self.voids, self.excl, self.eff = voids, excl, eff
        seats = [s for s in range(n) if need[s] > 0]
        # The bidder (most constrained by the auction) first, then by voids.
        seats.sort(key=lambda s: (s != first, -(len(voids[s]) * 8 + len(excl[s]))))
        self.seats = seats
        self.must = must
        self.auction = auction if auction is not None and any(auction.active[s] for s in seats) else None
        self.played = played or [[] for _ in range(n)]
        self.tries = max(1, tries)
        self.plain = not any(voids[s] or excl[s] for s in range(n)) and self.auction is None

    def deal(self) -> tuple[list[list[int]], int]:
        for _ in range(20):
            got = self._try()
            if got is not None and self._ok(got[0]):
                return got
        for _ in range(20):
            got = self._try(use_auction=False)
            if got is not None:
                return got[0], 99
        return self._try(constrained=False)[0], 99

    def _ok(self, hands) -> bool:
        if self.must is None:
            return True
        card, seats = self.must
        return any(card in hands[s] for s in seats)

    def _try(self, use_auction: bool = True, constrained: bool = True):
        rng, n = self.rng, self.n
        pool = self.unseen
        rng.shuffle(pool)
        hands: list[list[int]] = [[] for _ in range(n)]
        hands[self.me] = list(self.my_hand)
        if self.plain or not constrained:
            pos = 0
            for s in self.seats:
                k = self.need[s]
                hands[s] = sorted(pool[pos:pos + k])
                pos += k
            self.left = pool[pos:]
            return hands, 0
        left = list(pool)
        eff = self.eff
        auction = self.auction if use_auction else None
        total = 0
        for s in self.seats:
            k = self.need[s]
            vs, ex = self.voids[s], self.excl[s]
            fits = [c for c in left if eff[c] not in vs and c not in ex] if (vs or ex) else left
            if len(fits) < k:
                return None
            if auction is not None and auction.active[s]:
                best, best_m = None, None
                played = self.played[s]
                for _ in range(self.tries):
                    take = rng.sample(fits, k)
                    m = auction.mismatches(s, take + played)
                    if best_m is None or m < best_m:
                        best, best_m = take, m
                        if m == 0:
                            break
                take = best
                total += best_m
            else:
                take = fits[:k]
            for c in take:
                left.remove(c)
            hands[s] = sorted(take)
        self.left = left
        return hands, total


#: Search parameters; every one can be given to :class:`MonteCarloBot` by name.
DEFAULTS = {
    "conservative": 1.0,     # z-score a search must show to overrule the heuristic's choice
    "min_overrule": 4.0,     # effective sampled deals needed before overruling the heuristic
    "prune": 3.0,            # z-score below the best at which a card stops being sampled (0: never)
    # Play inference (off: at 1-2 ms the replays cost more samples than they are worth):
    "lam": 0.0,              # a deal's weight is exp(-lam * plays so far the heuristic would not have made)
    "tries": 1,              # deals drawn per sample; the most heuristic-consistent one is kept
    "auction_tries": 3,      # card play: hands drawn per seat to fit the auction (0: ignore the auction)
    "auction_seats": "bidder",  # card play: fit the auction of "all" seats, or of the "bidder" only
    "pre_auction_tries": 8,  # the same for the bid, trump and cede searches
    "lam_auction": 1.0,      # a deal's weight is also exp(-lam_auction * auction mismatches)
    "max_search": 4.0,       # CPU cap of one card-play search, in budgets
    "max_pre": 6.0,          # CPU cap of one bid / trump / cede search, in budgets
    "search_bid": True,      # bid by simulating the rest of the auction and the deal
    "search_trump": True,    # name trump by simulation
    "search_cede": True,     # cede or play by simulation (iowa defenders)
    # Discards by simulation (five-handed widow, bid-euchre Pepper): off, it measured worse in play
    # (-0.22 ± 0.08 points a deal in five-handed) although it looks better against heuristic play-outs.
    "search_discard": False,
    "discard_candidates": 4,  # discards compared besides the heuristic's: the weakest cards
}

#: Per (family, players) adjustments, measured with bench/bots.py. With six or eight players the
#: inference costs more samples than it is worth in card play.
TUNING: dict[tuple[Family, int], dict] = {
    (Family.BID_EUCHRE, 6): {"auction_tries": 0},
    (Family.BID_EUCHRE, 8): {"auction_tries": 0},
}


class MonteCarloBot:
    """Determinized Monte Carlo over the heuristic (see the module docstring).

    ``budget_ms``: average CPU time per decision (default ``$PEPPER_MC_BUDGET_MS``, else 1 ms);
    ``seed``: the sampling seed; ``rulesets``: extra rulesets by name; ``samples``: a fixed number of
    sampled deals per search instead of the clock (deterministic with a seed); ``bank``: the most
    unused budget, in budgets, that later decisions may draw on. Other keywords override
    :data:`DEFAULTS` for every ruleset.
    """

    name = "montecarlo"

    def __init__(self, budget_ms: float | None = None, seed: int | None = None, rulesets: dict | None = None,
                 samples: int | None = None, max_samples: int = 400, bank: float = 8.0, **params):
        unknown = set(params) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"unknown MonteCarloBot parameter(s): {', '.join(sorted(unknown))}")
        # Rulesets the bot can simulate, by name (a game's start message names its ruleset).
        self.rulesets = dict(BUILTIN_RULESETS) | (rulesets or {})
        self.budget_ms = _env_budget() if budget_ms is None else float(budget_ms)
        self.samples = samples
        self.max_samples = max_samples
        self.bank_ms = bank * self.budget_ms
        self._bank = self.bank_ms / 1000.0   # seconds of CPU the next searches may draw on
        self.params = dict(params)
        self._configs: dict = {}
        self.rng = random.Random(seed)
        self.heuristic = HeuristicBot()
        self.stats = {"decisions": 0, "searched": 0, "samples": 0, "overruled": 0}

    def config(self, family: str, players: int) -> SimpleNamespace:
        """The parameters for one family and player count: DEFAULTS, then TUNING, then the caller's."""
        key = (family, players)
        cfg = self._configs.get(key)
        if cfg is None:
            cfg = self._configs[key] = SimpleNamespace(**(DEFAULTS | TUNING.get(key, {}) | self.params))
        return cfg

    def _cfg(self, view: dict) -> SimpleNamespace:
        rs = self.rulesets[view["ruleset"]]
        return self.config(rs.family, view["players"])

    # ------------------------------------------------------------------ entry
    def decide(self, view: dict) -> str:
        legal = view["legal_actions"]
        # Time bank: every decision adds the budget, searches spend what they use, so the average
        # CPU time per decision stays within budget while hard decisions get more than easy ones.
        t0 = time.thread_time()
        self._bank = min(self._bank + self.budget_ms / 1000.0, self.bank_ms / 1000.0)
        try:
            return self._decide(view, legal)
        finally:
            self._bank -= time.thread_time() - t0

    def _decide(self, view: dict, legal) -> str:
        phase = view.get("phase")
        if len(legal) > 1 and view.get("ruleset") in self.rulesets:
            try:
                cfg = self._cfg(view)
                if phase == "play":
                    return self._play(view, cfg)
                if phase == "bid" and cfg.search_bid:
                    return self._bid(view, cfg)
                if phase == "name-trump" and cfg.search_trump:
                    return self._name_trump(view, cfg)
                if phase == "cede" and cfg.search_cede:
                    return self._cede(view, cfg)
                if phase == "discard" and cfg.search_discard:
                    return self._discard(view, cfg)
            except Exception:  # noqa: BLE001 - a search failure must never cost the game: fall back
                self.stats["errors"] = self.stats.get("errors", 0) + 1
        return self.heuristic.decide(view)

    # ------------------------------------------------------ before the play
    def _compare(self, view: dict, cfg, options: list[str], h_choice: str, evaluate, need: list[int],
                 exclude: list[int] = ()) -> str:
        """Pick among ``options`` by their mean ``evaluate(hands, left, option)`` over sampled deals.

        The deals give the other seats ``need[s]`` cards each, consistently with the auction; ``left``
        are the unseen cards dealt to nobody (the widow, a dead hand). As in card play, an option
        other than the heuristic's choice must be better by ``conservative`` standard errors.
        ``evaluate`` may instead be ``("all", f)`` with ``f(hands, left)`` valuing every option at once.
        """
        t_start = time.thread_time()
        wall_start = time.perf_counter()
        v = Seen.of(view)
        rs = self.rulesets[view["ruleset"]]
        table = rs.table(v.players)
        unseen = list(table.deck)
        for c in list(v.hand) + list(exclude):
            unseen.remove(c)
        n = v.players
        tries = cfg.pre_auction_tries
        auction = AuctionModel(view, rs, table, v.seat) if tries > 0 and view.get("bids") else None
        sampler = HandSampler(self.rng, n, v.seat, v.hand, unseen, need, [set() for _ in range(n)],
                              [set() for _ in range(n)], EFFECTIVE_SUIT[NO_TRUMP], None, auction, None,
                              tries, v.bidder if v.bidder not in (None, v.seat) else None)
        k = len(options)
        h_idx = options.index(h_choice) if h_choice in options else 0
        W: list[float] = []
        V: list[list[float]] = [[] for _ in range(k)]
        if self.samples is None:
            budget = min(self._bank, cfg.max_pre * self.budget_ms / 1000.0)
            if view.get("deadline_ms"):
                budget = min(budget, view["deadline_ms"] / 1000.0 * 0.25)
            wall_cap = max(0.05, 20 * budget)
            limit = self.max_samples
        else:
            budget, wall_cap, limit = float("inf"), float("inf"), self.samples
        nsamp = 0
        while nsamp < limit:
            hands, am = sampler.deal()
            left = list(sampler.left)
            W.append(math.exp(-cfg.lam_auction * am) if am else 1.0)
            if isinstance(evaluate, tuple):
                for i, x in enumerate(evaluate[1](hands, left)):
                    V[i].append(x)
            else:
                for i, opt in enumerate(options):
                    V[i].append(evaluate(hands, left, opt))
            nsamp += 1
            if time.thread_time() - t_start > budget or time.perf_counter() - wall_start > wall_cap:
                break
        self.stats["presearched"] = self.stats.get("presearched", 0) + 1
        self.stats["pre_samples"] = self.stats.get("pre_samples", 0) + nsamp
        best = max(range(k), key=lambda i: (_wmean(W, V[i]), i == h_idx))
        if best != h_idx and not _worse(W, V[best], V[h_idx], cfg.conservative, cfg.min_overrule):
            best = h_idx
        if best != h_idx:
            self.stats["pre_overruled"] = self.stats.get("pre_overruled", 0) + 1
        return options[best]

    def _bid(self, view: dict, cfg) -> str:
        """Bid by simulation: each candidate bid, then the rest of the auction and the deal (heuristic)."""
        v = Seen.of(view)
        rs = self.rulesets[view["ruleset"]]
        table = rs.table(v.players)
        sim = AuctionSim(view, rs, table)
        h_choice = self.heuristic.decide(view)
        if sim.endgame(v.seat) is not None:
            # five-handed: a bid the score dictates (to go out, or to stop another seat going out) is
            # about the game, which the deal simulations cannot see: keep it.
            return h_choice
        copies = sim.copies_rule or len(set(v.hand)) < len(v.hand)
        strain, est, _, _ = sim.seat_info(v.hand, copies)
        cap = math.floor(est + sim.bonus[v.seat]) + 2
        if table.bid_names_strain:
            # Bids in the hand's best strain (and the heuristic's): each strain is a play-out per deal.
            keep = {strain, sim.parse(h_choice)[1]}
        else:
            keep = None
        options, cands = [], []
        for a in v.legal:
            idx, st = sim.parse(a)
            if a != h_choice and idx >= 0:
                if keep is not None and st not in keep:
                    continue
                num = sim.number[idx]
                if num is not None and num > cap:
                    continue
            options.append(a)
            cands.append((idx, st))
        if len(options) == 1:
            return options[0]
        need = [0 if s == v.seat else table.hand_size for s in range(v.players)]
        return self._compare(view, cfg, options, h_choice, ("all", lambda hands, left: sim.values(hands, left, cands)),
                             need)

    def _name_trump(self, view: dict, cfg) -> str:
        """Name the strain whose simulated deal scores best (the rest of the deal as the heuristic plays it)."""
        v = Seen.of(view)
        rs = self.rulesets[view["ruleset"]]
        table = rs.table(v.players)
        lv = next(lv for lv in table.ladder if lv.name == v.bid)
        sim = DealSim(rs, table, v.seat)
        options = [a for a in v.legal if a.startswith("trump ")]
        strain_of = {a: ("S", "H", "D", "C", "NT").index(a.split()[1]) for a in options}
        need = [0 if s == v.seat else table.hand_size for s in range(v.players)]

        def evaluate(hands, left, opt):
            return sim.value(hands, left, v.seat, lv, strain_of[opt])

        return self._compare(view, cfg, options, self.heuristic.decide(view), evaluate, need)

    def _discard(self, view: dict, cfg) -> str:
        """Discard (five-handed widow, bid-euchre Pepper) by simulation: each candidate, then the
        heuristic's remaining discards and the card play. Candidates: the heuristic's card and the
        next weakest few."""
        v = Seen.of(view)
        rs = self.rulesets[view["ruleset"]]
        table = rs.table(v.players)
        lv = next(lv for lv in table.ladder if lv.name == v.bid)
        trump = v.strain
        sim = DealSim(rs, table, v.seat)
        h_choice = self.heuristic.decide(view)
        hc = cid(h_choice.split()[1])
        eff, pw = EFFECTIVE_SUIT[trump], POWER[trump]
        distinct = sorted(set(v.hand), key=lambda c: (eff[c] == trump, pw[c]))
        cands = [hc] + [c for c in distinct if c != hc][:cfg.discard_candidates]
        options = ["discard " + str(Card(c)) for c in cands]
        options = [o for o in options if o in v.legal]
        cands = [cid(o.split()[1]) for o in options]
        left_to_discard = len(v.hand) - table.hand_size
        out = set(v.sitting_out)
        if lv.alone and rs.family == Family.BID_EUCHRE:
            out |= {s for s in range(v.players) if s != v.seat and table.team_of[s] == table.team_of[v.seat]}
        need = [0 if (s == v.seat or s in out) else table.hand_size for s in range(v.players)]
        private = view.get("private") or {}
        exclude = [cid(x) for x in private.get("discards", [])]

        def evaluate_all(hands, left):
            vals = []
            for c in cands:
                mine = list(v.hand)
                mine.remove(c)
                for _ in range(left_to_discard - 1):
                    mine.remove(weakest(mine, trump))
                hs = list(hands)
                hs[v.seat] = mine
                vals.append(sim.value(hs, [], v.seat, lv, trump, after_exchange=True))
            return vals

        if len(options) < 2:
            return h_choice
        return self._compare(view, cfg, options, h_choice, ("all", evaluate_all), need, exclude)

    def _cede(self, view: dict, cfg) -> str:
        """Cede or play, by the simulated deal (the other defender answers as the heuristic would)."""
        v = Seen.of(view)
        rs = self.rulesets[view["ruleset"]]
        table = rs.table(v.players)
        lv = next(lv for lv in table.ladder if lv.name == v.bid)
        sim = DealSim(rs, table, v.seat)
        out = set(v.sitting_out)
        need = [0 if (s == v.seat or s in out) else table.hand_size for s in range(v.players)]
        private = view.get("private") or {}
        exclude = [cid(x) for x in private.get("gave", [])]

        def evaluate(hands, left, opt):
            return sim.value(hands, left, v.bidder, lv, v.strain, cede={v.seat: opt == "cede yes"}, after_exchange=True)

        options = [a for a in v.legal if a in ("cede yes", "cede no")]
        return self._compare(view, cfg, options, self.heuristic.decide(view), evaluate, need, exclude)

    # ------------------------------------------------------------ card play
    def _play(self, view: dict, cfg) -> str:
        t_start = time.thread_time()
        wall_start = time.perf_counter()
        self.stats["decisions"] += 1
        v = Seen.of(view)
        rs = self.rulesets[view["ruleset"]]
        table = rs.table(v.players)
        lv = next(lv for lv in table.ladder if lv.name == v.bid)
        trump = v.strain
        po = PlayOut(family=rs.family, players=v.players, team_of=table.team_of, hand_size=table.hand_size,
                     deck_cards=table.deck, bidder=v.bidder, trump=trump, tricks_needed=lv.tricks, points=lv.points,
                     alone=lv.alone, sitting_out=v.sitting_out, tricks=v.tricks, trick=v.trick,
                     tricks_won=view.get("tricks_won"), partner_card=v.partner_card, partner=v.partner, seat=v.seat)
        legal_order = [cid(a.split()[1]) for a in v.legal]
        legal = sorted(set(legal_order))
        hcard = self.heuristic._choose_card(v, legal_order)   # the heuristic's card, without re-parsing the view
        unseen = self._unseen(v, table)
        classes = _classes(legal, unseen, trump, v.partner_card if po.partner_open else None)
        if len(classes) == 1:
            return "play " + str(Card(hcard if hcard in classes[0] else classes[0][0]))
        reps = [cl[0] for cl in classes]
        h_idx = next(i for i, cl in enumerate(classes) if hcard in cl)
        reps[h_idx] = hcard
        sampler = self._sampler(v, table, po, unseen, cfg)
        k = len(reps)
        # Play inference: replay the deal so far with the heuristic policy on each sampled deal.
        hist = [(s, c) for _, plays, _ in v.tricks for s, c in plays] + list(v.trick)
        origin = None
        if cfg.lam > 0 and any(s != v.seat for s, _ in hist):
            origin = PlayOut(family=rs.family, players=v.players, team_of=table.team_of, hand_size=table.hand_size,
                             deck_cards=table.deck, bidder=v.bidder, trump=trump, tricks_needed=lv.tricks,
                             points=lv.points, alone=lv.alone, sitting_out=v.sitting_out, seat=v.seat)
            script = [c for _, c in hist]
            check = [s != v.seat for s in range(v.players)]
            played = [[] for _ in range(v.players)]
            for s, c in hist:
                played[s].append(c)
            weight_of = [math.exp(-cfg.lam * m) for m in range(len(hist) + 1)]
        W: list[float] = []                   # weight of each sampled deal
        V: list[list[float]] = [[] for _ in range(k)]   # each candidate's value on those deals
        active = list(range(k))
        fixed = self.samples
        if fixed is None:
            budget = min(self._bank, cfg.max_search * self.budget_ms / 1000.0)
            wall_cap = max(0.05, 20 * budget)
            if view.get("deadline_ms"):
                wall_cap = min(wall_cap, view["deadline_ms"] / 1000.0 * 0.5)
                budget = min(budget, wall_cap)
            limit = self.max_samples
        else:
            limit = fixed
        n = 0
        value = po.value
        tries = cfg.tries
        prune = cfg.prune
        while n < limit:
            if origin is None:
                hands, am = sampler.deal()
                w = 1.0
            else:
                best_m = None
                for _ in range(tries):
                    cand, am_c = sampler.deal()
                    m = origin.mismatches(origin.split([h + p for h, p in zip(cand, played)]), script, check)
                    if best_m is None or m < best_m:
                        hands, best_m, am = cand, m, am_c
                        if m == 0:
                            break
                w = weight_of[best_m]
            if am:
                w *= math.exp(-cfg.lam_auction * am)
            sh = po.split(hands)
            for i in active:
                V[i].append(value(sh, reps[i]))
            W.append(w)
            n += 1
            if prune and n >= 8 and n % 4 == 0 and len(active) > 1:
                best = max(active, key=lambda i: (_wmean(W, V[i]), i == h_idx))
                active = [i for i in active if i == best or not _worse(W, V[best], V[i], prune)]
                if len(active) == 1:
                    break
            if fixed is None and (time.thread_time() - t_start > budget or time.perf_counter() - wall_start > wall_cap):
                break
        self.stats["searched"] += 1
        self.stats["samples"] += n
        best = max(active, key=lambda i: (_wmean(W, V[i]), i == h_idx))
        if best != h_idx and h_idx in active and cfg.conservative > 0:
            # Paired, weighted test of best against the heuristic's card on the same deals.
            if not _worse(W, V[best], V[h_idx], cfg.conservative, cfg.min_overrule):
                best = h_idx
        if best != h_idx:
            self.stats["overruled"] += 1
        return "play " + str(Card(reps[best]))

    # ------------------------------------------------------------- inference
    @staticmethod
    def _unseen(v: Seen, table) -> list[int]:
        """Cards I cannot see that may still be in someone's hand (a multiset)."""
        unseen = list(table.deck)
        private = v.view.get("private") or {}
        gone = list(v.hand) + list(v.played) + [cid(x) for x in private.get("discards", [])]
        if v.sitting_out and v.seat == v.bidder:
            gone += [cid(x) for x in private.get("gave", [])]  # given to a partner who sits out
        for c in gone:
            unseen.remove(c)
        return unseen

    def _sampler(self, v: Seen, table, po: PlayOut, unseen: list[int], cfg) -> HandSampler:
        n = v.players
        eff = EFFECTIVE_SUIT[v.strain]
        played_by = [0] * n
        for _, plays, _ in v.tricks:
            for s, _ in plays:
                played_by[s] += 1
        for s, _ in v.trick:
            played_by[s] += 1
        out = set(v.sitting_out)
        need = [0 if (s == v.seat or s in out) else table.hand_size - played_by[s] for s in range(n)]
        voids = [set() for _ in range(n)]
        excl = [set() for _ in range(n)]
        allt = list(v.tricks) + ([(None, v.trick, None)] if v.trick else [])
        pc = v.partner_card
        five = po.five
        for ti, (_, plays, _) in enumerate(allt):
            led = eff[plays[0][1]]
            for s, c in plays[1:]:
                if eff[c] != led:
                    voids[s].add(led)
            if five and ti == 0 and v.strain != NO_TRUMP and led != v.strain:
                voids[v.bidder].add(v.strain)  # the bidder must lead a trump to the first trick when holding one
        if five and pc is not None:
            # Until the called card shows, a holder who follows its suit must play it: whoever
            # followed that suit with another card held no copy.
            for _, plays, _ in allt:
                led = eff[plays[0][1]]
                for s, c in plays:
                    if s != v.bidder and c == pc:
                        break
                    if s != v.bidder and led == eff[pc] and eff[c] == led:
                        excl[s].add(pc)
                else:
                    continue
                break
        must = None
        if five and pc is not None and v.partner is None and pc not in v.hand:
            seats = [s for s in range(n) if s != v.bidder and s != v.seat and need[s] > 0]
            if seats and pc in unseen:
                must = (pc, seats)
        auction = None
        if cfg.auction_tries > 0 and v.view.get("bids"):
            auction = AuctionModel(v.view, self.rulesets[v.view["ruleset"]], table, v.seat)
            if cfg.auction_seats == "bidder":
                auction.active = [s == v.bidder and a for s, a in enumerate(auction.active)]
        played = [[] for _ in range(n)]
        for s, c in [(s, c) for _, plays, _ in v.tricks for s, c in plays] + list(v.trick):
            played[s].append(c)
        return HandSampler(self.rng, n, v.seat, v.hand, unseen, need, voids, excl, eff, must, auction, played,
                           cfg.auction_tries, v.bidder if v.bidder != v.seat else None)


def _wmean(w: list[float], v: list[float]) -> float:
    """Weighted mean of v over the first len(v) deals."""
    n = len(v)
    sw = sum(w[:n])
    return sum(a * b for a, b in zip(w, v)) / sw if sw > 0 else 0.0


def _worse(w: list[float], best: list[float], other: list[float], z: float, min_n: float = 2.0) -> bool:
    """Is ``other`` worse than ``best`` by more than ``z`` standard errors (paired, weighted, on shared deals)?"""
    n = min(len(best), len(other))
    if n < 3:
        return False
    d = [b - o for b, o in zip(best[:n], other[:n])]
    ws = w[:n]
    sw = sum(ws)
    if sw <= 0:
        return False
    mean = sum(a * x for a, x in zip(ws, d)) / sw
    var = sum(a * (x - mean) ** 2 for a, x in zip(ws, d)) / sw
    n_eff = sw * sw / sum(a * a for a in ws)
    if n_eff < max(2.0, min_n):
        return False
    se = math.sqrt(var / (n_eff - 1))
    return mean > z * se and mean > 1e-9


def _reveal_trick(tricks, pc: int, bidder: int) -> int:
    for ti, (_, plays, _) in enumerate(tricks):
        for s, c in plays:
            if c == pc and s != bidder:
                return ti
    return len(tricks)


def _classes(legal: list[int], unseen: list[int], trump: int, alone: int | None = None) -> list[list[int]]:
    """Legal cards grouped into classes of equivalent cards, each sorted weakest first.

    Two cards of the same effective suit are equivalent when no unseen card
    (held by someone else, or out of play) ranks between them or equals
    either: whichever is played, every trick goes the same way. ``alone``
    (the five-handed partner card) is kept in a class of its own.
    """
    eff, pw = EFFECTIVE_SUIT[trump], POWER[trump]
    by_suit: dict[int, list[int]] = {}
    out: list[list[int]] = []
    for c in legal:
        if c == alone:
            out.append([c])
        else:
            by_suit.setdefault(eff[c], []).append(c)
    for suit, cards in by_suit.items():
        cards.sort(key=pw.__getitem__)
        others = sorted(pw[u] for u in unseen if eff[u] == suit)
        cl = [cards[0]]
        for c in cards[1:]:
            lo, hi = pw[cl[-1]], pw[c]
            if any(lo <= p <= hi for p in others):
                out.append(cl)
                cl = [c]
            else:
                cl.append(c)
        out.append(cl)
    return out
