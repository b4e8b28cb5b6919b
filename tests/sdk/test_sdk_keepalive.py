"""Keepalive: an idle bot stays connected (the referee's ping policy agrees with the SDK's pings), scaled down.

The real numbers are the SDK's 30 s pings (pepper_bot.runner.KEEPALIVE_TIME_MS) and the referee's 20 s minimum
(referee.service.config.MIN_PING_INTERVAL_MS); gRPC's server default minimum is 5 minutes, which told idle bots
to go away (GOAWAY "too_many_pings") after about 160 s. Here both sides are scaled by 1/30: the bot pings every
second, so the old failure shows within seconds.
"""

from __future__ import annotations

import sys
import time

from pepper_bot.runner import KEEPALIVE_TIME_MS
from sdk_harness import free_port

from referee.service.config import MIN_PING_INTERVAL_MS

TOKEN = "token-sleepy-0123456789"
PING_MS = 1000
SCALE = PING_MS / KEEPALIVE_TIME_MS
GRPC_DEFAULT_MIN_PING_INTERVAL_MS = 300_000   # what the referee accepted before it set its own policy
GOAWAY = "too_many_pings"


def _idle_bot(referee_factory, procs, min_ping_ms: int, name: str):
    ref = referee_factory({"sleepy": TOKEN}, free_port(), "--min-ping-interval-ms", str(min_ping_ms))
    p = procs.start([sys.executable, "-m", "sample_bots", "random", "--referee", ref.address, "--token", TOKEN,
                     "--name", "sleepy", "--give-up-after", "60"], name,
                    env={"PEPPER_KEEPALIVE_MS": str(PING_MS)})
    ref.wait_connected("sleepy", proc=p)
    return ref, p


def test_an_idle_bot_stays_connected_under_the_agreed_ping_policy(referee_factory, procs):
    assert MIN_PING_INTERVAL_MS < KEEPALIVE_TIME_MS    # the SDK pings no more often than the referee accepts
    ref, p = _idle_bot(referee_factory, procs, round(MIN_PING_INTERVAL_MS * SCALE), "agreed")
    time.sleep(8)      # eight pings: gRPC's default policy sends GOAWAY after the third (see the next test)
    assert p.poll() is None
    log = p.log_path.read_text()
    assert GOAWAY not in log and "lost" not in log, log
    assert log.count("connected to") == 1, log
    assert ref.connections("sleepy") == 1


def test_grpcs_default_ping_policy_tells_the_same_bot_to_go_away(referee_factory, procs):
    """The control: the same pings against gRPC's default minimum (scaled alike) are refused within seconds."""
    ref, p = _idle_bot(referee_factory, procs, round(GRPC_DEFAULT_MIN_PING_INTERVAL_MS * SCALE), "default")
    end = time.time() + 15
    while time.time() < end and "lost" not in p.log_path.read_text():
        time.sleep(0.2)
    log = p.log_path.read_text()
    assert "lost" in log and GOAWAY in log, log
