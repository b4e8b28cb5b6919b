"""One vocabulary of event kinds: the engine's EventKind, the proto's EventKind, the SDK's event words."""

from __future__ import annotations

import random

from pepper_bot.convert import event_to_dict
from pepper_proto.v1 import game_pb2

from referee import wire
from referee.rules import BUILTIN_RULESETS, EventKind, Game


def test_the_wire_mapping_is_a_bijection_with_the_protos_names():
    proto = {n: v for n, v in game_pb2.EventKind.items() if n != "EVENT_KIND_UNSPECIFIED"}
    assert sorted(wire.EVENT_KIND) == sorted(EventKind) and len(set(wire.EVENT_KIND.values())) == len(EventKind)
    assert {f"EVENT_KIND_{k.name}": v for k, v in wire.EVENT_KIND.items()} == proto
    assert all(k.value == k.name.lower() for k in EventKind)


def test_the_sdk_names_every_kind_as_the_engine_does():
    for kind, value in wire.EVENT_KIND.items():
        assert event_to_dict(game_pb2.GameEvent(kind=value))["kind"] == kind.value


def test_the_engine_logs_only_event_kinds():
    seen = set()
    for name in BUILTIN_RULESETS:
        g, rng = Game(name, seed=3), random.Random(3)
        while not g.is_over:
            g.apply(rng.choice(g.legal_action_ids()))
        assert all(type(e.kind) is EventKind for e in g.events)
        seen |= {e.kind for e in g.events}
    assert {EventKind.DEAL, EventKind.HAND, EventKind.PLAY, EventKind.TRICK, EventKind.DEAL_END, EventKind.GAME_OVER} <= seen
