"""The sample heuristic bot with a strategy that fails on a share of its decisions and says nothing of it.

    python silent_bot.py [--rate R] [--seed S]     # reads $PEPPER_REFEREE, its token, $PEPPER_BOT_NAME

At rate R (default 0.3) it answers the first legal action itself, as a bot
that catches its strategy's errors does (or a bot in another language whose
client never sets ``Answer.fallback``): the SDK sees a legal answer and marks
nothing, so the referee counts no fallback. ``--rate 0`` is the honest bot.
"""

from __future__ import annotations

import argparse
import random

from pepper_bot import main

from sample_bots import HeuristicBot
from sample_bots.adapter import as_engine_bot


class SilentlyFailing:
    def __init__(self, rate: float, seed: int):
        self.inner, self.rate, self.rng = HeuristicBot(), rate, random.Random(seed)

    def decide(self, view: dict) -> str:
        if self.rng.random() < self.rate:
            return view["legal_actions"][0]   # "the strategy threw": the first legal action, unmarked
        return self.inner.decide(view)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    a, rest = ap.parse_known_args()
    main(as_engine_bot(SilentlyFailing(a.rate, a.seed)), rest)
