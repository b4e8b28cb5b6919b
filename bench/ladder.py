"""Ladder soak: a real `pepper ladder serve` under churn, killed with -9 and restarted, and what it lost.

    python bench/ladder.py --soak SECONDS [--bots 24] [--kills 3] [--uploads 3] [--ruleset pepper-30 --players 2]

For SECONDS, ``--bots`` remote sample bots (random and heuristic, each restarted when it exits, as an author would
run it) connect and disconnect at random; authors enter new versions of their bots (a new token, the bot restarted
with it) and try what their keys may not (another author's bot, a wrong key: each must be refused); the service is
killed with -9 ``--kills`` times, evenly spaced, and started again. Meanwhile an author uploads ``--uploads``
versions of a bot the ladder runs (built and checked in its Docker sandbox: ``make images`` first; ``--uploads 0``
without Docker). Then every bot connects, and the bench waits for every upload to be checked and every game
planned so far to be stored, and stops the service with SIGTERM. It prints:

- games played: the games stored;
- lost: games planned before the end and never stored (must be 0);
- stored twice: plan indexes with more than one stored game (must be 0);
- refused unauthorized actions: as the service counted them, and how many the bench tried (they must match);
- uploads: how many were entered, of those sent (all must be);
- peak memory: the service's and its referee's largest resident set (VmHWM), over every restart.

Exits 1 when a game was lost or stored twice, an unauthorized action was not refused, or an upload not entered.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # before bench/, whose ladder.py is this script, not the ladder package
PEPPER = [sys.executable, "-m", "pepper_cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(method: str, url: str, key: str, body: dict | bytes | None = None) -> tuple[int, dict]:
    raw = isinstance(body, bytes)
    req = urllib.request.Request(url, data=body if raw else None if body is None else json.dumps(body).encode(),
                                 method=method, headers={"Authorization": f"Bearer {key}",
                                                         "Content-Type": "application/gzip" if raw else "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read())
        except ValueError:
            return e.code, {}


# The bot an author uploads: the SDK's smallest bot (sdk/python/README.md), with its manifest.
UPLOADED_BOT = """from pepper_bot import Bot, main


class FirstLegal(Bot):
    def decide(self, view: dict) -> str:
        return view["legal_actions"][0]


if __name__ == "__main__":
    main(FirstLegal())
"""


def peak_kib(pid: int) -> int:
    """The process's largest resident set so far (VmHWM), KiB; 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    try:
        return [int(c) for t in Path(f"/proc/{pid}/task").iterdir() for c in (t / "children").read_text().split()]
    except OSError:
        return []


