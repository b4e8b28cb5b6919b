"""Result conversion: the referee's GameResult (protobuf) to the store's typed game and seat rows, and to
the TrueSkill match it stands for."""

from __future__ import annotations

import json
from collections.abc import Mapping

from pepper_proto.v1 import control_pb2, game_pb2

from referee.rules import Table

from .ratings import ranks_from_result
from .store import Faults, GameStatus, NewGame, Seat, SeatStatus

SEAT_STATUS = {game_pb2.SEAT_STATUS_OK: SeatStatus.OK, game_pb2.SEAT_STATUS_FAULTED: SeatStatus.FAULTED,
               game_pb2.SEAT_STATUS_DISCONNECTED: SeatStatus.DISCONNECTED,
               game_pb2.SEAT_STATUS_FORFEITED: SeatStatus.FORFEITED, game_pb2.SEAT_STATUS_ABORTED: SeatStatus.ABORTED}
GAME_STATUS = {game_pb2.GAME_STATUS_COMPLETED: GameStatus.COMPLETED, game_pb2.GAME_STATUS_FORFEITED: GameStatus.FORFEITED,
               game_pb2.GAME_STATUS_ABORTED: GameStatus.ABORTED, game_pb2.GAME_STATUS_RUNNING: GameStatus.RUNNING}


def contracts_by_seat(record: dict, team_of: list[int]) -> list[tuple[int, int]]:
    """(contracts won in the auction, contracts made) per seat, from a finished game record.

    A contract counts as made when the bidding side scored points on the deal
    (made or ceded to it); every ruleset scores a failed contract negative.
    """
    out = [[0, 0] for _ in team_of]
    for d in record.get("deals", []):
        c = d.get("contract")
        if not c:
            continue
        b = c["bidder"]
        out[b][0] += 1
        out[b][1] += d["points"][team_of[b]] > 0
    return [(won, made) for won, made in out]


def faults(f: control_pb2.FaultCounts) -> Faults:
    return Faults(illegal=f.illegal, malformed=f.malformed, timeout=f.timeout, disconnect=f.disconnect)


def new_game(res: control_pb2.GameResult, table: Table, *, run_id: int | None, idx: int | None, pool: str,
             ruleset: str, seed: int, seats: list[str], versions: Mapping[str, int]) -> NewGame:
    """The stored form of a finished game: its seats' rows (each with its team's score when the game ended;
    a forfeited game ends early, and the version of its bot that played) and its record."""
    record = json.loads(res.record_json) if res.record_json else {}
    team_of = list(table.team_of)
    team_scores = list(res.scores) or [0] * table.teams
    winners = set(res.winning_seats)
    contracts = contracts_by_seat(record, team_of)
    rows = tuple(
        Seat(seat=s, bot=seats[s], status=SEAT_STATUS.get(r.status, SeatStatus.UNKNOWN), faults=faults(r.faults),
             score=team_scores[team_of[s]], won=s in winners, contracts_bid=contracts[s][0], contracts_made=contracts[s][1],
             fallbacks=r.fallbacks, decisions=r.decisions, latency_p50_ms=r.latency_p50_ms, latency_p99_ms=r.latency_p99_ms,
             version=versions[seats[s]])
        for s, r in enumerate(res.seats))
    return NewGame(run_id=run_id, idx=idx, pool=pool, ruleset=ruleset, players=len(seats), seed=seed,
                   status=GAME_STATUS.get(res.status, GameStatus.UNKNOWN), duration=res.duration_s, seats=rows, record=record,
                   team_of=tuple(team_of))


def entries(table: Table, seats: list[str]) -> list[list[str]]:
    """The TrueSkill entries of a line-up: a partnership's bots together, or each seat alone."""
    if table.teams < len(seats):
        return [[seats[s] for s in table.team_seats(team)] for team in range(table.teams)]
    return [[b] for b in seats]


def ranks(res: control_pb2.GameResult, table: Table) -> list[int]:
    """The TrueSkill ranks of the entries (see :func:`entries`): winners first, then by score."""
    players = table.players
    team_scores = list(res.scores) or [0] * table.teams
    if table.teams < players:
        won = set(res.winners)
        return ranks_from_result(team_scores, [i in won for i in range(table.teams)])
    winners = set(res.winning_seats)
    return ranks_from_result([team_scores[table.team_of[s]] for s in range(players)], [s in winners for s in range(players)])
