"""How a game and each of its seats ended when played under a referee.

The words of the protocol's ``GameStatus`` and ``SeatStatus`` (``GAME_STATUS_FORFEITED`` is
``"forfeited"``), shared by the referee, the arena's store and the checker, so that each
status is spelled in one place. The rules engine itself never needs them: a game it plays
alone always completes.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["GameStatus", "SeatStatus"]


class GameStatus(StrEnum):
    """How a game stands or ended."""

    RUNNING = "running"
    COMPLETED = "completed"      # played to its outcome
    FORFEITED = "forfeited"      # a seat's team lost it by a fault (the failure policy said forfeit)
    ABORTED = "aborted"          # ended without a result
    UNKNOWN = "unknown"          # a value this code does not know (the protocol's UNSPECIFIED, or a newer peer's)


class SeatStatus(StrEnum):
    """How a seat ended its game; it only ever gets worse (:meth:`worst`)."""

    OK = "ok"
    FAULTED = "faulted"          # it had faults, and the referee played fallbacks for it
    DISCONNECTED = "disconnected"
    FORFEITED = "forfeited"
    ABORTED = "aborted"
    UNKNOWN = "unknown"          # as GameStatus.UNKNOWN

    def worst(self, other: SeatStatus) -> SeatStatus:
        """The worse of the two (a later status of equal rank wins: forfeited and aborted tie)."""
        return other if _RANK[other] >= _RANK[self] else self


_RANK = {SeatStatus.UNKNOWN: 0, SeatStatus.OK: 0, SeatStatus.FAULTED: 1, SeatStatus.DISCONNECTED: 2,
         SeatStatus.FORFEITED: 3, SeatStatus.ABORTED: 3}
