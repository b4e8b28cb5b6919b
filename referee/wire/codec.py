"""The referee's hot path on the wire: protobuf bytes written directly, without message objects.

Batches are assembled from pre-serialized item frames, and :class:`GameEncoder`
writes a game's decision requests and events with per-game and per-deal caches.
The reference conversion (:mod:`.convert`) defines what the bytes must be:
tests/wire/test_wire_fast.py checks them against it for every ruleset.
"""

from __future__ import annotations

from referee.rules import Game, Phase

from .convert import (
    ACTIONS_TEXT,
    CARD_EVENTS,
    CARD_TEXT,
    CARDS_EVENTS,
    EVENT_KIND,
    FLAG_EVENTS,
    STRAIN_TEXT,
    K,
    event_to_proto,
)

# -- pre-serialized batches ---------------------------------------------------
# A Batch is sent as bytes assembled from pre-serialized items, so a public
# event is serialized once however many connections receive it. Protobuf's
# encoding of a message is the concatenation of its fields' encodings, so
#   ConnectResponse{batch: Batch{items: [i1, i2]}}
#   == 0x12 len(body) body,  body = 0x0a len(i1) i1  0x0a len(i2) i2
# which test_wire checks against the protobuf library's own encoding.
ITEM_GAME_START, ITEM_EVENT, ITEM_REQUEST, ITEM_GAME_END, ITEM_NOTICE = 1, 2, 3, 4, 5


def _varint(n: int) -> bytes:
    """The varint encoding of a non-negative int (request ids run into the millions: 3-4 bytes, unrolled)."""
    if n < 0x80:
        return bytes((n,))
    if n < 0x4000:
        return bytes((n & 0x7F | 0x80, n >> 7))
    if n < 0x200000:
        return bytes((n & 0x7F | 0x80, n >> 7 & 0x7F | 0x80, n >> 14))
    if n < 0x10000000:
        return bytes((n & 0x7F | 0x80, n >> 7 & 0x7F | 0x80, n >> 14 & 0x7F | 0x80, n >> 21))
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


# -- fast encoders ------------------------------------------------------------
# The hot path of the referee: one DecisionRequest per decision and a few
# events per game step. Building protobuf objects (SeatView dataclass -> dict ->
# message -> bytes) cost ~100 us per decision; here the same bytes are written
# directly, field by field in field-number order exactly as the protobuf
# library does, and everything that does not change between decisions (the
# seat's header, the deal's bids, the contract, the completed tricks, card and
# action strings) is encoded once and reused. view_to_proto / event_to_proto
# stay the reference: tests/wire/test_wire_fast.py checks, for every ruleset
# at every step of many games, that these bytes equal (and parse to) the
# reference conversion's.
#
# Encoding reminders (proto3): a field is key = varint(number << 3 | wire type)
# then its value; scalars equal to their default are omitted unless the field
# is `optional` (presence); repeated scalars are packed (key, length, varints);
# strings and messages are key, length, bytes; a negative int32 is a 10-byte
# varint of its 64-bit two's complement.

_VARINTS = [_varint(i) for i in range(1 << 14)]   # lengths, indexes and small numbers: no arithmetic


def _uv(n: int) -> bytes:
    """varint of a non-negative int."""
    return _VARINTS[n] if n < 16384 else _varint(n)


def _sv(n: int) -> bytes:
    """varint of an int32 (negative: 64-bit two's complement)."""
    return _uv(n) if n >= 0 else _varint(n + (1 << 64))


def _key(field_number: int, wire_type: int) -> bytes:
    return _varint(field_number << 3 | wire_type)


def _ld(key: bytes, body: bytes) -> bytes:
    """A length-delimited field (string, bytes, message, packed list)."""
    return key + _uv(len(body)) + body


def _packed(key: bytes, values, enc=_uv) -> bytes:
    return _ld(key, b"".join([enc(v) for v in values])) if values else b""


