"""A person takes a seat: `pepper web --seat alice` holds the remote bot alice's connection to the arena's real
referee (`pepper arena run --listen`), and a browser plays every one of alice's decisions through the play page
until the run ends; the games are stored and rated like any other."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from web_harness import cards_in, free_port, get_json, layout_problems, pepper, screenshot

from arena.store import Store
from referee.rules import Game
from web.seat import HumanSeat

pytestmark = pytest.mark.xdist_group("web")
SHORT = 'name = "p30-short"\nextends = "pepper-30"\ndeal_cap = 1\n'


def start(args: list[str], cwd: Path, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pepper_cli", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def test_a_person_plays_a_seat_through_the_page_to_the_end_of_the_run(tmp_path, page):
    db = tmp_path / "arena.db"
    (tmp_path / "short.toml").write_text(SHORT)
    r = pepper("bot", "register", "alice", "--remote", "--deadline-ms", "60000", "--db", str(db), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    token = next(w for line in r.stdout.splitlines() for w in line.split() if len(w) == 32)
    (tmp_path / "token").write_text(token + "\n")
    listen = free_port()
    arena = start(["arena", "run", "--ruleset", "short.toml", "--players", "2", "--bots", "alice,random", "--games", "2",
                   "--listen", f"127.0.0.1:{listen}", "--db", str(db), "--quiet"], tmp_path)
    web_port = free_port()
    web = start(["web", "--db", str(db), "--address", f"127.0.0.1:{web_port}", "--seat", "alice",
                 "--referee", f"127.0.0.1:{listen}", "--token-file", str(tmp_path / "token")], tmp_path)
    try:
        web.stdout.readline()
        play_url = web.stdout.readline().split(" at ", 1)[1].strip()
        assert play_url.startswith(f"http://127.0.0.1:{web_port}/play?token=")
        up = time.monotonic() + 30
        while True:
            try:
                get_json(f"http://127.0.0.1:{web_port}/api/pools")
                break
            except OSError:
                assert web.poll() is None and time.monotonic() < up, web.stderr.read()
                time.sleep(0.1)
        # Without the play token: nothing.
        for path in ("/play", "/api/seat", "/api/seat?token=wrong"):
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(f"http://127.0.0.1:{web_port}{path}")
            assert e.value.code == 403
        page.goto(play_url)
        moves, deadline = 0, time.monotonic() + 90
        while arena.poll() is None and time.monotonic() < deadline:
            legal = page.locator("#hand .card.legal, #actions button.action")
            try:
                legal.first.wait_for(timeout=1000)
            except Exception:  # noqa: BLE001 - playwright's TimeoutError: nobody asks alice now
                continue
            # Only alice's own cards reach the page: the hand shown is the seat's view's. (The page polls: it may
            # still show the decision before, or the API may already be at the next; wait until they agree on the
            # decision, which a bid and the trump after it, on the same hand, do not by their cards alone.)
            agree = time.monotonic() + 5
            while True:
                state = get_json(play_url.replace("/play?", "/api/seat?"))
                shown = sorted(page.locator("#hand .card").evaluate_all("es => es.map(e => e.dataset.card)"))
                showing = page.locator("#play").get_attribute("data-request")
                if not state["pending"] or (shown == sorted(state["view"]["hand"])
                                            and showing == str(state["view"]["request_id"])):
                    break
                assert time.monotonic() < agree, (shown, state["view"]["hand"])
                page.wait_for_timeout(100)
            if state["pending"]:
                page.wait_for_function("document.getElementById('clock').textContent.endsWith(' s')", timeout=2000)
                if moves == 3:
                    screenshot(page, "play", tmp_path)
                legal.first.click()
                moves += 1
                page.wait_for_timeout(100)
        out, err = arena.communicate(timeout=60)
        assert arena.returncode == 0, err
    finally:
        stop(arena)
        page.goto("about:blank")
        stop(web)
    assert moves >= 4
    st = Store(db, read_only=True)
    games, total = st.latest_games(bot="alice")
    assert total == 2 and all(g.status == "completed" for g in games)
    assert all("alice" in g.bots and "random" in g.bots for g in games)
    assert st.rating_games(games[0].pool, "alice") == 2


def test_a_seat_started_before_the_arena_registers_its_bot_waits_for_it(tmp_path):
    """`pepper web --seat alice` may start before the arena has told its referee about alice: the refused Hello is
    said once and asked again, and the seat connects once alice is registered (it used to give up for good, and the
    run then waited for alice for ten minutes)."""
    import grpc
    from pepper_proto.v1 import control_pb2, control_pb2_grpc

    db = tmp_path / "arena.db"
    Store(str(db)).close()
    (tmp_path / "token").write_text("alice-token-0123456789abcdef\n")
    ref = subprocess.Popen([sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "127.0.0.1:0",
                            "--control-token", "web-seat-control-token"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    web = None
    try:
        address = ref.stdout.readline().split()[-1]
        web = start(["web", "--db", str(db), "--address", f"127.0.0.1:{free_port()}", "--seat", "alice",
                     "--referee", address, "--token-file", str(tmp_path / "token")], tmp_path)
        said: list[str] = []
        threading.Thread(target=lambda: said.extend(iter(web.stderr.readline, "")), daemon=True).start()
        until = time.monotonic() + 20
        while not any("refused 'alice'" in x and "asking again" in x for x in said):   # nobody registered alice yet
            assert time.monotonic() < until, said
            time.sleep(0.05)
        md = [("authorization", "Bearer web-seat-control-token")]
        with grpc.insecure_channel(address) as ch:
            stub = control_pb2_grpc.ControlServiceStub(ch)
            stub.RegisterBot(control_pb2.RegisterBotRequest(name="alice", token="alice-token-0123456789abcdef"),
                             metadata=md)
            until = time.monotonic() + 20
            while True:
                bots = {b.name: b.connections for b in stub.ListBots(control_pb2.ListBotsRequest(), metadata=md).bots}
                if bots.get("alice") == 1:
                    break
                assert time.monotonic() < until and web.poll() is None, bots
                time.sleep(0.1)
    finally:
        if web is not None:
            stop(web)
        stop(ref)


def test_every_press_like_a_persons_takes_effect(tmp_path, page):
    """A person's click is a press of about 120 ms: every one on a legal card or button answers the decision (the
    page used to rebuild its hand every 300 ms, and a press that spanned a rebuild was lost: 69 of 162 took effect)."""
    db = tmp_path / "arena.db"
    (tmp_path / "short.toml").write_text(SHORT)
    r = pepper("bot", "register", "alice", "--remote", "--deadline-ms", "60000", "--db", str(db), cwd=tmp_path)
    token = next(w for line in r.stdout.splitlines() for w in line.split() if len(w) == 32)
    (tmp_path / "token").write_text(token + "\n")
    listen, web_port = free_port(), free_port()
    arena = start(["arena", "run", "--ruleset", "short.toml", "--players", "2", "--bots", "alice,random", "--games", "4",
                   "--listen", f"127.0.0.1:{listen}", "--db", str(db), "--quiet"], tmp_path)
    web = start(["web", "--db", str(db), "--address", f"127.0.0.1:{web_port}", "--seat", "alice",
                 "--referee", f"127.0.0.1:{listen}", "--token-file", str(tmp_path / "token")], tmp_path)
    presses, lost = 0, []
    try:
        web.stdout.readline()
        play_url = web.stdout.readline().split(" at ", 1)[1].strip()
        seat_api = play_url.replace("/play?", "/api/seat?")
        up = time.monotonic() + 30
        while True:
            try:
                get_json(seat_api)
                break
            except OSError:
                assert web.poll() is None and time.monotonic() < up, web.stderr.read()
                time.sleep(0.1)
        page.goto(play_url)
        deadline = time.monotonic() + 120
        while arena.poll() is None and time.monotonic() < deadline:
            before = get_json(seat_api)
            if not before["pending"]:
                time.sleep(0.05)
                continue
            # What a person sees: the page showing this decision (it polls the API every 300 ms).
            target = page.locator(f'#play[data-request="{before["view"]["request_id"]}"]')
            try:
                target.wait_for(timeout=2000)
                box = page.locator("#hand .card.legal, #actions button.action").first.bounding_box()
            except Exception:  # noqa: BLE001 - playwright's TimeoutError: answered meanwhile (its time ran out)
                continue
            if box is None:
                continue
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            page.wait_for_timeout(120)
            page.mouse.up()
            presses += 1
            until = time.monotonic() + 3
            while True:   # answered: that decision is no longer the pending one
                now = get_json(seat_api)
                if not now["pending"] or now["view"]["request_id"] != before["view"]["request_id"]:
                    break
                if time.monotonic() > until:
                    lost.append(before["view"]["request_id"])
                    break
                time.sleep(0.05)
        assert arena.wait(60) == 0, arena.stderr.read()
    finally:
        stop(arena)
        page.goto("about:blank")
        stop(web)
    assert presses >= 8 and not lost, (presses, lost)


@contextmanager
def seat_run(folder: Path, pg, games: int, *more: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """A `pepper arena run` of ``games`` p30-short games between the remote bot alice and random, and `pepper web
    --seat alice` holding alice's seats: yields the run's process and the play page's address once both are up.
    The browser page ``pg`` leaves the play page before the server stops."""
    db = folder / "arena.db"
    (folder / "short.toml").write_text(SHORT)
    r = pepper("bot", "register", "alice", "--remote", "--deadline-ms", "60000", "--db", str(db), cwd=folder)
    assert r.returncode == 0, r.stderr
    token = next(w for line in r.stdout.splitlines() for w in line.split() if len(w) == 32)
    (folder / "token").write_text(token + "\n")
    listen, web_port = free_port(), free_port()
    arena = start(["arena", "run", "--ruleset", "short.toml", "--players", "2", "--bots", "alice,random", "--games",
                   str(games), "--listen", f"127.0.0.1:{listen}", "--db", str(db), "--quiet", *more], folder)
    web = start(["web", "--db", str(db), "--address", f"127.0.0.1:{web_port}", "--seat", "alice",
                 "--referee", f"127.0.0.1:{listen}", "--token-file", str(folder / "token")], folder)
    try:
        web.stdout.readline()
        play_url = web.stdout.readline().split(" at ", 1)[1].strip()
        up = time.monotonic() + 30
        while True:
            try:
                get_json(play_url.replace("/play?", "/api/seat?"))
                break
            except OSError:
                assert web.poll() is None and time.monotonic() < up, web.stderr.read()
                time.sleep(0.1)
        yield arena, play_url
    finally:
        pg.goto("about:blank")
        stop(arena)
        stop(web)


def as_shown(action: str) -> str:
    """An action as the page's buttons say it: suit symbols for cards and strains (``trump S`` -> ``trump ♠``)."""
    symbols = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    return " ".join(w[:-1] + symbols[w[-1]] if re.fullmatch(r"(10|[2-9JQKA])[SHDC]", w) else symbols.get(w, w)
                    for w in action.split())


