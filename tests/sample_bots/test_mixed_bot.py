"""sample_bots.mixed.Mixed (bench/ranking.py's ladder, and ``python -m sample_bots ... --mix RATE``): the policy's
own action at rate 0, a uniformly random legal one at rate 1, the policy's hooks and attributes passed through."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from referee.rules import Game, get_ruleset
from sample_bots import HeuristicBot, MonteCarloBot
from sample_bots.mixed import Mixed


def _views(seed: int = 3, steps: int = 60) -> list[dict]:
    """The views of the seats to act along one heuristic game."""
    g, h, out = Game(get_ruleset("iowa"), 4, seed=seed), HeuristicBot(), []
    while not g.is_over and len(out) < steps:
        v = g.view(g.to_act).to_dict()
        v["legal_actions"] = [str(a) for a in g.legal_actions()]
        out.append(v)
        g.apply(h.decide(v))
    return out


def test_rate_zero_is_the_policy_and_rate_one_is_random_play():
    views = _views()
    h = HeuristicBot()
    assert [Mixed(h, 0.0, random.Random(1)).decide(v) for v in views] == [h.decide(v) for v in views]
    rnd = Mixed(h, 1.0, random.Random(1))
    picks = [rnd.decide(v) for v in views for _ in range(5)]
    assert all(p in v["legal_actions"] for p, v in zip(picks, [v for v in views for _ in range(5)]))
    wide = [v for v in views if len(v["legal_actions"]) > 2]
    assert any(rnd.decide(v) != h.decide(v) for v in wide for _ in range(3)), "rate 1 never left the policy's choice"


def test_the_policy_shows_through_and_a_bad_rate_is_refused():
    mc = MonteCarloBot(seed=1)
    assert Mixed(mc, 0.3).rulesets is mc.rulesets        # EngineBot gives a simulating policy its rulesets
    with pytest.raises(ValueError, match="from 0 to 1"):
        Mixed(mc, 1.5)
    out = subprocess.run([sys.executable, "-m", "sample_bots", "heuristic", "--mix", "-0.1"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "a rate from 0 to 1" in out.stderr, out.stderr
