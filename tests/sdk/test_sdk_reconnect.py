"""The SDK reconnects when the stream drops, and the bot plays on."""

from __future__ import annotations

import sys
import time

from sdk_harness import assert_clean, free_port, status_name

TOKEN = "token-phoenix-0123456789"


def test_bot_reconnects_after_the_referee_restarts(referee_factory, procs):
    port = free_port()
    ref = referee_factory({"phoenix": TOKEN}, port)
    p = procs.start([sys.executable, "-m", "sample_bots", "heuristic", "--referee", ref.address, "--token", TOKEN,
                     "--name", "phoenix", "--give-up-after", "60"], "phoenix")
    ref.wait_connected("phoenix", proc=p)
    assert_clean(next(iter(ref.wait_games([ref.create(["phoenix"] * 4, "iowa", deal_cap=2)]).values())))

    # A game in progress when the referee dies: the stream breaks.
    ref.create(["phoenix"] * 8, "bid-euchre", deal_cap=50)
    time.sleep(0.3)
    ref.kill()
    time.sleep(0.5)
    assert p.poll() is None, "the bot must survive the referee"
    ref.start()   # same port, same bot token
    took = ref.wait_connected("phoenix", timeout=20, proc=p)
    assert took < 15
    assert_clean(next(iter(ref.wait_games([ref.create(["phoenix"] * 5, "five-handed", deal_cap=2)]).values())))

    r = next(iter(ref.wait_games([ref.create(["phoenix"] * 3, "pepper-30", deal_cap=2)]).values()))
    assert status_name(r.status) == "GAME_STATUS_COMPLETED" and not r.faults

    # A graceful shutdown is not a drop: the referee says it is draining (the tournament is over), and the bot
    # exits 0 rather than reconnecting (tests/sdk/test_sdk_drain.py).
    ref.close()
    assert p.wait(timeout=10) == 0
    log = p.log_path.read_text()
    assert log.count("connected to") == 2, log
    assert "lost" in log and "the referee drained" in log


def test_bot_waits_for_a_referee_that_is_not_up_yet(referee_factory, procs):
    port = free_port()
    p = procs.start([sys.executable, "-m", "sample_bots", "random", "--referee", f"127.0.0.1:{port}", "--token", TOKEN,
                     "--name", "phoenix", "--give-up-after", "30"], "early")
    time.sleep(1.0)
    assert p.poll() is None
    ref = referee_factory({"phoenix": TOKEN}, port)
    ref.wait_connected("phoenix", timeout=20, proc=p)
    assert_clean(next(iter(ref.wait_games([ref.create(["phoenix"] * 2, "pepper-30", deal_cap=2)]).values())))


def test_bot_gives_up_when_no_referee_comes(procs):
    port = free_port()
    p = procs.start([sys.executable, "-m", "sample_bots", "random", "--referee", f"127.0.0.1:{port}", "--token", TOKEN,
                     "--name", "phoenix", "--give-up-after", "1.5"], "lonely")
    assert p.wait(timeout=20) == 1
    assert "giving up" in p.log_path.read_text()