def play_through(pg, play_url: str, arena: subprocess.Popen, check) -> int:
    """Answer every decision of alice's on ``pg`` until the run ends, calling ``check(view)`` on the page showing each
    decision first. Buttons: the last in alice's odd games (the highest bid: alice wins the contract and names trump),
    the first in her even ones (a pass: random bids, and leads a trick to alice)."""
    seat_api = play_url.replace("/play?", "/api/seat?")
    moves, deadline, games = 0, time.monotonic() + 90, []
    while arena.poll() is None and time.monotonic() < deadline:
        state = get_json(seat_api)
        if not state["pending"]:
            time.sleep(0.05)
            continue
        v = state["view"]
        try:
            pg.locator(f'#play[data-request="{v["request_id"]}"]').wait_for(timeout=2000)
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: answered meanwhile (its time ran out)
            continue
        check(v)
        if v["game_id"] not in games:
            games.append(v["game_id"])
        buttons = pg.locator("#actions button.action")
        if buttons.count():
            (buttons.last if len(games) % 2 else buttons.first).click()
        else:
            pg.locator("#hand .card.legal").first.click()
        moves += 1
        until = time.monotonic() + 5
        while get_json(seat_api)["view"]["request_id"] == v["request_id"] and get_json(seat_api)["pending"]:
            assert time.monotonic() < until, "the click did not answer the decision"
            time.sleep(0.05)
    return moves


