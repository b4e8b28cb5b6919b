"""Plain-text rendering of games: the lines ``pepper replay`` prints, for any front end to reuse.

Functions return strings or lists of lines (standard library only, no terminal
styling), so a command line, a log or a web page can show a game the same way::

    from referee.rules import Game
    from referee.rules.text import game_lines, result_line
    g = Game.from_record(record)
    print("\\n".join(game_lines(g)))
    print(result_line(g))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .actions import ACTIONS
from .cards import CARDS, Strain
from .game import EventKind, Game
from .rulesets import Table
from .status import SeatStatus

__all__ = ["side", "scores", "outcome_line", "result_line", "unfinished_line", "game_lines", "ended_early_line"]

# The seat statuses (as a results store keeps them) that say a seat left the game early.
EARLY_LEAVERS = (SeatStatus.FORFEITED, SeatStatus.DISCONNECTED)


def side(t: Table, team: int, seats: bool = True) -> str:
    """How to name a scoring side: a seat when everyone scores alone, else a team (and its seats)."""
    if t.teams == t.players:
        return f"seat {team}"
    return f"team {team} (seats {', '.join(map(str, t.team_seats(team)))})" if seats else f"team {team}"


def scores(t: Table, values: Iterable[int], sign: str = "") -> str:
    """``team 0 12, team 1 -4`` (``sign="+"``: ``team 0 +12``), one value per scoring side."""
    return ", ".join(f"{side(t, i, seats=False)} {v:{sign}d}" for i, v in enumerate(values))


def _winners(t: Table, teams: Sequence[int]) -> str:
    return " and ".join(side(t, w) for w in teams) + (" win" if len(teams) > 1 else " wins")


def outcome_line(g: Game) -> str:
    """Who won a finished game, after how many deals and why, and the final scores."""
    o, t = g.outcome, g.table
    why = "target reached" if o.reason == "target" else "deal cap reached"
    who = "draw" if o.draw else _winners(t, o.winners)
    return f"{who} after {o.deals} deals ({why}); final scores: {scores(t, o.scores)}"


def result_line(g: Game, checked: bool = False) -> str:
    """``Result: ...`` for a finished game (``checked``: the record's own outcome was compared and matches)."""
    return f"Result: {outcome_line(g)}" + (" (matches the record)" if checked else "")


def unfinished_line(g: Game) -> str:
    """Where an unfinished game stands."""
    return f"Unfinished: {len(g.history)} actions replayed; deal {g.deal_number} awaits seat {g.to_act} ({g.phase})"


def ended_early_line(g: Game, status: str, seat_status: Sequence[str], bots: Sequence[str],
                     faults: Sequence[Mapping[str, int]], winning_seats: Iterable[int], seat_scores: Sequence[int]) -> str:
    """How a game stopped before its end (a forfeit, or aborted by the referee), from what a results store kept.

    ``seat_status``, ``bots``, ``faults`` (kind -> count) and ``seat_scores`` are per seat;
    ``winning_seats`` are the seats of the winning sides.
    """
    t = g.table
    who = []
    for s, st in enumerate(seat_status):
        if st in EARLY_LEAVERS:
            kinds = ", ".join(f"{k} {n}" for k, n in faults[s].items() if n)
            who.append(f"seat {s} ({bots[s]}) {st}" + (f", faults: {kinds}" if kinds else ""))
    winners = sorted({t.team_of[s] for s in winning_seats})
    won = _winners(t, winners) if winners else "no winner"
    team_scores = [seat_scores[t.team_seats(i)[0]] for i in range(t.teams)]
    return (f"Ended: {status} during deal {g.deal_number}" + (f": {'; '.join(who)}" if who else "")
            + f". {won[0].upper()}{won[1:]}; scores when it ended: {scores(t, team_scores)}")


def _cards(xs: Iterable[int]) -> str:
    return " ".join(str(CARDS[c]) for c in xs)


def game_lines(g: Game, hands: bool = False) -> list[str]:
    """The game deal by deal: bids, contract, exchanges, tricks (``seat:card`` in playing order) and points.

    ``hands``: also every hand as dealt (private information: for a finished game's review).
    """
    t, rs = g.table, g.ruleset
    out = [f"Game: {rs.name}, {g.players} players, seed {g.seed}, first dealer seat {g.first_dealer}, "
           f"{len(g.history)} actions. Tricks list seat:card in playing order."]
    if t.teams < t.players:
        out.append("Teams: " + "; ".join(side(t, i) for i in range(t.teams)))
    bids: list[str] = []
    trick: list[str] = []
    tricks = 0
    for kind, seat, data, _visible in g.events:
        if bids and kind != EventKind.BID:
            out.append("  bids: " + ", ".join(bids))
            bids = []
        if kind == EventKind.DEAL:
            tricks = 0
            out += ["", f"Deal {data}, dealer seat {seat}"]
        elif kind == EventKind.HAND and hands:
            out.append(f"  hand of seat {seat}: {_cards(data)}")
        elif kind == EventKind.BID:
            bids.append(f"seat {seat} {ACTIONS[data]}")
        elif kind == EventKind.THROWN_IN:
            out.append("  thrown in: everyone passed")
        elif kind == EventKind.CONTRACT:
            out.append(f"  contract: seat {seat} bid {data[0]} in {Strain(data[1])}")
        elif kind == EventKind.WIDOW:
            out.append(f"  seat {seat} takes the widow: {_cards(data)}")
        elif kind == EventKind.EXCHANGE:
            out.append(f"  seat {seat} {'asks for an exchange' if data else 'plays as dealt'}")
        elif kind == EventKind.GIVE and data is False:
            out.append(f"  seat {seat} gives no card")
        elif kind == EventKind.GAVE_CARD:
            out.append(f"  seat {seat} gives {CARDS[data]}")
        elif kind == EventKind.DISCARDED_CARD:
            out.append(f"  seat {seat} discards {CARDS[data]}")
        elif kind == EventKind.CEDE:
            out.append(f"  seat {seat} {'cedes' if data else 'plays'}")
        elif kind == EventKind.CEDED:
            out.append("  the defenders cede the deal")
        elif kind == EventKind.PARTNER_CARD:
            out.append("  partner card: " + ("none (nobody else holds a qualifying card)" if data is None else str(CARDS[data])))
        elif kind == EventKind.PARTNER:
            out.append(f"  seat {seat} plays {CARDS[data]} and is the partner")
        elif kind == EventKind.PLAY:
            trick.append(f"{seat}:{CARDS[data]}")
        elif kind == EventKind.TRICK:
            tricks += 1
            out.append(f"  trick {tricks}: {' '.join(trick)} -> seat {seat}")
            trick = []
        elif kind == EventKind.DEAL_END:
            if data.contract is not None and not data.ceded:
                out.append("  tricks won: " + ", ".join(f"seat {s} {n}" for s, n in enumerate(data.tricks)))
            out.append(f"  points: {scores(t, data.points, '+')}; scores: {scores(t, data.scores)}")
    if bids:
        out.append("  bids: " + ", ".join(bids))
    if trick:
        out.append(f"  trick {tricks + 1} so far: {' '.join(trick)}")
    return out
