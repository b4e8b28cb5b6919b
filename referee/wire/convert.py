"""Reference conversion between the rules engine and the pepper.v1 messages, and reading bot answers.

The engine's values (:class:`~referee.rules.SeatView`, :class:`~referee.rules.Event`,
action ids) become messages field by field, adding nothing: what a seat receives is
exactly what :meth:`Game.view` / :meth:`Game.events_for` gave. The fast encoder
(:mod:`.codec`) is checked against these functions.
"""

from __future__ import annotations

import json

from pepper_proto import PROTOCOL_VERSION
from pepper_proto.v1 import bot_pb2, game_pb2

from referee.rules import ACTIONS, CARDS, Action, EventKind, Game, Phase, Ruleset, SeatView, Strain
from referee.rules.rulesets import Table

CARD_TEXT = [str(c) for c in CARDS]
#: The canonical text of every action id.
ACTIONS_TEXT = [str(a) for a in ACTIONS]
STRAIN_TEXT = [str(s) for s in Strain]

_PHASE = {p: int(p) for p in Phase}  # Phase numbers match the proto enum values by design
assert all(game_pb2.Phase.Name(v) == "PHASE_" + p.name for p, v in _PHASE.items())
assert all(game_pb2.DecisionKind.Name(int(p)) == "DECISION_KIND_" + p.name for p in Phase if p is not Phase.GAME_OVER)

#: The engine's event kinds -> the proto's: EventKind.GAVE_CARD is EVENT_KIND_GAVE_CARD (a kind the proto lacks
#: fails at import; tests/wire/test_event_kinds.py checks the converse, so the two lists stay one vocabulary).
EVENT_KIND = {k: game_pb2.EventKind.Value("EVENT_KIND_" + k.name) for k in EventKind}
K = EventKind
CARDS_EVENTS = {K.HAND, K.WIDOW}                                                      # data: a tuple of cards
CARD_EVENTS = {K.GAVE_CARD, K.RECEIVED_CARD, K.DISCARDED_CARD, K.PLAY, K.PARTNER, K.PARTNER_CARD}  # data: a card
FLAG_EVENTS = {K.EXCHANGE, K.GIVE, K.CEDE}                                            # data: bool or None


def decision_kind(phase: Phase) -> int:
    """The DecisionKind enum value of an engine phase (GAME_OVER is not a decision)."""
    if phase is Phase.GAME_OVER:
        raise ValueError("the game is over: there is no decision")
    return int(phase)


def contract_to_proto(c) -> game_pb2.Contract:
    return game_pb2.Contract(bidder=c.bidder, bid=c.bid, trump="" if c.trump is None else STRAIN_TEXT[c.trump],
                             alone=c.alone, tricks_needed=c.tricks_needed)


