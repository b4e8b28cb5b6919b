"""The sequential test of ``pepper arena match``: is A stronger than B by elo1, or not by elo0?

:class:`Sprt` and :class:`Sequential`: the generalized sequential probability ratio test of fishtest, on block
scores (:mod:`arena.evidence`'s blocks): the log-likelihood ratio of the empirical distribution's maximum-likelihood
fits with mean score s(elo1) and s(elo0), with Wald's bounds. :func:`stop_adjusted`: the Elo estimate once it has
stopped, corrected for the stop. :class:`Normalized`: the same hypotheses read in normalized Elo, tested on any
block statistic of :mod:`arena.deals_evidence` (the game margin, the deals compared on the same cards). docs/statistics.md
gives the formulas.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .deals_evidence import STATISTICS, block_of_records
from .evidence import MIN_BLOCKS, elo_of_score, score_of_elo

_SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")


@dataclass(frozen=True)
class Sprt:
    """A generalized SPRT of H0: elo = elo0 against H1: elo = elo1 (logistic Elo, per game), with error rates
    alpha (accepting H1 under H0) and beta (accepting H0 under H1)."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self):
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError(f"alpha={self.alpha} beta={self.beta}: each must be in (0, 1), and their sum below 1")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0={self.elo0} elo1={self.elo1}: elo0 must be below elo1")

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``"elo0=0 elo1=5 alpha=0.05 beta=0.05"`` (any of the four; spaces or commas between)."""
        values = {}
        for item in filter(None, re.split(r"[\s,]+", text.strip())):
            key, eq, value = item.partition("=")
            if not eq or key not in _SPRT_KEYS:
                raise ValueError(f"{item!r}: expected KEY=VALUE with KEY one of {', '.join(_SPRT_KEYS)}")
            try:
                values[key] = float(value)
            except ValueError:
                raise ValueError(f"{item!r}: {value!r} is not a number") from None
        return cls(**values)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ln(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ln((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: dict[float, float]) -> float:
        """The log-likelihood ratio of H1 against H0 given how many blocks had each score (a score in [0, 1])."""
        n = sum(counts.values())
        if n == 0:
            return 0.0
        # Regularized as fishtest does: the extreme scores, if unseen, get a tiny count, so that any mean score in
        # (0, 1) has a maximum-likelihood fit on the support (a run of wins does not make the LLR infinite).
        support = dict(counts)
        for end in (0.0, 1.0):
            support.setdefault(end, 1e-3)
        total = sum(support.values())
        pdf = [(a, c / total) for a, c in support.items()]
        p0 = _mle_with_mean(pdf, score_of_elo(self.elo0))
        p1 = _mle_with_mean(pdf, score_of_elo(self.elo1))
        return n * sum(p * math.log(q1 / q0) for (_, p), q0, q1 in zip(pdf, p0, p1))

    def verdict(self, llr: float) -> str | None:
        """"H1" or "H0" once the LLR reaches a bound, else None."""
        return "H1" if llr >= self.upper else "H0" if llr <= self.lower else None


def _mle_with_mean(pdf: list[tuple[float, float]], s: float) -> list[float]:
    """The distribution on ``pdf``'s support closest (maximum likelihood) to ``pdf`` whose mean is ``s``:
    p_i = phat_i / (1 + theta (a_i - s)), theta the root of sum phat_i (a_i - s) / (1 + theta (a_i - s)) = 0
    (the secular equation; decreasing in theta), by Newton's method kept inside the bracket where every
    1 + theta (a_i - s) > 0."""
    lo = -1 / (max(a for a, _ in pdf) - s)
    hi = 1 / (s - min(a for a, _ in pdf))
    theta = 0.0
    for _ in range(100):
        f = df = 0.0
        for a, p in pdf:
            u = a - s
            w = 1 + theta * u
            f += p * u / w
            df -= p * u * u / (w * w)
        if f > 0:
            lo = theta
        else:
            hi = theta
        step = theta - f / df if df else (lo + hi) / 2
        nxt = step if lo < step < hi else (lo + hi) / 2
        if abs(nxt - theta) < 1e-12:
            break
        theta = nxt
    return [p / (1 + theta * (a - s)) for a, p in pdf]


# ----------------------------------------------------------------------------- the estimate after a stop
class StopAdjusted(NamedTuple):
    """The Elo difference after an SPRT stopped, corrected for the stop: median-unbiased, with a 95% interval."""

    elo: float
    elo_low: float
    elo_high: float


def _exit_by(t_max: float, drift: float, near: float, width: float) -> float:
    """P(a Brownian motion of unit variance and ``drift``, started ``near`` below one barrier and ``width`` - near
    above the other, leaves through the near one by time ``t_max``): the method of images' series for the driftless
    exit density, c_k = near + 2 k width, times Girsanov's exp(drift near - drift^2 t / 2), integrated in closed form
    term by term (each term is a first-passage law to level |c_k|)."""
    from scipy.special import log_ndtr  # log Phi: the terms' exponents cancel against far tails

    total = 0.0
    sqrt_t = math.sqrt(t_max)
    for k in range(-12, 13):
        c = near + 2 * k * width
        sign, level, mu = (1.0, c, drift) if c > 0 else (-1.0, -c, -drift)
        # Integral over [0, t_max] of level / sqrt(2 pi t^3) exp(-(level - mu t)^2 / 2t): the first-passage CDF of a
        # drifting Brownian motion to ``level``, Phi((mu t - level) / sqrt t) + exp(2 mu level) Phi((-mu t - level) /
        # sqrt t); the factor exp(drift (near - c)) carries each image's weight. Summed in logs: either factor alone
        # may overflow where their product is small.
        weight = drift * (near - c)
        first = weight + float(log_ndtr((mu * t_max - level) / sqrt_t))
        second = weight + 2 * mu * level + float(log_ndtr((-mu * t_max - level) / sqrt_t))
        total += sign * (math.exp(min(first, 700.0)) + math.exp(min(second, 700.0)))
    return min(1.0, max(0.0, total))


def stop_adjusted(sprt: Sprt, verdict: str, counts: dict[float, float]) -> StopAdjusted | None:
    """The Elo estimate of a match the SPRT stopped with ``verdict`` ("H1" or "H0") on blocks whose scores had
    the histogram ``counts``, corrected for the stop as fishtest does: stopping when the evidence first reaches a
    bound picks the runs whose early luck ran towards it, so the plain mean overstates the difference (equal bots
    stopped at H1 read about +60 Elo).

    Model: each block adds ln(p1(x) / p0(x)) to the LLR (p0, p1 the test's fits to the blocks seen), so under a
    true mean score s (the blocks' distribution closest to the one seen with mean s) the LLR is a Brownian motion
    with that increment's drift and variance per block, stopped at the bounds. Outcomes are ordered by Siegmund's
    rule (an earlier stop at the upper bound is the stronger evidence), and the estimate is the s under which the
    observed outcome is the median (its interval: the 2.5% and 97.5% points). None where it cannot say."""
    blocks = sum(counts.values())
    if verdict not in ("H1", "H0") or blocks < 2 or len(counts) < 2:   # every block alike: no spread to model
        return None
    from scipy.optimize import brentq

    support = dict(counts)
    for end in (0.0, 1.0):   # as the test regularizes its fits
        support.setdefault(end, 1e-3)
    total = sum(support.values())
    pdf = [(a, c / total) for a, c in support.items()]
    p0 = _mle_with_mean(pdf, score_of_elo(sprt.elo0))
    p1 = _mle_with_mean(pdf, score_of_elo(sprt.elo1))
    step = [math.log(q1 / q0) for q0, q1 in zip(p0, p1)]

    def at_least(score: float) -> float:
        """P(an outcome at least as favourable to A as the observed one) under mean block score ``score``."""
        ps = _mle_with_mean(pdf, score)
        drift = sum(p * x for p, x in zip(ps, step))
        sd = math.sqrt(max(1e-12, sum(p * x * x for p, x in zip(ps, step)) - drift * drift))
        upper, lower = sprt.upper / sd, -sprt.lower / sd
        if verdict == "H1":
            return _exit_by(blocks, drift / sd, upper, upper + lower)
        return 1 - _exit_by(blocks, -drift / sd, lower, upper + lower)

    lo, hi = 1e-6, 1 - 1e-6

    def solve(q: float) -> float:
        if at_least(lo) >= q:
            return lo
        if at_least(hi) <= q:
            return hi
        return brentq(lambda sc: at_least(sc) - q, lo, hi, xtol=1e-10)

    return StopAdjusted(elo_of_score(solve(0.5)), elo_of_score(solve(0.025)), elo_of_score(solve(0.975)))


class Sequential:
    """An SPRT fed block scores in order; it decides at the first block whose LLR reaches a bound and then
    ignores the rest (so that the verdict is a function of the blocks in plan order, however they finished)."""

    def __init__(self, sprt: Sprt):
        self.sprt = sprt
        self.counts: dict[float, float] = {}
        self.blocks = 0
        self.llr = 0.0
        self.verdict: str | None = None

    def feed(self, score: float) -> str | None:
        """One more block (its mean score per game); returns the verdict, if any."""
        if self.verdict is None:
            key = round(score, 9)
            self.counts[key] = self.counts.get(key, 0) + 1
            self.blocks += 1
            self.llr = self.sprt.llr(self.counts)
            self.verdict = self.sprt.verdict(self.llr)
        return self.verdict


class Normalized:
    """The SPRT of ``sprt``'s hypotheses on a block statistic other than the score (fed its block values in order, as
    :class:`Sequential`), with elo0 and elo1 read as normalized Elo: a difference in per-game standard deviations,
    times 800 / ln 10 (fishtest's nElo), so that they mean the same for any statistic. For the score of decisive games
    (per-game SD 1/2) normalized and logistic Elo agree to within 1% up to 50 Elo; a statistic that tells the bots
    apart with less noise gives a larger normalized Elo for the same bots, and so decides sooner.

    A block of g games is worth g: hypothesis j says the blocks' mean is t_j standard deviations from ``centre``,
    t_j = 2 (s(elo_j) - 1/2) sqrt(g). Wald's test of a normal mean with the SD estimated from the blocks so far
    (s, unbiased) gives LLR = N (t1 - t0) (t - (t0 + t1) / 2), t = (mean - centre) / s; it decides from
    :data:`arena.evidence.MIN_BLOCKS` blocks on (fewer give too rough an SD)."""

    def __init__(self, sprt: Sprt, centre: float, games_per_block: float):
        self.sprt = sprt
        self.centre = centre
        self.t0, self.t1 = (2 * (score_of_elo(e) - 0.5) * math.sqrt(games_per_block) for e in (sprt.elo0, sprt.elo1))
        self.blocks = 0
        self.total = self.total_sq = 0.0   # of the values less the centre
        self.llr = 0.0
        self.verdict: str | None = None

    def feed(self, value: float) -> str | None:
        """One more block's value of the statistic; returns the verdict, if any."""
        if self.verdict is None:
            x = value - self.centre
            self.blocks += 1
            self.total += x
            self.total_sq += x * x
            self.llr = normalized_llr(self.blocks, self.total, self.total_sq, self.t0, self.t1)
            if self.blocks >= MIN_BLOCKS:
                self.verdict = self.sprt.verdict(self.llr)
        return self.verdict


def normalized_llr(n: int, total: float, total_sq: float, t0: float, t1: float) -> float:
    """The LLR of :class:`Normalized` from N blocks' sum and sum of squares (of the values less the centre); 0 for
    fewer than 2 blocks, or all alike."""
    if n < 2:
        return 0.0
    mean = total / n
    var = (total_sq - n * mean * mean) / (n - 1)
    if var <= 1e-12 * max(1.0, total_sq / n):
        return 0.0
    return n * (t1 - t0) * (mean / math.sqrt(var) - (t0 + t1) / 2)


class BlockTest:
    """A match's test on its statistic (:data:`arena.deals_evidence.STATISTICS`), fed the store's block rows of A
    against B in plan order (:class:`arena.store.BlockRow`): the block score to fishtest's GSPRT (:class:`Sequential`),
    any other statistic to :class:`Normalized`, its games per block those of the first block's plan. One class for
    ``pepper arena match`` and the web's replay of its trace, so that both read a match alike."""

    def __init__(self, sprt: Sprt, statistic: str = "score"):
        self.sprt = sprt
        self.statistic = STATISTICS[statistic]
        self.test: Sequential | Normalized | None = Sequential(sprt) if statistic == "score" else None

    def feed(self, row, records: Callable[[], Sequence]) -> str | None:
        """One complete block (its row; ``records()`` its games' sides and records, read only where the statistic
        compares deals). A block none of whose games replays is passed over. Returns the verdict, if any."""
        if self.test is None:
            self.test = Normalized(self.sprt, self.statistic.centre, row.planned)
        if self.test.verdict is None:
            value = self.value(row, records)
            if value is not None:
                self.test.feed(value)
        return self.test.verdict

    def value(self, row, records: Callable[[], Sequence]) -> float | None:
        """The block's value of the statistic, A's side."""
        name = self.statistic.name
        if name in ("score", "margin"):   # kept per block by the store
            return (row.score if name == "score" else row.margin) / row.games
        block = block_of_records(records())
        return self.statistic.of_block(block, (row.bot, row.version), (row.opponent, row.opponent_version))

    @property
    def estimate_basis(self) -> str:
        """What the match's estimate reads (:func:`arena.evidence.head_to_head`'s basis): the score beside the score's
        GSPRT and its stop-adjusted Elo, else the margin."""
        return "score" if self.statistic.name == "score" else "margin"

    @property
    def verdict(self) -> str | None:
        return None if self.test is None else self.test.verdict

    @property
    def llr(self) -> float:
        return 0.0 if self.test is None else self.test.llr

    def adjusted(self) -> StopAdjusted | None:
        """The Elo estimate corrected for the stop: the GSPRT's, once decided (None for the normalized test)."""
        t = self.test
        return stop_adjusted(self.sprt, t.verdict, t.counts) if isinstance(t, Sequential) and t.verdict else None


__all__ = ["BlockTest", "Normalized", "Sequential", "Sprt", "StopAdjusted", "normalized_llr", "stop_adjusted"]
