"""The referee's fast wire encoders (referee.wire.GameEncoder) against the reference conversion.

The referee encodes decision requests and events straight from the engine's
state, with per-deal caches. ``Game.view(seat)`` -> ``view_to_proto`` and
``Game.events_for(seat)`` -> ``event_to_proto`` stay the reference: for every
ruleset and player count, at every step of many games, every seat's encoded
view and every event must parse to exactly the reference message (and, since
both write fields in number order, be the same bytes).
"""

from __future__ import annotations

import os
import random

import pytest
from pepper_proto.v1 import bot_pb2, game_pb2

from referee import wire
from referee.rules import ACTIONS, BUILTIN_RULESETS, Action, Event, Game, ruleset_from_dict
from referee.rules.game import PUBLIC

CASES = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]
GAMES = int(os.environ.get("PEPPER_WIRE_GAMES", "30"))
DEAL_CAP = 3   # short games, so that many games (many deals, dealers, contracts) fit in the time


def reference_request(g: Game, gid: str, seat: int, rid: int, deadline_ms: int, bank_ms: int) -> bot_pb2.DecisionRequest:
    return bot_pb2.DecisionRequest(game_id=gid, request_id=rid, seat=seat, kind=int(g.phase),
                                   view=wire.view_to_proto(g.view(seat)), legal_actions=wire.legal_texts(g),
                                   deadline_ms=deadline_ms, time_bank_ms=bank_ms)


def unframe(frame: bytes) -> bot_pb2.BatchItem:
    """The one BatchItem of an item frame."""
    items = bot_pb2.Batch.FromString(frame).items
    assert len(items) == 1
    return items[0]


@pytest.mark.parametrize("name,players", CASES)
def test_fast_views_and_events_equal_the_reference_at_every_step(name, players):
    rs = ruleset_from_dict({"extends": name, "name": f"{name}-short", "deal_cap": DEAL_CAP})
    for seed in range(GAMES):
        g = Game(rs, players, seed=seed)
        gid = f"game-{name}-{seed}"
        enc = wire.GameEncoder(g, gid)
        rng = random.Random(seed)
        sent = 0
        step = 0
        while True:
            # Every seat's view, not only the seat to act: the caches are shared by the seats.
            for s in range(players):
                want = wire.view_to_proto(g.view(s))
                got = enc.view(s)
                assert game_pb2.SeatView.FromString(got) == want, (name, players, seed, step, s)
                assert got == want.SerializeToString()
            # The events logged since the last step, as each receiving seat gets them.
            for i in range(sent, g.event_count):
                e = Event._make(g.log_entry(i))
                seat = None if e.visible_to == PUBLIC else e.visible_to
                want = wire.event_to_proto(gid, i, e, seat=seat)
                got = enc.event_frame(i, g.event_log[i], seat)   # the log's entry, compact or not, as the referee sends it
                assert enc.event_frame(i, tuple(e), seat) == got     # and the same entry filled in
                item = unframe(got)
                assert item.WhichOneof("item") == "event" and item.event == want, (name, players, seed, i, e.kind)
                assert got == wire.item_frame(wire.ITEM_EVENT, want.SerializeToString())
            sent = g.event_count
            if g.is_over:
                break
            # The whole request item, with large and zero values where the encoding changes.
            s = g.to_act
            rid = rng.choice([1, 127, 128, 16383, 16384, 2**21 + 5, 2**35 + 7])
            bank = rng.choice([0, 1, 9999, 10_000, 123_456])
            want = reference_request(g, gid, s, rid, 2000, bank)
            got = enc.request_frame(s, rid, g.phase, wire.legal_ids(g), 2000, bank)
            item = unframe(got)
            assert item.WhichOneof("item") == "request" and item.request == want
            assert got == wire.item_frame(wire.ITEM_REQUEST, want.SerializeToString())
            ids = g.legal_action_ids()
            g.apply(ids[rng.randrange(len(ids))])
            step += 1


def test_negative_scores_and_every_seat_number():
    # Scores go negative (a 10-byte varint); seat 0 and "no value" differ for optional fields.
    for seed in range(40):
        g = Game("iowa", 4, seed=seed)
        rng = random.Random(seed)
        enc = wire.GameEncoder(g, "g")
        while not g.is_over:
            ids = g.legal_action_ids()
            g.apply(ids[rng.randrange(len(ids))])
            if not g.is_over and min(g.scores) < 0:
                for s in range(4):
                    assert enc.view(s) == wire.view_to_proto(g.view(s)).SerializeToString()
                return
    pytest.fail("no game with a negative score")


def test_a_games_own_target_score_reaches_the_view_in_both_encoders():
    # Game(target_score=...): the fast encoder reads the game's target, not the ruleset's.
    g = Game("iowa", 4, seed=1, target_score=17, scores=[5, -3])
    enc = wire.GameEncoder(g, "g")
    for s in range(4):
        got = game_pb2.SeatView.FromString(enc.view(s))
        assert got.target_score == 17 and list(got.scores) == [5, -3]
        assert enc.view(s) == wire.view_to_proto(g.view(s)).SerializeToString()


def test_canonical_answer_texts_resolve_like_the_parser():
    # The fast path (a dict of canonical texts) must agree with Action.parse for every action.
    for a, text in enumerate(wire.ACTIONS_TEXT):
        assert int(Action.parse(text)) == a == int(ACTIONS[a])
        assert wire.resolve_answer(bot_pb2.Answer(request_id=1, action=text), [a]) == a
        with pytest.raises(wire.AnswerError) as e:
            wire.resolve_answer(bot_pb2.Answer(request_id=1, action=text), [x for x in (0, 1, 2) if x != a][:2])
        assert e.value.kind == "illegal"
    # Non-canonical spellings still go through the tolerant parser.
    legal = Game("iowa", 4, seed=1).legal_action_ids()
    assert wire.resolve_answer(bot_pb2.Answer(request_id=1, action="  PASS "), legal) == int(Action.parse("pass"))
