"""A match's page (`pepper arena match` results): the list of matches, and one match's SPRT trace, verdict and
estimate, replayed from the stored blocks; checked against what the real `pepper arena match` printed."""

from __future__ import annotations

import json
import re
import urllib.error

import pytest

from arena.evidence import MIN_BLOCKS

pytestmark = pytest.mark.xdist_group("web")
PROGRESS = re.compile(r"^heuristic vs random: (\d+) blocks \((\d+) games\), LLR (-?\d+\.\d\d) \[(-?\d+\.\d\d), (\d+\.\d\d)\]", re.M)
RUN = 2   # the tournament is run 1


def test_the_match_api_replays_the_test_pepper_arena_match_ran(match_db, match_server):
    _, printed = match_db
    lines = PROGRESS.findall(printed)
    verdict = next(line for line in printed.splitlines() if " accepted: " in line)
    (m,) = match_server.api("/api/matches")
    assert (m["run"], m["a"], m["b"], m["verdict"], m["state"]) == (RUN, "heuristic", "random", verdict[:2], verdict[:2])
    one = match_server.api(f"/api/matches/{RUN}")
    trace = one["trace"]
    assert [t["block"] for t in trace] == list(range(1, len(trace) + 1)) and len(trace) == one["blocks"] == m["blocks"]
    for blocks, games, llr, lower, upper in lines:   # every line it printed is a point of the trace
        t = trace[int(blocks) - 1]
        assert (t["games"], f"{t['llr']:.2f}") == (int(games), llr), (t, blocks, llr)
        assert (f"{one['sprt']['lower']:.2f}", f"{one['sprt']['upper']:.2f}") == (lower, upper)
    assert int(lines[-1][0]) == len(trace)            # it decided at the trace's last block, past its bound
    assert (trace[-1]["llr"] >= one["sprt"]["upper"]) == (one["verdict"] == "H1")
    # Inside the bounds before it, from the first block the test may decide at (the margin's normalized test, the
    # default: MIN_BLOCKS; its LLR may pass a bound before).
    assert all(one["sprt"]["lower"] < t["llr"] < one["sprt"]["upper"] for t in trace[:-1] if t["block"] >= MIN_BLOCKS)
    elo = re.search(r"^(?:plain: )?Elo ([+-](?:\d+\.\d|inf)) \[.*, nElo", printed, re.M).group(1)   # +inf: all won
    shown = one["estimate"]["elo"]
    assert (elo[1:] == "inf" and shown is None) or f"{shown:+.1f}" == elo, (elo, shown)
    # The estimate adjusted for the stop, where the blocks vary (all alike: nothing to adjust, as the command says).
    adjusted = re.search(r"^Elo ([+-]\d+\.\d) \[([+-]\d+\.\d), ([+-]\d+\.\d)\] \(95%\), adjusted", printed, re.M)
    assert (adjusted is None and one["adjusted"] is None) or \
        [f"{one['adjusted'][k]:+.1f}" for k in ("elo", "elo_low", "elo_high")] == list(adjusted.groups())
    assert one["estimate"]["blocks"] == len(trace)
    with pytest.raises(urllib.error.HTTPError) as e:
        match_server.api("/api/matches/1")
    assert e.value.code == 404 and json.loads(e.value.read())["detail"] == "run 1 is not a match; the matches are runs 2"


def test_the_match_page_shows_the_trace_and_the_verdict(match_db, match_server, page, tmp_path):
    from web_harness import screenshot

    _, printed = match_db
    verdict = next(line for line in printed.splitlines() if " accepted: " in line)
    one = match_server.api(f"/api/matches/{RUN}")
    page.goto(match_server.url + "/")
    page.click("nav a:text('Matches')")
    row = page.locator(f"#matches tbody tr[data-run='{RUN}']")
    row.wait_for()
    assert row.locator("td.verdict").inner_text() == one["verdict"]
    row.locator("a").first.click()
    page.wait_for_selector("#sprt svg circle.block")
    assert page.url == match_server.url + f"/matches/{RUN}"
    assert page.locator("#match .verdict").inner_text() == verdict
    if one["adjusted"] is not None:
        assert page.locator("#match .adjusted").inner_text().startswith(f"Elo {one['adjusted']['elo']:+.0f} [")
    assert page.locator("#trace tbody td.llr").all_inner_texts() == [f"{t['llr']:.2f}" for t in one["trace"]]
    chart = page.locator("#sprt svg")
    assert chart.locator("circle.block").count() == len(one["trace"])
    bounds = sorted(float(b) for b in chart.locator("line.bound").evaluate_all("ls => ls.map(l => l.dataset.llr)"))
    assert bounds == pytest.approx([one["sprt"]["lower"], one["sprt"]["upper"]], abs=1e-6)
    assert page.locator("a", has_text="its games").get_attribute("href") == f"/games?run={RUN}"
    screenshot(page, "match", tmp_path)
