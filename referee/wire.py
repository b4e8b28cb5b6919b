"""Conversion between the rules engine and the pepper.v1 protocol messages.

This module is the only place that knows both sides: the engine's values
(:class:`~referee.rules.SeatView`, :class:`~referee.rules.Event`, action ids)
and the generated protobuf classes in :mod:`referee.gen`. It adds no
information: a view or an event is converted field by field, so what a seat
receives is exactly what :meth:`Game.view` / :meth:`Game.events_for` gave.

Layering: ``referee.rules`` (stdlib) <- this module <- ``referee.service``.
"""

from __future__ import annotations

import json

from referee.gen.pepper.v1 import bot_pb2, control_pb2, game_pb2
from referee.rules import ACTIONS, CARDS, Action, Game, Phase, Ruleset, SeatView, Strain
from referee.rules.rulesets import Table

__all__ = [
    "PROTOCOL_VERSION", "bot_pb2", "control_pb2", "game_pb2", "AnswerError", "decision_kind", "view_to_proto",
    "event_to_proto", "deal_result_to_proto", "outcome_to_proto", "contract_to_proto", "ruleset_info",
    "resolve_answer", "protocol_compatible", "ACTIONS_TEXT",
]

#: The protocol version this referee speaks. Same major number = compatible.
PROTOCOL_VERSION = "1.0"

_CARD = [str(c) for c in CARDS]
#: The canonical text of every action id.
ACTIONS_TEXT = [str(a) for a in ACTIONS]
_STRAIN = [str(s) for s in Strain]

_PHASE = {p: int(p) for p in Phase}  # Phase numbers match the proto enum values by design
assert all(game_pb2.Phase.Name(v) == "PHASE_" + p.name for p, v in _PHASE.items())
assert all(game_pb2.DecisionKind.Name(int(p)) == "DECISION_KIND_" + p.name for p in Phase if p is not Phase.GAME_OVER)

_EVENT_KIND = {
    "deal": game_pb2.EVENT_KIND_DEAL, "hand": game_pb2.EVENT_KIND_HAND, "bid": game_pb2.EVENT_KIND_BID,
    "contract": game_pb2.EVENT_KIND_CONTRACT, "thrown_in": game_pb2.EVENT_KIND_THROWN_IN,
    "widow": game_pb2.EVENT_KIND_WIDOW, "exchange": game_pb2.EVENT_KIND_EXCHANGE, "give": game_pb2.EVENT_KIND_GIVE,
    "gave_card": game_pb2.EVENT_KIND_GAVE_CARD, "received_card": game_pb2.EVENT_KIND_RECEIVED_CARD,
    "discard": game_pb2.EVENT_KIND_DISCARD, "discarded_card": game_pb2.EVENT_KIND_DISCARDED_CARD,
    "cede": game_pb2.EVENT_KIND_CEDE, "ceded": game_pb2.EVENT_KIND_CEDED, "play": game_pb2.EVENT_KIND_PLAY,
    "trick": game_pb2.EVENT_KIND_TRICK, "partner_card": game_pb2.EVENT_KIND_PARTNER_CARD,
    "partner": game_pb2.EVENT_KIND_PARTNER, "deal_end": game_pb2.EVENT_KIND_DEAL_END,
    "game_over": game_pb2.EVENT_KIND_GAME_OVER,
}
_CARDS_EVENTS = {"hand", "widow"}                                      # data: a tuple of cards
_CARD_EVENTS = {"gave_card", "received_card", "discarded_card", "play", "partner", "partner_card"}  # data: a card
_FLAG_EVENTS = {"exchange", "give", "cede"}                            # data: bool or None


def decision_kind(phase: Phase) -> int:
    """The DecisionKind enum value of an engine phase (GAME_OVER is not a decision)."""
    if phase is Phase.GAME_OVER:
        raise ValueError("the game is over: there is no decision")
    return int(phase)


def contract_to_proto(c) -> game_pb2.Contract:
    return game_pb2.Contract(bidder=c.bidder, bid=c.bid, trump="" if c.trump is None else _STRAIN[c.trump],
                             alone=c.alone, tricks_needed=c.tricks_needed)


def view_to_proto(v: SeatView) -> game_pb2.SeatView:
    """A SeatView message holding exactly the engine's view of one seat."""
    p = v.private
    return game_pb2.SeatView(
        ruleset=v.ruleset, players=v.players, seat=v.seat, team_of=v.team_of, deal=v.deal, dealer=v.dealer,
        phase=int(v.phase), to_act=v.to_act, hand=[_CARD[c] for c in v.hand],
        bids=[game_pb2.BidMade(seat=s, action=b) for s, b in v.bids],
        contract=None if v.contract is None else contract_to_proto(v.contract),
        partner_card="" if v.partner_card is None else _CARD[v.partner_card], partner=v.partner,
        sitting_out=v.sitting_out, leader=v.leader,
        trick=[game_pb2.CardPlay(seat=s, card=_CARD[c]) for s, c in v.trick],
        tricks=[game_pb2.Trick(leader=ld, plays=[game_pb2.CardPlay(seat=s, card=_CARD[c]) for s, c in plays], winner=w)
                for ld, plays, w in v.tricks],
        tricks_won=v.tricks_won, scores=v.scores,
        private_cards=game_pb2.PrivateCards(
            widow=[_CARD[c] for c in p.get("widow", ())], gave=[_CARD[c] for c in p.get("gave", ())],
            received=[_CARD[c] for c in p.get("received", ())], discards=[_CARD[c] for c in p.get("discards", ())],
        ) if p else None,
    )


