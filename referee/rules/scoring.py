"""Scoring one deal, for callers outside the phase machine.

Each family scores in its own module (``Rules.score`` in :mod:`.families`);
:func:`deal_points` gives a search bot's play-out simulator the same points
from the family's name, so that nothing outside the families knows how a
deal is scored.
"""

from __future__ import annotations

from collections.abc import Sequence

from .families import rules_of

__all__ = ["deal_points", "deal_score"]


def deal_score(family: str, team_of: Sequence[int], teams: int, hand_size: int, bidder: int,
               partner: int | None, tricks_needed: int, points: int | None, alone: bool,
               tricks_won: Sequence[int], ceded: bool = False) -> tuple[bool, list[int]]:
    """(contract made, points per team) of one deal that had a contract (see :func:`deal_points`)."""
    return rules_of(family).score(team_of, teams, hand_size, bidder, partner, tricks_needed, points, alone,
                                  tricks_won, ceded)


def deal_points(family: str, team_of: Sequence[int], teams: int, hand_size: int, bidder: int,
                partner: int | None, tricks_needed: int, points: int | None, alone: bool,
                tricks_won: Sequence[int], ceded: bool = False) -> list[int]:
    """Points per team (per seat in five-handed) for one deal that had a contract.

    ``points`` is the contract's fixed value (None for a bid scored by the
    tricks taken), ``partner`` the five-handed called partner (None when there
    is none or the family has fixed teams), ``ceded`` whether the defence
    conceded the deal before it was played.
    """
    return deal_score(family, team_of, teams, hand_size, bidder, partner, tricks_needed, points, alone,
                      tricks_won, ceded)[1]
