"""Case 5 of docs/security.md: the control token never reaches a bot. Real `pepper arena run`s launch a real
attacking bot (snoop_bot.py) that looks for the token in its environment and in every /proc/PID/environ and
cmdline it can read, and tries what it finds on the referee's control API; the arena's referee is checked from
outside in /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from pepper_proto.v1 import control_pb2, control_pb2_grpc

from arena.processes import RefereeProcess
from supervisor.environment import passed

ROOT = Path(__file__).resolve().parents[2]
SNOOP = ROOT / "tests" / "security" / "snoop_bot.py"
TOKEN = "case5-control-token-0123456789"
CANARY = {"AWS_SECRET_ACCESS_KEY": "case5-canary", "PEPPER_CONTROL_TOKEN_FILE": "/nowhere"}
pytestmark = pytest.mark.xdist_group("arena")


def pepper(*args: str, cwd: Path, env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(cwd / "arena.db")], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, env=env)


def snooped(tmp_path: Path, *run_args: str, env: dict[str, str]) -> list[dict]:
    """Register the snooping bot, run 2 games of it against the random bot, and return its processes' reports."""
    reports = tmp_path / "reports"
    reports.mkdir()
    reg = pepper("bot", "register", "snoop", "--command", f"{sys.executable} {SNOOP}", "--cwd", str(ROOT),
                 "--env", f"SNOOP_REPORTS={reports}", cwd=tmp_path, env=env)
    assert reg.returncode == 0, reg.stderr
    run = pepper("arena", "run", "--games", "2", "--bots", "snoop,random", "--quiet", *run_args, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    found = [json.loads(p.read_text()) for p in reports.glob("*.json")]
    assert found, "the snooping bot never ran"
    return found


def test_a_bot_launched_with_an_outside_referee_gets_no_control_token(tmp_path):
    """`pepper arena run --referee ADDR` with PEPPER_CONTROL_TOKEN in the environment (the documented way): before,
    every launched bot inherited it and could drive the referee (ListBots worked with it)."""
    env = os.environ | {"PEPPER_CONTROL_TOKEN": TOKEN} | CANARY
    ref = subprocess.Popen([sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "127.0.0.1:0"], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        address = ref.stdout.readline().split()[-1]
        reports = snooped(tmp_path, "--referee", address, env=env)
    finally:
        ref.terminate()
        ref.wait(15)
    for r in reports:
        assert r["worked"] == [], r["found"]
        assert "own environment" not in r["found"]
        # Its environment: the allowlist, what the arena gives every bot, and its own registered variables.
        extra = {"PEPPER_REFEREE", "PEPPER_TOKEN_FD", "PEPPER_BOT_NAME", "PEPPER_MC_BUDGET_MS", "SNOOP_REPORTS"}
        assert {k for k in r["env"] if not passed(k)} <= extra, r["env"]
        assert not set(CANARY) & set(r["env"])


def test_a_bot_cannot_read_the_token_of_the_arenas_own_referee(tmp_path):
    """The arena's own referee: before, its token was in its environment, which the bot read in /proc."""
    for r in snooped(tmp_path, env=dict(os.environ)):
        assert r["worked"] == [], r["found"]


def test_the_arenas_referee_has_its_token_in_neither_its_environment_nor_its_argv(tmp_path):
    ref = RefereeProcess(tmp_path, TOKEN)
    try:
        proc = Path("/proc", str(ref.pid))
        assert TOKEN.encode() not in (proc / "environ").read_bytes()
        assert TOKEN.encode() not in (proc / "cmdline").read_bytes()
        with grpc.insecure_channel(ref.address) as channel:  # ... and it has it: the control API takes it
            bots = control_pb2_grpc.ControlServiceStub(channel).ListBots(
                control_pb2.ListBotsRequest(), metadata=(("authorization", f"Bearer {TOKEN}"),), timeout=10)
        assert list(bots.bots) == []
    finally:
        ref.stop()


def test_a_referee_started_by_hand_hides_the_tokens_of_its_command_line_and_environment(tmp_path):
    """`pepper referee serve --control-token T --bot NAME=TOKEN` (or T in PEPPER_CONTROL_TOKEN): before, any process
    of the user read them in /proc/PID/cmdline and environ for as long as the referee ran."""
    bot_token = "case5-bot-token-0123456789"
    for args, env in ((["--control-token", TOKEN], {}), ([], {"PEPPER_CONTROL_TOKEN": TOKEN})):
        ref = subprocess.Popen([sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "127.0.0.1:0", *args,
                                "--bot", f"mine={bot_token}"], env=os.environ | env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            address = ref.stdout.readline().split()[-1]
            proc = Path("/proc", str(ref.pid))
            shown = (proc / "cmdline").read_bytes() + (proc / "environ").read_bytes()
            assert TOKEN.encode() not in shown and bot_token.encode() not in shown
            assert b"--control-token" not in shown or b"*" * len(TOKEN) in shown  # ps shows stars
            with grpc.insecure_channel(address) as channel:
                bots = control_pb2_grpc.ControlServiceStub(channel).ListBots(
                    control_pb2.ListBotsRequest(), metadata=(("authorization", f"Bearer {TOKEN}"),), timeout=10)
            assert [b.name for b in bots.bots] == ["mine"]
        finally:
            ref.terminate()
            ref.wait(15)
