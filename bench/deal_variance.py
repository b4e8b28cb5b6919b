"""The variance of each block statistic of :mod:`arena.deals_evidence` on pairs of known strength difference, for
``bench/ranking.py variance``.

Pairs of the ladder's rungs (the heuristic with graded rates of random play, :mod:`sample_bots.mixed`) play duplicate
blocks in this process on the rules engine, as ``pepper arena match`` plans them (the mirrored line-up; at a
free-for-all table both bots in turn filling the extra seats); every statistic is read from the same blocks, so the
methods compare on the same cards and the same play. Per pair and statistic: the blocks' mean distance from the
statistic's centre, their SD and z = distance / SD; a statistic's effective-games multiplier is (z / z_score)^2,
pooled over a configuration's pairs as the sum of z^2 over the sum of z_score^2.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from arena import schedule
from arena.deals_evidence import STATISTICS, GameDeals, Separation, game_deals, separation
from arena.evidence import score_of_elo
from arena.sprt import Normalized, Sequential, Sprt, _mle_with_mean
from referee.rules import Game, Ruleset, get_ruleset
from sample_bots import HeuristicBot
from sample_bots.mixed import Mixed

HEURISTIC = HeuristicBot()

#: (ruleset, players, deal cap or None for the ruleset's own): iowa and pepper-30 in full games; bid-euchre (22 to 72
#: deals a game, up to 0.2 s) cut to 10 deals and five-handed (5 games a block) to 8, the higher score at the cap
#: winning, so that the whole measurement stays within half an hour of one core.
CONFIGS: tuple[tuple[str, int, int | None], ...] = (
    ("iowa", 4, None), ("pepper-30", 4, None), ("pepper-30", 3, None), ("pepper-30", 2, None),
    ("bid-euchre", 4, 10), ("bid-euchre", 6, 10), ("bid-euchre", 8, 10), ("five-handed", 5, 8))


def played_games(rs: Ruleset, players: int, a: str, b: str, rates: dict[str, float], deck: int,
                 lineup: int) -> list[tuple[list[str], Game]]:
    """One duplicate block of A against B on deck seed ``deck`` (the ``lineup``-th of their line-ups, rotated), as
    (seats, finished game): each game played by the mixed heuristic at each seat's rate, a seat's random choices
    seeded by the deck, the game and the seat (two names for one rate play as two independent copies of that bot)."""
    ups = schedule.lineups([a, b], rs, players, "mirrored")
    rots = schedule.rotations(ups[lineup % len(ups)], schedule.is_partnership(rs, players))
    out = []
    for k, seats in enumerate(rots):
        g = Game(rs, players, seed=deck)
        bots = [Mixed(HEURISTIC, rates[x], random.Random(f"{deck}/{k}/{s}")) for s, x in enumerate(seats)]
        while not g.is_over:
            s = g.to_act
            g.apply(bots[s].decide(g.view(s).to_dict()))
        out.append((seats, g))
    return out


def play_block(rs: Ruleset, players: int, a: str, b: str, rates: dict[str, float], deck: int,
               lineup: int) -> list[GameDeals]:
    """One duplicate block of A against B (:func:`played_games`), each game's deals read for the block statistics."""
    return [game_deals(g, [(x, 1) for x in seats]) for seats, g in played_games(rs, players, a, b, rates, deck, lineup)]


def block_values(rs: Ruleset, players: int, a: str, b: str, rates: dict[str, float], blocks: int,
                 seed: int) -> dict[str, list[float]]:
    """Every statistic's value on each of ``blocks`` blocks of A against B (A's side)."""
    out: dict[str, list[float]] = {name: [] for name in STATISTICS}
    for m in range(blocks):
        block = play_block(rs, players, a, b, rates, schedule.match_seed(seed, m), m)
        for name, stat in STATISTICS.items():
            v = stat.of_block(block, (a, 1), (b, 1))
            if v is not None:
                out[name].append(v)
    return out


def pooled(seps: Sequence[dict[str, Separation | None]]) -> dict[str, float | None]:
    """Each statistic's multiplier over the block score, pooled over pairs: sum of z^2 / sum of z_score^2 (pairs where
    either is undefined left out)."""
    out: dict[str, float | None] = {}
    for name in STATISTICS:
        used = [(s[name].z ** 2, s["score"].z ** 2) for s in seps if s.get(name) and s.get("score")]
        base = sum(b for _, b in used)
        out[name] = sum(z for z, _ in used) / base if base else None
    return out


