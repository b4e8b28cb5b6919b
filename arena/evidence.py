"""Evidence: is one bot better than another, how sure is that, and what the duplicate deals saved.

Pure functions over numbers; the store keeps the blocks (:meth:`arena.store.Store.blocks`) and
docs/statistics.md gives the formulas with a worked example.

**Block.** The statistical unit is a *block*: the games of one match of a run, that is one deck played
with the seats rotated (2 games for mirrored partnerships, one per seat at a free-for-all table, one game
without duplicate deals). The games of a block share the cards, so their results are correlated (for
duplicate deals negatively: what one side's cards gave it in one game, they give the other side in the
next); the blocks themselves are independent. As fishtest and fastchess treat a pair of games on one
opening (the pentanomial model), the statistics here take the block's score as one observation.

**Pairwise form.** Every statistic is about two *sides* (a bot's version) A and B. In one game, A's score
against B is 1 when A finished ahead of B, 0.5 when level, 0 when behind, and A's margin is A's points
minus B's: by team in partnership games (A and B on opposite teams; partners are not compared), and by
seat at a free-for-all table, "ahead" meaning a winner over a non-winner, else more points (a side in
several seats: the mean over its seats against the other's). A's block score is the mean of its games'.

**Head to head** (:func:`head_to_head`): over N blocks with scores x_i, the mean score, the Elo difference
with a 95% interval (the score's interval through the logistic curve), the normalized Elo (the score's
distance from 1/2 in per-game standard deviations, times 800/ln 10), the likelihood of superiority, the
same for the margin in points, and the correlation inside the blocks as an effective-games multiplier.

**SPRT** (:class:`Sprt`, :class:`Sequential`): the generalized sequential probability ratio test of
fishtest, on block scores: the log-likelihood ratio of the empirical distribution's maximum-likelihood
fits with mean score s(elo1) and s(elo0), with Wald's bounds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import NamedTuple

Z95 = 1.959963984540054          # the standard normal's 97.5% quantile: 95% two-sided intervals
NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of t-value (fishtest's nelo_divided_by_nt)

Side = tuple[str, int]           # (bot, version)


# ----------------------------------------------------------------------------- scales
def score_of_elo(elo: float) -> float:
    """The expected score of a side ``elo`` Elo stronger (the logistic curve)."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of_score(score: float) -> float:
    """The Elo difference of an expected score (+-inf at 1 and 0; nan for nan)."""
    if score != score:
        return math.nan
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1) + 0.0   # (+ 0.0: no -0 at a score of 1/2)


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


# ----------------------------------------------------------------------------- one game, pairwise
class PairResult(NamedTuple):
    a: Side
    b: Side
    score: float     # a's score against b in the game: 1, 0.5 or 0 (a mean where a side has several seats)
    margin: float    # a's points minus b's


def game_pairs(sides: Sequence[Side], scores: Sequence[float], won: Sequence[bool],
               team_of: Sequence[int]) -> list[PairResult]:
    """Every ordered pair of distinct sides of one game that sat on opposite teams (seats, at a free-for-all
    table), with the first side's score and margin against the second (see the module's "pairwise form").

    ``sides``, ``scores`` (a seat's team's points), ``won`` and ``team_of`` are per seat."""
    seats: dict[Side, list[int]] = {}
    for s, side in enumerate(sides):
        seats.setdefault(side, []).append(s)

    def ahead(x: int) -> tuple[bool, float]:
        return (bool(won[x]), scores[x])

    out = []
    for a, sa in seats.items():
        for b, sb in seats.items():
            if a == b:
                continue
            against = [(x, y) for x in sa for y in sb if team_of[x] != team_of[y]]
            if not against:
                continue  # partners only
            score = sum(1.0 if ahead(x) > ahead(y) else 0.5 if ahead(x) == ahead(y) else 0.0 for x, y in against)
            margin = sum(scores[x] - scores[y] for x, y in against)
            out.append(PairResult(a, b, score / len(against), margin / len(against)))
    return out


# ----------------------------------------------------------------------------- head to head
@dataclass(frozen=True)
class Block:
    """One side's results against another over one block: sums over its games of the per-game score and margin
    and their squares (the squares give the per-game variance, which measures the correlation inside blocks)."""

    games: int
    score: float
    score_sq: float
    margin: float
    margin_sq: float


