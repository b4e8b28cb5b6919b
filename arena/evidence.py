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

**Head to head** (:func:`head_to_head`): over N blocks with scores x_i, the mean score, its Elo difference with a
95% interval (Student's t on the block scores, through the logistic curve), the normalized Elo (the score's
distance from 1/2 in per-game standard deviations, times 800/ln 10), the likelihood of superiority, the same for
the margin in points (with its normalized Elo, the figure ``pepper arena match`` tests by default), and the
correlation inside the blocks as an effective-games multiplier.

**The headline** (``elo``, its interval, ``los``, ``p_value``: what the table's ties and the cross-table read) is
the margin's by default: its normalized Elo with Student's t interval, and Student's t test of the block margins
about 0. The margin tells bots apart in fewer blocks than the score (its effective-games multiplier over the block
score is 1.62 on iowa, docs/statistics.md). Where the block margins do not vary (or there is one block) it is the
score's, below.

**Is the difference real?** (the score's test.) Between two bots of equal strength a block's score is as likely
to fall d above 1/2 as d below (the duplicate deals give both the same cards), so the score's likelihood of
superiority and decision come from the exact sign-flip test of the block scores about 1/2 (:func:`sign_flip`),
which holds its level at any number of blocks: a normal approximation on 3-10 blocks called equal bots apart
8-22 % of the time at a nominal 5 %. Student's t on the block margins rests on the same symmetry
(equal bots' block margins as likely d above 0 as below) and held its level on heavy-tailed margins at 6-20
blocks (tests/arena/test_honest_evidence.py). Below :data:`MIN_BLOCKS` no difference
is taken as significant, and the table says "too few blocks". Past :data:`EXACT_MAX_BLOCKS` that differ from 1/2
the score's test is Student's t.

The sequential test on block scores (``pepper arena match``) is :mod:`arena.sprt`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import NamedTuple

Z95 = 1.959963984540054          # the standard normal's 97.5% quantile: 95% two-sided intervals
LEVEL = 0.05                     # two-sided: a difference is significant when its p-value is at most this
# The fewest blocks at which the sign-flip test can reach 95% two-sided: every one of 6 blocks won, 2 * 2^-6 < 0.05.
MIN_BLOCKS = 6
# Blocks away from 1/2 up to which the sign-flip test is exact (its distribution enumerated); Student's t beyond.
EXACT_MAX_BLOCKS = 60
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


def student_t(df: float, x: float) -> float:
    """Student's t distribution function with ``df`` degrees of freedom."""
    from scipy.special import stdtr  # scipy's special functions: imported when a statistic is computed

    return float(stdtr(df, x))


def student_t_quantile(df: float, p: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom."""
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


class SignFlip(NamedTuple):
    """The sign-flip test of values about 0: the chance, were each value's sign a fair coin's, of a sum at least
    (``upper``) or at most (``lower``) the one observed."""

    upper: float
    lower: float

    @property
    def los(self) -> float:
        """The likelihood of superiority: the chance of a smaller sum, plus half that of an equal one (mid-p; 1/2 when
        every value is 0)."""
        return (1 - self.upper + self.lower) / 2

    @property
    def p_value(self) -> float:
        """Two-sided."""
        return min(1.0, 2 * min(self.upper, self.lower))


def sign_flip(values: Sequence[float]) -> SignFlip | None:
    """The exact sign-flip (randomization) test of ``values`` about 0: the sums of the values under every assignment
    of signs, counted (k values of one magnitude x sum to x (2j - k) in C(k, j) ways, and the magnitudes' sums
    combine: block scores take a few distinct values); None for more than :data:`EXACT_MAX_BLOCKS` non-zero values
    (then Student's t is as good)."""
    magnitudes = Counter(round(abs(v), 9) for v in values if round(v, 9) != 0)
    n = sum(magnitudes.values())
    if n > EXACT_MAX_BLOCKS:
        return None
    sums: dict[float, int] = {0.0: 1}
    for x, k in magnitudes.items():
        nxt: dict[float, int] = {}
        for total, ways in sums.items():
            for j in range(k + 1):
                t = round(total + x * (2 * j - k), 9)
                nxt[t] = nxt.get(t, 0) + ways * math.comb(k, j)
        sums = nxt
    observed, eps, all_ways = sum(values), 1e-7, 2 ** n
    return SignFlip(sum(w for t, w in sums.items() if t >= observed - eps) / all_ways,
                    sum(w for t, w in sums.items() if t <= observed + eps) / all_ways)


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
    los: float                      # likelihood of superiority: P(A stronger than B), from the sign-flip test
    margin: float                   # A's mean margin per game, points
    margin_low: float
    margin_high: float
    margin_los: float
    rho: float | None               # correlation of a block's games (score)
    multiplier: float | None        # effective games per game played (score)
    margin_rho: float | None
    margin_multiplier: float | None
    p_value: float = 1.0            # two-sided, of "A and B are equally strong" (the sign-flip test; t past its reach)
    margin_nelo: float | None = None   # normalized Elo of the margin: what `pepper arena match` tests by default
    basis: str = "score"            # what elo, its interval, los and p_value are of: "margin" or "score"
    score_elo: float = math.nan     # the score's figures, whatever the basis: Elo, its interval, LOS and p-value
    score_elo_low: float = math.nan
    score_elo_high: float = math.nan
    score_los: float = math.nan
    score_p_value: float = 1.0

    @property
    def too_few(self) -> bool:
        """Fewer blocks than any difference could be significant on (:data:`MIN_BLOCKS`)."""
        return self.blocks < MIN_BLOCKS

    def significant_at(self, level: float) -> bool:
        """The difference is significant at two-sided ``level``."""
        return not self.too_few and self.p_value <= level

    @property
    def significant(self) -> bool:
        """The difference is significant at 95%, two-sided."""
        return self.significant_at(LEVEL)

    def to_dict(self) -> dict:
        """JSON-safe: an infinite or undefined figure is null."""
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(self).items()} \
            | {"significant": self.significant, "too_few": self.too_few}


def head_to_head(a: str, b: str, blocks: Sequence[Block], basis: str = "margin") -> HeadToHead | None:
    """The head-to-head statistics of A against B over ``blocks`` (A's side of each); None without blocks. The
    headline (elo, its interval, los, p_value) is of ``basis``: "margin" where the block margins vary (else the
    score), or "score".

    Score: x_i = block score / games, mean x, s^2 their unbiased variance, se = s / sqrt(N); the score's 95%
    interval x +- t se (t Student's 97.5% quantile with N - 1 degrees of freedom), mapped to Elo; the LOS and
    p-value from the sign-flip test of x_i - 1/2 (:func:`sign_flip`; Student's t on (x - 1/2) / se past
    :data:`EXACT_MAX_BLOCKS`); nElo = (x - 1/2) / sqrt(g s^2) * 800/ln 10 with g the mean games per block (s^2 * g
    is the per-game variance a block of g independent games would show). Margin: the same on the blocks' mean
    margins d_i, with Student's t; its normalized Elo d / sqrt(g s_d^2) * 800/ln 10 and its interval
    (d +- t se_d) / sqrt(g s_d^2) * 800/ln 10, and its LOS Student's t at d / se_d."""
    if basis not in ("margin", "score"):
        raise ValueError(f"basis {basis!r}: expected margin or score")
    n = len(blocks)
    if n == 0:
        return None
    games = sum(k.games for k in blocks)
    g = games / n
    xs = [k.score / k.games for k in blocks]
    x, var = _mean_var(xs)
    se = math.sqrt(var / n)
    d, dvar = _mean_var([k.margin / k.games for k in blocks])
    dse = math.sqrt(dvar / n)
    tq = student_t_quantile(n - 1, 0.975) if n > 1 else math.inf

    def t_los(mean: float, err: float) -> float:
        return student_t(n - 1, mean / err) if 0 < err < math.inf else math.nan

    if not 0 < se < math.inf:
        se = math.nan    # every block alike: no interval (nan; null in JSON)
    if not 0 < dse < math.inf:
        dse = math.nan
    clip = lambda s: s if s != s else min(1.0, max(0.0, s))  # noqa: E731
    nelo = (x - 0.5) / math.sqrt(g * var) * NELO_PER_T if 0 < var < math.inf else None
    margin_nelo = d / math.sqrt(g * dvar) * NELO_PER_T if 0 < dvar < math.inf else None
    c = correlation(_per_game_var(sum(k.score for k in blocks), sum(k.score_sq for k in blocks), games), var, g)
    cm = correlation(_per_game_var(sum(k.margin for k in blocks), sum(k.margin_sq for k in blocks), games), dvar, g)
    flip = sign_flip([v - 0.5 for v in xs])
    if flip is not None:
        los, p = flip.los, flip.p_value
    else:
        los = t_los(x - 0.5, se)
        p = 2 * min(los, 1 - los) if los == los else 1.0
    margin_los = t_los(d, dse)
    score = (elo_of_score(x), elo_of_score(clip(x - tq * se)), elo_of_score(clip(x + tq * se)), los, p)
    if basis == "margin" and margin_nelo is not None:
        per_sd = NELO_PER_T / math.sqrt(g * dvar)
        headline = (margin_nelo, (d - tq * dse) * per_sd, (d + tq * dse) * per_sd, margin_los,
                    2 * min(margin_los, 1 - margin_los))
    else:
        basis, headline = "score", score
    elo, elo_low, elo_high, los, p = headline
    return HeadToHead(a, b, n, games, x, elo, elo_low, elo_high, nelo, los, d, d - tq * dse, d + tq * dse,
                      margin_los, c.rho, c.multiplier, cm.rho, cm.multiplier, p, margin_nelo, basis, *score)


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


__all__ = ["EXACT_MAX_BLOCKS", "LEVEL", "MIN_BLOCKS", "NELO_PER_T", "Z95", "Block", "Correlation", "HeadToHead",
           "PairResult", "Side", "SignFlip", "correlation", "elo_of_score", "game_pairs", "head_to_head", "phi",
           "pooled_correlation", "score_of_elo", "sign_flip", "student_t", "student_t_quantile"]
