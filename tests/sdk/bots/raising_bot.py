"""An SDK bot with a buggy policy: it raises, returns junk, or returns a legal action in odd spelling.

The SDK must log the faults and still answer every request legally.
"""

from __future__ import annotations

import json
import os

from pepper_bot import Bot


class RaisingBot(Bot):
    name = "raising"

    def __init__(self):
        self.n = 0
        self.starts = 0
        self.ends = 0
        self.events = 0

    def decide(self, view: dict) -> str:
        self.n += 1
        legal = view["legal_actions"]
        k = self.n % 5
        if k == 0:
            raise RuntimeError(f"policy bug number {self.n}")
        if k == 1:
            return "flibbertigibbet"            # not an action at all
        if k == 2:
            return None                           # nothing
        if k == 3:
            return "  " + legal[-1].upper() + " "  # legal, in odd case and spacing
        return len(legal) - 1                     # an index

    def on_game_start(self, info: dict) -> None:
        self.starts += 1
        if self.starts % 3 == 0:
            raise ValueError("hook bug")

    def on_event(self, game_id: str, event: dict) -> None:
        self.events += 1

    def on_game_end(self, game_id: str, result: dict) -> None:
        self.ends += 1
        path = os.environ.get("RAISING_BOT_SUMMARY")
        if path:
            with open(path, "w") as f:
                json.dump({"decisions": self.n, "starts": self.starts, "ends": self.ends, "events": self.events}, f)
