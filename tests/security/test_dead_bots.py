"""Issue 12, case 7: a bot that stops answering loses its connection and its seats (docs/security.md, "7.").

Before: a SIGSTOPped bot's connection stayed listed (TCP keeps a silent peer for about 15 minutes), and after
the bot was restarted half of the new games were seated on the dead connection and played out by timeouts.
Here the referee pings every second and waits a second for the answer (the defaults are 20 s and 10 s).
"""

from __future__ import annotations

import os
import signal

from hygiene_harness import RefereeProc, start_bot
from pepper_proto.v1 import control_pb2, game_pb2

TOKEN = "hygiene-bot-token-0123"
GAMES = 6


def test_a_stopped_bot_is_dropped_and_new_games_are_seated_on_its_restart(tmp_path):
    ref = RefereeProc(tmp_path, {"b": TOKEN}, "--keepalive-time-ms", "1000", "--keepalive-timeout-ms", "1000",
                      "--shared-seats", "--deadline-ms", "300", "--time-bank-ms", "300")
    stopped = start_bot(ref.address, "b", TOKEN, tmp_path / "stopped.log")
    restarted = None
    try:
        ref.wait_connections("b", 1, 20)
        os.kill(stopped.pid, signal.SIGSTOP)
        dropped_after = ref.wait_connections("b", 0, 8)
        assert dropped_after < 5, dropped_after     # a ping, then its timeout: about 2 s

        restarted = start_bot(ref.address, "b", TOKEN, tmp_path / "restarted.log")
        ref.wait_connections("b", 1, 20)
        ids = [ref.control.CreateGame(control_pb2.CreateGameRequest(ruleset="iowa", seats=["b"] * 4, seed=s),
                                      metadata=ref.md, timeout=10).game_id for s in range(GAMES)]
        results = [ref.control.WaitGame(control_pb2.WaitGameRequest(game_id=g), metadata=ref.md, timeout=120).result
                   for g in ids]
        conns = {s.connection_id for r in results for s in r.seats}
        assert len(conns) == 1, conns       # every seat on the restarted bot's one connection
        for r in results:
            assert game_pb2.GameStatus.Name(r.status) == "GAME_STATUS_COMPLETED", r
            assert all(s.faults.timeout == 0 and s.faults.disconnect == 0 for s in r.seats), r
    finally:
        for p in (stopped, restarted):
            if p is not None:
                p.kill()
                p.wait()
        ref.close()
