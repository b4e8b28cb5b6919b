"""The referee's messages built from plain values, and control requests read into plain values.

The service (:mod:`referee.service`) says what happened in its own words
(statuses, fault kinds and verdicts as lowercase words, the values of its
enums) and plain tuples; this module alone turns them into pepper.v1 messages.
Words map to enum values by the proto's own names (``"forfeited"`` is
``GAME_STATUS_FORFEITED``), so the two vocabularies cannot drift apart unseen:
an unknown word is a KeyError at once.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from google.protobuf import json_format
from pepper_proto import PROTOCOL_VERSION
from pepper_proto.v1 import bot_pb2, control_pb2, game_pb2

from referee.rules import Game, Ruleset

from .codec import ITEM_GAME_END, ITEM_GAME_START, ITEM_NOTICE, item_frame
from .convert import event_to_proto, outcome_to_proto, ruleset_info


def _words(enum, prefix: str) -> dict[str, int]:
    """``{"forfeited": GAME_STATUS_FORFEITED, ...}``: an enum's values by their names' lowercase tails."""
    return {name.removeprefix(prefix).lower(): value for name, value in enum.items() if value}


GAME_STATUS = _words(game_pb2.GameStatus, "GAME_STATUS_")
SEAT_STATUS = _words(game_pb2.SeatStatus, "SEAT_STATUS_")
FAULT_KIND = _words(game_pb2.FaultKind, "FAULT_KIND_")
FAILURE_POLICY = _words(game_pb2.FailurePolicy, "FAILURE_POLICY_")
NOTICE_CODE = _words(bot_pb2.NoticeCode, "NOTICE_CODE_")
_FALLBACK_WORD = {v: k for k, v in _words(bot_pb2.StrategyFallback, "STRATEGY_FALLBACK_").items()}
_POLICY_WORD = {v: k for k, v in FAILURE_POLICY.items()}
_STATUS_WORD = {v: k for k, v in GAME_STATUS.items()}
#: The notice a bot gets for its own fault (a disconnect has no one to tell).
_FAULT_NOTICE = {"illegal": NOTICE_CODE["illegal_action"], "malformed": NOTICE_CODE["malformed_answer"],
                 "timeout": NOTICE_CODE["timeout"]}


#: What a notice may quote of a bot's bytes (a game id, an answer), in characters: game ids are at most 64, and the
#: longest action text is far shorter. A notice's message as a whole is cut at NOTICE_MESSAGE_LIMIT (it lists the
#: legal actions, at most a few hundred characters). Without these, echoing a 1 MiB game id queued 2 MiB per answer.
QUOTE_LIMIT = 64
NOTICE_MESSAGE_LIMIT = 1024


def fallback_name(value: int) -> str:
    """``STRATEGY_FALLBACK_RAISED`` -> ``"raised"`` (an unknown value from a newer bot: its number)."""
    return _FALLBACK_WORD.get(value, str(value))


# -- plain values in ----------------------------------------------------------
class FaultInfo(NamedTuple):
    """One fault, as the service records it."""

    seat: int
    kind: str                 # a FAULT_KIND word
    request_id: int           # 0: no request (a disconnect between decisions)
    deal: int
    detail: str
    policy: str               # a FAILURE_POLICY word: what was done
    fallback_action: str      # the action played for the seat, "" if none


class SeatInfo(NamedTuple):
    seat: int
    bot_name: str
    connection_id: str
    status: str               # a SEAT_STATUS word
    faults: dict[str, int]    # FAULT_KIND word -> count
    decisions: int
    latency_p50_ms: float
    latency_p99_ms: float
    latency_max_ms: float
    time_bank_left_ms: int
    fallbacks: int
    fallback_details: list[str]


class GameInfo(NamedTuple):
    """A game's result. ``seed``, ``record_json`` and ``full_state_json`` are only given once it is over."""

    game_id: str
    status: str               # a GAME_STATUS word
    ruleset: str
    players: int
    seats: list[SeatInfo]
    scores: list[int]
    winners: tuple[int, ...]
    winning_seats: tuple[int, ...]
    draw: bool
    reason: str
    deals: int
    duration_s: float
    faults: list[FaultInfo]
    decisions: int
    seed: int | None = None
    record_json: str = ""
    full_state_json: str = ""


class TimeControl(NamedTuple):
    """One seat's time controls from a CreateGameRequest; None: the game's."""

    deadline_ms: int | None = None
    time_bank_ms: int | None = None