def measure(configs, pairs: Sequence[tuple[str, str]], rates: dict[str, float], blocks: int, seed: int,
            log=print, chunk: int = 20) -> list[dict]:
    """Per configuration, each pair's separations by statistic and the multipliers pooled over the pairs of unequal
    strength; for a pair of equal strength (one rate, two names), each statistic's interval coverage
    (:func:`coverage`, runs of ``chunk`` blocks)."""
    out = []
    for name, players, cap in configs:
        rs = get_ruleset(name)
        if cap is not None:
            import dataclasses

            rs = dataclasses.replace(rs, deal_cap=cap)
        seps, covered = [], {}
        for a, b in pairs:
            values = block_values(rs, players, a, b, rates, blocks, seed)
            seps.append({k: separation(v, STATISTICS[k].centre) for k, v in values.items()})
            if rates[a] == rates[b]:
                covered[f"{a}-{b}"] = {k: coverage(v, STATISTICS[k].centre, chunk) for k, v in values.items()}
        row = {"ruleset": name, "players": players, "deal_cap": cap, "blocks": blocks,
               "pairs": [{"a": a, "b": b, **{k: None if s is None else s._asdict() for k, s in sep.items()}}
                         for (a, b), sep in zip(pairs, seps, strict=True)],
               "multiplier": pooled([s for (a, b), s in zip(pairs, seps, strict=True) if rates[a] != rates[b]]),
               "coverage": covered}
        log(f"{name} ({players}){'' if cap is None else f' cut to {cap} deals'}: "
            + ", ".join(f"{k} {_fmt(m)}" for k, m in row["multiplier"].items()), flush=True)
        out.append(row)
    return out


def _fmt(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:.2f}"


# ----------------------------------------------------------------------------- the SPRT
BASELINE = "score GSPRT"   # today's test: fishtest's GSPRT on the block score, hypotheses in logistic Elo


def tests(sprt: Sprt, games_per_block: int) -> dict:
    """Today's test and the normalized one on each statistic, fresh."""
    return {BASELINE: Sequential(sprt)} | {name: Normalized(sprt, s.centre, games_per_block)
                                           for name, s in STATISTICS.items()}


def sprt_matches(rs: Ruleset, players: int, a: str, b: str, rates: dict[str, float], sprt: Sprt, matches: int,
                 max_blocks: int, seed: int, log=print) -> tuple[dict[str, list[tuple[int, str | None]]], dict]:
    """``matches`` seeded matches of A against B (match k's decks from seed ``seed + k``), every test fed the same
    blocks in order until each has decided or ``max_blocks`` are played. Returns each test's (blocks, verdict) per
    match, and every block value played by statistic (for :func:`error_rates`)."""
    games_per_block = len(schedule.rotations(schedule.lineups([a, b], rs, players, "mirrored")[0],
                                             schedule.is_partnership(rs, players)))
    out: dict[str, list[tuple[int, str | None]]] = {}
    values: dict[str, list[float]] = {name: [] for name in STATISTICS}
    for k in range(matches):
        ts = tests(sprt, games_per_block)
        m = 0
        while m < max_blocks and any(t.verdict is None for t in ts.values()):
            block = play_block(rs, players, a, b, rates, schedule.match_seed(seed + k, m), m)
            m += 1
            vals = {name: s.of_block(block, (a, 1), (b, 1)) for name, s in STATISTICS.items()}
            for name, v in vals.items():
                values[name].append(v)
            for name, t in ts.items():
                if t.verdict is None:
                    t.feed(vals["score" if name == BASELINE else name])
        for name, t in ts.items():
            out.setdefault(name, []).append((t.blocks, t.verdict))
        log(f"  match {k + 1}/{matches}: " + ", ".join(f"{n} {t.blocks} {t.verdict or '-'}" for n, t in ts.items()),
            flush=True)
    return out, values


def error_rates(values: dict[str, list[float]], sprt: Sprt, games_per_block: int, runs: int, max_blocks: int,
                seed: int) -> dict[str, dict[str, float]]:
    """Each test's rate of accepting H1 at elo0 and H0 at elo1, by simulation on ``values`` (real blocks of one pair,
    by statistic), resampled: at elo0 = 0 with each value's distance from the centre given a fair coin's sign (equal
    bots: as likely above as below); at elo1, the normalized tests on the values moved so that their mean is t1 SDs
    from the centre, today's test on the block scores' distribution tilted to mean s(elo1) (its own model). A run
    that reaches ``max_blocks`` undecided counts as no error."""
    if sprt.elo0 != 0:
        raise ValueError("error_rates resamples equal bots at elo0: give elo0=0")
    rng = random.Random(seed)
    out = {}
    for name in [BASELINE, *STATISTICS]:
        h0, h1 = _draws(name, values, sprt, games_per_block, rng)
        rate = {}
        for hyp, draw, wrong in (("elo0", h0, "H1"), ("elo1", h1, "H0")):
            errors = 0
            for _ in range(runs):
                t = tests(sprt, games_per_block)[name]
                while t.verdict is None and t.blocks < max_blocks:
                    t.feed(draw())
                errors += t.verdict == wrong
            rate[hyp] = errors / runs
        out[name] = rate
    return out