def deal_result_to_proto(d) -> game_pb2.DealResult:
    return game_pb2.DealResult(
        number=d.number, dealer=d.dealer, thrown_in=d.thrown_in, ceded=d.ceded,
        contract=None if d.contract is None else contract_to_proto(d.contract), partner=d.partner,
        tricks=d.tricks, points=d.points, scores=d.scores)


def outcome_to_proto(o) -> game_pb2.Outcome:
    return game_pb2.Outcome(winners=o.winners, winning_seats=o.winning_seats, scores=o.scores, deals=o.deals,
                            reason=o.reason, draw=o.draw)


def event_to_proto(game_id: str, index: int, e, *, seat: int | None = None, spectator: bool = False) -> game_pb2.GameEvent:
    """One engine event as a GameEvent. ``seat``: the receiving seat (bot streams).

    ``spectator``: set ``visible_to`` for private events (only used once the game is over).
    Raises ValueError for an event kind this protocol version does not know, so
    an engine change cannot silently leak or drop data.
    """
    kind, actor, data, vis = e
    try:
        k = _EVENT_KIND[kind]
    except KeyError:
        raise ValueError(f"event kind {kind!r} has no pepper.v1 encoding") from None
    m = game_pb2.GameEvent(game_id=game_id, seat=seat, index=index, kind=k, actor=actor)
    if spectator and vis >= 0:
        m.visible_to = vis
    if kind == "play":
        m.cards.append(_CARD[data])
    elif kind == "bid":
        m.action = str(ACTIONS[data])
    elif kind == "trick":
        leader, cards = data
        m.leader = leader
        m.cards.extend(_CARD[c] for c in cards)
    elif kind == "deal":
        m.deal = data
    elif kind in _CARDS_EVENTS:
        m.cards.extend(_CARD[c] for c in data)
    elif kind in _CARD_EVENTS:
        if data is not None:
            m.cards.append(_CARD[data])
    elif kind in _FLAG_EVENTS:
        if data is not None:
            m.flag = bool(data)
    elif kind == "contract":
        m.bid, m.strain = data[0], _STRAIN[data[1]]
    elif kind == "deal_end":
        m.deal_result.CopyFrom(deal_result_to_proto(data))
    elif kind == "game_over":
        m.outcome.CopyFrom(outcome_to_proto(data))
    return m


def ruleset_info(rs: Ruleset, table: Table) -> bot_pb2.RulesetInfo:
    d = rs.to_dict()
    d.pop("source", None)
    return bot_pb2.RulesetInfo(name=rs.name, family=rs.family, target_score=rs.target_score, deal_cap=rs.deal_cap,
                               hand_size=table.hand_size, params_json=json.dumps(d, sort_keys=True))


class AnswerError(ValueError):
    """A bot's answer could not be accepted. ``kind`` is "malformed" or "illegal"."""

    def __init__(self, kind: str, message: str):
        self.kind = kind
        super().__init__(message)


def resolve_answer(ans: bot_pb2.Answer, legal: list[int], legal_text: list[str]) -> int:
    """The action id a bot's answer names, if it is one of ``legal``; else AnswerError.

    ``legal_text`` is the list as sent in the request (for indexes and messages).
    """
    which = ans.WhichOneof("choice")
    if which == "action_index":
        i = ans.action_index
        if i >= len(legal):
            raise AnswerError("malformed", f"action_index {i} is out of range: the request listed {len(legal)} legal actions (0..{len(legal) - 1})")
        return legal[i]
    if which is None:
        raise AnswerError("malformed", "the answer names no action (set action or action_index)")
    text = ans.action
    try:
        a = Action.parse(text)
    except ValueError as e:
        raise AnswerError("malformed", f"{e}; legal: {', '.join(legal_text)}") from None
    if a not in legal:
        raise AnswerError("illegal", f"{a} is not a legal action here; legal: {', '.join(legal_text)}")
    return int(a)


def protocol_compatible(version: str) -> bool:
    """True when a bot's protocol version has this referee's major number."""
    major = version.strip().split(".", 1)[0]
    return major == PROTOCOL_VERSION.split(".", 1)[0]


def legal_texts(game: Game) -> list[str]:
    return [str(ACTIONS[i]) for i in game.legal_action_ids()]


# -- pre-serialized batches ---------------------------------------------------
# A Batch is sent as bytes assembled from pre-serialized items, so a public
# event is serialized once however many connections receive it. Protobuf's
# encoding of a message is the concatenation of its fields' encodings, so
#   ConnectResponse{batch: Batch{items: [i1, i2]}}
#   == 0x12 len(body) body,  body = 0x0a len(i1) i1  0x0a len(i2) i2
# which test_wire checks against the protobuf library's own encoding.
ITEM_GAME_START, ITEM_EVENT, ITEM_REQUEST, ITEM_GAME_END, ITEM_NOTICE = 1, 2, 3, 4, 5


def _varint(n: int) -> bytes:
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def item_frame(field_number: int, payload: bytes) -> bytes:
    """The encoding of one ``Batch.items`` entry holding ``payload`` (a serialized oneof member)."""
    item = bytes(((field_number << 3) | 2,)) + _varint(len(payload)) + payload
    return b"\x0a" + _varint(len(item)) + item


def batch_response(frames) -> bytes:
    """A serialized ConnectResponse{batch} from item frames."""
    body = b"".join(frames)
    return b"\x12" + _varint(len(body)) + body


def serialize_response(m) -> bytes:
    """Response serializer of the Connect stream: bytes pass through, messages are serialized."""
    return m if type(m) is bytes else m.SerializeToString()
