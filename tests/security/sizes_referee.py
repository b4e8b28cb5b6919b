"""A `pepper referee serve` subprocess on 127.0.0.1 and a control client, for the size and keep attack tests."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
ATTACKER = Path(__file__).resolve().parent / "big_answer_bot.py"
CONTROL = "control-token-for-size-tests"
SHORT = '{"extends": "iowa", "deal_cap": 1}'


class Referee:
    def __init__(self, tmp: Path, *args: str):
        self.tmp = tmp
        self.stderr = open(tmp / "referee.stderr", "w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "127.0.0.1:0",
                                      "--control-token", CONTROL, "--shared-seats", "--bot", "a=attacker-token", *args],
                                     cwd=ROOT, stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        line = self.proc.stdout.readline().strip()
        assert line.startswith("listening on "), (line, (tmp / "referee.stderr").read_text())
        self.address = line.split()[-1]
        # A client that accepts what the arena accepts (results of any size the referee may send).
        self.channel = grpc.insecure_channel(self.address, options=[("grpc.max_receive_message_length", 64 << 20)])
        self.control = control_pb2_grpc.ControlServiceStub(self.channel)
        self.md = [("authorization", f"Bearer {CONTROL}")]
        self.bots: list[subprocess.Popen] = []

    def attacker(self, big: int, size: int) -> subprocess.Popen:
        p = subprocess.Popen([sys.executable, str(ATTACKER), self.address, "a", "attacker-token", str(big), str(size)],
                             cwd=ROOT, stderr=open(self.tmp / f"attacker{len(self.bots)}.stderr", "w"))
        self.bots.append(p)
        end = time.time() + 30
        while time.time() < end:
            bots = self.control.ListBots(control_pb2.ListBotsRequest(), metadata=self.md).bots
            if sum(b.connections for b in bots) == len(self.bots):
                return p
            time.sleep(0.05)
        raise TimeoutError("the attacking bot did not connect")

    def create(self, ruleset_json: str = SHORT) -> str:
        req = control_pb2.CreateGameRequest(ruleset_json=ruleset_json, players=4, seats=["a"] * 4)
        return self.control.CreateGame(req, metadata=self.md).game_id

    def wait(self, game_id: str) -> control_pb2.GameResult:
        return self.control.WaitGame(control_pb2.WaitGameRequest(game_id=game_id), metadata=self.md, timeout=60).result

    def close(self) -> None:
        for p in self.bots:
            p.kill()
            p.wait()
        self.channel.close()
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.stderr.close()