def test_the_play_page_seats_the_person_at_the_table_and_shows_how_each_deal_and_game_ended(tmp_path, page):
    """The play page draws the replay viewer's table with the person at the bottom: the opponent by name, whose
    turn it is, the legal cards raised, the trick with its leader and led suit, labelled scores and buttons in suit
    symbols; each deal's result with its final trick as it ends; and once the games are over, how the game ended and
    that the session is over (the page used to keep the last decision's hand, "waiting for the other seats")."""
    seen: dict[str, int] = {"trump": 0, "trick": 0}

    def check(v: dict) -> None:
        seats = page.locator("#play-table .seat")
        assert seats.count() == 2
        mine, theirs = page.locator(f"#play-table .seat[data-seat='{v['seat']}']"), page.locator(
            f"#play-table .seat[data-seat='{1 - v['seat']}']")
        assert "random" in theirs.locator(".name").inner_text() and mine.locator(".name").inner_text().startswith("you")
        assert "to-act" in mine.get_attribute("class") and "your turn" in mine.inner_text()
        assert sorted(mine.locator("#hand .card").evaluate_all("es => es.map(e => e.dataset.card)")) == sorted(v["hand"])
        # The other hand: backs only, as many as it holds (the hand dealt less its cards played), never a card.
        assert theirs.locator(".card:not(.back)").count() == 0 and not cards_in(theirs.inner_text())
        dealt = next(g["hand_size"] for g in get_json(seat_api)["games"] if g["game_id"] == v["game_id"])
        assert theirs.locator(".card.back").count() == dealt - len(v["tricks"]) - any(s != v["seat"] for s, _ in v["trick"])
        assert page.locator("#p-scores th").all_inner_texts() == (["you", "random (seat 1)"] if v["seat"] == 0
                                                                   else ["random (seat 0)", "you"])
        legal = {a[5:] for a in v["legal_actions"] if a.startswith("play ")}
        raised = mine.locator(".card.legal").evaluate_all("es => es.map(e => e.dataset.card)")
        assert set(raised) == legal
        if legal and len(legal) < len(v["hand"]):   # a raised card stands above the others
            top = {c: page.locator(f"#hand .card[data-card='{c}']").bounding_box()["y"] for c in v["hand"]}
            assert max(top[c] for c in legal) < min(top[c] for c in v["hand"] if c not in legal)
        if v["trick"]:
            seen["trick"] += 1
            played = page.locator("#play-table .center .played")
            assert played.evaluate_all("es => es.map(e => Number(e.dataset.seat))") == [s for s, _ in v["trick"]]
            assert "leader" in played.first.get_attribute("class")
            assert page.locator("#play-table .center .led").inner_text().strip("· ").split()[0] in "♠♥♦♣"
        shown = page.locator("#actions button.action").all_inner_texts()
        assert shown == [as_shown(a) for a in v["legal_actions"] if not a.startswith("play ")]
        seen["trump"] += any(a.startswith("trump ") for a in v["legal_actions"])

    with seat_run(tmp_path, page, 4, "--concurrency", "1") as (arena, play_url):
        seat_api = play_url.replace("/play?", "/api/seat?")
        page.goto(play_url)
        moves = play_through(page, play_url, arena, check)
        assert arena.wait(60) == 0, arena.stderr.read()
        page.wait_for_selector("#p-next:has-text('The session is over')", timeout=15_000)
        state = get_json(seat_api)
        assert page.locator("#play").get_attribute("data-over") == "true"
        outcome = page.locator("#p-outcome").inner_text()
        deals = page.locator("#p-deals li").all_inner_texts()
        finals = [[li.locator(".final-trick .card").count(), li.locator(".final-trick .winner").count()]
                  for li in page.locator("#p-deals li").all()]
        # The table after the last trick: no hand left, the final trick with its winner in the middle (none when
        # everyone passed: the deal was thrown in).
        assert page.locator("#play-table .seat .card:not(.back)").count() == 0
        final = state["games"][0]["deals"][-1]["last_trick"]
        assert page.locator("#play-table .center .played.winner").count() == (final is not None)
        screenshot(page, "play-end", tmp_path)
    assert moves >= 4 and seen["trump"] and seen["trick"], (moves, seen)
    # The last game's end as the page showed it, and each of its deals, against the stored games.
    st = Store(tmp_path / "arena.db", read_only=True)
    games, _ = st.latest_games(bot="alice")
    last = state["games"][0]
    stored = games[0]   # one game at a time: the run's last is the newest stored, and the seat's newest
    assert stored.bots[last["seat"]] == "alice" and stored.scores == last["result"]["outcome"]["scores"]
    mine, o = stored.scores[last["seat"]], last["result"]["outcome"]
    verdict = "Drawn" if o["draw"] else "You won" if last["seat"] in o["winning_seats"] else "You lost"
    assert outcome.startswith(f"{verdict}, {mine} : {stored.scores[1 - last['seat']]}"), outcome
    assert len(deals) == len(last["deals"]) >= 1
    for text, d in zip(deals, last["deals"], strict=True):
        assert text.startswith(f"Deal {d['number']}: ") and ("made" in text or " set" in text or "thrown in" in text)
    assert all(final == [2, 1] for final, d in zip(finals, last["deals"], strict=True) if d["contract"]), finals
    # Each deal's final trick as the referee played it (the record's), public cards only.
    truth = Game.from_record(st.record(stored.id)).deals
    for d, t in zip(last["deals"], truth, strict=True):
        tr = t.trick_history[-1] if t.trick_history else None
        assert d["last_trick"] == (None if tr is None else {"leader": tr.leader, "plays": [[s, str(c)] for s, c in tr.plays],
                                                            "winner": tr.winner})