def _draws(name: str, values: dict[str, list[float]], sprt: Sprt, games_per_block: int, rng: random.Random):
    """The resampled block value of test ``name`` at elo0 and at elo1 (see :func:`error_rates`), as two draws."""
    stat = STATISTICS["score" if name == BASELINE else name]
    xs = [v - stat.centre for v in values[stat.name]]
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1))

    def h0() -> float:
        return stat.centre + rng.choice(xs) * rng.choice((1, -1))

    if name == BASELINE:
        support = sorted({round(x + stat.centre, 9) for x in xs} | {0.0, 1.0})
        counts = [sum(1 for x in xs if round(x + stat.centre, 9) == a) or 1e-3 for a in support]
        tilted = _mle_with_mean([(a, c / sum(counts)) for a, c in zip(support, counts, strict=True)],
                                score_of_elo(sprt.elo1))
        return h0, lambda: rng.choices(support, tilted)[0]
    t1 = Normalized(sprt, 0.0, games_per_block).t1
    return h0, lambda: stat.centre + rng.choice(xs) - mean + t1 * sd


# ----------------------------------------------------------------------------- the plot
def svg(rows: list[dict], title: str) -> str:
    """A grouped bar chart of each configuration's pooled multipliers by statistic (plain SVG, no assets)."""
    names = list(STATISTICS)
    colours = ["#777777", "#bbbbbb", "#1f77b4", "#2ca02c", "#d62728"]
    top = max([1.0] + [m for r in rows for m in r["multiplier"].values() if m is not None and math.isfinite(m)])
    top = math.ceil(top)
    w_group, bar, left, height, base = 20 + 14 * len(names), 12, 50, 220, 250
    width = left + w_group * len(rows) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="330" font-family="sans-serif" '
           f'font-size="11"><title>{title}</title>',
           f'<text x="{left}" y="16" font-size="13">{title}</text>']
    for t in range(top + 1):
        y = base - height * t / top
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{t}</text>')
    for i, r in enumerate(rows):
        x0 = left + 10 + i * w_group
        for j, n in enumerate(names):
            m = r["multiplier"].get(n)
            if m is None or not math.isfinite(m):
                continue
            h = height * min(m, top) / top
            out.append(f'<rect x="{x0 + j * 14}" y="{base - h:.1f}" width="{bar}" height="{h:.1f}" '
                       f'fill="{colours[j % len(colours)]}"><title>{n}: {m:.2f}</title></rect>')
        out.append(f'<text x="{x0 + w_group / 2 - 10:.0f}" y="{base + 14}" text-anchor="middle">{r["ruleset"]}</text>'
                   f'<text x="{x0 + w_group / 2 - 10:.0f}" y="{base + 27}" text-anchor="middle">{r["players"]} players</text>')
    for j, n in enumerate(names):
        out.append(f'<rect x="{left + j * 110}" y="{base + 45}" width="10" height="10" fill="{colours[j]}"/>'
                   f'<text x="{left + j * 110 + 14}" y="{base + 54}">{n}</text>')
    out.append(f'<text x="{left}" y="{base + 75}">effective-games multiplier over the block score, '
               '(z / z_score)^2 per block</text></svg>')
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- the measurement
def coverage(values: Sequence[float], centre: float, chunk: int) -> float | None:
    """The share of consecutive runs of ``chunk`` blocks (of a pair of equal strength) whose Student's t 95% interval
    for the mean holds ``centre``; None without a whole run."""
    from arena.evidence import student_t_quantile

    runs = [values[i:i + chunk] for i in range(0, len(values) - chunk + 1, chunk)]
    if not runs:
        return None
    tq = student_t_quantile(chunk - 1, 0.975)
    held = 0
    for r in runs:
        m = sum(r) / chunk
        se = math.sqrt(sum((v - m) ** 2 for v in r) / (chunk - 1) / chunk)
        held += abs(m - centre) <= tq * se
    return held / len(runs)


def parse_pairs(text: str) -> list[tuple[float, float]]:
    """``0:0.05,0.2:0.25`` -> [(0.0, 0.05), (0.2, 0.25)]: the rates of random play of each pair's A and B."""
    try:
        out = [(float(x), float(y)) for x, y in (p.split(":") for p in text.split(","))]
    except ValueError:
        raise ValueError(f"expected A:B[,A:B...] rates of random play, e.g. 0:0.05,0.2:0.25, got {text!r}") from None
    return out


def parse_configs(text: str) -> list[tuple[str, int, int | None]]:
    """``iowa:4,bid-euchre:6:20`` -> [("iowa", 4, None), ("bid-euchre", 6, 20)]: ruleset, players, deal cap."""
    out = []
    for part in text.split(","):
        bits = part.split(":")
        if len(bits) not in (2, 3):
            raise ValueError(f"{part!r}: expected RULESET:PLAYERS[:DEAL_CAP], e.g. iowa:4 or bid-euchre:6:20")
        out.append((bits[0], int(bits[1]), int(bits[2]) if len(bits) == 3 else None))
    return out


def names_of(pairs: Sequence[tuple[float, float]]) -> tuple[list[tuple[str, str]], dict[str, float]]:
    """Bot names for the pairs' rates (``mix05``; the second of an equal pair ``mix20b``: the same bot, two names)."""
    rates: dict[str, float] = {}
    named = []
    for x, y in pairs:
        a = f"mix{round(100 * x):02d}"
        b = f"mix{round(100 * y):02d}" + ("b" if x == y else "")
        rates[a], rates[b] = x, y
        named.append((a, b))
    return named, rates
