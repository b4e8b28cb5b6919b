"""A finished tournament is not a dropped connection: a referee that drains says so (NOTICE_CODE_DRAINING, protocol
1.3), and the SDK's bot exits 0 at once instead of reconnecting until it gives up (exit 1)."""

from __future__ import annotations

import sys
import time

from pepper_proto.v1 import control_pb2
from sdk_harness import status_name

TOKEN = "token-finisher-0123456789"


def _bot(ref, procs, name: str):
    p = procs.start([sys.executable, "-m", "sample_bots", "heuristic", "--referee", ref.address, "--token", TOKEN,
                     "--name", "finisher", "--give-up-after", "60"], name)
    ref.wait_connected("finisher", proc=p)
    return p


def _exits_cleanly(p, within: float) -> str:
    t0 = time.monotonic()
    code = p.wait(timeout=30)
    log = p.log_path.read_text()
    assert code == 0, log
    assert time.monotonic() - t0 < within, log
    assert "the referee drained" in log and "reconnecting" not in log and "cannot connect" not in log, log
    return log


def test_a_bot_exits_0_when_the_referee_shuts_down_cleanly(referee_factory, procs):
    ref = referee_factory({"finisher": TOKEN})
    p = _bot(ref, procs, "sigterm")
    gid = ref.create(["finisher"] * 4, "iowa", deal_cap=1)
    assert status_name(ref.wait_games([gid])[gid].status) == "GAME_STATUS_COMPLETED"
    ref.close()      # SIGTERM: the referee drains, then stops
    _exits_cleanly(p, within=5)


def test_a_bot_exits_0_when_the_referee_is_drained(referee_factory, procs):
    """Drain through the control API (the server stays up): the bot plays out its game, then leaves."""
    ref = referee_factory({"finisher": TOKEN})
    p = _bot(ref, procs, "drain")
    gid = ref.create(["finisher"] * 4, "iowa", deal_cap=2)
    drained = ref.control.Drain(control_pb2.DrainRequest(timeout_s=30), metadata=ref.md)
    assert (drained.finished, drained.aborted) == (1, 0)
    assert status_name(ref.wait_games([gid])[gid].status) == "GAME_STATUS_COMPLETED"
    log = _exits_cleanly(p, within=5)
    assert "draining" in log
    assert ref.connections("finisher") == 0
