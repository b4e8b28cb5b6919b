"""A weaker bot of known strength: a sample policy that plays a uniformly random legal action at a given rate.

bench/ranking.py builds its ladder of bots from it (the heuristic at 0%, 10%, ... random play: the less random,
the stronger), in process and as bot processes (``python -m sample_bots heuristic --mix 0.2``).
"""

from __future__ import annotations

import random


class Mixed:
    """``policy``'s action, or at ``rate`` (0 to 1) a uniformly random one of the legal actions, drawn from ``rng``.
    Everything else (hooks, ``rulesets``) is the policy's."""

    def __init__(self, policy, rate: float, rng: random.Random | None = None):
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"the rate of random play is a share from 0 to 1, got {rate}")
        self.policy, self.rate, self.rng = policy, rate, rng or random.Random()

    def decide(self, view: dict) -> str:
        if self.rate and self.rng.random() < self.rate:
            return self.rng.choice(view["legal_actions"])
        return self.policy.decide(view)

    def __getattr__(self, name: str):
        # Only reached for what Mixed does not define: the policy's hooks and attributes (EngineBot and the SDK
        # look for on_event, on_game_start, rulesets...).
        return getattr(self.__dict__["policy"], name)
