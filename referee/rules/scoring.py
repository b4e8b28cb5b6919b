"""Scoring one deal: the single source of every family's deal points.

:meth:`Game._score_deal <referee.rules.game.Game>` calls it, and so can a
search bot's play-out simulator, so that nothing outside this module knows
how a deal is scored.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["deal_points"]


def deal_points(family: str, team_of: Sequence[int], teams: int, hand_size: int, bidder: int,
                partner: int | None, tricks_needed: int, points: int | None, alone: bool,
                tricks_won: Sequence[int], ceded: bool = False) -> list[int]:
    """Points per team (per seat in five-handed) for one deal that had a contract.

    ``points`` is the contract's fixed value (None for a bid scored by the
    tricks taken), ``partner`` the five-handed called partner (None when there
    is none or the family has fixed teams), ``ceded`` whether the defence
    conceded the deal before it was played.
    """
    n = len(team_of)
    pts = [0] * teams
    if family == "five-handed":
        side_tricks = tricks_won[bidder] + (tricks_won[partner] if partner is not None else 0)
        def_tricks = hand_size - side_tricks
        if alone:
            made = tricks_won[bidder] >= tricks_needed
            for s in range(n):
                pts[s] = (points if made else -points) if s == bidder else (0 if made else def_tricks)
        else:
            made = side_tricks >= tricks_needed
            for s in range(n):
                pts[s] = (side_tricks if made else -tricks_needed) if s in (bidder, partner) else def_tricks
        return pts
    bt = team_of[bidder]
    if ceded:
        # Ceded: the bidding team scores its bid's value (6 for a trick-count bid); defenders nothing.
        pts[bt] = points if points is not None else hand_size
        return pts
    team_tricks = [0] * teams
    for s in range(n):
        team_tricks[team_of[s]] += tricks_won[s]
    if team_tricks[bt] >= tricks_needed:
        pts[bt] = points if points is not None else team_tricks[bt]
    elif points is not None:
        pts[bt] = -points
    elif family == "bid-euchre":
        pts[bt] = -tricks_needed       # euchred: lose the number bid
    else:
        pts[bt] = -hand_size           # iowa -6; pepper-30 -6 (4p) or -8 (2-3p)
    for team in range(teams):
        if team != bt:
            # iowa: defenders taking no trick lose 6.
            pts[team] = -hand_size if (family == "iowa" and team_tricks[team] == 0) else team_tricks[team]
    return pts
