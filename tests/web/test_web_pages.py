"""The pages of `pepper web` in a real browser (Debian's Chromium driven by Playwright) over a real tournament's
database: the leaderboard, live as games finish; the games list; a bot's page; the replay viewer stepped to its
end, and one seat's view that holds no other seat's cards in the page or in what the server sent."""

from __future__ import annotations

import json
import re

import pytest
from web_harness import CARD, GAMES, Server, cards_in, hidden_cards, layout_problems, screenshot, tournament

from arena.store import Store
from referee.rules import Game

pytestmark = pytest.mark.xdist_group("web")


def test_the_leaderboard_shows_the_ranked_bots(server, page, tmp_path):
    page.goto(server.url + "/")
    rows = page.locator("#leaderboard tbody tr")
    rows.first.wait_for()
    assert rows.count() == 2
    board = server.api("/api/leaderboard")
    for i, r in enumerate(board["rows"]):
        row = rows.nth(i)
        assert row.get_attribute("data-bot") == r["bot"] and row.locator("td.games").inner_text() == str(GAMES)
        assert row.locator("td.rating").inner_text() == f"{r['conservative']:.2f}"
        # the points rating the rows are ordered by (a complete block each way: a number, not "-")
        shown = row.locator("td.points").inner_text()   # signed, one decimal (the page rounds half up)
        assert r["points"] is not None and re.fullmatch(r"[+-]\d+\.\d", shown) and abs(float(shown) - r["points"]) <= 0.05 + 1e-9
        assert row.locator("td.rating").get_attribute("title") == f"mu {r['mu']:.2f}, sigma {r['sigma']:.2f}"
        for cell, value in (("field", r["field_pct"]), ("win", r["win_pct"])):  # field % where win % was, win % beside
            shown = row.locator(f"td.{cell}").inner_text()                      # (rounded half up; Python: half to even)
            assert re.fullmatch(r"\d+\.\d", shown) and abs(float(shown) - value) <= 0.05 + 1e-9, (cell, shown, value)
    assert page.locator("#leaderboard thead th").all_inner_texts()[2:8] == ["points", "rating", "interval", "games",
                                                                             "field %", "win %"]
    assert [r["points"] for r in board["rows"]] == sorted((r["points"] for r in board["rows"]), reverse=True)
    page.locator("#charts svg.chart g.series").first.wait_for()   # every bot's history on one chart
    assert page.locator("#charts svg.chart").count() == 1 and page.locator("#charts svg.chart g.series").count() == 2
    for i, r in enumerate(board["rows"]):   # ~N: not significantly below the row above
        assert rows.nth(i).locator("td.rank").inner_text() == ("~" if r["tied_above"] else "") + str(r["rank"])
    # The cross-table: the row bot's score against the column bot, both ways round.
    (pair,) = board["cross_table"]["head_to_head"]
    cells = page.locator("#cross-table tbody td.cross")
    assert cells.count() == 2
    for k, score in enumerate((pair["score"], 1 - pair["score"])):   # the page rounds half up, Python half to even
        shown = cells.nth(k).inner_text()
        assert abs(int(shown.split("%", 1)[0]) - 100 * score) <= 0.5 + 1e-9, shown
    screenshot(page, "leaderboard", tmp_path)


def test_the_leaderboard_updates_live_as_games_finish(arena_db, page, tmp_path):
    """Its own copy of the database and its own server: another run adds games while the page is open."""
    folder = tmp_path / "live"
    folder.mkdir()
    db = folder / "arena.db"
    Store(arena_db, read_only=True).db.execute("VACUUM INTO ?", (str(db),))
    server = Server(db)
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("#live.on")
        assert page.locator("#leaderboard tbody tr[data-bot=random]").get_attribute("data-games") == str(GAMES)
        tournament(folder, games=4, seed=11)   # a second run on the same pool, while the page is open
        page.wait_for_function("document.querySelector('#leaderboard tbody tr[data-bot=random]').dataset.games == '12'",
                               timeout=15_000)
        assert page.locator("#newest").inner_text() == "newest game 12"
    finally:
        page.goto("about:blank")   # closes the event stream before the server goes
        server.stop()


