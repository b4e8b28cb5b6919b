"""A bot that stops answering loses its connection and its seats (docs/security.md, "7.").

Before: a SIGSTOPped bot's connection stayed listed (TCP keeps a silent peer for about 15 minutes), and after
the bot was restarted half of the new games were seated on the dead connection and played out by timeouts.
Here the referee pings every second and waits a second for the answer (the defaults are 20 s and 10 s).
"""

from __future__ import annotations

import os
import signal
import time

import grpc
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


def test_new_games_avoid_a_connection_that_stopped_answering_at_once(tmp_path):
    """With a slow keepalive (by default the referee notices a stopped process only after 30 s), a bot process stopped
    mid-game gets no new seats once one of its requests has timed out: new games go to the bot's other process at
    once, and when every process of the bot is stopped CreateGame answers UNAVAILABLE, saying why. Before, about half
    of the new games were seated on the stopped process and played out by timeouts."""
    # A keepalive of 15 s + 5 s: a connection that timed out stays suspect for 20 s unless it answers.
    # A game ends at a seat's first fault (a forfeit): a stopped process costs one deadline, not one per decision.
    ref = RefereeProc(tmp_path, {"b": TOKEN}, "--shared-seats", "--deadline-ms", "1000", "--time-bank-ms", "0",
                      "--keepalive-time-ms", "15000", "--keepalive-timeout-ms", "5000", "--max-faults", "1")
    procs = [start_bot(ref.address, "b", TOKEN, tmp_path / f"bot{i}.log") for i in range(2)]
    try:
        ref.wait_connections("b", 2, 20)

        def game(seed: int) -> str:
            return ref.control.CreateGame(control_pb2.CreateGameRequest(
                ruleset_json='{"extends": "iowa", "deal_cap": 1}', seats=["b"] * 4, seed=seed), metadata=ref.md,
                timeout=10).game_id

        def result(gid: str):
            return ref.control.WaitGame(control_pb2.WaitGameRequest(game_id=gid), metadata=ref.md, timeout=120).result

        os.kill(procs[0].pid, signal.SIGSTOP)
        first = result(game(100))        # seated on both processes (the least busy connection): it times out there
        assert any(s.faults.timeout for s in first.seats), first
        results = [result(game(s)) for s in range(GAMES)]
        seated = [[(s.connection_id, s.faults.timeout) for s in r.seats] for r in results]
        assert all(t == 0 for r in seated for _, t in r), seated
        assert len({s.connection_id for r in results for s in r.seats}) == 1

        os.kill(procs[1].pid, signal.SIGSTOP)
        stuck = game(200)
        result(stuck)                    # both processes stopped: this one times out on the second one too
        try:
            game(201)
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.UNAVAILABLE and "has not answered since a request timed out" in e.details()
        else:
            raise AssertionError("a game was seated on a bot whose every connection stopped answering")
        # Resumed, with nothing in flight to answer: it is trusted again once the keepalive's window has passed
        # (a connection still open then has answered the referee's pings).
        os.kill(procs[1].pid, signal.SIGCONT)
        t0 = time.monotonic()
        while True:
            try:
                resumed = game(202)
                break
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() - t0 < 30, e.details()
                time.sleep(0.5)
        assert game_pb2.GameStatus.Name(result(resumed).status) == "GAME_STATUS_COMPLETED"
    finally:
        for p in procs:
            os.kill(p.pid, signal.SIGCONT)
            p.kill()
            p.wait()
        ref.close()
