"""arena.evidence against hand-computed values (docs/statistics.md's worked example), and the SPRT's error rates by
simulation on synthetic duplicate blocks."""

from __future__ import annotations

import math
import random

import pytest

from arena.evidence import MIN_BLOCKS, Block, game_pairs, head_to_head, pooled_correlation, score_of_elo, student_t
from arena.sprt import Normalized, Sequential, Sprt, normalized_llr


def block(*games: tuple[float, float]) -> Block:
    """A block from its games' (score, margin)."""
    return Block(len(games), sum(s for s, _ in games), sum(s * s for s, _ in games), sum(m for _, m in games),
                 sum(m * m for _, m in games))


# The worked example of docs/statistics.md: four iowa blocks of two games, A's (score, margin) in each game.
EXAMPLE = [block((1, 10), (1, 6)), block((1, 4), (0, -8)), block((0, -2), (1, 12)), block((1, 8), (1, 0))]


def test_head_to_head_of_the_worked_example():
    h = head_to_head("A", "B", EXAMPLE, basis="score")   # the headline on the score (the margin's: below)
    assert (h.blocks, h.games) == (4, 8)
    # Block means 1, .5, .5, 1: mean .75, unbiased variance .25/3, se sqrt(.25/3/4) = .144338.
    assert h.score == pytest.approx(0.75)
    assert h.elo == pytest.approx(190.8485, abs=1e-3)                 # -400 log10(1/.75 - 1)
    assert h.elo_low == pytest.approx(-154.9932, abs=1e-3)            # .75 - t(3) 3.182446 * .144338 = .290649
    assert h.elo_high == math.inf                                     # .75 + 3.182446 * .144338 > 1
    # Sign flips of the deviations +.5, 0, 0, +.5: 1 of 4 sums at least +1, all 4 at most: (1 - 1/4 + 1) / 2.
    assert h.los == 0.875 and h.p_value == 0.5 and h.too_few
    assert h.nelo == pytest.approx(212.7600, abs=1e-3)                # .25 / sqrt(2 * .25/3) * 800 / ln 10
    assert not h.significant
    # Per-game variance (6 - 8 * .75^2) / 7 = .214286; 2 * (.25/3) / .214286 = .777778 = 1 + rho.
    assert h.rho == pytest.approx(-2 / 9) and h.multiplier == pytest.approx(9 / 7)
    # Margins: block means 8, -2, 5, 4: mean 3.75, variance 17.5833, se 2.096624.
    assert h.margin == pytest.approx(3.75)
    assert (h.margin_low, h.margin_high) == (pytest.approx(-2.922394, abs=1e-6), pytest.approx(10.422394, abs=1e-6))
    assert h.margin_los == pytest.approx(0.914184, abs=1e-6)          # Student's t(3) at 3.75 / 2.096624
    assert h.margin_multiplier == pytest.approx(1.281652, abs=1e-6)
    assert h.margin_nelo == pytest.approx(3.75 / math.sqrt(2 * 211 / 12) * 800 / math.log(10))   # 2 s_y^2 = 35.1667
    assert h.to_dict()["elo_high"] is None   # JSON has no infinity
    # From B's side everything turns around.
    mirrored = head_to_head("B", "A", [Block(k.games, k.games - k.score, k.games - 2 * k.score + k.score_sq,
                                             -k.margin, k.margin_sq) for k in EXAMPLE], basis="score")
    assert mirrored.elo == pytest.approx(-h.elo) and mirrored.los == pytest.approx(1 - h.los)
    assert mirrored.multiplier == pytest.approx(h.multiplier) and mirrored.margin == pytest.approx(-3.75)


def test_the_headline_reads_the_margin_by_default_with_the_score_beside_it():
    """The worked example's headline (what the table's ties and the cross-table read) by default: the block
    margins' normalized Elo, its interval and Student's t test; the score's figures kept beside it."""
    h = head_to_head("A", "B", EXAMPLE)
    score = head_to_head("A", "B", EXAMPLE, basis="score")
    assert h.basis == "margin" and score.basis == "score"
    # Margins 8, -2, 5, 4: mean 3.75, s^2 211/12, se 2.096624; per-game SD sqrt(2 s^2) = 5.930149.
    per_sd = 800 / math.log(10) / math.sqrt(2 * 211 / 12)
    assert h.elo == pytest.approx(3.75 * per_sd) == h.margin_nelo
    assert (h.elo_low, h.elo_high) == (pytest.approx(-2.922394 * per_sd, abs=1e-4), pytest.approx(10.422394 * per_sd, abs=1e-4))
    assert h.los == h.margin_los == pytest.approx(0.914184, abs=1e-6)    # Student's t(3) at 3.75 / 2.096624
    assert h.p_value == pytest.approx(2 * (1 - 0.914184), abs=1e-6) and h.too_few and not h.significant
    assert (h.score_elo, h.score_elo_low, h.score_elo_high, h.score_los, h.score_p_value) == (
        score.elo, score.elo_low, score.elo_high, score.los, score.p_value)
    assert (h.score, h.nelo) == (score.score, score.nelo)
    # Sixteen blocks: t = 3.75 / (2.096624 / 2) on 15 degrees of freedom, significant.
    more = head_to_head("A", "B", EXAMPLE * 4)
    assert more.basis == "margin" and more.significant and more.elo_low > 0
    assert more.p_value == pytest.approx(2 * (1 - student_t(15, 3.75 / (math.sqrt(211 / 12 * 12 / 15) / 4))))
    # Margins that do not vary leave the score's headline; an unknown basis is an error that names it.
    assert head_to_head("A", "B", [block((1, 5), (0, -5))] * 6).basis == "score"
    with pytest.raises(ValueError, match="basis 'luck': expected margin or score"):
        head_to_head("A", "B", EXAMPLE, basis="luck")


