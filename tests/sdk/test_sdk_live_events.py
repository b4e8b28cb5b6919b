"""A bot class that sets ``live_events`` asks for every event as it happens (Hello.live_events, protocol 1.6)."""

from __future__ import annotations

import sys

from sdk_harness import assert_clean

BOT = '''
from pepper_bot import Bot


class Quiet(Bot):
    def decide(self, view):
        return view["legal_actions"][0]


class Ponder(Quiet):
    live_events = True
'''
TOKENS = {"quiet": "token-quiet-0123456789", "ponder": "token-ponder-0123456789"}


def test_the_class_attribute_reaches_the_referee_and_both_bots_play(referee_factory, procs, tmp_path):
    (tmp_path / "bots.py").write_text(BOT)
    ref = referee_factory(TOKENS, 0, "--log-level", "info")   # the connection line says "live events"
    for name, cls in (("quiet", "Quiet"), ("ponder", "Ponder")):
        p = procs.start([sys.executable, "-m", "pepper_bot", f"{tmp_path / 'bots.py'}:{cls}", "--referee", ref.address,
                         "--token", TOKENS[name], "--name", name], name)
        ref.wait_connected(name, proc=p)
    res = ref.wait_games([ref.create(["quiet", "ponder", "quiet", "ponder"], "iowa", deal_cap=2, seed=3)])
    for r in res.values():
        assert_clean(r)
    log = (tmp_path / "referee1.stderr").read_text()
    connected = [line for line in log.splitlines() if "connected as" in line]
    assert any("bot ponder" in line and "live events" in line for line in connected), connected
    assert not any("bot quiet" in line and "live events" in line for line in connected), connected