def view_to_proto(v: SeatView) -> game_pb2.SeatView:
    """A SeatView message holding exactly the engine's view of one seat."""
    p = v.private
    return game_pb2.SeatView(
        ruleset=v.ruleset, players=v.players, seat=v.seat, team_of=v.team_of, deal=v.deal, dealer=v.dealer,
        phase=int(v.phase), to_act=v.to_act, hand=[CARD_TEXT[c] for c in v.hand],
        bids=[game_pb2.BidMade(seat=s, action=b) for s, b in v.bids],
        contract=None if v.contract is None else contract_to_proto(v.contract),
        partner_card="" if v.partner_card is None else CARD_TEXT[v.partner_card], partner=v.partner,
        sitting_out=v.sitting_out, leader=v.leader,
        trick=[game_pb2.CardPlay(seat=s, card=CARD_TEXT[c]) for s, c in v.trick],
        tricks=[game_pb2.Trick(leader=ld, plays=[game_pb2.CardPlay(seat=s, card=CARD_TEXT[c]) for s, c in plays], winner=w)
                for ld, plays, w in v.tricks],
        tricks_won=v.tricks_won, scores=v.scores,
        private_cards=game_pb2.PrivateCards(
            widow=[CARD_TEXT[c] for c in p.get("widow", ())], gave=[CARD_TEXT[c] for c in p.get("gave", ())],
            received=[CARD_TEXT[c] for c in p.get("received", ())], discards=[CARD_TEXT[c] for c in p.get("discards", ())],
        ) if p else None,
        family=v.family, target_score=v.target_score,
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
        k = EVENT_KIND[kind]
    except KeyError:
        raise ValueError(f"event kind {kind!r} has no pepper.v1 encoding") from None
    m = game_pb2.GameEvent(game_id=game_id, seat=seat, index=index, kind=k, actor=actor)
    if spectator and vis >= 0:
        m.visible_to = vis
    if kind == K.PLAY:
        m.cards.append(CARD_TEXT[data])
    elif kind == K.BID:
        m.action = str(ACTIONS[data])
    elif kind == K.TRICK:
        leader, cards = data
        m.leader = leader
        m.cards.extend(CARD_TEXT[c] for c in cards)
    elif kind == K.DEAL:
        m.deal = data
    elif kind in CARDS_EVENTS:
        m.cards.extend(CARD_TEXT[c] for c in data)
    elif kind in CARD_EVENTS:
        if data is not None:
            m.cards.append(CARD_TEXT[data])
    elif kind in FLAG_EVENTS:
        if data is not None:
            m.flag = bool(data)
    elif kind == K.CONTRACT:
        m.bid, m.strain = data[0], STRAIN_TEXT[data[1]]
    elif kind == K.DEAL_END:
        m.deal_result.CopyFrom(deal_result_to_proto(data))
    elif kind == K.GAME_OVER:
        m.outcome.CopyFrom(outcome_to_proto(data))
    return m


def ruleset_info(rs: Ruleset, table: Table, target_score: int | None = None, deal_cap: int | None = None) -> bot_pb2.RulesetInfo:
    """The ruleset as a game plays it (a game may set its own target and deal cap: ``Game(target_score=...)``)."""
    d = rs.to_dict()
    d.pop("source", None)
    return bot_pb2.RulesetInfo(name=rs.name, family=rs.family, target_score=rs.target_score if target_score is None else target_score,
                               deal_cap=rs.deal_cap if deal_cap is None else deal_cap,
                               hand_size=table.hand_size, params_json=json.dumps(d, sort_keys=True))


class AnswerError(ValueError):
    """A bot's answer could not be accepted. ``kind`` is "malformed" or "illegal" (a FaultKind's value)."""

    def __init__(self, kind: str, message: str):
        self.kind = kind
        super().__init__(message)


#: Canonical action text -> action id: a bot that echoes a legal string (the normal case) is
#: resolved by one dict lookup; anything else goes through the tolerant parser.
_ACTION_ID = {t: a for a, t in enumerate(ACTIONS_TEXT)}
assert len(_ACTION_ID) == len(ACTIONS_TEXT), "action texts must be unique"


def resolve_answer(ans: bot_pb2.Answer, legal: list[int], legal_text: list[str] | None = None) -> int:
    """The action id a bot's answer names, if it is one of ``legal``; else AnswerError.

    ``legal_text`` is the list as sent in the request (only needed for the
    error messages; derived from ``legal`` when not given).
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
    a = _ACTION_ID.get(text)
    if a is None:   # not canonical text: case, spacing, or not an action at all
        try:
            a = int(Action.parse(text))
        except ValueError as e:
            raise AnswerError("malformed", f"{e}; legal: {', '.join(_texts(legal, legal_text))}") from None
    if a not in legal:
        raise AnswerError("illegal", f"{ACTIONS_TEXT[a]} is not a legal action here; legal: {', '.join(_texts(legal, legal_text))}")
    return a


def _texts(legal: list[int], legal_text: list[str] | None) -> list[str]:
    return legal_text if legal_text is not None else [ACTIONS_TEXT[a] for a in legal]


def protocol_compatible(version: str) -> bool:
    """True when a bot's protocol version has this referee's major number."""
    major = version.strip().split(".", 1)[0]
    return major == PROTOCOL_VERSION.split(".", 1)[0]


#: The decision kinds whose legal actions name cards. The wire lists them in the deck's order (suits S, H, D, C;
#: ranks 9, 10, J, Q, K, A; "give none" last), whatever order the engine keeps a hand in, so that the order is
#: part of the protocol (docs/protocol.md, "Decision kinds and their legal actions") and "the first legal
#: action", the fallback, does not depend on how the cards were dealt.
CARD_PHASES = frozenset({Phase.PLAY, Phase.GIVE_CARD, Phase.DISCARD})


def legal_ids(game: Game) -> list[int]:
    """The legal action ids of the seat to act, in the order the wire lists them."""
    ids = game.legal_action_ids()
    return sorted(ids) if game.phase in CARD_PHASES else list(ids)


def legal_texts(game: Game) -> list[str]:
    """DecisionRequest.legal_actions of the seat to act."""
    return [str(ACTIONS[i]) for i in legal_ids(game)]
