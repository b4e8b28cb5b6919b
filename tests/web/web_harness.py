"""What the web tests share: a real small tournament (`pepper arena run`: a referee subprocess, real bot
processes), `pepper web` as a subprocess on 127.0.0.1, screenshots, and what a seat may know at each step of a
game (from the engine's whole truth). The fixtures are in conftest.py."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from arena.store import Store
from referee.rules import CARDS, EventKind, Game

CHROMIUM = os.environ.get("PEPPER_CHROMIUM", "/usr/bin/chromium")
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
GAMES = 8
CARD = re.compile(r"\b(?:10|[2-9JQKA])[SHDC]\b")
SYMBOLS = str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C"})


def cards_in(x) -> set[str]:
    """The cards written in ``x`` (text, or anything JSON: an API's answer), ``QC`` or ``Q♣`` alike."""
    text = x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)
    return set(CARD.findall(text.translate(SYMBOLS)))


def pepper(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)


def tournament(folder: Path, games: int = GAMES, seed: int = 3, *, ruleset: str = SHORT, concurrency: int | None = None) -> Path:
    """Play a real tournament of one-deal iowa games between the random and heuristic sample bots (``ruleset``: the
    TOML of another ruleset, a pool of its own)."""
    (folder / "short.toml").write_text(ruleset)
    more = ["--concurrency", str(concurrency)] if concurrency else []
    r = pepper("arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic", "--games", str(games),
               "--seed", str(seed), "--db", str(folder / "arena.db"), "--quiet", *more, cwd=folder)
    assert r.returncode == 0, r.stderr
    return folder / "arena.db"


def match(folder: Path, sprt: str = "elo0=0 elo1=150") -> str:
    """Play a real `pepper arena match heuristic random` on one-deal iowa into ``folder``'s arena.db; its output
    (an LLR line for every block it fed, then the verdict)."""
    (folder / "short.toml").write_text(SHORT)
    r = pepper("arena", "match", "heuristic", "random", "--ruleset", "short.toml", "--sprt", sprt, "--progress-every",
               "0", "--seed", "5", "--db", str(folder / "arena.db"), cwd=folder)
    assert r.returncode in (0, 3), r.stderr
    return r.stdout


def copy_db(db: Path, folder: Path) -> Path:
    """A copy of a results database (the tests that add games work on their own)."""
    folder.mkdir(parents=True, exist_ok=True)
    st = Store(db, read_only=True)
    try:
        st.db.execute("VACUUM INTO ?", (str(folder / "arena.db"),))
    finally:
        st.close()
    return folder / "arena.db"


def open_event_streams(url: str, n: int) -> list[socket.socket]:
    """``n`` open `/api/events` streams (as ``n`` open pages hold), each past its first event; close them after."""
    host, port = url.removeprefix("http://").split(":")
    socks = []
    for _ in range(n):
        c = socket.create_connection((host, int(port)), timeout=30)
        c.sendall(f"GET /api/events HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        socks.append(c)
    for c in socks:
        got = b""
        while b"event: change" not in got:
            chunk = c.recv(4096)
            assert chunk, "an event stream closed before its first event"
            got += chunk
    return socks


def read_calls(pid: int) -> int:
    """How many read system calls a process has made so far (Linux: /proc/PID/io): opening and querying the
    SQLite store is most of a web server's."""
    return next(int(line.split()[1]) for line in Path(f"/proc/{pid}/io").read_text().splitlines() if line.startswith("syscr:"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


class Server:
    """`pepper web` on a database, as a subprocess."""

    def __init__(self, db: Path, *args: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([sys.executable, "-m", "pepper_cli", "web", "--db", str(db),
                                      "--address", f"127.0.0.1:{self.port}", *args],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                get_json(self.url + "/api/pools")
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"pepper web did not start: {self.proc.stderr.read()}") from None
                time.sleep(0.1)

    def api(self, path: str):
        return get_json(self.url + path)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def screenshot(pg, name: str, tmp_path: Path) -> None:
    """Every page's picture: into the test's folder, and into PEPPER_WEB_SCREENSHOTS (docs/img) when set."""
    pg.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    if folder := os.environ.get("PEPPER_WEB_SCREENSHOTS"):
        pg.screenshot(path=str(Path(folder) / f"web-{name}.png"), full_page=True)


def _cards_of(e) -> list[int]:
    """The cards an event shows to whoever may see it."""
    match e.kind:
        case EventKind.HAND | EventKind.WIDOW:
            return list(e.data)
        case EventKind.TRICK:
            return list(e.data[1])
        case EventKind.PLAY | EventKind.GAVE_CARD | EventKind.RECEIVED_CARD | EventKind.DISCARDED_CARD | EventKind.PARTNER:
            return [e.data]
        case EventKind.PARTNER_CARD:
            return [] if e.data is None else [e.data]
    return []


def seat_knowledge(record: dict, seat: int) -> list[tuple[set[str], set[str]]]:
    """Per frame of a replay (the table after k actions), from the engine's whole truth (for tests):

    - known: the cards ``seat`` has been shown in this deal (its hand, what it was given, every card played),
      and during this step (a step that ends a deal and deals the next);
    - secret: the cards another seat holds, or the widow or a dead hand, that are not known.

    With a double deck (bid-euchre) a card shown may have a twin in another hand: known wins."""
    g = Game.from_record({**record, "actions": []}, verify=False)
    out = []
    seen = 0
    deal: set[str] = set()
    for k in range(len(record["actions"]) + 1):
        step: set[str] = set()
        for _, e in g.events_for(seat, seen):
            if e.kind == EventKind.DEAL:
                deal = set()
            cards = {str(CARDS[c]) for c in _cards_of(e)}
            step |= cards
            deal |= cards
        seen = g.event_count
        view = g.view(seat)
        known = deal | step | {str(c) for c in view.hand}
        state = g.full_state()
        others = {c for t, h in enumerate(state["hands"]) if t != seat for c in h} | set(state["widow"]) | set(state["dead_hand"])
        out.append((known, others - known))
        if k < len(record["actions"]):
            g.apply(record["actions"][k])
    return out


def hidden_cards(record: dict, seat: int) -> list[set[str]]:
    """Per frame, the cards ``seat`` must not be shown (:func:`seat_knowledge`)."""
    return [secret for _, secret in seat_knowledge(record, seat)]


def overlaps(a: dict, b: dict) -> bool:
    """Whether two bounding boxes (x, y, width, height) share any area."""
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def layout_problems(pg, table: str) -> list[str]:
    """What is wrong with a drawn table's layout on ``pg``: the page scrolling sideways (wider than its viewport), a
    seat box overlapping another or the trick, or one reaching past the screen's edge."""
    width = pg.viewport_size["width"]
    problems = []
    scroll = pg.evaluate("document.scrollingElement.scrollWidth")
    if scroll > width:
        problems.append(f"the page is {scroll} px wide on a {width} px screen")
    seats = [(s.get_attribute("data-seat"), s.bounding_box()) for s in pg.locator(f"{table} .seat").all()]
    center = pg.locator(f"{table} .center").bounding_box()
    for i, (a, box) in enumerate(seats):
        if box["x"] < 0 or box["x"] + box["width"] > width:
            problems.append(f"seat {a} reaches past the screen: {box}")
        if center is not None and center["height"] > 0 and overlaps(box, center):
            problems.append(f"seat {a} overlaps the trick")
        problems += [f"seat {a} overlaps seat {b}" for b, other in seats[i + 1:] if overlaps(box, other)]
    return problems