_MAX_SEATS = 8
_CARD_B = [c.encode() for c in CARD_TEXT]
#: SeatView.hand entry (field 9) of each card id.
_HAND_FIELD = [_ld(b"\x4a", c) for c in _CARD_B]
#: The engine's display order of a hand (referee.rules.cards.sort_key): suit, then rank high to low.
_HAND_ORDER = [(c // 6) * 6 + 5 - c % 6 for c in range(len(CARD_TEXT))]
#: SeatView.hand entry of the card at each place of that order: a hand sorts as plain ints, no key function.
_HAND_FIELD_AT = [_HAND_FIELD[_HAND_ORDER.index(o)] for o in range(len(CARD_TEXT))]
#: CardPlay{seat, card} bodies, by seat then card id (seat 0 is the default: omitted).
_PLAY_BODY = [[(b"\x08" + _uv(s) if s else b"") + _ld(b"\x12", c) for c in _CARD_B] for s in range(_MAX_SEATS)]
_VIEW_TRICK_PLAY = [[_ld(_key(16, 2), b) for b in row] for row in _PLAY_BODY]   # SeatView.trick entry
_TRICK_PLAY = [[_ld(b"\x12", b) for b in row] for row in _PLAY_BODY]            # Trick.plays entry
#: DecisionRequest.legal_actions entry (field 6) of each action id.
_LEGAL_FIELD = [_ld(b"\x32", t.encode()) for t in ACTIONS_TEXT]
#: GameEvent.cards entry (field 7) of each card id.
_EVENT_CARD = [_ld(b"\x3a", c) for c in _CARD_B]
_EVENT_ACTION = _LEGAL_FIELD                                        # GameEvent.action is field 6 too
_BID_ACTION = [_ld(b"\x12", t.encode()) for t in ACTIONS_TEXT]     # BidMade.action (field 2)
_STRAIN_B = [s.encode() for s in STRAIN_TEXT]
_K_VIEW_TRICKS, _K_TRICKS_WON, _K_SCORES, _K_PRIVATE = _key(17, 2), _key(18, 2), _key(19, 2), _key(20, 2)
_PRIVATE_FIELDS = (("widow", b"\x0a"), ("gave", b"\x12"), ("received", b"\x1a"), ("discards", b"\x22"))
_EV_KIND = {k: b"\x20" + _uv(v) for k, v in EVENT_KIND.items()}
_FLAG_B = (b"\x50\x00", b"\x50\x01")
#: GameEvent fields 4, 5, 7 of a PLAY event (kind, actor, card), by actor then card.
_PLAY_TAIL = [[_EV_KIND[K.PLAY] + b"\x28" + _uv(s) + _EVENT_CARD[c] for c in range(len(CARD_TEXT))] for s in range(_MAX_SEATS)]
#: GameEvent fields 4 and 5 (kind, actor) of a TRICK event (the actor: its winner) and of a HAND event, by actor.
_TRICK, _HAND = K.TRICK, K.HAND
_TRICK_HEAD = [_EV_KIND[K.TRICK] + b"\x28" + _uv(s) for s in range(_MAX_SEATS)]
_HAND_HEAD = [_EV_KIND[K.HAND] + b"\x28" + _uv(s) for s in range(_MAX_SEATS)]


def _contract_body(c) -> bytes:
    """The Contract message of an engine Contract."""
    return ((b"\x08" + _uv(c.bidder) if c.bidder else b"") + (_ld(b"\x12", c.bid.encode()) if c.bid else b"")
            + (b"" if c.trump is None else _ld(b"\x1a", _STRAIN_B[c.trump])) + (b"\x20\x01" if c.alone else b"")
            + (b"\x28" + _uv(c.tricks_needed) if c.tricks_needed else b""))


def _contract_bytes(c) -> bytes:
    """The SeatView.contract field (11) of an engine Contract."""
    return _ld(b"\x5a", _contract_body(c))


def _deal_result_bytes(d) -> bytes:
    """The GameEvent.deal_result field (13) of an engine DealResult (present even when empty, as CopyFrom sets it)."""
    body = b"".join(((b"\x08" + _uv(d.number) if d.number else b""), (b"\x10" + _uv(d.dealer) if d.dealer else b""),
                     (b"\x18\x01" if d.thrown_in else b""), (b"\x20\x01" if d.ceded else b""),
                     (b"" if d.contract is None else _ld(b"\x2a", _contract_body(d.contract))),
                     (b"" if d.partner is None else b"\x30" + _uv(d.partner)),
                     _packed(b"\x3a", d.tricks), _packed(b"\x42", d.points, _sv), _packed(b"\x4a", d.scores, _sv)))
    return _ld(b"\x6a", body)


def _trick_bytes(leader: int, plays, winner: int) -> bytes:
    """One SeatView.tricks entry (field 17): Trick{leader, plays, winner}."""
    tp = _TRICK_PLAY
    body = ((b"\x08" + _uv(leader) if leader else b"") + b"".join([tp[s][c] for s, c in plays])
            + (b"\x18" + _uv(winner) if winner else b""))
    return _ld(_K_VIEW_TRICKS, body)


def _optional(key: bytes) -> dict:
    """The encodings of an optional seat field (None: absent; 0 is present), by value."""
    d = {s: key + _uv(s) for s in range(_MAX_SEATS)}
    d[None] = b""
    return d


_TO_ACT, _PARTNER, _LEADER = _optional(b"\x40"), _optional(b"\x68"), _optional(b"\x78")
_PARTNER_CARD = {c: _ld(b"\x62", b) for c, b in enumerate(_CARD_B)}
_PARTNER_CARD[None] = b""
_PHASE_FIELD = [b"\x38" + _uv(p) for p in range(max(Phase) + 1)]          # indexed by Phase (an IntEnum) or int
_REQ_SEAT = [b"\x18" + _uv(s) if s else b"" for s in range(_MAX_SEATS)]     # DecisionRequest.seat (0: omitted)
_REQ_KIND = [b"\x20" + _uv(p) for p in range(max(Phase) + 1)]


# What is the same for every game of a kind is encoded once and shared (a game in flight holds only its own
# bytes: docs/security.md, "8."), in caches bounded by clearing them when full.
_FIXED: dict[tuple, tuple[tuple[bytes, ...], bytes]] = {}
_NUMBERS: dict[tuple[int, int], bytes] = {}   # DecisionRequest fields 7-8 (deadline_ms, time_bank_ms), by value


def _fixed_fields(name: str, family: str, target_score: int, players: int, team_of: tuple[int, ...]):
    """(SeatView fields 1-4 per seat: ruleset, players, seat, team_of; fields 21-22: family, target_score), which
    do not change during a game."""
    key = (name, family, target_score, players, team_of)
    got = _FIXED.get(key)
    if got is None:
        if len(_FIXED) > 256:
            _FIXED.clear()
        nb = _ld(b"\x0a", name.encode()) if name else b""
        head = tuple([nb + b"\x10" + _uv(players) + (b"\x18" + _uv(s) if s else b"") + _packed(b"\x22", team_of)
                      for s in range(players)])
        tail = ((_ld(b"\xaa\x01", family.encode()) if family else b"")
                + (b"\xb0\x01" + _sv(target_score) if target_score else b""))
        got = _FIXED[key] = (head, tail)
    return got


class GameEncoder:
    """Wire bytes of one game's decision requests and events, with per-game and per-deal caches.

    Reads the engine through :meth:`Game.view_state` / :attr:`Game.event_log`
    (never copies, never mutates), so it can only send what ``Game.view(seat)``
    and ``Game.events_for(seat)`` would.
    """

    def __init__(self, game: Game, game_id: str):
        self.game = game
        self.game_id = game_id
        self.gid_field = _ld(b"\x0a", game_id.encode())    # field 1 of DecisionRequest and of GameEvent
        t = game.table
        if game.players > _MAX_SEATS:
            raise ValueError(f"at most {_MAX_SEATS} seats are supported, not {game.players}")
        self.head, self.tail_b = _fixed_fields(game.ruleset.name, game.ruleset.family, game.target_score, game.players,
                                               tuple(t.team_of))
        # Public per-deal caches, shared by every seat: extended as the deal goes on, reset with each deal.
        # Only public values are cached; a seat's hand and private cards are encoded afresh for that seat.
        self._deal = -1
        self._deal_b = b""                 # deal, dealer
        self._bids: list[bytes] = []
        self._bids_b = b""
        self._tricks_n = 0
        self._tricks_b = b""
        self._contract = None
        self._contract_b = b""
        self._sitting_out = ()
        self._sitting_out_b = b""
        self._tricks_won: list[int] = []
        self._tricks_won_b = b""
        self._scores: list[int] = []
        self._scores_b = b""

    # -- decision requests -------------------------------------------------
    def view(self, seat: int) -> bytes:
        """The serialized SeatView of ``seat``: equal to ``view_to_proto(game.view(seat)).SerializeToString()``."""
        (deal, dealer, phase, to_act, hand, bids, contract, partner_card, partner, sitting_out, leader,
         trick_seats, trick_cards, tricks, tricks_won, scores, private) = self.game.view_state(seat)
        if deal != self._deal:
            self._deal, self._bids, self._bids_b, self._tricks_n, self._tricks_b = deal, [], b"", 0, b""
            self._deal_b = (b"\x28" + _uv(deal) if deal else b"") + (b"\x30" + _uv(dealer) if dealer else b"")
        if len(bids) != len(self._bids):
            # BidMade{seat, action} entries (field 10), appended as the auction goes on.
            for s, a in bids[len(self._bids):]:
                self._bids.append(_ld(b"\x52", (b"\x08" + _uv(s) if s else b"") + _BID_ACTION[a]))
            self._bids_b = b"".join(self._bids)
        if contract is not self._contract:
            self._contract, self._contract_b = contract, (b"" if contract is None else _contract_bytes(contract))
        if len(tricks) != self._tricks_n:
            self._tricks_b += b"".join([_trick_bytes(ld, plays, w) for ld, plays, w in tricks[self._tricks_n:]])
            self._tricks_n = len(tricks)
        if sitting_out is not self._sitting_out:
            self._sitting_out, self._sitting_out_b = sitting_out, _packed(b"\x72", sitting_out)
        if tricks_won != self._tricks_won:
            self._tricks_won, self._tricks_won_b = list(tricks_won), _packed(_K_TRICKS_WON, tricks_won)
        if scores != self._scores:
            self._scores, self._scores_b = list(scores), _packed(_K_SCORES, scores, _sv)
        ho = _HAND_ORDER
        places = [ho[c] for c in hand]
        places.sort()
        hfa = _HAND_FIELD_AT
        if trick_seats:
            vtp = _VIEW_TRICK_PLAY
            trick = b"".join([vtp[s][c] for s, c in zip(trick_seats, trick_cards)])
        else:
            trick = b""
        out = b"".join((self.head[seat], self._deal_b, _PHASE_FIELD[phase], _TO_ACT[to_act],
                        b"".join([hfa[o] for o in places]), self._bids_b, self._contract_b,
                        _PARTNER_CARD[partner_card], _PARTNER[partner], self._sitting_out_b, _LEADER[leader],
                        trick, self._tricks_b, self._tricks_won_b, self._scores_b))
        if private:
            out += _ld(_K_PRIVATE, b"".join([_ld(key, _CARD_B[c]) for name, key in _PRIVATE_FIELDS
                                             for c in private.get(name, ())]))
        return out + self.tail_b

    def request_frame(self, seat: int, request_id: int, kind: int, legal: list[int], deadline_ms: int,
                      time_bank_ms: int) -> bytes:
        """A Batch item frame holding DecisionRequest{game_id, request_id, seat, kind, view, legal_actions,
        deadline_ms, time_bank_ms} for ``seat`` (see :func:`item_frame`). ``kind``: the engine's Phase."""
        view = self.view(seat)
        nums = _NUMBERS.get((deadline_ms, time_bank_ms))
        if nums is None:
            if len(_NUMBERS) > 4096:
                _NUMBERS.clear()
            nums = _NUMBERS[deadline_ms, time_bank_ms] = (
                (b"\x38" + _uv(deadline_ms) if deadline_ms else b"") + (b"\x40" + _uv(time_bank_ms) if time_bank_ms else b""))
        lf = _LEGAL_FIELD
        req = b"".join((self.gid_field, b"\x10", _varint(request_id), _REQ_SEAT[seat], _REQ_KIND[kind],
                        b"\x2a", _uv(len(view)), view, b"".join([lf[a] for a in legal]), nums))
        item = b"\x1a" + _uv(len(req)) + req
        return b"\x0a" + _uv(len(item)) + item

    # -- events --------------------------------------------------------------
    def event_frame(self, index: int, e: tuple, seat: int | None = None) -> bytes:
        """A Batch item frame holding the GameEvent of log entry ``e`` = (kind, actor, data, visible_to),
        sent to a bot stream (``seat``: the receiving seat of a private event, None for a public one). ``e`` may
        be the engine's compact entry (:meth:`Game.log_entry`): it is then entry ``index`` of this game's log.
        Equal to ``item_frame(ITEM_EVENT, event_to_proto(game_id, index, e, seat=seat).SerializeToString())``."""
        kind, actor, data, _ = e
        if kind == K.PLAY and index:
            # The most common event by far: kind, actor and card come pre-encoded.
            ev = b"".join((self.gid_field, b"" if seat is None else b"\x10" + _uv(seat), b"\x18", _uv(index),
                           _PLAY_TAIL[actor][data]))
            item = b"\x12" + _uv(len(ev)) + ev
            return b"\x0a" + _uv(len(item)) + item
        if (kind is _TRICK or kind is _HAND) and actor is not None:
            # Once a trick, once a seat a deal. The engine's log keeps both compact (an int for data): Game.log_entry
            # fills in the cards (so does it a DEAL_END entry's result, below).
            if type(data) is int:
                data = self.game.log_entry(index)[2]
            ec = _EVENT_CARD
            if kind is _TRICK:
                tail = b"".join([_TRICK_HEAD[actor]] + [ec[c] for c in data[1]] + [b"\x60", _uv(data[0])])
            else:
                tail = b"".join([_HAND_HEAD[actor]] + [ec[c] for c in data])
            ev = b"".join((self.gid_field, b"" if seat is None else b"\x10" + _uv(seat),
                           b"\x18" + _uv(index) if index else b"", tail))
            item = b"\x12" + _uv(len(ev)) + ev
            return b"\x0a" + _uv(len(item)) + item
        k = _EV_KIND.get(kind)
        if k is None or kind == K.GAME_OVER:
            # Rare (once a game) or unknown (the reference raises ValueError): the reference conversion.
            return item_frame(ITEM_EVENT, event_to_proto(self.game_id, index, e, seat=seat).SerializeToString())
        parts = [self.gid_field, b"" if seat is None else b"\x10" + _uv(seat), b"\x18" + _uv(index) if index else b"", k,
                 b"" if actor is None else b"\x28" + _uv(actor)]
        if kind == K.PLAY:
            parts.append(_EVENT_CARD[data])
        elif kind == K.BID:
            parts.append(_EVENT_ACTION[data])
        elif kind == K.TRICK:
            leader, cards = data
            parts.append(b"".join([_EVENT_CARD[c] for c in cards]))
            parts.append(b"\x60" + _uv(leader))
        elif kind == K.DEAL:
            if data:
                parts.append(b"\x58" + _uv(data))
        elif kind in CARDS_EVENTS:
            parts.append(b"".join([_EVENT_CARD[c] for c in data]))
        elif kind in CARD_EVENTS:
            if data is not None:
                parts.append(_EVENT_CARD[data])
        elif kind in FLAG_EVENTS:
            if data is not None:
                parts.append(_FLAG_B[bool(data)])
        elif kind == K.DEAL_END:   # once a deal; the engine's log keeps it compact (an int for data)
            if type(data) is int:
                data = self.game.log_entry(index)[2]
            parts.append(_deal_result_bytes(data))
        elif kind == K.CONTRACT:
            bid, strain = data
            if bid:
                parts.append(_ld(b"\x42", bid.encode()))
            parts.append(_ld(b"\x4a", _STRAIN_B[strain]))
        ev = b"".join(parts)
        item = b"\x12" + _uv(len(ev)) + ev
        return b"\x0a" + _uv(len(item)) + item
