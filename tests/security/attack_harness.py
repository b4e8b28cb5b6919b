"""Harness for the attack tests: a `pepper referee serve` subprocess on 127.0.0.1 with its log file, real
lean bots (bench/lean_bot.py) playing real games, and attacking client processes."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
LEAN_BOT = ROOT / "bench" / "lean_bot.py"
FLOODER = Path(__file__).resolve().parent / "flooder.py"
CONTROL_TOKEN = "control-token-for-attack-tests"
TOKENS = {"lean": "lean-token-123", "attacker": "attacker-token-123"}


class Referee:
    """`pepper referee serve` (as ``python -m pepper_cli.referee serve``), its stderr in ``log``, and a control client."""

    def __init__(self, tmp: Path, *args: str, log_level: str = "info"):
        self.tmp, self.log = tmp, tmp / "referee.log"
        cmd = [sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "127.0.0.1:0",
               "--control-token", CONTROL_TOKEN, "--log-level", log_level, *args]
        for name, tok in TOKENS.items():
            cmd += ["--bot", f"{name}={tok}"]
        self._err = open(self.log, "w")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=self._err, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError(f"the referee did not start: {line!r} {self.log.read_text()}")
        self.address = line.split()[-1]
        self.channel = grpc.insecure_channel(self.address, options=[("grpc.max_receive_message_length", 256 << 20)])
        self.control = control_pb2_grpc.ControlServiceStub(self.channel)
        self.md = [("authorization", f"Bearer {CONTROL_TOKEN}")]
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> Referee:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def lean_bots(self, n: int) -> None:
        """Start ``n`` lean bot processes named ``lean`` and wait until each is connected."""
        for i in range(n):
            self.procs.append(subprocess.Popen(
                [sys.executable, str(LEAN_BOT), "--address", self.address, "--name", "lean", "--token", TOKENS["lean"],
                 "--seed", str(i)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        self.wait_connections("lean", n)

    def wait_connections(self, name: str, n: int, timeout: float = 30) -> None:
        end = time.time() + timeout
        while time.time() < end:
            bots = {b.name: b.connections for b in self.control.ListBots(control_pb2.ListBotsRequest(), metadata=self.md).bots}
            if bots.get(name, 0) == n:
                return
            time.sleep(0.05)
        raise TimeoutError(f"bot {name}: expected {n} connections, have {bots.get(name, 0)}")

    def play(self, games: int, deals: int = 3) -> list[float]:
        """Play ``games`` games of iowa of ``deals`` deals at once between the lean bots; each seat's p99 decision
        latency (ms)."""
        rs = json.dumps({"extends": "iowa", "deal_cap": deals})
        reqs = [control_pb2.CreateGameRequest(seats=["lean"] * 4, players=4, ruleset_json=rs) for _ in range(games)]
        ids = [f.result().game_id for f in [self.control.CreateGame.future(r, metadata=self.md) for r in reqs]]
        p99s = []
        for gid in ids:
            res = self.control.WaitGame(control_pb2.WaitGameRequest(game_id=gid), metadata=self.md, timeout=300).result
            assert not res.faults, (gid, list(res.faults)[:3])
            p99s += [s.latency_p99_ms for s in res.seats]
        return p99s

    def attacker(self, *args: str) -> subprocess.Popen:
        """A tests/security/flooder.py process as bot ``attacker``; see its docstring for ``args``."""
        p = subprocess.Popen([sys.executable, str(FLOODER), "--address", self.address, "--name", "attacker",
                              "--token", TOKENS["attacker"], *args], cwd=ROOT, stdout=subprocess.PIPE, text=True)
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
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.channel.close()
        self._err.close()


def attack_result(p: subprocess.Popen, timeout: float = 120) -> dict:
    out, _ = p.communicate(timeout=timeout)
    return json.loads(out.strip().splitlines()[-1])


def p99(latencies: list[float]) -> float:
    """A phase's figure: the median over seats of each seat's p99 decision latency (ms)."""
    return statistics.median(latencies)
