"""A person at the table: one bot's connection to a referee, answered from the browser (``pepper web --seat``).

:class:`HumanSeat` is a :class:`pepper_bot.Bot` like any other: the SDK connects it to the referee with the
bot's token and calls :meth:`HumanSeat.decide` for each decision, on the SDK's thread. ``decide`` publishes the
seat's view (what the referee sent this seat: its own cards and the public table, nothing else) and waits for
the person's answer, which the play page posts (:meth:`HumanSeat.answer`), until the decision's time and the
seat's time bank have run out. The arena stores and rates the game as it does every game: the person is the
registered remote bot whose token the seat uses.

The seat hears every event of its games as it happens (``live_events``): what it keeps of them is public (the table's
names and teams, each deal's result and its final trick), so the page can show how each deal and game ended, which
the views of its decisions alone never say. :meth:`HumanSeat.session_over` marks the end of the connection (the
referee drained: the arena has no more games for this bot).
"""

from __future__ import annotations

import threading
import time

from pepper_bot import Bot

from arena.twins import bot_of

KEEP_GAMES = 20   # finished games the play page lists


class HumanSeat(Bot):
    """The seats of the bot ``name`` played by a person (see the module)."""

    live_events = True   # deal results as they happen, not with the person's next decision

    def __init__(self, name: str):
        self.name = name
        self._cv = threading.Condition()
        self._pending: dict | None = None    # the view awaiting an answer
        self._asked_at = 0.0
        self._answer: str | None = None
        self._last: dict | None = None       # the latest view answered, with the person's move made
        self._games: dict[str, dict] = {}    # game id -> {seat, players, ruleset, table, deals, trick..., result}
        self._over: str | None = None        # why the session ended (None: connected, or connecting)
        self.changes = 0                     # grows with every change: the page asks again when it does

    # -- the SDK's side ------------------------------------------------------------------------------
    def on_game_start(self, info: dict) -> None:
        with self._cv:
            rs = info["ruleset"]
            self._games[info["game_id"]] = {
                "game_id": info["game_id"], "seat": info["seat"], "players": info["players"], "ruleset": rs["name"],
                "family": rs["family"], "target_score": rs["target_score"], "hand_size": rs["hand_size"],
                "table": [{"seat": t["seat"], "name": bot_of(t["bot_name"]), "team": t["team"]} for t in info["table"]],
                "deals": [], "trick": [], "last_trick": None, "tricks_done": 0, "result": None}
            while len(self._games) > KEEP_GAMES:
                self._games.pop(next(iter(self._games)))
            self._changed()

    def on_event(self, game_id: str, event: dict) -> None:
        """Follow the tricks as they are played, and keep each deal's result with its final trick (all public): the
        page shows the table between the person's decisions from these."""
        kind = event["kind"]
        if kind not in ("play", "trick", "deal_end"):
            return
        with self._cv:
            game = self._games.get(game_id)
            if game is None:
                return
            if kind == "play":
                game["trick"].append([event["actor"], event["cards"][0]])
            elif kind == "trick":
                game["last_trick"] = {"leader": event["leader"], "plays": game["trick"], "winner": event["actor"]}
                game["trick"], game["tricks_done"] = [], game["tricks_done"] + 1
            else:
                game["deals"].append({**event["deal_result"], "last_trick": game["last_trick"]})
                game["trick"], game["last_trick"], game["tricks_done"] = [], None, 0
            self._changed()

    def on_game_end(self, game_id: str, result: dict) -> None:
        with self._cv:
            if game_id in self._games:
                self._games[game_id]["result"] = result
            self._changed()

    def session_over(self, why: str) -> None:
        """The seat's connection has ended for good (``why``: said on the page); no game will seat it again."""
        with self._cv:
            self._over = why
            self._changed()

    def decide(self, view: dict) -> str:
        limit = (view.get("deadline_ms", 0) + view.get("time_bank_ms", 0)) / 1000
        with self._cv:
            self._pending, self._answer, self._asked_at = view, None, time.monotonic()
            self._changed()
            self._cv.wait_for(lambda: self._answer is not None, timeout=limit + 1)
            # Unanswered in time: the referee has already counted the timeout; anything legal ends the wait.
            answer = self._answer if self._answer is not None else view["legal_actions"][0]
            self._pending, self._last = None, _after(view, answer)
            self._changed()
        return answer

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
                    "view": p if p is not None else self._last, "session_over": self._over,
                    "games": list(reversed(self._games.values()))}

    def _changed(self) -> None:
        self.changes += 1
        self._cv.notify_all()


def _after(view: dict, action: str) -> dict:
    """``view`` once its seat has made ``action``: the card played moved from the hand to the trick, the bid added to
    the auction. The table the page shows until the next decision; nobody is asked now."""
    v = {**view, "legal_actions": [], "to_act": None}
    verb, _, what = action.partition(" ")
    if verb == "play":
        hand = list(view["hand"])
        if what in hand:
            hand.remove(what)
        v["hand"], v["trick"] = hand, [*view["trick"], [view["seat"], what]]
    elif verb in ("bid", "pass"):
        v["bids"] = [*view["bids"], [view["seat"], action]]
    return v
