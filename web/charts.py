"""Charts as SVG text, drawn here (no chart library): a rating history."""

from __future__ import annotations

from html import escape

WIDTH, HEIGHT, PAD = 640, 220, 40
# Inside the SVG, so that it looks the same in an <img> (which page styles do not reach).
STYLE = ("<style>.band{fill:#cfe0f5}.mu{fill:none;stroke:#1f5fa8;stroke-width:2}.low{fill:none;stroke:#a83a1f;"
         "stroke-dasharray:4 3}.grid{stroke:#ddd}.tick{font:11px sans-serif;fill:#555}text{font:12px sans-serif}</style>")


def history_svg(points: list[dict], width: int = WIDTH, height: int = HEIGHT) -> str:
    """mu after each rated game as a line, mu +- 3 sigma as a band and mu - 3 sigma (the rank) dashed.

    ``points``: dicts with ``mu`` and ``sigma`` (and ``game``), oldest first (:func:`web.data.history`)."""
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'class="chart" role="img" aria-label="rating history">' + STYLE)
    if not points:
        return head + f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">no rated games yet</text></svg>'
    lows = [p["mu"] - 3 * p["sigma"] for p in points]
    highs = [p["mu"] + 3 * p["sigma"] for p in points]
    lo, hi = min(lows), max(highs)
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    n = len(points)

    def x(i: int) -> float:
        return PAD + (width - 2 * PAD) * (i / (n - 1) if n > 1 else 0.5)

    def y(v: float) -> float:
        return height - PAD + (v - lo) / (hi - lo) * (2 * PAD - height)

    def line(vals: list[float]) -> str:
        return " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(vals))

    band = line(highs) + " " + " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in reversed(list(enumerate(lows))))
    ticks = "".join(f'<text x="{PAD - 4}" y="{y(v) + 4:.1f}" text-anchor="end" class="tick">{v:.1f}</text>'
                    f'<line x1="{PAD}" x2="{width - PAD}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>'
                    for v in (lo, (lo + hi) / 2, hi))
    last = points[-1]
    title = escape(f"after game {last['game']}: mu {last['mu']:.2f}, sigma {last['sigma']:.2f}, "
                   f"mu - 3 sigma {last['mu'] - 3 * last['sigma']:.2f} ({n} rated games)")
    return (head + f"<title>{title}</title>" + ticks
            + f'<polygon points="{band}" class="band"/>'
            + f'<polyline points="{line([p["mu"] for p in points])}" class="mu"/>'
            + f'<polyline points="{line(lows)}" class="low"/>'
            + f'<text x="{PAD}" y="{height - 8}" class="tick">game {points[0]["game"]}</text>'
            + f'<text x="{width - PAD}" y="{height - 8}" text-anchor="end" class="tick">game {last["game"]}</text></svg>')
