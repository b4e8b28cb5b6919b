"""Engine <-> protocol conversion (referee.wire), without a server."""

from __future__ import annotations

import random

import pytest
from google.protobuf import json_format
from pepper_proto.v1 import bot_pb2, game_pb2

from referee import wire
from referee.rules import BUILTIN_RULESETS, CARDS, Action, Game

CASES = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]


def play(name, n, seed, steps=None):
    g = Game(name, n, seed=seed)
    rng = random.Random(seed)
    k = 0
    while not g.is_over and (steps is None or k < steps):
        ids = g.legal_action_ids()
        g.apply(ids[rng.randrange(len(ids))])
        k += 1
    return g


@pytest.mark.parametrize("name,players", CASES)
def test_views_convert_field_by_field(name, players):
    g = Game(name, players, seed=3)
    rng = random.Random(3)
    for _ in range(300):
        if g.is_over:
            break
        v = g.view(g.to_act)
        d = v.to_dict()
        m = json_format.MessageToDict(wire.view_to_proto(v), preserving_proto_field_name=True,
                                      always_print_fields_with_no_presence=True)
        assert m["hand"] == d["hand"] and m["seat"] == d["seat"] and m["deal"] == d["deal"]
        assert [[b["seat"], b["action"]] for b in m["bids"]] == d["bids"]
        assert [[p["seat"], p["card"]] for p in m["trick"]] == d["trick"]
        assert [[t["leader"], [[p["seat"], p["card"]] for p in t["plays"]], t["winner"]] for t in m["tricks"]] == d["tricks"]
        assert m["tricks_won"] == d["tricks_won"] and m["scores"] == d["scores"] and m["team_of"] == d["team_of"]
        assert m["phase"] == "PHASE_" + d["phase"].upper().replace("-", "_")
        assert m.get("to_act") == d["to_act"] and m.get("leader") == d["leader"] and m.get("partner") == d["partner"]
        if d["contract"]:
            assert {k: m["contract"][k] for k in ("bidder", "bid", "alone")} == {k: d["contract"][k] for k in ("bidder", "bid", "alone")}
            assert m["contract"]["trump"] == (d["contract"]["trump"] or "")
        for k, cards in d["private"].items():
            assert m["private_cards"][k if k != "discards" else "discards"] == cards
        ids = g.legal_action_ids()
        g.apply(ids[rng.randrange(len(ids))])


def test_every_event_kind_converts():
    seen = set()
    for name, n in CASES:
        g = play(name, n, seed=5)
        for i, e in enumerate(g.events):
            m = wire.event_to_proto("g", i, e, seat=e.visible_to if e.visible_to >= 0 else None)
            seen.add(e.kind)
            assert m.index == i and m.kind != game_pb2.EVENT_KIND_UNSPECIFIED
            if e.kind == "play":
                assert list(m.cards) == [str(CARDS[e.data])]
            if e.kind == "hand":
                assert len(m.cards) == len(e.data) and m.seat == e.seat
            if e.kind == "game_over":
                assert list(m.outcome.scores) == list(e.data.scores)
            if e.kind == "deal_end":
                assert m.deal_result.number == e.data.number
    assert {"deal", "hand", "bid", "contract", "play", "trick", "deal_end", "game_over"} <= seen
    with pytest.raises(ValueError, match="no pepper.v1 encoding"):
        wire.event_to_proto("g", 0, ("brand_new_kind", None, None, -1))


def test_answers_resolve_only_to_listed_legal_actions():
    legal = [a for a in Game("iowa", 4, seed=1).legal_action_ids()]
    texts = [wire.ACTIONS_TEXT[a] for a in legal]
    assert wire.resolve_answer(bot_pb2.Answer(request_id=1, action_index=1), legal, texts) == legal[1]
    assert wire.resolve_answer(bot_pb2.Answer(request_id=1, action="  BID   3 "), legal, texts) == Action.parse("bid 3")
    for ans, kind, words in [
        (bot_pb2.Answer(request_id=1, action_index=len(legal)), "malformed", "out of range"),
        (bot_pb2.Answer(request_id=1), "malformed", "names no action"),
        (bot_pb2.Answer(request_id=1, action="bid eleventy"), "malformed", "not an action"),
        (bot_pb2.Answer(request_id=1, action="play JH"), "illegal", "not a legal action"),
    ]:
        with pytest.raises(wire.AnswerError, match=words) as e:
            wire.resolve_answer(ans, legal, texts)
        assert e.value.kind == kind


def test_protocol_versions():
    assert wire.protocol_compatible("1.0") and wire.protocol_compatible("1.9")
    assert not wire.protocol_compatible("2.0") and not wire.protocol_compatible("") and not wire.protocol_compatible("banana")


def test_hand_assembled_batches_equal_the_library_encoding():
    g = play("five-handed", 5, seed=2, steps=40)
    req = bot_pb2.DecisionRequest(game_id="g", request_id=2**40, seat=g.to_act, kind=int(g.phase),
                                  view=wire.view_to_proto(g.view(g.to_act)), legal_actions=wire.legal_texts(g),
                                  deadline_ms=100, time_bank_ms=5)
    evs = [wire.event_to_proto("g", i, e) for i, e in enumerate(g.events)][:200]
    note = bot_pb2.Notice(code=bot_pb2.NOTICE_CODE_ILLEGAL_ACTION, request_id=7, message="x" * 300)
    frames = [wire.item_frame(wire.ITEM_EVENT, e.SerializeToString()) for e in evs]
    frames += [wire.item_frame(wire.ITEM_REQUEST, req.SerializeToString()), wire.item_frame(wire.ITEM_NOTICE, note.SerializeToString())]
    want = bot_pb2.ConnectResponse(batch=bot_pb2.Batch(items=[bot_pb2.BatchItem(event=e) for e in evs]
                                                       + [bot_pb2.BatchItem(request=req), bot_pb2.BatchItem(notice=note)]))
    got = wire.batch_response(frames)
    assert bot_pb2.ConnectResponse.FromString(got) == want
    assert got == want.SerializeToString()
    assert wire.serialize_response(got) is got
