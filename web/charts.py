"""Charts as SVG text, drawn here (no chart library): the rating histories of a pool.

Every bot's history shares one chart, so one y-scale; the x-axis is the pool's rated games in the order they were
rated (:func:`web.data.histories`), ascending. The SVG is drawn at the pixel width the page asks for and styled by
presentation attributes alone (no ``<style>``: inline in a page, a style sheet would reach the page's elements), so
its text renders at ``FONT`` px wherever it is shown.
"""

from __future__ import annotations

import math
from html import escape

WIDTH, MIN_WIDTH, MAX_WIDTH = 640, 280, 1400
PLOT_HEIGHT = 220
LEFT, RIGHT, TOP, AXIS = 52, 14, 12, 40     # margins: y labels, right, top, x ticks and title
FONT, LEGEND_LINE = 12, 20
#: One colour a version, in turn (Okabe and Ito's colour-blind-safe set, then darker tones).
COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c564b", "#7f7f7f",
           "#17becf")
SIGMAS = 3   # the band: mu +- 3 sigma, the leaderboard's interval (its rank is the band's lower edge)


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` round values (1, 2 or 5 times a power of ten apart) covering [lo, hi]."""
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    raw = (hi - lo) / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(lo / step) * step
    return [first + k * step for k in range(int(math.ceil((hi - first) / step + 1e-9)) + 1)]


def _text(x: float, y: float, text: str, anchor: str = "start", **attrs) -> str:
    more = "".join(f' {k.rstrip("_").replace("_", "-")}="{v}"' for k, v in attrs.items())   # class_: class
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{FONT}" font-family="sans-serif" '
            f'fill="#333"{more}>{escape(text)}</text>')


def _legend(series: list[dict], width: int) -> list[tuple[float, float, str, str]]:
    """(x, y, colour, label) of each legend entry, flowing into lines of the chart's width."""
    out, x, y = [], LEFT, 0
    for i, s in enumerate(series):
        w = 26 + 0.62 * FONT * len(s["label"])
        if x + w > width - RIGHT and x > LEFT:
            x, y = LEFT, y + LEGEND_LINE
        out.append((x, y, COLOURS[i % len(COLOURS)], s["label"]))
        x += w + 12
    return out


def history_svg(chart: dict, width: int = WIDTH) -> str:
    """Each version's mu after each rated game as a line with its mu +- 3 sigma band, all on one scale.

    ``chart``: :func:`web.data.histories`'s ``{steps, series: [{label, points: [{step, game, mu, sigma}]}]}``."""
    width = min(MAX_WIDTH, max(MIN_WIDTH, int(width)))
    series = [s for s in chart["series"] if s["points"]]
    legend = _legend(series, width)
    height = TOP + PLOT_HEIGHT + AXIS + (legend[-1][1] + LEGEND_LINE + 6 if legend else 0)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'class="chart" role="img" aria-label="rating history">')
    if not series:
        return head + _text(width / 2, height / 2, "no rated games yet", "middle") + "</svg>"
    n = len(chart["steps"])
    lo = min(p["mu"] - SIGMAS * p["sigma"] for s in series for p in s["points"])
    hi = max(p["mu"] + SIGMAS * p["sigma"] for s in series for p in s["points"])
    yticks = nice_ticks(lo, hi)
    lo, hi = min(lo, yticks[0]), max(hi, yticks[-1])
    bottom = TOP + PLOT_HEIGHT

    def x(step: float) -> float:   # step 0 is rated game 1
        return LEFT + (width - LEFT - RIGHT) * (step / (n - 1) if n > 1 else 0.5)

    def y(v: float) -> float:
        return bottom - PLOT_HEIGHT * (v - lo) / (hi - lo)

    out = [head]
    for v in yticks:
        out.append(f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(_text(LEFT - 6, y(v) + FONT / 3, f"{v:g}", "end", class_="tick y"))
    xticks = sorted({1.0} | {t for t in nice_ticks(1, n, 6) if 1 < t <= n and t == int(t)})
    for t in xticks:
        out.append(f'<line x1="{x(t - 1):.1f}" x2="{x(t - 1):.1f}" y1="{bottom}" y2="{bottom + 4}" stroke="#888"/>')
        out.append(_text(x(t - 1), bottom + 4 + FONT, f"{int(t)}", "middle", class_="tick x"))
    out.append(f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{bottom}" y2="{bottom}" stroke="#888"/>')
    out.append(_text((LEFT + width - RIGHT) / 2, bottom + AXIS - 6, "rated games of the pool, in rating order",
                     "middle", class_="axis"))
    for s, (_, _, colour, _) in zip(series, legend):
        pts = s["points"]
        upper = " ".join(f"{x(p['step']):.1f},{y(p['mu'] + SIGMAS * p['sigma']):.1f}" for p in pts)
        lower = " ".join(f"{x(p['step']):.1f},{y(p['mu'] - SIGMAS * p['sigma']):.1f}" for p in reversed(pts))
        mu = " ".join(f"{x(p['step']):.1f},{y(p['mu']):.1f}" for p in pts)
        last = pts[-1]
        title = (f"{s['label']}: after game {last['game']} (rated game {last['step'] + 1} of the pool's {n}), "
                 f"mu {last['mu']:.2f}, sigma {last['sigma']:.2f}, mu - 3 sigma {last['mu'] - 3 * last['sigma']:.2f} "
                 f"({len(pts)} rated games)")
        out.append(f'<g class="series" data-label="{escape(s["label"])}"><title>{escape(title)}</title>'
                   f'<polygon points="{upper} {lower}" class="band" fill="{colour}" fill-opacity="0.15"/>'
                   f'<polyline points="{mu}" class="mu" fill="none" stroke="{colour}" stroke-width="2"/></g>')
    base = bottom + AXIS + 4
    for lx, ly, colour, text in legend:
        out.append(f'<rect x="{lx:.1f}" y="{base + ly:.1f}" width="18" height="10" fill="{colour}" fill-opacity="0.6"/>')
        out.append(_text(lx + 24, base + ly + 10, text, class_="legend"))
    return "".join(out) + "</svg>"


def sprt_svg(match: dict, width: int = WIDTH) -> str:
    """A match's log-likelihood ratio after each block fed to its SPRT (from 0 before the first), between the bounds
    that accept H0 (below) and H1 (above). ``match``: :func:`web.data.match`'s ``{sprt: {lower, upper}, trace}``."""
    width = min(MAX_WIDTH, max(MIN_WIDTH, int(width)))
    height = TOP + PLOT_HEIGHT + AXIS
    lower, upper = match["sprt"]["lower"], match["sprt"]["upper"]
    trace = [{"block": 0, "llr": 0.0}] + match["trace"]
    n = trace[-1]["block"]
    yticks = nice_ticks(min(lower, min(t["llr"] for t in trace)), max(upper, max(t["llr"] for t in trace)))
    lo, hi = yticks[0], yticks[-1]
    bottom = TOP + PLOT_HEIGHT

    def x(block: float) -> float:
        return LEFT + (width - LEFT - RIGHT) * (block / n if n else 0)

    def y(v: float) -> float:
        return bottom - PLOT_HEIGHT * (v - lo) / (hi - lo)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           f'class="chart sprt" role="img" aria-label="the SPRT\'s log-likelihood ratio after each block">']
    for v in yticks:
        out.append(f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>')
        out.append(_text(LEFT - 6, y(v) + FONT / 3, f"{v:g}", "end", class_="tick y"))
    for v, name, colour in ((upper, "H1", "#2a8a3a"), (lower, "H0", "#a83a1f")):
        out.append(f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="{colour}" '
                   f'stroke-dasharray="6 4" class="bound" data-llr="{v:.6f}"/>')
        out.append(_text(width - RIGHT - 4, y(v) + (-5 if v > 0 else FONT + 3),
                         f"accept {name} ({v:.2f})", "end", class_="bound-label", fill_opacity="0.9"))
    xticks = sorted({0.0, float(n)} | {t for t in nice_ticks(0, n, 6) if 0 <= t <= n and t == int(t)}) if n else [0.0]
    for t in xticks:
        out.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{bottom}" y2="{bottom + 4}" stroke="#888"/>')
        out.append(_text(x(t), bottom + 4 + FONT, f"{int(t)}", "middle", class_="tick x"))
    out.append(f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{bottom}" y2="{bottom}" stroke="#888"/>')
    out.append(_text((LEFT + width - RIGHT) / 2, bottom + AXIS - 6, "blocks fed to the test, in plan order", "middle",
                     class_="axis"))
    points = " ".join(f"{x(t['block']):.1f},{y(t['llr']):.1f}" for t in trace)
    out.append(f'<polyline points="{points}" class="llr" fill="none" stroke="#1f5fa8" stroke-width="2"/>')
    for t in trace[1:]:
        out.append(f'<circle cx="{x(t["block"]):.1f}" cy="{y(t["llr"]):.1f}" r="2.5" fill="#1f5fa8" class="block" '
                   f'data-block="{t["block"]}" data-llr="{t["llr"]:.6f}"><title>block {t["block"]} ({t["games"]} games): '
                   f'score {t["score"]:.3f}, LLR {t["llr"]:.2f}</title></circle>')
    return "".join(out) + "</svg>"
