"""``python -m pepper_bot TARGET [--referee HOST:PORT --token T --name NAME ...]``: run a bot file or module.

    python -m pepper_bot mybot.py:MyBot --referee 127.0.0.1:50051 --token T --name mybot
"""

from __future__ import annotations

import argparse
import sys

from .bot import as_bot
from .runner import EXIT_REFUSED, add_connection_args, run_bot
from .target import TargetError, load_target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pepper_bot", description="Run a Pepper bot against a referee.")
    ap.add_argument("target", help="FILE.py[:CLASS] or MODULE[:CLASS]: the bot to run")
    add_connection_args(ap)
    a = ap.parse_args(argv)
    try:
        bot = as_bot(load_target(a.target))
    except (TargetError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_REFUSED
    return run_bot(bot, a.referee, a.token, a.name, a.max_batch, tls_ca=a.tls_ca, log_level=a.log_level,
                   give_up_after=a.give_up_after)


if __name__ == "__main__":
    sys.exit(main())
