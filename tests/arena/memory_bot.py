"""A bot with memory, for the tests of twins apart (arena.twins): it plays the first legal action, writes every
game it sees to a file (its hand, and the cards each seat played), and at each game's end says on stderr (its log)
whether it had seen the game's deal before:

    memory: twin of a remembered game (GAME_ID)       its hand was a hand of a remembered game, and so was the
                                                      hand another seat showed by its plays: the same deck
    memory: new deal (GAME_ID)

and at its start ``memory: started as NAME``, its name on the referee.

A process that played one game of a duplicate block and is seated on another knows, from its first decision, every
card of the other seats. The file is ``$MEMORY_DIR/memory-PID.jsonl`` (``$MEMORY_DIR``: /tmp by default, a
container's own tmpfs in the sandbox): one process's memory, as a bot keeps it in its working space, read back on
start."""

from __future__ import annotations

import json
import os
import sys

from pepper_bot import Bot, run_bot


class Memory(Bot):
    name = "memory"

    def __init__(self, path: str):
        self.path = path
        self.games: list[list[frozenset[str]]] = []   # remembered games: the cards each seat was seen to hold
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                self.games = [[frozenset(h) for h in json.loads(line)] for line in f]
        self.seat: dict[str, int] = {}
        self.hand: dict[str, frozenset[str]] = {}
        self.played: dict[str, dict[int, set[str]]] = {}

    def on_game_start(self, info: dict) -> None:
        self.seat[info["game_id"]] = info["seat"]
        self.played[info["game_id"]] = {s: set() for s in range(info["players"])}

    def decide(self, view: dict) -> str:
        self.hand.setdefault(view["game_id"], frozenset(view["hand"]))
        return view["legal_actions"][0]

    def on_event(self, game_id: str, event: dict) -> None:
        if event["kind"] == "play" and event["actor"] is not None and game_id in self.played:
            cards = event["cards"] or [(event["action"] or "").split()[-1]]
            self.played[game_id][event["actor"]].update(cards)

    def on_game_end(self, game_id: str, result: dict) -> None:
        seat, hand = self.seat.pop(game_id, None), self.hand.pop(game_id, None)
        played = self.played.pop(game_id, {})
        if seat is None or hand is None:
            return
        held = [frozenset(played[s]) if s != seat else hand for s in sorted(played)]
        others = [h for s, h in enumerate(held) if s != seat and h]
        twin = any(hand in g and any(h in g for h in others) for g in self.games)
        print(f"memory: {'twin of a remembered game' if twin else 'new deal'} ({game_id})", file=sys.stderr, flush=True)
        self.games.append(held)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps([sorted(h) for h in held]) + "\n")


if __name__ == "__main__":
    folder = os.environ.get("MEMORY_DIR", "/tmp")
    print(f"memory: started as {os.environ.get('PEPPER_BOT_NAME')}", file=sys.stderr, flush=True)
    sys.exit(run_bot(Memory(os.path.join(folder, f"memory-{os.getpid()}.jsonl"))))
