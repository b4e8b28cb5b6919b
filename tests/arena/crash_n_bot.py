"""A command bot whose first processes crash: ``python crash_n_bot.py MARKER TIMES AFTER``.

A process that creates one of the files MARKER.0 ... MARKER.{TIMES-1} crashes (exit code 3) at its decision
AFTER; once they all exist every process, each restart among them, plays on. Both run tests/sdk/bots/raw_bot.py
(the first legal action, every decision)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

RAW_BOT = Path(__file__).resolve().parents[1] / "sdk" / "bots" / "raw_bot.py"


def crashes(marker: str, times: int) -> bool:
    """Whether this process is one of the ``times`` that crash (it claims a marker file)."""
    for k in range(times):
        try:
            os.close(os.open(f"{marker}.{k}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except FileExistsError:
            continue
    return False


if __name__ == "__main__":
    marker, times, after = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    mode = "crash" if crashes(marker, times) else "ok"
    os.execv(sys.executable, [sys.executable, str(RAW_BOT), mode, "--after", after])
