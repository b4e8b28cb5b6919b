"""Twins apart: who the referee seats for a bot in each game of a duplicate block.

A block plays one deck several times with the seats rotated (:mod:`arena.schedule`). A process that played one
game of a block and remembers it (its hand, every card played) would recognize the deck in the next game of that
block by its new hand and know every hand. So the arena registers each bot it launches on the referee under one
identity per rotation, a *lane*, each with its own token and its own processes (containers with ``--sandbox
docker``), and seats rotation k of every block on lane k: no process plays two games of one block. A remote bot
has one identity (its owner's processes, which no harness can reset), and so has every bot of a run without
duplicate deals (one game a block).

A lane's identity is ``_rK.NAME`` (rotation K): the referee's names take a leading ``_``, the arena's bot names
never do, so an identity cannot be another bot's name. Everything the arena stores names the bot itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from referee.rules import Ruleset

from . import schedule

# The referee's longest bot name (referee.service); a lane's identity adds its prefix to the bot's name.
REFEREE_NAME_MAX = 64


def lane_prefix(lane: int) -> str:
    return f"_r{lane}."


def bot_of(identity: str) -> str:
    """The bot an identity on the referee stands for: ``_r1.heuristic`` is ``heuristic`` (what a person is shown)."""
    head, dot, rest = identity.partition(".")
    return rest if dot and head[:2] == "_r" and head[2:].isdigit() else identity


@dataclass(frozen=True)
class Seating:
    """How one run seats its bots on the referee: ``lanes`` identities for each bot of ``apart`` (the bots the arena
    launches), one for the others. ``mirrored``: the run's line-ups are mirrored partnerships (2 rotations a block);
    else a block rotates through every seat."""

    lanes: int = 1
    apart: frozenset[str] = frozenset()
    mirrored: bool = False

    @classmethod
    def of(cls, ruleset: Ruleset, players: int, lineup: str, duplicate: bool, bots: Iterable[str],
           launched: Iterable[str]) -> Seating:
        """The seating of a run of ``bots`` (``launched``: those the arena starts): as many lanes as a block of its
        line-ups has games (1 without duplicate deals)."""
        mirrored = lineup == "mirrored" and schedule.is_partnership(ruleset, players)
        if not duplicate:
            return cls(1, frozenset(), mirrored)
        ups = schedule.lineups(list(bots), ruleset, players, lineup)
        lanes = max(len(schedule.rotations(u, mirrored)) for u in ups)
        return cls(lanes, frozenset(launched) if lanes > 1 else frozenset(), mirrored)

    def identities(self, bot: str) -> list[str]:
        """``bot``'s names on the referee, lane by lane."""
        if bot not in self.apart:
            return [bot]
        return [lane_prefix(k) + bot for k in range(self.lanes)]

    def identity(self, bot: str, lane: int) -> str:
        return lane_prefix(lane) + bot if bot in self.apart else bot

    def lane(self, seats: list[str]) -> int:
        """The lane of a game: its rotation within its block, counted from the line-up's first rotation
        (:func:`arena.schedule.lineup_key`), so every game of a block has a lane of its own."""
        if not self.apart:
            return 0
        first = list(schedule.lineup_key(seats, self.mirrored))
        return schedule.rotations(first, self.mirrored).index(list(seats))

    def seat(self, seats: list[str]) -> list[str]:
        """The referee's names for a game's ``seats`` (bot names): each bot's identity of the game's lane."""
        if not self.apart:
            return list(seats)
        k = self.lane(seats)
        return [self.identity(n, k) for n in seats]

    def too_long(self) -> list[str]:
        """Bots whose lane identities would be longer than the referee takes."""
        return sorted(b for b in self.apart if len(self.identity(b, self.lanes - 1)) > REFEREE_NAME_MAX)


__all__ = ["REFEREE_NAME_MAX", "Seating", "bot_of", "lane_prefix"]