def test_the_games_page_lists_games_with_their_twins(server, page, tmp_path):
    page.goto(server.url + "/games")
    page.wait_for_selector("#games tbody tr")
    assert page.locator("#games tbody tr").count() == GAMES
    assert page.locator("#count").inner_text() == f"{GAMES} games match, newest first"
    twins = {int(r.get_attribute("data-game")): int(r.locator("td.twins a").inner_text())
             for r in page.locator("#games tbody tr").all()}
    assert all(twins[twins[g]] == g for g in twins)
    screenshot(page, "games", tmp_path)
    page.select_option("select[name=status]", "forfeited")
    page.wait_for_function("document.querySelector('#count').textContent.startsWith('0 games')")
    assert "status=forfeited" in page.url and page.locator("#games tbody tr").count() == 0


def test_a_bots_page_shows_its_versions_and_history(server, page, tmp_path):
    page.goto(server.url + "/bots/heuristic")
    page.wait_for_selector("section.version[data-version='1'] .history svg.chart g.series")
    text = page.locator("#versions").inner_text()
    assert f"{GAMES} rated games" in text and "faults: 0 timeouts" in text and "median decision time" in text
    # The decision-time histogram counts every seat the bot took (two a game: mirrored partnerships).
    bars = page.locator("svg.histogram rect title").evaluate_all("es => es.map(e => e.textContent)")
    assert sum(int(t.rsplit(": ", 1)[1].split()[0]) for t in bars) == len(server.api("/api/bots/heuristic")["versions"][0]["pools"][0]["latency_ms"])
    screenshot(page, "bot", tmp_path)


