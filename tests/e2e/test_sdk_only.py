"""A bot author's install: the SDK alone runs the README's first bot to the end of a game.

`make install` builds `.venv-sdk/` with `pip install ./sdk/python` and nothing else (the
packages come from the registry at install time; this test sends nothing off the machine).
The referee is the project's `pepper referee serve` on 127.0.0.1.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc, game_pb2

ROOT = Path(__file__).resolve().parents[2]
SDK_PYTHON = ROOT / ".venv-sdk" / "bin" / "python"
CONTROL = "sdk-only-control"


def _readme_bot() -> str:
    part = (ROOT / "README.md").read_text().split("## Your bot in four steps", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```python\n(.*?)```", part, re.S)[0]
    return "\n".join(ln[3:] if ln.startswith("   ") else ln for ln in code.splitlines())   # the list's indent


def _sdk_env_packages() -> set[str]:
    out = subprocess.run([SDK_PYTHON, "-m", "pip", "list", "--format", "freeze"], capture_output=True, text=True,
                         check=True).stdout
    return {ln.split("==")[0].lower() for ln in out.split()}


def test_the_sdk_alone_plays_the_readme_bot_to_the_end_of_a_game(tmp_path):
    assert SDK_PYTHON.exists(), "no .venv-sdk: run `make install` (it builds the SDK-only environment)"
    # Only the SDK and what it depends on; the referee, the arena and the sample bots are not importable.
    assert _sdk_env_packages() - {"pip", "setuptools", "wheel"} <= {"pepper-bot", "grpcio", "protobuf",
                                                                    "typing-extensions", "typing_extensions"}
    for module in ("referee", "arena", "sample_bots", "typer", "trueskill"):
        r = subprocess.run([SDK_PYTHON, "-c", f"import {module}"], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode != 0 and "ModuleNotFoundError" in r.stderr, module

    (tmp_path / "mybot.py").write_text(_readme_bot())
    ref = subprocess.Popen([sys.executable, "-m", "pepper_cli", "referee", "serve", "--address", "127.0.0.1:0",
                            "--control-token", CONTROL, "--bot", "mybot=mybot-token"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=open(tmp_path / "referee.log", "w"), text=True)
    bots: list[subprocess.Popen] = []
    try:
        line = ref.stdout.readline().strip()
        assert line.startswith("listening on "), line
        address = line.split()[-1]
        env = {"PEPPER_REFEREE": address, "PEPPER_TOKEN": "mybot-token", "PEPPER_BOT_NAME": "mybot"}
        for i in range(4):   # one connection per seat
            bots.append(subprocess.Popen([SDK_PYTHON, "mybot.py"], cwd=tmp_path, env=env,
                                         stdout=open(tmp_path / f"bot{i}.log", "w"), stderr=subprocess.STDOUT))
        md = [("authorization", f"Bearer {CONTROL}")]
        with grpc.insecure_channel(address) as channel:
            control = control_pb2_grpc.ControlServiceStub(channel)
            deadline = time.time() + 60
            while next((b.connections for b in control.ListBots(control_pb2.ListBotsRequest(), metadata=md).bots
                        if b.name == "mybot"), 0) < 4:
                assert time.time() < deadline, (tmp_path / "bot0.log").read_text()[-2000:]
                assert all(b.poll() is None for b in bots), (tmp_path / "bot0.log").read_text()[-2000:]
                time.sleep(0.05)
            game_id = control.CreateGame(control_pb2.CreateGameRequest(ruleset="iowa", players=4, seed=11,
                                                                       seats=["mybot"] * 4), metadata=md).game_id
            while True:
                result = control.GetGame(control_pb2.GetGameRequest(game_id=game_id), metadata=md).result
                if result.status != game_pb2.GAME_STATUS_RUNNING:
                    break
                assert time.time() < deadline + 60, "the game did not end within two minutes"
                time.sleep(0.05)
        assert game_pb2.GameStatus.Name(result.status) == "GAME_STATUS_COMPLETED", result.reason
        assert not result.faults, list(result.faults)[:3]
        assert result.reason in ("target", "deal-cap") and result.deals > 0 and result.decisions > 0
    finally:
        for p in [*bots, ref]:
            p.terminate()
        for p in [*bots, ref]:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
