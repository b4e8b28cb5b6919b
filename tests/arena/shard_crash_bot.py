"""A command bot one process of which crashes on each referee shard: ``python shard_crash_bot.py MARKER AFTER``.

The first process connected to a shard (by its PEPPER_REFEREE) claims the file MARKER.<that shard's port> and
crashes (exit code 3) at its decision AFTER; every other process, each restart among them, plays on. Both run
tests/sdk/bots/raw_bot.py (the first legal action, every decision)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

RAW_BOT = Path(__file__).resolve().parents[1] / "sdk" / "bots" / "raw_bot.py"

if __name__ == "__main__":
    marker, after = sys.argv[1], sys.argv[2]
    try:
        os.close(os.open(f"{marker}.{os.environ['PEPPER_REFEREE'].rsplit(':', 1)[-1]}",
                         os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        mode = "crash"
    except FileExistsError:
        mode = "ok"
    os.execv(sys.executable, [sys.executable, str(RAW_BOT), mode, "--after", after])
