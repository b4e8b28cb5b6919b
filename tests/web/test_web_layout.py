"""The pages at a desktop's width and a phone's (390 px): no page wider than the screen (wide tables scroll in their
own box), and charts on one scale whose text renders at a readable size."""

from __future__ import annotations

import re

import pytest

from web.charts import history_svg

pytestmark = pytest.mark.xdist_group("web")
PHONE, DESKTOP = (390, 844), (1280, 800)
# Each page, and what shows it has loaded.
PAGES = [("/", "#charts svg.chart"), ("/games", "#games tbody tr"), ("/bots/heuristic", ".history svg.chart"),
         ("/matches", "#matches tbody tr"), ("/matches/2", "#sprt svg.chart")]
# The size each SVG text renders at, in CSS pixels: its font size times the SVG's scale on the screen.
TEXT_PX = "ts => ts.map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"


@pytest.mark.parametrize("page", [PHONE], indirect=True)
@pytest.mark.parametrize(("path", "loaded"), PAGES)
def test_every_page_fits_a_phones_width(match_server, page, path, loaded, tmp_path):
    page.goto(match_server.url + path)
    page.wait_for_selector(loaded)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE[0]
    # A table wider than the screen scrolls inside its own box.
    for box in page.locator("div.wide").all():
        assert box.evaluate("b => getComputedStyle(b).overflowX") == "auto"
        assert box.bounding_box()["width"] <= PHONE[0]


@pytest.mark.parametrize("page", [DESKTOP, PHONE], indirect=True)
def test_the_rating_history_is_one_chart_on_one_scale_with_readable_text(match_server, page):
    page.goto(match_server.url + "/")
    chart = page.locator("#charts svg.chart")
    chart.locator("g.series").first.wait_for()
    board = match_server.api("/api/leaderboard")
    assert chart.count() == 1 and chart.locator("g.series").count() == len(board["rows"])
    assert chart.locator("g.series polygon.band").count() == len(board["rows"])   # each with its interval band
    ticks = [int(t) for t in chart.locator("text.tick.x").all_text_contents()]
    assert ticks == sorted(set(ticks)) and ticks[0] == 1 and len(ticks) >= 3       # rated games, ascending
    for sel in ("#charts svg text", "#intervals svg text"):
        sizes = page.locator(sel).evaluate_all(TEXT_PX)
        assert sizes and min(sizes) >= 11, (sel, sizes)
    page.goto(match_server.url + "/bots/heuristic")
    page.wait_for_selector(".history svg.chart g.series")
    sizes = page.locator("main svg text").evaluate_all(TEXT_PX)
    assert sizes and min(sizes) >= 11, sizes


def _scale(svg: str):
    """The chart's value -> y map, from its y tick labels."""
    ticks = [(float(y), float(v)) for y, v in re.findall(r'<text x="[\d.]+" y="([\d.]+)"[^>]*class="tick y">([-\d.]+)<', svg)]
    (y0, v0), (y1, v1) = ticks[0], ticks[-1]
    return lambda v: y0 + (v - v0) * (y1 - y0) / (v1 - v0) - 12 / 3   # labels sit a third of the font below


def test_every_history_shares_one_scale_in_rating_order_with_its_band():
    # Two bots rated in plan order: game 9 before game 7 (a game that finished early waits for those planned before).
    chart = {"steps": [9, 7, 8], "series": [
        {"label": "strong", "points": [{"step": i, "game": g, "mu": 30 + i, "sigma": 2.0} for i, g in enumerate([9, 7, 8])]},
        {"label": "weak", "points": [{"step": i, "game": g, "mu": 10 - i, "sigma": 1.0} for i, g in enumerate([9, 7, 8])]}]}
    svg = history_svg(chart, 500)
    y = _scale(svg)
    assert re.findall(r'class="tick x">(\d+)<', svg) == ["1", "2", "3"]   # rated games of the pool, ascending
    for s in chart["series"]:
        block = svg.split(f'data-label="{s["label"]}"', 1)[1].split("</g>", 1)[0]
        mu = [tuple(map(float, p.split(","))) for p in re.search(r'<polyline points="([^"]+)"', block).group(1).split()]
        band = [tuple(map(float, p.split(","))) for p in re.search(r'<polygon points="([^"]+)"', block).group(1).split()]
        for (_, py), p in zip(mu, s["points"]):
            assert py == pytest.approx(y(p["mu"]), abs=0.15)                  # one scale for both
        for (_, py), p in zip(band[:3], s["points"]):                          # the band: mu +- 3 sigma
            assert py == pytest.approx(y(p["mu"] + 3 * p["sigma"]), abs=0.15)
        for (_, py), p in zip(band[3:], reversed(s["points"])):
            assert py == pytest.approx(y(p["mu"] - 3 * p["sigma"]), abs=0.15)
    assert 'font-size="12"' in svg and "<style" not in svg
