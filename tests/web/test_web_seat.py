"""A person takes a seat: `pepper web --seat alice` holds the remote bot alice's connection to the arena's real
referee (`pepper arena run --listen`), and a browser plays every one of alice's decisions through the play page
until the run ends; the games are stored and rated like any other."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from web_harness import free_port, get_json, pepper, screenshot

from arena.store import Store

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
            # still show the decision before, or the API may already be at the next; wait until they agree.)
            agree = time.monotonic() + 5
            while True:
                state = get_json(play_url.replace("/play?", "/api/seat?"))
                shown = sorted(page.locator("#hand .card").evaluate_all("es => es.map(e => e.dataset.card)"))
                if not state["pending"] or shown == sorted(state["view"]["hand"]):
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
