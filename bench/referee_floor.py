"""The referee's floor: the real gRPC service with a game step that costs (almost) nothing.

    python bench/referee_floor.py [serve options]    (started by bench/referee.py; same options as `pepper referee serve`)

This is the referee server of ``python -m pepper_cli.referee serve`` (same
servicers, batching, enforcement and answer checks) in which every game is a
replay of a script recorded before the server starts listening: a real iowa
game, played by the real engine with random legal actions and encoded by the
real :class:`referee.wire.GameEncoder`. During the benchmark each step only
looks up what comes next (the seat, its legal actions, the new events) and
splices the game id and request id into pre-encoded bytes. The bots' answers
are still checked against the legal list and drive the replay, but the game
follows its script whatever legal action they pick.

So its rate is what the referee would reach if the rules engine and the view
encoder cost nothing (a native core behind the same Python service): the
part of the referee's time that is the service itself, gRPC and asyncio. It
is a measurement device only; nothing else imports it.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)   # the package `referee`, not bench/referee.py

from referee import wire  # noqa: E402
from referee.rules import Game, ruleset_from_dict  # noqa: E402
from referee.rules.game import PUBLIC  # noqa: E402
from referee.service import referee  # noqa: E402
from referee.wire import codec  # noqa: E402

SCRIPTS = 16           # distinct recorded games; game i replays script i % SCRIPTS
_uv = codec._uv


class Script:
    """One recorded game: per decision (seat, phase, legal ids, publicly forced id, log length, request bytes)."""

    def __init__(self, seed: int, deal_cap: int, deadline_ms: int, bank_ms: int):
        rs = ruleset_from_dict({"extends": "iowa", "name": "iowa-custom", "deal_cap": deal_cap})  # as the referee names bench/referee.py's
        g = Game(rs, 4, seed=seed)
        enc = wire.GameEncoder(g, "x")
        rng = random.Random(seed)
        cut = len(enc.gid_field)
        self.steps = []
        while not g.is_over:
            seat, legal = g.to_act, list(g.legal_action_ids())
            # DecisionRequest = gid_field, 0x10 varint(request id = 1), rest
            rest = _unwrap(enc.request_frame(seat, 1, g.phase, legal, deadline_ms, bank_ms))[cut + 2:]
            self.steps.append((seat, g.phase, legal, g.publicly_forced(), len(g.event_log), rest))
            g.apply(rng.choice(legal))
        self.game = g
        self.log = list(g.event_log)
        # Each event's encoding without its game id (GameEvent field 1), for public and private delivery.
        self.events = []
        for i, e in enumerate(self.log):
            self.events.append(_unwrap(enc.event_frame(i, e, None if e[3] == PUBLIC else e[3]))[cut:])


def _unwrap(frame: bytes) -> bytes:
    """The payload of a Batch item frame: strip two (key, length) headers (see referee.wire.item_frame)."""
    for _ in range(2):
        i = 1
        while frame[i] & 0x80:
            i += 1
        frame = frame[i + 1:]
    return frame


_SCRIPTS: list[Script] = []


class ReplayGame:
    """Just enough of :class:`referee.rules.Game` for the referee core, replaying a :class:`Script`."""

    def __init__(self, script: Script):
        self._s, self._k, self._g = script, 0, script.game
        self.event_log: list = []
        self._sync()

    def _sync(self) -> None:
        s = self._s
        if self._k < len(s.steps):
            self.to_act, self.phase, self._legal, self._forced, end, _ = s.steps[self._k]
            self.outcome = None
        else:
            self.to_act, self.phase, self._legal, self._forced, end = None, None, [], None, len(s.log)
            self.outcome = self._g.outcome
        log = self.event_log
        if end > len(log):
            log += s.log[len(log):end]

    is_over = property(lambda self: self.outcome is not None)

    def legal_action_ids(self) -> list[int]:
        return self._legal

    def publicly_forced(self) -> int | None:
        return self._forced

    def apply(self, action: int) -> None:
        self._k += 1
        self._sync()

    def __getattr__(self, name):   # table, players, ruleset, scores, deals, record(), full_state(), ...
        return getattr(self._g, name)


class ReplayEncoder(codec.GameEncoder):
    """The request and event bytes of a :class:`ReplayGame`: pre-encoded, with this game's ids spliced in.
    (A subclass: the compiled game run holds its encoder in a GameEncoder slot and calls it by C calls, which
    dispatch to these overrides.)"""

    def __init__(self, game: ReplayGame, game_id: str):
        self.game, self.game_id = game, game_id
        self.gid_field = gid = codec._ld(b"\x0a", game_id.encode())
        s = game._s
        self._events = [gid + b for b in s.events]

    def request_frame(self, seat, request_id, kind, legal, deadline_ms, time_bank_ms) -> bytes:
        req = b"".join((self.gid_field, b"\x10", codec._varint(request_id), self.game._s.steps[self.game._k][5]))
        item = b"\x1a" + _uv(len(req)) + req
        return b"\x0a" + _uv(len(item)) + item

    def event_frame(self, index: int, e: tuple, seat: int | None = None) -> bytes:
        ev = self._events[index]
        item = b"\x12" + _uv(len(ev)) + ev
        return b"\x0a" + _uv(len(item)) + item


def _game(rs, players, seed=0, decks=None, first_dealer=None) -> ReplayGame:
    return ReplayGame(_SCRIPTS[seed % SCRIPTS])


def main() -> None:
    deal_cap = 10
    if "--deal-cap" in sys.argv:
        i = sys.argv.index("--deal-cap")
        deal_cap = int(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    from referee.service.config import Policy
    p = Policy()
    _SCRIPTS.extend(Script(k, deal_cap, p.deadline_ms, p.time_bank_ms) for k in range(SCRIPTS))
    referee.Game = _game
    wire.GameEncoder = ReplayEncoder   # games.py builds each run's encoder through the wire package
    from pepper_cli.referee import app
    app()


if __name__ == "__main__":
    main()
