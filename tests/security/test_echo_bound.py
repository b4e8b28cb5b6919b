"""Case 3 of docs/security.md: what a notice echoes of a bot's answer is bounded.

A bot answers its open request 40 times naming a game id of 1 MiB (the wrong game): each answer is refused with a
WRONG_GAME notice that quotes at most QUOTE_LIMIT characters of the id. Before (main at 4d16b4c) each notice
echoed the id twice: 80 MB queued, more than the 32 MiB a message may carry, so the bot's stream failed.
"""

from __future__ import annotations

from pathlib import Path

from attack_harness import Referee, attack_result
from pepper_proto.v1 import control_pb2

ANSWERS, GAME_ID_BYTES = 40, 1 << 20


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_wrong_game_notices_quote_a_bounded_part_of_the_answer(tmp_path):
    with Referee(tmp_path) as ref:
        ref.lean_bots(3)
        echo = ref.attacker("--answers", str(ANSWERS), "--game-id-bytes", str(GAME_ID_BYTES), "--seconds", "6")
        ref.wait_connections("attacker", 1)
        before = _peak_rss_kib(ref.proc.pid)
        # Seat 0 bids first (seat 3 deals); its request expires after 300 ms, so the notices go out in the next batch.
        ref.control.CreateGame(control_pb2.CreateGameRequest(
            seats=["attacker", "lean", "lean", "lean"], players=4, ruleset="iowa", first_dealer=3,
            policy=control_pb2.GamePolicy(deadline_ms=300, time_bank_ms=0)), metadata=ref.md)
        out = attack_result(echo)
        grown = _peak_rss_kib(ref.proc.pid) - before
    (conn,) = out["connections"]
    print(f"{conn['bytes_in']} bytes received for {ANSWERS} answers naming a {GAME_ID_BYTES}-byte game id; "
          f"the referee's peak memory grew by {grown} KiB")
    assert conn["notices"].get("NOTICE_CODE_WRONG_GAME") == ANSWERS, conn
    assert conn["bytes_in"] < ANSWERS * 1024, conn
