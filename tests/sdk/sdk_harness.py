"""Harness for the SDK tests: a real referee subprocess on 127.0.0.1 and real bot subprocesses."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc, game_pb2

ROOT = Path(__file__).resolve().parents[2]
BOTS_DIR = Path(__file__).resolve().parent / "bots"
CONTROL_TOKEN = "sdk-tests-control-token"
CONFIGS = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("bid-euchre", 8),
           ("pepper-30", 2), ("pepper-30", 3), ("pepper-30", 4), ("five-handed", 5)]

os.environ.setdefault("PYTHONUNBUFFERED", "1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status_name(v: int) -> str:
    return game_pb2.GameStatus.Name(v)


class Referee:
    """A ``python -m pepper_cli.referee serve`` subprocess with a control client."""

    def __init__(self, tmp: Path, bots: dict[str, str], port: int = 0, *args: str):
        self.tmp, self.bots, self.args = tmp, dict(bots), args
        self.port = port
        self.proc: subprocess.Popen | None = None
        self.channel = None
        self.n_starts = 0
        self.start()

    def start(self) -> None:
        # Generous time limits: these tests check legality and robustness, and must not flake on a busy machine.
        # Shared seats: they fill whole tables from one or two SDK processes (the SDK keys state by game and seat).
        cmd = [sys.executable, "-m", "pepper_cli.referee", "serve", "--address", f"127.0.0.1:{self.port}",
               "--control-token", CONTROL_TOKEN, "--deadline-ms", "10000", "--time-bank-ms", "60000", "--shared-seats",
               *self.args]
        for name, tok in self.bots.items():
            cmd += ["--bot", f"{name}={tok}"]
        self.n_starts += 1
        err = open(self.tmp / f"referee{self.n_starts}.stderr", "w")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError(f"referee did not start: {line!r}")
        self.address = line.split()[-1]
        self.port = int(self.address.rsplit(":", 1)[1])
        if self.channel is not None:
            self.channel.close()
        self.channel = grpc.insecure_channel(self.address, options=[("grpc.max_receive_message_length", 256 << 20)])
        self.control = control_pb2_grpc.ControlServiceStub(self.channel)
        self.md = [("authorization", f"Bearer {CONTROL_TOKEN}")]

    def kill(self) -> None:
        """Stop abruptly (SIGKILL): every bot stream breaks."""
        self.proc.kill()
        self.proc.wait(timeout=10)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self.channel is not None:
            self.channel.close()

    # -- control --------------------------------------------------------------------
    def connections(self, name: str) -> int:
        bots = self.control.ListBots(control_pb2.ListBotsRequest(), metadata=self.md).bots
        return next((b.connections for b in bots if b.name == name), 0)

    def wait_connected(self, name: str, n: int = 1, timeout: float = 30, proc: subprocess.Popen | None = None) -> float:
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.connections(name) >= n:
                return time.time() - t0
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"bot {name} exited with {proc.returncode}")
            time.sleep(0.05)
        raise TimeoutError(f"bot {name} did not connect within {timeout} s")

    def create(self, seats: list[str], ruleset: str = "iowa", deal_cap: int | None = None, seed: int = 1, **kw) -> str:
        req = control_pb2.CreateGameRequest(seats=seats, players=len(seats), seed=seed, **kw)
        if deal_cap is not None:
            req.ruleset_json = json.dumps({"extends": ruleset, "deal_cap": deal_cap})
        else:
            req.ruleset = ruleset
        return self.control.CreateGame(req, metadata=self.md).game_id

    def wait_games(self, ids, timeout: float = 90) -> dict:
        ids = set(ids)
        end = time.time() + timeout
        while time.time() < end:
            running = {g.game_id for g in self.control.ListGames(
                control_pb2.ListGamesRequest(status=game_pb2.GAME_STATUS_RUNNING, page_size=1000), metadata=self.md).games}
            if not ids & running:
                return {g: self.control.GetGame(control_pb2.GetGameRequest(game_id=g), metadata=self.md).result for g in ids}
            time.sleep(0.05)
        raise TimeoutError(f"{len(ids & running)} games still running after {timeout} s")


class Procs:
    """Bot subprocesses, stopped at the end of the test."""

    def __init__(self, tmp: Path):
        self.tmp, self.procs = tmp, []

    def start(self, args: list[str], name: str, env: dict | None = None) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "w")
        p = subprocess.Popen(args, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, **(env or {})))
        p.log_path = self.tmp / f"{name}.log"
        self.procs.append(p)
        return p

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def assert_clean(res, bot_names=None) -> None:
    """Played to its outcome, with no fault at any seat."""
    assert status_name(res.status) == "GAME_STATUS_COMPLETED", (res.game_id, res.reason, list(res.faults)[:3])
    assert not res.faults, list(res.faults)[:3]
    for s in res.seats:
        assert game_pb2.SeatStatus.Name(s.status) == "SEAT_STATUS_OK", s
