"""bench/referee_floor.py replays games byte for byte: its floor measures the service, not a cheaper protocol."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from referee import wire
from referee.rules import Game, ruleset_from_dict
from referee.rules.game import PUBLIC

_spec = importlib.util.spec_from_file_location("referee_floor", Path(__file__).resolve().parents[2] / "bench" / "referee_floor.py")
floor = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(floor)


@pytest.mark.parametrize("seed", [0, 7])
def test_the_replay_sends_the_bytes_the_real_encoder_sends(seed):
    script = floor.Script(seed, 10, 2000, 10_000)
    replay = floor.ReplayGame(script)
    renc = floor.ReplayEncoder(replay, "g42")
    game = Game(ruleset_from_dict({"extends": "iowa", "name": "iowa-custom", "deal_cap": 10}), 4, seed=seed)
    enc = wire.GameEncoder(game, "g42")
    rng = random.Random(seed)   # the script's own choices, so both games take the same path
    steps = 0
    while not game.is_over:
        assert not replay.is_over
        legal = list(game.legal_action_ids())
        assert (replay.to_act, replay.legal_action_ids(), replay.publicly_forced()) == (game.to_act, legal, game.publicly_forced())
        rid = 1_000_000 + steps
        assert renc.request_frame(game.to_act, rid, replay.phase, legal, 2000, 10_000) == \
            enc.request_frame(game.to_act, rid, game.phase, legal, 2000, 10_000)
        a = rng.choice(legal)
        game.apply(a)
        replay.apply(a)
        steps += 1
    assert replay.is_over and replay.outcome == game.outcome and steps > 50
    assert replay.event_log == game.event_log
    for i, e in enumerate(game.event_log):
        seat = None if e[3] == PUBLIC else e[3]
        assert renc.event_frame(i, e, seat) == enc.event_frame(i, e, seat)
