"""What a check is made of: the games it plays (:class:`GameSpec`), what came back (:class:`Played`), its verdict."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from referee.rules import GameStatus

if TYPE_CHECKING:
    from pepper_proto.v1 import control_pb2

    from .house import House

BOT = "bot"   # a seat played by the bot under test (any other seat holds a House script)


class Status(Enum):
    PENDING = "pending"
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"


def variant(base: str, tag: str, deal_cap: int = 1, **fields) -> dict:
    """A short ruleset derived from a built-in one (``ruleset_json``), named for the check that plays it."""
    return {"extends": base, "name": f"{base}-check-{tag}", "deal_cap": deal_cap, **fields}


@dataclass
class GameSpec:
    ruleset: dict                    # ruleset_json object
    players: int
    seats: list[str | House]         # BOT or a House, per seat
    seed: int
    decks: list[list[str]] | None = None
    first_dealer: int | None = None
    policy: dict[str, str] | None = None   # GamePolicy fields, e.g. {"on_malformed": "forfeit"}
    expect: GameStatus = GameStatus.COMPLETED   # how it must end (the game-end check makes a seat forfeit or abort)
    game_id: str = ""                # a suffix until build_checks makes it unique

    @property
    def bot_seats(self) -> list[int]:
        return [s for s, x in enumerate(self.seats) if x == BOT]


@dataclass
class Played:
    """One finished (or stalled) game: the referee's result and the facts replayed from its record."""

    spec: GameSpec
    result: control_pb2.GameResult
    steps: list[tuple[int, int, str, str]] = field(default_factory=list)   # (deal, seat, phase, action) per decision
    first_legal: list[str] = field(default_factory=list)                   # per step: legal_actions[0] as sent
    deals: list[dict] = field(default_factory=list)                        # per-deal facts from the replayed events
    full_state: dict = field(default_factory=dict)
    replay_error: str = ""

    @property
    def status(self) -> str:
        from pepper_proto.v1 import game_pb2

        return game_pb2.GameStatus.Name(self.result.status).removeprefix("GAME_STATUS_").lower()


# A check's own verifier: from its finished games to (problems, notes).
Verifier = Callable[[list[Played]], tuple[list[str], list[str]]]


@dataclass
class Check:
    name: str
    rounds: list[list[GameSpec]]     # rounds run one after another; a round's games run at once
    verify: Verifier | None = None
    wave: int = 1
    what: str = ""                   # one line: what it exercises
    status: Status = Status.PENDING
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    played: list[Played] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def games(self) -> list[GameSpec]:
        return [g for r in self.rounds for g in r]

    def done(self, status: Status, reason: str) -> Check:
        self.status, self.reason = status, reason
        return self
