"""A uniformly random legal action: the baseline every other bot must beat."""

from __future__ import annotations

import random


class RandomBot:
    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def decide(self, view: dict) -> str:
        return self.rng.choice(view["legal_actions"])
