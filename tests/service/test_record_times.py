"""A finished game's record carries each decision's time and where each fault fell, for replays.

``decision_ms`` has one entry per action of the record: the ms its seat spent on it, or null where the
referee played it (a publicly forced move, a fallback after a fault). ``fault_steps`` names the action each
listed fault fell on. The engine's replay ignores both keys.
"""

from __future__ import annotations

import json

from pepper_proto.v1 import control_pb2, game_pb2
from referee_harness import Server

from referee.rules import Game


def test_the_record_times_each_decision_and_places_each_fault(tmp_path):
    s = Server(tmp_path, bots={"ok": "ok-token-times", "bad": "bad-token-times"})
    try:
        s.bot("ok")
        s.bot("bad", "--mode", "illegal", "--after", "5", "--count", "2")
        policy = control_pb2.GamePolicy(play_forced=True)
        ids = [s.create(["ok", "bad", "ok", "bad"], "iowa", deal_cap=2, seed=seed, policy=policy) for seed in range(3)]
        results = s.wait_games(ids, timeout=60)
    finally:
        s.close()
    kinds, referee_played = [], 0
    for res in results.values():
        rec = json.loads(res.record_json)
        times, steps = rec["decision_ms"], rec["fault_steps"]
        assert len(times) == len(rec["actions"]), (len(times), len(rec["actions"]))
        answered = [t for t in times if t is not None]
        assert len(answered) == sum(x.decisions for x in res.seats)        # the bots' own answers, and only those
        assert all(t >= 0 for t in answered)
        referee_played += times.count(None)
        g = Game.from_record(rec)                                           # the engine's replay ignores the keys
        assert g.outcome is not None and len(g.history) == len(times)
        assert len(steps) == len(res.faults)
        for (index, seat, kind), f in zip(steps, res.faults):
            assert (seat, kind) == (f.seat, game_pb2.FaultKind.Name(f.kind).removeprefix("FAULT_KIND_").lower())
            assert times[index] is None and f.fallback_action == rec["actions"][index]   # the fallback played there
            kinds.append(kind)
    assert "illegal" in kinds   # (a loaded machine may add a timeout or two)
    assert referee_played > len(kinds)   # forced moves (a seat's last card) too, not only fallbacks


def test_decision_times_round_to_hundredths_as_round_does():
    """The record's times (float32 ms) go through games._hundredths, a cheaper ``round(t, 2)``: the same doubles,
    ties (exact halves of a hundredth, which float32 can hold) to even included."""
    import random
    from array import array

    from referee.service.games import _hundredths

    rng = random.Random(17)
    times = array("f", [-1.0, 0.0, 0.005, 0.015, 0.125, 0.375, 2.5, 1.005, 10.0, 3e5]
                  + [rng.uniform(0, 50) for _ in range(20_000)] + [rng.randrange(1 << 14) / 64 for _ in range(5_000)])
    want = [None if t < 0 else round(t, 2) for t in times]
    got = _hundredths(times)
    assert got == want
    assert json.dumps(got) == json.dumps(want)
    assert sum(t * 100 % 1 == 0.5 for t in times if t >= 0) > 100   # exact ties were tested