def _mean_var(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and unbiased variance (inf for fewer than 2 values)."""
    n = len(xs)
    m = sum(xs) / n
    return m, (sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else math.inf)


def _per_game_var(total: float, total_sq: float, games: int) -> float:
    """The unbiased variance of one game's value from the sums over ``games`` games."""
    if games < 2:
        return math.nan
    m = total / games
    return max(0.0, (total_sq - games * m * m) / (games - 1))


class Correlation(NamedTuple):
    """How the games of a block relate: the intra-block correlation rho, and the effective-games multiplier
    m = 1 / (1 + (g - 1) rho): a block of g games tells as much as g * m independent games."""

    rho: float | None
    multiplier: float | None


def correlation(per_game_var: float, block_var: float, games_per_block: float) -> Correlation:
    """From the per-game variance and the variance of block means (blocks of ``games_per_block`` games)."""
    g = games_per_block
    if not (math.isfinite(per_game_var) and math.isfinite(block_var)) or per_game_var <= 0 or block_var < 0:
        return Correlation(None, None)
    ratio = g * block_var / per_game_var    # 1 + (g - 1) rho
    # Games that vary while their blocks do not (a deterministic bot against a copy of itself: every block one
    # win each) cancel exactly: rho = -1 / (g - 1), and a block is worth any number of games.
    return Correlation((ratio - 1) / (g - 1) if g > 1 else None, 1 / ratio if ratio > 0 else math.inf)


@dataclass(frozen=True)
class HeadToHead:
    """What the blocks between A and B say, from A's side (see the module docstring and docs/statistics.md)."""

    a: str
    b: str
    blocks: int
    games: int
    score: float                    # A's mean score per game against B
    elo: float                      # the Elo difference A - B of that score
    elo_low: float                  # its 95% interval
    elo_high: float
    nelo: float | None              # normalized Elo
    los: float                      # likelihood of superiority: P(A stronger than B) (nan: every block alike, not all
                                    # won or lost outright; then, at least 1 - 2^-N)
    margin: float                   # A's mean margin per game, points
    margin_low: float
    margin_high: float
    margin_los: float
    rho: float | None               # correlation of a block's games (score)
    multiplier: float | None        # effective games per game played (score)
    margin_rho: float | None
    margin_multiplier: float | None

    @property
    def significant(self) -> bool:
        """The difference is significant at 95%, two-sided: LOS above 97.5% or below 2.5% (where the interval is
        known, the same as its excluding 0)."""
        return not 0.025 <= self.los <= 0.975 if self.los == self.los else False

    def to_dict(self) -> dict:
        """JSON-safe: an infinite or undefined figure is null."""
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(self).items()}


def head_to_head(a: str, b: str, blocks: Sequence[Block]) -> HeadToHead | None:
    """The head-to-head statistics of A against B over ``blocks`` (A's side of each); None without blocks.

    Score: x_i = block score / games, mean x, s^2 their unbiased variance, se = s / sqrt(N); the score's 95%
    interval x +- 1.96 se, mapped to Elo; LOS = Phi((x - 1/2) / se); nElo = (x - 1/2) / sqrt(g s^2) * 800/ln 10
    with g the mean games per block (s^2 * g is the per-game variance a block of g independent games would
    show). Margin: the same on the blocks' mean margins."""
    n = len(blocks)
    if n == 0:
        return None
    games = sum(k.games for k in blocks)
    g = games / n
    x, var = _mean_var([k.score / k.games for k in blocks])
    se = math.sqrt(var / n)
    d, dvar = _mean_var([k.margin / k.games for k in blocks])
    dse = math.sqrt(dvar / n)

    # Every block alike leaves the spread unknown: no interval (nan; null in JSON). Their LOS is then known only
    # where every block was won outright (or lost): if A were not stronger, a block would be won outright at
    # most half the time (B would win it outright as often), so N such blocks have a chance of at most 2^-N.
    def los(mean: float, err: float) -> float:
        return phi(mean / err) if 0 < err < math.inf else math.nan

    if not 0 < se < math.inf:
        se = math.nan
    if not 0 < dse < math.inf:
        dse = math.nan
    clip = lambda s: s if s != s else min(1.0, max(0.0, s))  # noqa: E731
    nelo = (x - 0.5) / math.sqrt(g * var) * NELO_PER_T if 0 < var < math.inf else None
    c = correlation(_per_game_var(sum(k.score for k in blocks), sum(k.score_sq for k in blocks), games), var, g)
    cm = correlation(_per_game_var(sum(k.margin for k in blocks), sum(k.margin_sq for k in blocks), games), dvar, g)
    p = los(x - 0.5, se)
    if p != p and x in (0.0, 1.0):
        p = 1 - 0.5 ** n if x == 1 else 0.5 ** n
    return HeadToHead(a, b, n, games, x, elo_of_score(x), elo_of_score(clip(x - Z95 * se)),
                      elo_of_score(clip(x + Z95 * se)), nelo, p, d, d - Z95 * dse, d + Z95 * dse,
                      los(d, dse), c.rho, c.multiplier, cm.rho, cm.multiplier)


def pooled_correlation(pairs: Iterable[HeadToHead]) -> dict:
    """Over a pool's pairs: games played, the effective games they were worth (each pair's games times its
    multiplier), and the ratio, for the score and for the margin; and the mean correlation weighted by games.
    Pairs whose blocks did not vary at all (multiplier unknown or infinite) are left out."""
    pairs = list(pairs)
    out: dict = {"games": 0}
    for kind, rho_of, mult_of in (("score", "rho", "multiplier"), ("margin", "margin_rho", "margin_multiplier")):
        used = [p for p in pairs if getattr(p, mult_of) is not None and math.isfinite(getattr(p, mult_of))]
        games = sum(p.games for p in used)
        eff = sum(p.games * getattr(p, mult_of) for p in used)
        rhos = [(p.games, getattr(p, rho_of)) for p in used if getattr(p, rho_of) is not None]
        rho_games = sum(w for w, _ in rhos)
        out[kind] = {"games": games, "effective_games": eff, "multiplier": eff / games if games else None,
                     "rho": sum(w * r for w, r in rhos) / rho_games if rho_games else None}
        out["games"] = max(out["games"], games)
    return out


# ----------------------------------------------------------------------------- SPRT
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


__all__ = ["NELO_PER_T", "Z95", "Block", "Correlation", "HeadToHead", "PairResult", "Sequential", "Side", "Sprt",
           "correlation", "elo_of_score", "game_pairs", "head_to_head", "phi", "pooled_correlation",
           "score_of_elo"]
