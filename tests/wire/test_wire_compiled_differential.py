"""The compiled wire encoder writes the same bytes as its pure-Python source: seeded random games, every ruleset.

Two processes play the same seeded random games, one with the referee as installed (engine and encoder compiled
where built) and one with PEPPER_PURE=1 (the .py sources); each writes, step by step, the wire bytes every seat
receives (each new event's item frame, public or for its one seat, the request frame of the seat to act) and
every seat's view (the encoder's per-deal caches are shared by the seats), and the two must be byte-identical.
tests/wire/test_wire_fast.py checks those bytes against the reference conversion; this test checks that the
compiled build changes none of them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import referee.wire as wire

ROOT = Path(wire.__file__).resolve().parent.parent.parent
MARKER = ROOT / "referee" / "rules" / "_compiled_build.txt"

# Every ruleset and player count, three games of up to three deals; request ids, deadlines and time banks
# vary where their encodings change length (1-5 byte varints, zero omitted).
TRACE = r"""
import random, sys
import referee.wire as wire
from referee.rules import BUILTIN_RULESETS, Game
from referee.rules.game import PUBLIC
out = sys.stdout
out.write(f"compiled {wire.COMPILED}\n")
for name, rs in BUILTIN_RULESETS.items():
    for n in rs.player_counts:
        for seed in (1, 2, 3):
            rng = random.Random(seed * 1000 + n)
            g = Game(name, n, seed=seed, deal_cap=3)
            gid = f"game-{name}-{n}-{seed}"
            enc = wire.GameEncoder(g, gid)
            sent = 0
            while True:
                for i, e in enumerate(g.event_log[sent:], sent):
                    seat = None if e[3] == PUBLIC else e[3]
                    out.write(f"{gid} event {i} {seat} {enc.event_frame(i, tuple(e), seat).hex()}\n")
                sent = g.event_count
                out.write(f"{gid} views {' '.join(enc.view(s).hex() for s in range(n))}\n")
                if g.is_over:
                    break
                rid = rng.choice([1, 127, 128, 16383, 16384, 2**21 + 5, 2**35 + 7])
                deadline, bank = rng.choice([0, 1, 2000, 2**28]), rng.choice([0, 1, 10_000, 123_456])
                frame = enc.request_frame(g.to_act, rid, g.phase, wire.legal_ids(g), deadline, bank)
                out.write(f"{gid} request {g.to_act} {frame.hex()}\n")
                legal = g.legal_action_ids()
                g.apply(rng.choice(legal))
"""


def _trace(pure: bool) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PEPPER_PURE", None)
    if pure:
        env["PEPPER_PURE"] = "1"
    return subprocess.run([sys.executable, "-c", TRACE], env=env, cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.splitlines()


def test_compiled_and_pure_encoders_write_the_same_bytes():
    built, pure = _trace(pure=False), _trace(pure=True)
    assert pure[0] == "compiled False"
    if MARKER.exists() or os.environ.get("CI") == "true":
        # A build compiled the encoder (tests/rules/test_compiled_build.py checks that it is today's).
        assert built[0] == "compiled True", "the compiled encoder did not load: run `make install`"
    assert len(built) > 5_000 and sum(line.split()[1] == "request" for line in built) > 1_500
    for k, (b, p) in enumerate(zip(built[1:], pure[1:]), 1):
        assert b == p, f"line {k}: compiled and pure encoders differ\n  compiled: {b}\n  pure:     {p}"
    assert len(built) == len(pure)