def test_the_play_page_is_usable_on_a_phone(tmp_path, phone):
    """At 390 x 844 every decision is played on the page itself: nothing scrolls sideways, no seat box overlaps
    another or the trick, and what is to be pressed is on the screen (the seat boxes used to overlap)."""
    problems: list[tuple[int, list[str]]] = []

    def check(v: dict) -> None:
        found = layout_problems(phone, "#play-table")
        for e in phone.locator("#hand .card.legal, #actions button.action").all():
            box = e.bounding_box()
            if box["x"] < 0 or box["x"] + box["width"] > 390:
                found.append(f"{e.inner_text()} is off the screen: {box}")
        if found:
            problems.append((v["request_id"], found))
        if v["trick"] and not (tmp_path / "play-phone.png").exists():
            screenshot(phone, "play-phone", tmp_path)

    with seat_run(tmp_path, phone, 2, "--concurrency", "1") as (arena, play_url):
        phone.goto(play_url)
        moves = play_through(phone, play_url, arena, check)
        assert arena.wait(60) == 0, arena.stderr.read()
        phone.wait_for_selector("#p-next:has-text('The session is over')", timeout=15_000)
        check({"request_id": "the end", "trick": []})
    assert moves >= 4 and not problems, problems


def test_between_decisions_the_seat_shows_the_persons_move_and_the_deal_as_it_ends():
    """After an answer the seat's latest view holds the person's move (the card gone from the hand, on the trick),
    nobody to act; the events then follow the trick to its winner and keep the deal's result with its final trick."""
    seat = HumanSeat("alice")
    seat.on_game_start({"game_id": "g1", "seat": 0, "players": 2,
                        "ruleset": {"name": "p30", "family": "pepper-30", "target_score": 30, "hand_size": 2},
                        "table": [{"seat": 0, "bot_name": "alice", "team": 0}, {"seat": 1, "bot_name": "random", "team": 1}]})
    view = {"game_id": "g1", "request_id": 7, "seat": 0, "to_act": 0, "hand": ["AS", "KS"], "trick": [], "bids": [],
            "legal_actions": ["play AS", "play KS"], "deadline_ms": 5000, "time_bank_ms": 0}
    answered: list[str] = []
    t = threading.Thread(target=lambda: answered.append(seat.decide(view)))
    t.start()
    until = time.monotonic() + 5
    while not seat.state()["pending"]:
        assert time.monotonic() < until
        time.sleep(0.01)
    seat.answer("play KS", "7")
    t.join(5)
    state = seat.state()
    assert answered == ["play KS"] and not state["pending"]
    assert (state["view"]["hand"], state["view"]["trick"], state["view"]["to_act"]) == (["AS"], [[0, "KS"]], None)
    seat.on_event("g1", {"kind": "play", "actor": 0, "cards": ["KS"]})
    seat.on_event("g1", {"kind": "play", "actor": 1, "cards": ["QS"]})
    game = seat.state()["games"][0]
    assert game["trick"] == [[0, "KS"], [1, "QS"]] and game["last_trick"] is None
    seat.on_event("g1", {"kind": "trick", "actor": 0, "leader": 0, "cards": ["KS", "QS"]})
    game = seat.state()["games"][0]
    assert (game["trick"], game["tricks_done"]) == ([], 1) and game["last_trick"]["winner"] == 0
    result = {"number": 1, "contract": {"bidder": 0, "bid": "2", "trump": "S", "alone": False}, "tricks": [1, 0],
              "points": [2, 0], "scores": [2, 0]}
    seat.on_event("g1", {"kind": "deal_end", "deal_result": result})
    (deal,) = seat.state()["games"][0]["deals"]
    assert deal["last_trick"] == {"leader": 0, "plays": [[0, "KS"], [1, "QS"]], "winner": 0} and deal["scores"] == [2, 0]
    before = seat.changes
    seat.session_over("the referee drained")
    assert seat.state()["session_over"] == "the referee drained" and seat.changes > before
