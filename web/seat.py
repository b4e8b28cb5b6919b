"""A person at the table: one bot's connection to a referee, answered from the browser (``pepper web --seat``).

:class:`HumanSeat` is a :class:`pepper_bot.Bot` like any other: the SDK connects it to the referee with the
bot's token and calls :meth:`HumanSeat.decide` for each decision, on the SDK's thread. ``decide`` publishes the
seat's view (what the referee sent this seat: its own cards and the public table, nothing else) and waits for
the person's answer, which the play page posts (:meth:`HumanSeat.answer`), until the decision's time and the
seat's time bank have run out. The arena stores and rates the game as it does every game: the person is the
registered remote bot whose token the seat uses.
"""

from __future__ import annotations

import threading
import time

from pepper_bot import Bot

KEEP_GAMES = 20   # finished games the play page lists


class HumanSeat(Bot):
    """The seats of the bot ``name`` played by a person (see the module)."""

    def __init__(self, name: str):
        self.name = name
        self._cv = threading.Condition()
        self._pending: dict | None = None    # the view awaiting an answer
        self._asked_at = 0.0
        self._answer: str | None = None
        self._last: dict | None = None       # the latest view answered (the table after the person's move)
        self._games: dict[str, dict] = {}    # game id -> {seat, players, ruleset, result}
        self.changes = 0                     # grows with every change: the page asks again when it does

    # -- the SDK's side ------------------------------------------------------------------------------
    def on_game_start(self, info: dict) -> None:
        with self._cv:
            self._games[info["game_id"]] = {"game_id": info["game_id"], "seat": info["seat"], "players": info["players"],
                                            "ruleset": info["ruleset"]["name"], "result": None}
            while len(self._games) > KEEP_GAMES:
                self._games.pop(next(iter(self._games)))
            self._changed()

    def on_game_end(self, game_id: str, result: dict) -> None:
        with self._cv:
            if game_id in self._games:
                self._games[game_id]["result"] = result
            self._changed()

    def decide(self, view: dict) -> str:
        limit = (view.get("deadline_ms", 0) + view.get("time_bank_ms", 0)) / 1000
        with self._cv:
            self._pending, self._answer, self._asked_at = view, None, time.monotonic()
            self._changed()
            self._cv.wait_for(lambda: self._answer is not None, timeout=limit + 1)
            answer = self._answer
            self._pending, self._last = None, view
            self._changed()
        # Unanswered in time: the referee has already counted the timeout; anything legal ends the wait.
        return answer if answer is not None else view["legal_actions"][0]

    # -- the browser's side --------------------------------------------------------------------------
    def answer(self, action: str, request_id: str) -> None:
        """The person's answer to the pending decision ``request_id``; ValueError says why it is refused."""
        with self._cv:
            p = self._pending
            if p is None or str(p["request_id"]) != request_id:
                raise ValueError("that decision is no longer pending (answered, or its time ran out): reload the table")
            if action not in p["legal_actions"]:
                raise ValueError(f"{action!r} is not legal here; legal: {', '.join(p['legal_actions'])}")
            self._answer = action
            self._cv.notify_all()

    def state(self) -> dict:
        """What the play page shows: the pending decision (with its seconds left) or the latest view, and the games."""
        with self._cv:
            p = self._pending
            left = None
            if p is not None:
                left = max(0.0, (p.get("deadline_ms", 0) + p.get("time_bank_ms", 0)) / 1000 - (time.monotonic() - self._asked_at))
            return {"name": self.name, "changes": self.changes, "pending": p is not None, "seconds_left": left,
                    "deadline_seconds": None if p is None else p.get("deadline_ms", 0) / 1000,
                    "view": p if p is not None else self._last,
                    "games": list(reversed(self._games.values()))}

    def _changed(self) -> None:
        self.changes += 1
        self._cv.notify_all()
