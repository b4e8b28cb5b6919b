"""Case 1 of docs/security.md: messages that carry no work (empty AnswerBatches) cannot saturate the referee.

A real `pepper referee serve` on 127.0.0.1, four lean bots playing 200 games at once (bench/lean_bot.py), and
attacking processes (flooder.py): each phase's figure is the median over seats of their p99 decision latency,
measured by the referee. Before the budget (main at 4d16b4c), one connection's burst was never dropped and
slowed the other games several times over (docs/security.md gives the figures).
"""

from __future__ import annotations

from attack_harness import Referee, attack_result, p99
from pepper_proto.v1 import control_pb2, game_pb2

GAMES, DEALS = 200, 3
#: Decision latencies here are a few ms: on a shared machine the scheduler alone moves them by about that much.
NOISE_MS = 2.0


def _figures(base: list[float], during: list[float]) -> tuple[float, float]:
    b, d = p99(base), p99(during)
    print(f"p99 decision latency, median over seats: baseline {b:.1f} ms, under attack {d:.1f} ms")
    return b, d


def test_a_burst_of_empty_answer_batches_is_dropped_and_its_seat_faulted(tmp_path):
    with Referee(tmp_path) as ref:
        ref.lean_bots(4)
        base = ref.play(GAMES, DEALS)
        # 400,000 empty AnswerBatches, as fast as one connection can send them, once its game has started.
        flood = ref.attacker("--count", "400000", "--seconds", "8", "--delay", "1")
        ref.wait_connections("attacker", 1)
        victim = ref.control.CreateGame(control_pb2.CreateGameRequest(
            seats=["attacker", "lean", "lean", "lean"], players=4, ruleset="iowa"), metadata=ref.md).game_id
        during = ref.play(GAMES, DEALS)
        out = attack_result(flood)
        res = ref.control.WaitGame(control_pb2.WaitGameRequest(game_id=victim), metadata=ref.md, timeout=60).result
    b, d = _figures(base, during)
    (conn,) = out["connections"]
    assert conn["notices"].get("NOTICE_CODE_RATE_LIMITED") == 1, conn
    assert conn["end"] == "OK", conn   # the referee ended the stream, after the notice
    # The dropped connection's seat gets the disconnect policy (forfeit by default), as a lost connection would.
    assert res.status == game_pb2.GAME_STATUS_FORFEITED, res.reason
    (fault,) = [f for f in res.faults if f.seat == 0]
    assert fault.kind == game_pb2.FAULT_KIND_DISCONNECT and "no answer" in fault.detail, fault
    assert d <= 2 * b + NOISE_MS, (b, d)


def test_two_steady_streams_of_empty_batches_are_dropped_and_barred(tmp_path):
    with Referee(tmp_path) as ref:
        ref.lean_bots(4)
        base = ref.play(GAMES, DEALS)
        # Two clients, 13,000 empty batches a second each, reconnecting at once whenever dropped.
        floods = [ref.attacker("--rate", "13000", "--seconds", "6", "--reconnect") for _ in range(2)]
        during = ref.play(GAMES, DEALS)
        outs = [attack_result(f) for f in floods]
    b, d = _figures(base, during)
    for out in outs:
        conns = out["connections"]
        assert any(c["notices"].get("NOTICE_CODE_RATE_LIMITED") for c in conns), conns[:3]
        # Reconnecting does not refill the budget: the bot is refused for a while (IDLE_PENALTY_S). (Not
        # necessarily its last connection: on a slow machine the flood may end just after a later drop.)
        first = next(i for i, c in enumerate(conns) if c["notices"].get("NOTICE_CODE_RATE_LIMITED"))
        assert any(c["end"] == "RESOURCE_EXHAUSTED" for c in conns[first + 1:]), conns[first:first + 3]
        print(f"attacker: {len(conns)} connections, {sum(c['sent'] for c in conns)} messages sent")
    assert d <= 2 * b + NOISE_MS, (b, d)
