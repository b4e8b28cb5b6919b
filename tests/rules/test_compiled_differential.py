"""The compiled engine gives the same answers as its pure-Python source: seeded random games, in lockstep.

Two processes play the same seeded random games, one on the engine as installed (compiled where built) and
one with PEPPER_PURE=1 (the .py sources); each writes one line per decision (seat, phase, legal action ids,
the seat's view, scores) and the lines must agree. Without a compiled build both sides are pure and the test
only checks that play is deterministic (tests/rules/test_compiled_build.py says whether it is compiled).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import referee.rules as rules

ROOT = Path(rules.__file__).resolve().parent.parent.parent

# Every ruleset and player count, three games of up to four deals each; the second goes through pickle, copy() and deepcopy at
# each deal's start, so that the compiled class's copying is compared too; the third holds each finished deal
# (hold_finished_deal), shows it and copies it in the held state before next_deal().
TRACE = r"""
import copy, pickle, random, sys
from referee.rules import BUILTIN_RULESETS, Game
out = sys.stdout
for name, rs in BUILTIN_RULESETS.items():
    for n in rs.player_counts:
        for seed in (1, 2, 3):
            rng = random.Random(seed * 1000 + n)
            g = Game(name, n, seed=seed, deal_cap=4, hold_finished_deal=seed == 3)
            deals = 0
            while not g.is_over:
                if g.deal_over:   # seed 3 holds each finished deal: inspect it, copy it, deal on
                    out.write(f"{name} {n} held {g.deal_number} {g.phase!r} {g.deals[-1]!r} {g.legal_action_ids()} "
                              f"{g.view(0)!r} {g.full_state()!r} {g.record()}\n")
                    g = copy.deepcopy(pickle.loads(pickle.dumps(g)).copy())
                    g.next_deal()
                    continue
                if seed == 2 and len(g.decks_dealt) != deals:
                    deals = len(g.decks_dealt)
                    g = copy.deepcopy(pickle.loads(pickle.dumps(g)).copy())
                legal = g.legal_action_ids()
                out.write(f"{name} {n} {g.to_act} {g.phase!r} {g.decision_kind!r} {legal} {g.view(g.to_act)!r} "
                          f"{g.scores} {g.publicly_forced()}\n")
                g.apply(rng.choice(legal))
            out.write(f"{name} {n} end {g.outcome!r} {g.deals!r} {g.full_state()!r} {g.history}\n")
"""


def _trace(pure: bool) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PEPPER_PURE", None)
    if pure:
        env["PEPPER_PURE"] = "1"
    return subprocess.run([sys.executable, "-c", TRACE], env=env, cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.splitlines()


def test_compiled_and_pure_engines_agree_move_by_move():
    compiled, pure = _trace(False), _trace(True)
    assert len(pure) > 1000, "the pure engine played almost nothing"
    for i, (c, p) in enumerate(zip(compiled, pure)):
        assert c == p, f"line {i}: the compiled and pure engines differ\ncompiled: {c}\npure:     {p}"
    assert len(compiled) == len(pure)
