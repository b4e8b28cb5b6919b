"""Run a sample bot as a process: ``python -m sample_bots random|heuristic|montecarlo [flags]``.

    python -m sample_bots montecarlo --referee 127.0.0.1:50051 --token T --name mc --budget-ms 4

The referee address, token and name default to $PEPPER_REFEREE, $PEPPER_TOKEN
and $PEPPER_BOT_NAME (then the bot's kind), as for every launched bot.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

from pepper_bot import run_bot
from pepper_bot.runner import add_connection_args

from . import BOTS
from .adapter import EngineBot
from .mixed import Mixed


def _env_float(name: str) -> float | None:
    v = os.environ.get(name)
    try:
        return float(v) if v else None
    except ValueError:
        return None


def _share(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        x = -1.0
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"a rate from 0 to 1 (0.2: one decision in five at random), got {text!r}")
    return x


def make_policy(kind: str, seed: int | None = None, budget_ms: float | None = None, samples: int | None = None):
    """A fresh sample policy of ``kind`` (random, heuristic or montecarlo)."""
    cls = BOTS[kind]
    if kind == "random":
        return cls(seed=seed)
    if kind == "montecarlo":
        kw = {"seed": seed}
        if budget_ms is not None:
            kw["budget_ms"] = budget_ms
        if samples is not None:
            kw["samples"] = samples
        return cls(**kw)
    return cls()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sample_bots", description="Run a sample bot against a referee.")
    ap.add_argument("bot", choices=sorted(BOTS), help="which sample bot")
    add_connection_args(ap)
    ap.add_argument("--budget-ms", type=float, default=_env_float("PEPPER_MC_BUDGET_MS"),
                    help="montecarlo: search time per decision, ms (default: $PEPPER_MC_BUDGET_MS, else the bot's own)")
    samples = _env_float("PEPPER_MC_SAMPLES")
    ap.add_argument("--samples", type=int, default=None if samples is None else int(samples),
                    help="montecarlo: sampled deals per search instead of a time budget, so that its strength does "
                         "not depend on the machine's load (default: $PEPPER_MC_SAMPLES)")
    ap.add_argument("--seed", type=int, default=None, help="random and montecarlo: the random seed (--mix: its too)")
    ap.add_argument("--mix", type=_share, default=0.0, metavar="RATE",
                    help="play a uniformly random legal action at this rate (0 to 1) instead of the bot's own: a weaker "
                         "bot of known strength (bench/ranking.py's ladder)")
    a = ap.parse_args(argv)
    policy = make_policy(a.bot, a.seed, a.budget_ms, a.samples)
    if a.mix:
        policy = Mixed(policy, a.mix, random.Random(a.seed))
    bot = EngineBot(policy, name=a.bot)
    return run_bot(bot, a.referee, a.token, a.name, a.max_batch, tls_ca=a.tls_ca, log_level=a.log_level,
                   give_up_after=a.give_up_after)


if __name__ == "__main__":
    sys.exit(main())
