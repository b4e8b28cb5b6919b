"""Harness for the referee tests: a real server subprocess on 127.0.0.1 and real bot subprocesses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc, game_pb2

ROOT = Path(__file__).resolve().parents[2]
BOT = Path(__file__).resolve().parent / "bots" / "random_bot.py"
CONTROL_TOKEN = "control-token-for-tests"

RULESET_CASES = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("bid-euchre", 8),
                 ("pepper-30", 2), ("pepper-30", 3), ("pepper-30", 4), ("five-handed", 5)]


def status_name(v: int) -> str:
    return game_pb2.GameStatus.Name(v)


def seat_status_name(v: int) -> str:
    return game_pb2.SeatStatus.Name(v)


class Server:
    """A `python -m pepper_cli.referee serve` subprocess and a control client for it."""

    def __init__(self, tmp: Path, *args: str, bots: dict[str, str] | None = None, tls: tuple[str, str] | None = None,
                 shared_seats: bool = True):
        # shared_seats: most tests here fill a table from one or two bot processes (what they check does not
        # depend on it); test_audit and test_one_seat_per_connection run the default, one seat per connection.
        self.tmp = tmp
        self.bots_tokens = dict(bots or {})
        cmd = [sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "127.0.0.1:0",
               "--control-token", CONTROL_TOKEN, *(("--shared-seats",) if shared_seats else ()), *args]
        for name, tok in self.bots_tokens.items():
            cmd += ["--bot", f"{name}={tok}"]
        if tls:
            cmd += ["--tls-cert", tls[0], "--tls-key", tls[1]]
        self.stderr = open(tmp / "server.stderr", "w+")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.proc.kill()
            self.stderr.seek(0)
            raise RuntimeError(f"server did not start: {line!r} {self.stderr.read()}")
        self.address = line.split()[-1]
        assert self.address.startswith("127.0.0.1:") and not self.address.endswith(":0")
        self.tls_ca = tls[0] if tls else None
        if tls:
            creds = grpc.ssl_channel_credentials(Path(tls[0]).read_bytes())
            self.channel = grpc.secure_channel(self.address, creds, options=[("grpc.ssl_target_name_override", "localhost")])
        else:
            self.channel = grpc.insecure_channel(self.address, options=[("grpc.max_receive_message_length", 256 << 20)])
        self.control = control_pb2_grpc.ControlServiceStub(self.channel)
        self.md = [("authorization", f"Bearer {CONTROL_TOKEN}")]
        self.bot_procs: list[subprocess.Popen] = []
        self._n = 0

    # -- bots -------------------------------------------------------------
    def bot(self, name: str, *args: str, token: str | None = None, wait: bool = True, record: bool = False) -> Bot:
        if wait:
            self.wait_connections(name)   # connections of stopped bots of this name are gone
        self._n += 1
        summary = self.tmp / f"bot{self._n}-{name}.json"
        rec = self.tmp / f"bot{self._n}-{name}.rec" if record else None
        # --token=T: a token may begin with "-" (token_urlsafe), which argparse would take for an option.
        cmd = [sys.executable, str(BOT), "--address", self.address, "--name", name,
               f"--token={token or self.bots_tokens[name]}", "--seed", str(self._n), "--summary", str(summary), *args]
        if rec:
            cmd += ["--record", str(rec)]
        if self.tls_ca:
            cmd += ["--tls-ca", self.tls_ca]
        err = open(self.tmp / f"bot{self._n}-{name}.stderr", "w")
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        self.bot_procs.append(p)
        b = Bot(p, summary, rec)
        if wait:
            self.wait_connections(name, p)
        return b

    def wait_connections(self, name: str, proc: subprocess.Popen | None = None, n: int | None = None, timeout: float = 20) -> None:
        """Wait until the server lists exactly ``n`` live connections of ``name`` (default: as many as bot processes run)."""
        end = time.time() + timeout
        while time.time() < end:
            want = n if n is not None else sum(1 for p in self.bot_procs if p.poll() is None and name in p.args)
            # A bot that exited is not waited for (it no longer counts in ``want``): say so, first.
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"bot {name} exited with {proc.returncode}")
            bots = {b.name: b for b in self.control.ListBots(control_pb2.ListBotsRequest(), metadata=self.md).bots}
            if (bots[name].connections if name in bots else 0) == want:
                return
            time.sleep(0.02)
        raise TimeoutError(f"bot {name}: expected {want} connections")

    # -- games ------------------------------------------------------------
    def create(self, seats: list[str], ruleset: str = "iowa", deal_cap: int | None = None,
               target_score: int | None = None, **kw) -> str:
        req = control_pb2.CreateGameRequest(seats=seats, players=len(seats), **kw)
        changes = {k: v for k, v in (("deal_cap", deal_cap), ("target_score", target_score)) if v is not None}
        if changes:
            req.ruleset_json = json.dumps({"extends": ruleset, **changes})
        else:
            req.ruleset = ruleset
        return self.control.CreateGame(req, metadata=self.md).game_id

    def create_many(self, requests, window: int = 100) -> list[str]:
        """Create games with at most ``window`` CreateGame calls in flight (thousands at once get CANCELLED by gRPC)."""
        ids, pending = [], []
        for req in requests:
            pending.append(self.control.CreateGame.future(req, metadata=self.md))
            if len(pending) >= window:
                ids += [f.result().game_id for f in pending]
                pending = []
        return ids + [f.result().game_id for f in pending]

    def wait_games(self, game_ids, timeout: float = 60) -> dict[str, control_pb2.GameResult]:
        ids = set(game_ids)
        end = time.time() + timeout
        while time.time() < end:
            running = {g.game_id for g in self.list_games(game_pb2.GAME_STATUS_RUNNING)}
            if not ids & running:
                break
            time.sleep(0.05)
        else:
            raise TimeoutError(f"{len(ids & running)} games still running")
        return {g: self.get(g) for g in ids}

    def list_games(self, status: int = 0) -> list[control_pb2.GameResult]:
        """Every game ListGames shows (with ``status``), page after page."""
        games, token = [], ""
        while True:
            page = self.control.ListGames(control_pb2.ListGamesRequest(status=status, page_token=token), metadata=self.md)
            games += page.games
            token = page.next_page_token
            if not token:
                return games

    def get(self, game_id: str) -> control_pb2.GameResult:
        return self.control.GetGame(control_pb2.GetGameRequest(game_id=game_id), metadata=self.md).result

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        for p in self.bot_procs:
            if p.poll() is None:
                p.terminate()
        for p in self.bot_procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        self.channel.close()
        self.stderr.close()


class Bot:
    def __init__(self, proc: subprocess.Popen, summary: Path, record: Path | None):
        self.proc, self.summary_path, self.record = proc, summary, record

    def stop(self) -> dict:
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=15)
        return self.summary()

    def summary(self) -> dict:
        return json.loads(self.summary_path.read_text()) if self.summary_path.exists() else {}


def assert_clean(res: control_pb2.GameResult) -> None:
    """A game that was played to its outcome with no fault at any seat."""
    assert status_name(res.status) == "GAME_STATUS_COMPLETED", (res.game_id, res.reason, list(res.faults)[:3])
    assert not res.faults, res.faults[:3]
    for s in res.seats:
        assert seat_status_name(s.status) == "SEAT_STATUS_OK", s
    if res.record_json:     # each seat was asked exactly the decisions its record says it made
        asked = seat_decisions(json.loads(res.record_json))
        assert [s.decisions for s in res.seats] == asked, (res.game_id, res.ruleset, asked, list(res.seats))


def seat_decisions(rec: dict) -> list[int]:
    """The decisions each seat was asked in a game, from its record: the actions it took, less those the referee
    played for it (``decision_ms`` null: a publicly forced move). A seat may rightly be asked nothing in a short
    game (8-player bid-euchre: in about 1 in 1,000 random games of 6 deals, one seat never has a choice)."""
    from referee.rules import Game

    g = Game.from_record({k: v for k, v in rec.items() if k not in ("actions", "outcome")})
    times = rec.get("decision_ms") or [0.0] * len(rec["actions"])
    asked = [0] * rec["players"]
    for action, ms in zip(rec["actions"], times, strict=True):
        if ms is not None:
            asked[g.to_act] += 1
        g.apply(action)
    return asked


os.environ.setdefault("PYTHONUNBUFFERED", "1")