class GameRequest(NamedTuple):
    """A CreateGameRequest in plain values."""

    game_id: str
    ruleset_source: str       # "ruleset" (a built-in name), "ruleset_toml" or "ruleset_json"
    ruleset_text: str         # the name, or the file's text
    players: int              # 0: the ruleset's default
    seats: list[str]
    seed: int | None
    decks: list[list[str]] | None
    first_dealer: int | None
    policy: dict              # Policy field -> value, only the fields the request sets
    seat_time_controls: list[TimeControl]   # per seat, or empty: the game's policy for every seat


# -- bot stream items -----------------------------------------------------------
def welcome(connection_id: str, max_batch: int) -> bot_pb2.ConnectResponse:
    return bot_pb2.ConnectResponse(welcome=bot_pb2.Welcome(
        protocol_version=PROTOCOL_VERSION, connection_id=connection_id, max_batch=max_batch))


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` (a bot's bytes, to be echoed) cut to ``limit`` characters, marked when cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}...[{len(text) - limit} more characters]"


def _notice(code: int, request_id: int, game_id: str, message: str, fallback_action: str) -> bytes:
    # Whatever a caller quotes, a notice stays small (docs/security.md, "3.").
    return item_frame(ITEM_NOTICE, bot_pb2.Notice(
        code=code, request_id=request_id, game_id=quote(game_id), message=quote(message, NOTICE_MESSAGE_LIMIT),
        fallback_action=quote(fallback_action)).SerializeToString())


def notice_frame(code: str, request_id: int, game_id: str, message: str, fallback_action: str = "") -> bytes:
    """A Batch item frame holding a Notice; ``code``: a NOTICE_CODE word (``"stale_request"``...)."""
    return _notice(NOTICE_CODE[code], request_id, game_id, message, fallback_action)


def fault_notice_frame(kind: str, request_id: int, game_id: str, message: str, fallback_action: str) -> bytes:
    """The Notice telling a bot of its own fault of ``kind`` (illegal, malformed or timeout)."""
    return _notice(_FAULT_NOTICE[kind], request_id, game_id, message, fallback_action)


def game_start_frames(game_id: str, game: Game, rs: Ruleset, bot_names: list[str], deadline_ms: list[int],
                      time_bank_ms: list[int]) -> list[bytes]:
    """The GameStart item frame of each seat (index = seat); ``bot_names``: who sits where; ``deadline_ms`` and
    ``time_bank_ms``: each seat's time controls."""
    info = ruleset_info(rs, game.table, game.target_score, game.deal_cap)
    team_of = game.table.team_of
    table = [bot_pb2.TableSeat(seat=s, bot_name=n, team=team_of[s]) for s, n in enumerate(bot_names)]
    return [item_frame(ITEM_GAME_START, bot_pb2.GameStart(
        game_id=game_id, seat=s, ruleset=info, players=len(bot_names), table=table, deadline_ms=deadline_ms[s],
        time_bank_ms=time_bank_ms[s]).SerializeToString()) for s in range(len(bot_names))]


def outcome(status: str, game: Game, winners: tuple[int, ...], winning_seats: tuple[int, ...]) -> game_pb2.Outcome | None:
    """The Outcome of a finished game: the engine's when completed, the forfeit's, or None (aborted)."""
    if status == "completed":
        return outcome_to_proto(game.outcome)
    if status == "forfeited":
        return game_pb2.Outcome(winners=winners, winning_seats=winning_seats, scores=game.scores,
                                deals=len(game.deals), reason="forfeit", draw=False)
    return None


def game_end_frame(game_id: str, seat: int, status: str, outcome_msg: game_pb2.Outcome | None, reason: str,
                   seat_status: str) -> bytes:
    return item_frame(ITEM_GAME_END, bot_pb2.GameEnd(
        game_id=game_id, seat=seat, status=GAME_STATUS[status], outcome=outcome_msg, reason=reason,
        seat_status=SEAT_STATUS[seat_status]).SerializeToString())


# -- control ----------------------------------------------------------------------
def bot_info(name: str, connections: int, active_seats: int, suspect: int = 0) -> control_pb2.BotInfo:
    return control_pb2.BotInfo(name=name, connections=connections, active_seats=active_seats,
                               suspect_connections=suspect)


def fault(f: FaultInfo) -> control_pb2.Fault:
    return control_pb2.Fault(seat=f.seat, kind=FAULT_KIND[f.kind], request_id=f.request_id, deal=f.deal,
                             detail=f.detail, policy=FAILURE_POLICY[f.policy], fallback_action=f.fallback_action)


def seat_result(s: SeatInfo) -> control_pb2.SeatResult:
    return control_pb2.SeatResult(
        seat=s.seat, bot_name=s.bot_name, connection_id=s.connection_id, status=SEAT_STATUS[s.status],
        faults=control_pb2.FaultCounts(**s.faults), decisions=s.decisions, latency_p50_ms=s.latency_p50_ms,
        latency_p99_ms=s.latency_p99_ms, latency_max_ms=s.latency_max_ms, time_bank_left_ms=s.time_bank_left_ms,
        fallbacks=s.fallbacks, fallback_details=s.fallback_details)


def game_result(r: GameInfo) -> control_pb2.GameResult:
    m = control_pb2.GameResult(
        game_id=r.game_id, status=GAME_STATUS[r.status], ruleset=r.ruleset, players=r.players,
        seats=[seat_result(s) for s in r.seats], scores=r.scores, winners=r.winners, winning_seats=r.winning_seats,
        draw=r.draw, reason=r.reason, deals=r.deals, duration_s=r.duration_s, faults=[fault(f) for f in r.faults],
        decisions=r.decisions, record_json=r.record_json, full_state_json=r.full_state_json)
    if r.seed is not None:
        m.seed = r.seed
    return m


def game_status_word(value: int) -> str | None:
    """The word of a GameStatus value (None for UNSPECIFIED or a value from a newer protocol)."""
    return _STATUS_WORD.get(value)


def watch_event(game_id: str, index: int, e, *, spectator: bool = False) -> control_pb2.WatchGameResponse:
    return control_pb2.WatchGameResponse(event=event_to_proto(game_id, index, e, spectator=spectator))


def watch_result(r: GameInfo) -> control_pb2.WatchGameResponse:
    return control_pb2.WatchGameResponse(result=game_result(r))


def record_file(r: GameInfo, record: dict) -> str:
    """The JSON text of a game's record file: its result (as in GetGame, keys as in the proto) and its record.

    Every seat lists its ``fallbacks`` and ``fallback_details`` even when there are none, so a reader can
    tell "no fallbacks" from "a referee older than protocol 1.2".
    """
    res = json_format.MessageToDict(game_result(r), preserving_proto_field_name=True)
    for seat, info in zip(res.get("seats", ()), r.seats):
        seat["fallbacks"] = info.fallbacks
        seat["fallback_details"] = list(info.fallback_details)
    res["record"] = record
    return json.dumps(res)


def result_from_dict(res: dict) -> control_pb2.GameResult:
    """A record file's result (record_file without its "record") as a GameResult."""
    return json_format.ParseDict(res, control_pb2.GameResult(), ignore_unknown_fields=True)


def bad_enum(message, prefix: str = "") -> str | None:
    """What is wrong with the first enum field of a request (nested messages included) that holds a value its enum
    does not define (proto3 keeps such values as plain numbers), naming the field: ``"policy.on_illegal: 99 is not
    a FailurePolicy value (allowed: ...)"``; None when every one is defined."""
    for fd, value in message.ListFields():
        path = prefix + fd.name
        repeated = fd.is_repeated
        items = list(value) if repeated else [value]
        for i, v in enumerate(items):
            where = f"{path}[{i}]" if repeated else path
            if fd.enum_type is not None and v not in fd.enum_type.values_by_number:
                allowed = ", ".join(e.name for e in fd.enum_type.values)
                return f"{where}: {v} is not a {fd.enum_type.name} value (allowed: {allowed})"
            if fd.message_type is not None:
                err = bad_enum(v, where + ".")
                if err:
                    return err
    return None


def game_request(req: control_pb2.CreateGameRequest) -> GameRequest:
    """Read a CreateGameRequest; a policy's failure policies become words (``"forfeit"``)."""
    src = req.WhichOneof("ruleset_source") or "ruleset"
    policy: dict = {}
    if req.HasField("policy"):
        p = req.policy
        for kind in FAULT_KIND:
            v = getattr(p, f"on_{kind}")
            if v:
                policy[f"on_{kind}"] = _POLICY_WORD[v]
        for k in ("deadline_ms", "time_bank_ms", "max_faults", "play_forced"):
            if p.HasField(k):
                policy[k] = getattr(p, k)
    return GameRequest(
        game_id=req.game_id, ruleset_source=src, ruleset_text=getattr(req, src), players=req.players,
        seats=list(req.seats), seed=req.seed if req.HasField("seed") else None,
        decks=[list(d.cards) for d in req.decks] or None,
        first_dealer=req.first_dealer if req.HasField("first_dealer") else None, policy=policy,
        seat_time_controls=[TimeControl(t.deadline_ms if t.HasField("deadline_ms") else None,
                                        t.time_bank_ms if t.HasField("time_bank_ms") else None)
                            for t in req.seat_time_controls])