def test_more_blocks_of_the_same_make_it_significant_and_the_pool_sums_effective_games():
    h = head_to_head("A", "B", EXAMPLE * 4, basis="score")
    # 8 of 16 blocks at +1/2, none below: p-value 2 * 2^-8.
    assert h.significant and h.elo_low > 0 and h.p_value == 2 ** -7 and h.los == 1 - 2 ** -9
    pooled = pooled_correlation([h, head_to_head("A", "C", EXAMPLE)])
    assert pooled["score"]["games"] == 40
    assert pooled["score"]["effective_games"] == pytest.approx(32 * h.multiplier + 8 * 9 / 7)
    assert head_to_head("A", "B", []) is None


def test_game_pairs_by_team_and_by_seat():
    a, b, c, d = ("A", 1), ("B", 2), ("C", 1), ("D", 1)
    # Mirrored iowa: A on seats 0 and 2 wins 52-30.
    assert sorted(game_pairs([a, b, a, b], [52, 30, 52, 30], [True, False, True, False], (0, 1, 0, 1))) == [
        (a, b, 1.0, 22.0), (b, a, 0.0, -22.0)]
    # Mixed partnerships: partners are not compared.
    pairs = {(p.a, p.b): p for p in game_pairs([a, c, b, d], [40, 20, 40, 20], [True, False, True, False], (0, 1, 0, 1))}
    assert (a, b) not in pairs and pairs[a, c].score == 1.0 and pairs[d, b].margin == -20
    # A free-for-all table where A holds two seats: the mean over its seats against B's; winners rank first.
    pairs = {(p.a, p.b): p for p in game_pairs([a, b, a], [10, 20, 30], [False, True, False], (0, 1, 2))}
    assert pairs[a, b].score == 0.0 and pairs[a, b].margin == pytest.approx(((10 - 20) + (30 - 20)) / 2)
    level = {(p.a, p.b): p for p in game_pairs([a, b, c], [10, 10, 5], [False, False, False], (0, 1, 2))}
    assert level[a, b].score == 0.5 and level[c, a].score == 0.0


def test_sprt_bounds_parse_and_a_hand_computed_llr():
    sprt = Sprt.parse("elo0=0 elo1=5 alpha=0.05 beta=0.05")
    assert sprt == Sprt() and sprt.upper == pytest.approx(math.log(19)) and sprt.lower == pytest.approx(-math.log(19))
    assert Sprt.parse("elo1=10,beta=0.1") == Sprt(0, 10, 0.05, 0.1)
    for bad in ("elo1", "gamma=1", "elo1=x", "elo0=5 elo1=0", "alpha=0.6 beta=0.6"):
        with pytest.raises(ValueError):
            Sprt.parse(bad)
    # One lost and one won block: on the support {0, 1} the fits are exact, LLR = ln(4 s1 (1 - s1)).
    s1 = score_of_elo(5)
    assert sprt.llr({0.0: 1, 1.0: 1}) == pytest.approx(math.log(4 * s1 * (1 - s1)), rel=1e-6)
    # A run of won blocks is evidence, but not infinite evidence.
    assert 0 < sprt.llr({1.0: 3}) < sprt.upper


def simulate(sprt: Sprt, elo: float, runs: int, seed: int) -> dict:
    """Verdicts of ``runs`` sequential tests on synthetic duplicate blocks: two games on one deal, the deal giving
    the side in the first game's seats an edge d (uniform in +-0.3) that the other side has in the second: the
    games of a block are negatively correlated, as in iowa, and the expected score per game is exactly s(elo)."""
    rng = random.Random(seed)
    s = score_of_elo(elo)
    out = {"H1": 0, "H0": 0, None: 0}
    for _ in range(runs):
        seq = Sequential(sprt)
        for _ in range(20_000):
            d = rng.uniform(-0.3, 0.3)
            if seq.feed(((rng.random() < s + d) + (rng.random() < s - d)) / 2):
                break
        out[seq.verdict] += 1
    return out