def test_a_replay_steps_to_the_end_and_shows_the_stored_score(server, arena_db, page, tmp_path):
    st = Store(arena_db, read_only=True)
    g, record = st.game(1), st.record(1)
    steps = len(record["actions"])
    page.goto(server.url + "/games/1")
    page.wait_for_selector("#replay[data-at-end=true]")   # all hands opens at the end
    page.keyboard.press("Home")
    assert page.locator("#replay").get_attribute("data-step") == "0"
    assert page.locator("#step-label").inner_text().startswith(f"step 0 / {steps}")
    page.click("#next")
    page.keyboard.press("ArrowRight")
    assert page.locator("#replay").get_attribute("data-step") == "2"
    page.locator("#slider").fill(str(steps // 2))
    assert page.locator("#replay").get_attribute("data-step") == str(steps // 2)
    page.select_option("#speed", "80")
    page.click("#play")
    page.wait_for_selector("#replay[data-at-end=true]", timeout=15_000)
    assert page.locator("#play").inner_text() == "play"   # stopped at the end
    scores = [int(x) for x in page.locator("#scores td.score").all_inner_texts()]
    team_of = Game.from_record(record).table.team_of
    assert [scores[team_of[s]] for s in range(4)] == g.scores
    assert "(final)" in page.locator("#step-label").inner_text()
    assert "Game over" in page.locator("#lines").inner_text()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")   # the first bid: every hand on the table, and how long it took
    timing, want = page.locator("#lines li.timing").inner_text(), record["decision_ms"][0]
    if want is None:
        assert "played by the referee" in timing, timing
    else:
        assert float(timing.rsplit(" took ", 1)[1].removesuffix(" ms")) == pytest.approx(want), timing
    first = Game.from_record({**record, "actions": record["actions"][:1]}, verify=False)
    for s in range(4):
        shown = page.locator(f"#table .seat[data-seat='{s}'] .hand .card").evaluate_all("es => es.map(e => e.dataset.card)")
        assert shown == [str(c) for c in first.view(s).hand]
    page.locator("#slider").fill(str(steps - 6))   # the picture: in the middle of a trick
    screenshot(page, "replay", tmp_path)


@pytest.mark.parametrize("seat", [1])
def test_one_seats_view_shows_and_receives_no_other_seats_cards(server, arena_db, page, tmp_path, seat):
    record = Store(arena_db, read_only=True).record(1)
    g = Game.from_record({**record, "actions": []}, verify=False)
    dealt = g.full_state()["hands"]   # the cards of every seat as dealt
    others = {c for t, h in enumerate(dealt) if t != seat for c in h}
    with page.expect_response(lambda r: "/api/games/1/replay" in r.url) as first:
        page.goto(server.url + f"/games/1?seat={seat}")
    page.wait_for_selector(f"#replay[data-view='{seat}'] #table .seat[data-seat='{seat}'] .card")
    assert page.locator("#replay").get_attribute("data-step") == "0"
    # At the start of the deal: this seat's cards are on the table, no other seat's anywhere in the page.
    own = set(page.locator(f"#table .seat[data-seat='{seat}'] .card").evaluate_all("es => es.map(e => e.dataset.card)"))
    assert own == set(dealt[seat])
    assert not cards_in(page.locator("main").inner_text()) & others
    assert page.locator("#table .seat .hidden-hand").count() == 3
    page.locator("#slider").fill(str(len(record["actions"]) - 6))
    screenshot(page, "replay-seat", tmp_path)
    # What the server sent: one seat's hands only, no other seat's unplayed card in any frame.
    rep = json.loads(first.value.text())
    assert rep["seat"] == seat and all(set(f["hands"]) == {str(seat)} for f in rep["frames"])
    for k, (f, secret) in enumerate(zip(rep["frames"], hidden_cards(record, seat), strict=True)):
        assert not cards_in(f) & secret, (k, f)
    # Switching to all hands asks the server for them.
    with page.expect_response(lambda r: "/api/games/1/replay" in r.url) as second:
        page.select_option("#view", "")
    page.wait_for_selector("#replay[data-view=all]")
    assert set(json.loads(second.value.text())["frames"][0]["hands"]) == {"0", "1", "2", "3"}


def progress(f: dict) -> tuple:
    """Where a frame stands in its game: deal, bidding (0) or play (1), trick, cards on the table."""
    return (f["deal"], int(f["phase"] in ("play", "game-over")), f["trick_number"], len(f["trick"]))


def test_the_duplicate_twin_plays_beside_it_aligned_by_deal_and_trick(server, page, tmp_path):
    game = server.api("/api/games/1")
    (twin_id,) = game["twins"]
    mine, theirs = server.api("/api/games/1/replay")["frames"], server.api(f"/api/games/{twin_id}/replay")["frames"]
    page.goto(server.url + "/games/1")
    page.wait_for_selector("#replay[data-at-end=true]")
    assert page.locator("#twin").is_hidden()
    page.select_option("#twin-select", str(twin_id))
    page.wait_for_selector("#twin:not([hidden]) #twin-table .seat")
    page.keyboard.press("Home")
    for k in range(len(mine)):
        j = int(page.locator("#twin").get_attribute("data-step"))
        # The twin's latest step not past this one: same deal, same trick, as many cards on the table or fewer.
        assert progress(theirs[j]) <= progress(mine[k]) and (j + 1 == len(theirs) or progress(theirs[j + 1]) > progress(mine[k]))
        shown = page.locator("#twin-table .seat[data-seat='0'] .hand .card").evaluate_all("es => es.map(e => e.dataset.card)")
        assert shown == theirs[j]["hands"]["0"]
        page.keyboard.press("ArrowRight")
    assert page.locator("#twin-title").inner_text().startswith(f"twin: game {twin_id}")
    page.locator("#slider").fill(str(len(mine) - 6))
    screenshot(page, "replay-twin", tmp_path)


def test_a_replay_tells_partners_apart_marks_the_leader_and_keeps_its_panels_in_place(server, arena_db, page):
    """In mirrored games both partners are the same bot: each card of a trick names its seat and wears its team's
    colour, and the trick's first card is marked as led. The panels stay beside the table at every step (a wide
    step used to push them below it), and every step is written in one notation with suit symbols."""
    # The game with the most cards played (the bots are random: a deal may be ceded before its first trick).
    reps = {i: server.api(f"/api/games/{i}/replay") for i in range(1, GAMES + 1)}
    game = max(reps, key=lambda i: sum(bool(f["trick"]) for f in reps[i]["frames"]))
    record, rep = Store(arena_db, read_only=True).record(game), reps[game]
    names, team_of = rep["names"], rep["team_of"]
    page.goto(server.url + f"/games/{game}")
    page.wait_for_selector("#replay[data-at-end=true]")
    page.keyboard.press("Home")
    colour = "es => es.map(e => getComputedStyle(e).borderLeftColor)"
    seat_colours = page.locator("#table .seat").evaluate_all(colour)
    for s in range(4):
        for t in range(4):   # partners one colour, opponents another
            assert (seat_colours[s] == seat_colours[t]) == (team_of[s] == team_of[t]), seat_colours
    def place(selector: str) -> tuple:
        box = page.locator(selector).bounding_box()
        return box["x"], box["y"], box["width"]

    panels = place(".board > aside")
    table = page.locator("#table").bounding_box()
    assert panels[0] >= table["x"] + table["width"]
    tricks = 0
    for k, f in enumerate(rep["frames"]):
        assert page.locator("#replay").get_attribute("data-step") == str(k)
        assert place(".board > aside") == panels, k
        shown = f["trick"] or (f["last_trick"] or {}).get("plays", [])
        played = page.locator("#table .center .played")
        assert played.count() == len(shown)
        for i, (s, c) in enumerate(shown):
            p = played.nth(i)
            assert p.locator("small").first.inner_text() == f"{names[s]} (seat {s})"
            assert p.locator(".card").get_attribute("data-card") == c
            assert ("leader" in p.get_attribute("class")) == (i == 0)
        if f["trick"]:
            tricks += 1
            assert f["trick"][0][0] == f["leader"]
        text = page.locator("main").inner_text()
        assert not CARD.findall(text), (k, CARD.findall(text))   # cards in symbols: Q♣, never QC
        assert "bids bid" not in text and not re.search(r" in (?:[SHDC]|NT)\b", text), k
        page.keyboard.press("ArrowRight")
    assert tricks >= 1
    # The score sheet: each deal's contract, points and scores by side; the target and how the game is won.
    page.keyboard.press("End")
    rows = page.locator("#score-sheet tbody tr")
    assert rows.count() == len(rep["deals"]) == len(record["deals"]) >= 1
    for row, d in zip(rows.all(), rep["deals"], strict=True):
        cells = row.locator("td").all_inner_texts()
        assert cells[0] == str(d["number"]) and [c.split()[0] for c in cells[2:]] == [f"{p:+d}" if p else "0" for p in d["points"]]
        assert ("made" in cells[1]) == bool(d["made"]) if d["contract"] else "thrown in" in cells[1]
    assert page.locator("#target").inner_text() == "to 42" and "42" in page.locator("#winner-rule").inner_text()


def test_one_seats_view_draws_the_other_hands_as_card_backs(server, arena_db, page):
    """The hands a seat cannot see are drawn as card backs, as many as each holds (never the word "hidden")."""
    record = Store(arena_db, read_only=True).record(1)
    g = Game.from_record({**record, "actions": []}, verify=False)
    page.goto(server.url + "/games/1?seat=2")
    page.wait_for_selector("#replay[data-view='2'] #table .seat[data-seat='2'] .card")
    for k in range(len(record["actions"]) + 1):
        assert page.locator("#replay").get_attribute("data-step") == str(k)
        for s in (0, 1, 3):
            box = page.locator(f"#table .seat[data-seat='{s}']")
            assert box.locator(".card.back").count() == len(g.hands[s]), (k, s)
            assert box.locator(".card:not(.back)").count() == 0 and "hidden" not in box.inner_text()
        if k < len(record["actions"]):
            g.apply(record["actions"][k])
            page.keyboard.press("ArrowRight")


def test_a_replay_and_its_twin_fit_a_phone(server, phone, tmp_path):
    """At 390 x 844 the replay, and the duplicate twin beside it, fit the screen at every step: nothing scrolls
    sideways and no seat box overlaps another or the trick (they used to overlap, the twin squeezed beside)."""
    game = server.api("/api/games/1")
    (twin_id,) = game["twins"]
    steps = len(server.api("/api/games/1/replay")["frames"])
    phone.goto(server.url + "/games/1")
    phone.wait_for_selector("#replay[data-at-end=true]")
    phone.keyboard.press("Home")
    for k in range(steps):
        assert layout_problems(phone, "#table") == [], k
        phone.keyboard.press("ArrowRight")
    next_button = phone.locator("#next").bounding_box()
    assert next_button["x"] + next_button["width"] <= 390
    phone.select_option("#twin-select", str(twin_id))
    phone.wait_for_selector("#twin:not([hidden]) #twin-table .seat")
    phone.keyboard.press("Home")
    for k in range(steps):
        assert layout_problems(phone, "#table") == [] and layout_problems(phone, "#twin-table") == [], k
        phone.keyboard.press("ArrowRight")
    ours, theirs = phone.locator("#table").bounding_box(), phone.locator("#twin-table").bounding_box()
    assert theirs["y"] >= ours["y"] + ours["height"]   # the twin below, each table the screen's width
    phone.locator("#slider").fill(str(steps - 6))
    screenshot(phone, "replay-phone", tmp_path)
