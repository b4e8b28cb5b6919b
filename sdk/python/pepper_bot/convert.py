"""pepper.v1 messages -> the plain dicts a bot author works with.

Everything a :class:`~pepper_bot.Bot` sees is a dict of strings, ints,
lists and None, so policies can be tested without gRPC and the same policy can
be driven by the rules engine directly (:meth:`referee.rules.SeatView.to_dict`
has the same shape as :func:`view_to_dict`).

Enum values become lowercase words: phases as the engine prints them
(``"bid"``, ``"name-trump"``, ``"give-card"``...), event kinds as the engine
names them (``"deal"``, ``"thrown_in"``, ``"deal_end"``...), statuses as
``"completed"``, ``"forfeited"``, ``"ok"``...
"""

from __future__ import annotations

import json

from pepper_proto.v1 import bot_pb2, game_pb2

__all__ = ["view_to_dict", "request_view", "event_to_dict", "game_start_to_dict", "game_end_to_dict",
           "deal_result_to_dict", "outcome_to_dict", "notice_code", "phase_name"]


def _enum_word(enum, value: int, prefix: str, sep: str) -> str:
    try:
        name = enum.Name(value)
    except ValueError:  # a value from a newer protocol version
        return str(value)
    return name[len(prefix):].lower().replace("_", sep)


def phase_name(value: int) -> str:
    """``PHASE_NAME_TRUMP`` -> ``"name-trump"`` (the engine's ``str(Phase)``)."""
    return _enum_word(game_pb2.Phase, value, "PHASE_", "-")


def notice_code(value: int) -> str:
    """``NOTICE_CODE_ILLEGAL_ACTION`` -> ``"illegal-action"``."""
    return _enum_word(bot_pb2.NoticeCode, value, "NOTICE_CODE_", "-")


def _opt(msg, field: str):
    return getattr(msg, field) if msg.HasField(field) else None


def _contract(c: game_pb2.Contract) -> dict:
    return {"bidder": c.bidder, "bid": c.bid, "trump": c.trump or None, "alone": c.alone, "tricks_needed": c.tricks_needed}


def view_to_dict(v: game_pb2.SeatView) -> dict:
    """A wire SeatView as the dict of :meth:`referee.rules.SeatView.to_dict` (without ``legal_actions``).

    The contract also carries ``tricks_needed``.
    """
    p = v.private_cards
    private = {}
    for k in ("widow", "gave", "received", "discards"):
        xs = list(getattr(p, k))
        if xs:
            private[k] = xs
    return {
        "ruleset": v.ruleset, "family": v.family, "target_score": v.target_score, "players": v.players, "seat": v.seat, "team_of": list(v.team_of),
        "deal": v.deal, "dealer": v.dealer, "phase": phase_name(v.phase), "to_act": _opt(v, "to_act"),
        "hand": list(v.hand), "bids": [[b.seat, b.action] for b in v.bids],
        "contract": _contract(v.contract) if v.HasField("contract") else None,
        "partner_card": v.partner_card or None, "partner": _opt(v, "partner"),
        "sitting_out": list(v.sitting_out), "leader": _opt(v, "leader"),
        "trick": [[c.seat, c.card] for c in v.trick],
        "tricks": [[t.leader, [[c.seat, c.card] for c in t.plays], t.winner] for t in v.tricks],
        "tricks_won": list(v.tricks_won), "scores": list(v.scores), "private": private,
    }


def request_view(r: bot_pb2.DecisionRequest, deadline_ms: int | None = None) -> dict:
    """The view handed to ``Bot.decide``: the seat's view plus the request's facts.

    Added keys: ``legal_actions`` (answer one of these), ``deadline_ms`` (the
    milliseconds this decision may take; ``deadline_ms`` overrides the
    request's own figure: the runner passes what is left of it since it last
    sent answers, from when the referee times it), ``time_bank_ms``,
    ``game_id`` and ``request_id``.
    """
    view = view_to_dict(r.view)
    view["legal_actions"] = list(r.legal_actions)
    view["deadline_ms"] = r.deadline_ms if deadline_ms is None else deadline_ms
    view["time_bank_ms"] = r.time_bank_ms
    view["game_id"] = r.game_id
    view["request_id"] = r.request_id
    return view


def deal_result_to_dict(d: game_pb2.DealResult) -> dict:
    """Like :meth:`referee.rules.DealResult.to_dict`."""
    c = d.contract if d.HasField("contract") else None
    return {
        "number": d.number, "dealer": d.dealer, "thrown_in": d.thrown_in, "ceded": d.ceded,
        "contract": None if c is None else {"bidder": c.bidder, "bid": c.bid, "trump": c.trump or None, "alone": c.alone},
        "partner": _opt(d, "partner"), "tricks": list(d.tricks), "points": list(d.points), "scores": list(d.scores),
    }


def outcome_to_dict(o: game_pb2.Outcome) -> dict:
    """Like :meth:`referee.rules.Outcome.to_dict`."""
    return {"winners": list(o.winners), "winning_seats": list(o.winning_seats), "scores": list(o.scores),
            "deals": o.deals, "reason": o.reason, "draw": o.draw}


def event_to_dict(e: game_pb2.GameEvent) -> dict:
    """A game event. ``kind`` is the engine's event name (``"play"``, ``"trick"``, ``"deal_end"``...);
    ``seat`` is the receiving seat for private events (None for public ones)."""
    return {
        "game_id": e.game_id, "index": e.index,
        "kind": _enum_word(game_pb2.EventKind, e.kind, "EVENT_KIND_", "_"),
        "seat": _opt(e, "seat"), "actor": _opt(e, "actor"), "action": e.action or None, "cards": list(e.cards),
        "bid": e.bid or None, "strain": e.strain or None, "flag": _opt(e, "flag"), "deal": e.deal or None,
        "leader": _opt(e, "leader"),
        "deal_result": deal_result_to_dict(e.deal_result) if e.HasField("deal_result") else None,
        "outcome": outcome_to_dict(e.outcome) if e.HasField("outcome") else None,
    }


def game_start_to_dict(g: bot_pb2.GameStart) -> dict:
    """What ``Bot.on_game_start`` receives: the game, the seat, the ruleset and the table."""
    r = g.ruleset
    try:
        params = json.loads(r.params_json) if r.params_json else {}
    except ValueError:
        params = {}
    return {
        "game_id": g.game_id, "seat": g.seat, "players": g.players,
        "ruleset": {"name": r.name, "family": r.family, "target_score": r.target_score, "deal_cap": r.deal_cap,
                    "hand_size": r.hand_size, "params": params},
        "table": [{"seat": t.seat, "bot_name": t.bot_name, "team": t.team} for t in g.table],
        "deadline_ms": g.deadline_ms, "time_bank_ms": g.time_bank_ms,
    }


def game_end_to_dict(g: bot_pb2.GameEnd) -> dict:
    """What ``Bot.on_game_end`` receives. ``status``: completed, forfeited or aborted."""
    return {
        "game_id": g.game_id, "seat": g.seat,
        "status": _enum_word(game_pb2.GameStatus, g.status, "GAME_STATUS_", "-"),
        "outcome": outcome_to_dict(g.outcome) if g.HasField("outcome") else None,
        "reason": g.reason,
        "seat_status": _enum_word(game_pb2.SeatStatus, g.seat_status, "SEAT_STATUS_", "-"),
    }


# Keys a ruleset file (and so ruleset_from_dict) accepts.