def test_sprt_error_rates_by_simulation():
    """At elo0 the test accepts H1 no more often than alpha, and at elo1 H0 no more often than beta, within a
    tolerance of 3 binomial standard deviations of the rate over the runs (400 runs: +0.033). A wide Elo gap
    keeps the tests short (about 80 blocks each); the seeds are fixed, so the test is deterministic."""
    sprt, runs = Sprt(0, 60, 0.05, 0.05), 400
    tol = 3 * math.sqrt(0.05 * 0.95 / runs)
    at0 = simulate(sprt, sprt.elo0, runs, seed=11)
    at1 = simulate(sprt, sprt.elo1, runs, seed=12)
    assert at0[None] == at1[None] == 0
    assert at0["H1"] / runs <= sprt.alpha + tol, at0
    assert at1["H0"] / runs <= sprt.beta + tol, at1
    # And it has power: it mostly gets each right (a test that never decided H1 would pass the checks above).
    assert at0["H0"] / runs >= 0.9 and at1["H1"] / runs >= 0.9


def test_blocks_all_alike_give_no_interval_and_all_won_a_bounded_los():
    draws = head_to_head("A", "B", [block((1, 5), (0, -5))] * 4)   # a deterministic bot against its copy
    assert draws.score == 0.5 and draws.los == 0.5 and draws.p_value == 1 and not draws.significant
    assert draws.elo == 0 and draws.rho == -1 and draws.multiplier == math.inf and draws.margin_rho == -1
    won = head_to_head("A", "B", [block((1, 5), (1, 5))] * 4)
    assert won.score == 1 and won.elo == math.inf and won.to_dict()["elo_low"] is None and won.multiplier is None
    assert won.los == 1 - 1 / 32 and won.p_value == 1 / 8 and not won.significant   # 4 blocks won: 2 * 2^-4
    six = head_to_head("B", "A", [block((0, -5), (0, -5))] * 6)
    assert six.los == 1 / 128 and six.p_value == 1 / 32 and six.significant        # 6 lost: 2 * 2^-6 < 5%
    # The pool's figures cover the score and the margin alike (a generator of pairs is read once).
    pooled = pooled_correlation(h for h in (head_to_head("A", "B", EXAMPLE),))
    assert pooled["score"]["games"] == pooled["margin"]["games"] == 8


def simulate_normalized(sprt: Sprt, t: float, runs: int, seed: int) -> dict:
    """Verdicts of ``runs`` normalized tests (arena.sprt.Normalized, blocks of 2 games, centre 0) on block values
    drawn from a skewed, heavy-tailed law (a deal-point margin's: an exponential's two-sided mixture, scaled by a
    coin) standardized so that their mean is exactly ``t`` SDs from the centre."""
    rng = random.Random(seed)
    out = {"H1": 0, "H0": 0, None: 0}

    def draw() -> float:   # mean 0, SD 1: exponential(1) - 1 (SD 1), signed at random, times 1 or 2, over sqrt(5/2)
        return (rng.expovariate(1.0) - 1) * rng.choice((1, -1)) * rng.choice((1, 2)) / math.sqrt(2.5)

    for _ in range(runs):
        seq = Normalized(sprt, 0.0, 2)
        for _ in range(20_000):
            if seq.feed(t + draw()):
                break
        out[seq.verdict] += 1
    return out


def test_the_normalized_sprt_keeps_its_error_rates_and_reads_elo_per_game():
    """At elo0 (the blocks' mean at the centre) it accepts H1 no more often than alpha, at elo1 (t1 SDs from it) H0
    no more often than beta, within 3 binomial SDs over 400 runs; elo1 = 60 keeps each test to about 100 blocks."""
    sprt, runs = Sprt(0, 60, 0.05, 0.05), 400
    probe = Normalized(sprt, 0.0, 2)
    # A block of 2 games of per-game SD 1/2: t1 = (s(60) - 1/2) / (1/2) * sqrt(2).
    assert probe.t0 == 0 and probe.t1 == pytest.approx(2 * (score_of_elo(60) - 0.5) * math.sqrt(2))
    tol = 3 * math.sqrt(0.05 * 0.95 / runs)
    at0 = simulate_normalized(sprt, probe.t0, runs, seed=21)
    at1 = simulate_normalized(sprt, probe.t1, runs, seed=22)
    assert at0[None] == at1[None] == 0
    assert at0["H1"] / runs <= sprt.alpha + tol, at0
    assert at1["H0"] / runs <= sprt.beta + tol, at1
    assert at0["H0"] / runs >= 0.9 and at1["H1"] / runs >= 0.9


def test_the_normalized_llr_by_hand_and_its_first_blocks():
    # Blocks 1, 3 about centre 0: mean 2, SD sqrt(2), t = sqrt(2); LLR = 2 (t1 - t0) (t - (t0 + t1) / 2).
    assert normalized_llr(2, 4.0, 10.0, 0.0, 0.5) == pytest.approx(2 * 0.5 * (math.sqrt(2) - 0.25))
    assert normalized_llr(1, 1.0, 1.0, 0.0, 0.5) == 0 and normalized_llr(3, 3.0, 3.0, 0.0, 0.5) == 0   # all alike
    seq = Normalized(Sprt(0, 60), 0.5, 2)
    for v in (1.0, 0.9, 1.0, 0.95, 1.0):   # five strong blocks: no verdict before MIN_BLOCKS, however clear
        assert seq.feed(v) is None
    assert seq.llr > seq.sprt.upper and seq.feed(1.0) == "H1" and seq.blocks == MIN_BLOCKS