class Soak:
    def __init__(self, folder: Path, args: argparse.Namespace):
        self.dir, self.args = folder, args
        self.rng = random.Random(args.seed)
        self.port = free_port()
        self.service: subprocess.Popen | None = None
        self.web = ""
        self.peak = {"service": 0, "referee": 0}
        self.bots: dict[str, dict] = {}     # name -> author, key, token, process (None: down), kind
        self.tried = 0
        self.uploaded = 0                   # uploads sent (each a new version of "upbot")
        self.uploader = ""                  # their author's key

    # -- the service ---------------------------------------------------------------------------------------
    def serve(self) -> None:
        (self.dir / "serve.json").unlink(missing_ok=True)
        out = open(self.dir.parent / "serve.out", "a")
        self.service = subprocess.Popen([*PEPPER, "ladder", "serve", str(self.dir), "--referee-address",
                                         f"127.0.0.1:{self.port}", "--web-address", "127.0.0.1:0"],
                                        cwd=ROOT, stdout=out, stderr=out)
        deadline = time.monotonic() + 90
        while not (self.dir / "serve.json").exists():
            if self.service.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"the service did not start; see {self.dir.parent / 'serve.out'}")
            time.sleep(0.1)
        self.web = json.loads((self.dir / "serve.json").read_text())["web"]

    def sample_memory(self) -> None:
        if self.service is not None:
            self.peak["service"] = max(self.peak["service"], peak_kib(self.service.pid))
            for c in children(self.service.pid):
                self.peak["referee"] = max(self.peak["referee"], peak_kib(c))

    # -- the bots -----------------------------------------------------------------------------------------------
    def start_bot(self, name: str) -> None:
        b = self.bots[name]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PEPPER_")}
        env |= {"PEPPER_REFEREE": f"127.0.0.1:{self.port}", "PEPPER_BOT_NAME": name, "PEPPER_TOKEN": b["token"]}
        loop = f"while :; do {shlex.quote(sys.executable)} -m sample_bots {b['kind']}; sleep 1; done"
        b["process"] = subprocess.Popen(["sh", "-c", loop], cwd=ROOT, env=env, start_new_session=True,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop_bot(self, name: str) -> None:
        p, self.bots[name]["process"] = self.bots[name]["process"], None
        if p is None:
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):   # SIGKILL for what is left: a bot reconnecting ignores SIGTERM
            try:
                os.killpg(p.pid, sig)
                p.wait(10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass

    def enter(self, name: str) -> None:
        b = self.bots[name]
        status, got = request("POST", f"{self.web}/api/ladder/bots", b["key"], {"name": name, "kind": "remote"})
        if status != 201:
            sys.exit(f"entering {name}: {status}")
        b["token"] = got["token"]

    def unauthorized(self) -> None:
        """One action the key may not take; exits when it is not refused."""
        mine, theirs = self.rng.sample(sorted(self.bots), 2)
        key = self.bots[mine]["key"]
        if self.bots[mine]["author"] == self.bots[theirs]["author"]:
            key = key[:-4] + "xxxx"   # a wrong key
        if self.rng.random() < 0.5:
            status, _ = request("POST", f"{self.web}/api/ladder/bots/{theirs}/retire", key)
        else:
            status, _ = request("POST", f"{self.web}/api/ladder/bots", key, {"name": theirs, "kind": "remote"})
        self.tried += 1
        if status not in (401, 403):
            sys.exit(f"an unauthorized action on {theirs} was answered {status}")

    def upload(self) -> None:
        """A new version of the uploaded bot (its folder changed), sent without waiting for its check."""
        from ladder.uploads import pack

        self.uploaded += 1
        folder = self.dir.parent / f"upbot-{self.uploaded}"
        folder.mkdir()
        (folder / "bot.py").write_text(UPLOADED_BOT)
        (folder / "pepper-bot.toml").write_text('command = "{python} bot.py"\n')
        (folder / "VERSION").write_text(f"{self.uploaded}\n")
        status, got = request("POST", f"{self.web}/api/ladder/bots/upbot/uploads", self.uploader, pack(folder))
        if status != 202:
            sys.exit(f"uploading upbot: {status} {got.get('detail', '')} (--uploads 0 for a ladder without Docker)")

    def uploads_done(self) -> tuple[int, int]:
        """(uploads entered, uploads failed) so far."""
        with sqlite3.connect(f"file:{self.dir / 'ladder.db'}?mode=ro", uri=True) as c:
            rows = dict(c.execute("SELECT status, COUNT(*) FROM uploads GROUP BY status").fetchall())
        return rows.get("entered", 0), rows.get("failed", 0)

    # -- the soak -------------------------------------------------------------------------------------------------
    def run(self) -> int:
        a = self.args
        subprocess.run([*PEPPER, "ladder", "init", str(self.dir), "--ruleset", a.ruleset, "--players", str(a.players),
                        "--max-in-flight", str(a.max_in_flight)], cwd=ROOT, check=True, capture_output=True)
        self.serve()
        from ladder import admin
        from ladder.config import LadderDir

        for i in range(a.bots):
            author = f"author{i // 2}"
            key = self.bots[f"bot{i - 1}"]["key"] if i % 2 else admin.invite(LadderDir(self.dir), author)
            self.bots[f"bot{i}"] = {"author": author, "key": key, "kind": ("random", "heuristic")[i % 2], "process": None}
            self.enter(f"bot{i}")
            self.start_bot(f"bot{i}")
        if a.uploads:
            self.uploader = admin.invite(LadderDir(self.dir), "uploader")
        start = time.monotonic()
        kills = [start + a.soak * (k + 1) / (a.kills + 1) for k in range(a.kills)]
        uploads = [start + a.soak * k / a.uploads for k in range(a.uploads)]
        try:
            while time.monotonic() - start < a.soak:
                self.sample_memory()
                if uploads and time.monotonic() >= uploads[0]:
                    uploads.pop(0)
                    self.upload()
                if kills and time.monotonic() >= kills[0]:
                    kills.pop(0)
                    self.service.send_signal(signal.SIGKILL)
                    self.service.wait()
                    self.serve()
                self.churn()
                time.sleep(0.5)
            return self.settle()
        finally:
            for name in self.bots:
                self.stop_bot(name)
            if self.service is not None and self.service.poll() is None:
                self.service.kill()

    def churn(self) -> None:
        r, name = self.rng.random(), self.rng.choice(sorted(self.bots))
        if r < 0.3:   # a bot comes or goes
            self.stop_bot(name) if self.bots[name]["process"] is not None else self.start_bot(name)
        elif r < 0.4:  # a new version: a new token, the bot restarted with it
            self.stop_bot(name)
            self.enter(name)
            self.start_bot(name)
        elif r < 0.6:
            self.unauthorized()

    def settle(self) -> int:
        """Every bot up until every game planned so far is stored; then SIGTERM, and the figures."""
        for name, b in self.bots.items():
            if b["process"] is None:
                self.start_bot(name)
        deadline = time.monotonic() + 180
        while self.uploaded and sum(self.uploads_done()) < self.uploaded and time.monotonic() < deadline:
            self.sample_memory()
            time.sleep(0.5)
        planned = self.db("SELECT COUNT(*) FROM planned_games")[0][0]
        while self.missing(planned) and time.monotonic() < deadline:
            self.sample_memory()
            time.sleep(0.5)
        self.sample_memory()
        self.service.send_signal(signal.SIGTERM)
        code = self.service.wait(120)
        lost = self.missing(planned)
        twice = len(self.db("SELECT run_id, idx FROM games GROUP BY run_id, idx HAVING COUNT(*) > 1"))
        with sqlite3.connect(self.dir / "ladder.db") as c:
            refused = c.execute("SELECT COUNT(*) FROM refusals").fetchone()[0]
        games = self.db("SELECT COUNT(*) FROM games")[0][0]
        print(f"soak: {self.args.soak:.0f} s, {len(self.bots)} remote bots, {self.args.kills} kill -9 and restart(s); "
              f"service stopped with SIGTERM: exit code {code}")
        print(f"games played:                 {games}")
        print(f"lost:                         {lost}")
        print(f"stored twice:                 {twice}")
        print(f"refused unauthorized actions: {refused} (of {self.tried} tried)")
        entered, failed = self.uploads_done() if self.uploaded else (0, 0)
        upbot = self.db("SELECT COUNT(DISTINCT game_id) FROM game_seats WHERE bot = 'upbot'")[0][0]
        print(f"uploads:                      {entered} entered (of {self.uploaded} sent; {failed} failed); "
              f"the uploaded bot played {upbot} games")
        print(f"peak memory:                  service {self.peak['service'] / 1024:.0f} MiB, "
              f"referee {self.peak['referee'] / 1024:.0f} MiB")
        return 0 if (lost == twice == 0 and refused == self.tried and code == 0 and games > 0
                     and entered == self.uploaded) else 1

    def db(self, sql: str, args: tuple = ()) -> list[tuple]:
        with sqlite3.connect(f"file:{self.dir / 'arena.db'}?mode=ro", uri=True) as c:
            return c.execute(sql, args).fetchall()

    def missing(self, planned: int) -> int:
        return planned - self.db("SELECT COUNT(*) FROM games WHERE idx < ?", (planned,))[0][0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--soak", type=float, required=True, metavar="SECONDS", help="how long the churn lasts")
    ap.add_argument("--bots", type=int, default=24, help="remote bots, two per author")
    ap.add_argument("--kills", type=int, default=3, help="kill -9 and restart the service this many times")
    ap.add_argument("--uploads", type=int, default=3, help="versions of a bot uploaded during the soak (Docker)")
    ap.add_argument("--ruleset", default="pepper-30")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--max-in-flight", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.bots < 2:
        ap.error("--bots: at least 2")
    with tempfile.TemporaryDirectory(prefix="ladder-soak-") as tmp:
        return Soak(Path(tmp) / "ladder", a).run()


if __name__ == "__main__":
    sys.exit(main())
