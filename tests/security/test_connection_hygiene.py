"""Connections are reclaimed and limited (docs/security.md, "6.").

Before: Connect streams that never sent a Hello stayed open for ever, nothing limited how many a client held,
and the referee kept a shell's 1,024 open files, so 1,100 idle TCP connections locked every new bot out.
"""

from __future__ import annotations

import asyncio
import json
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from hygiene_harness import CONTROL_TOKEN, RefereeProc, hello, open_said_hello, silent_streams, start_bot
from pepper_proto.v1 import control_pb2, control_pb2_grpc, game_pb2

TOKEN = "hygiene-bot-token-0123"
# The allowances of streams that have not said Hello, lifted: for the tests of the other limits.
UNLIMITED_WAITING = ("--max-waiting-streams", "100000", "--max-waiting-streams-per-peer", "100000",
                     "--new-streams-per-peer-per-s", "100000")


@pytest.fixture
def referees(tmp_path):
    made: list[RefereeProc] = []

    def make(*args: str, **kw) -> RefereeProc:
        r = RefereeProc(tmp_path, {"b": TOKEN}, *args, **kw)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


def test_streams_that_never_say_hello_are_closed_after_the_hello_timeout(referees):
    ref = referees("--hello-timeout-ms", "1500", "--max-bot-connections-per-peer", "4096", *UNLIMITED_WAITING)
    t0 = time.monotonic()
    outcomes = asyncio.run(silent_streams(ref.address, 2000, wait_s=20))
    took = time.monotonic() - t0
    still_open = sum(1 for code, _ in outcomes if code is None)
    assert still_open == 0, f"{still_open} of 2000 Hello-less streams still open after 20 s"
    codes = {code for code, _ in outcomes}
    assert codes == {grpc.StatusCode.DEADLINE_EXCEEDED}, codes
    assert all("no Hello within 1500 ms" in d and "--hello-timeout-ms" in d for _, d in outcomes), outcomes[0]
    assert took < 15, took
    # The referee is none the worse: a bot still connects.
    assert asyncio.run(hello(ref.address, "b", TOKEN)).WhichOneof("message") == "welcome"


def test_streams_over_the_per_address_limit_are_refused_while_other_bots_and_control_clients_work(referees, tmp_path):
    """An attacker on ::1 fills its address's quota; a real bot on 127.0.0.1 still plays, the control API answers."""
    ref = referees("--max-bot-connections-per-peer", "50", "--hello-timeout-ms", "60000", "--shared-seats",
                   address="localhost:0")

    async def attack_and_play() -> list:
        attack = asyncio.create_task(silent_streams(f"ipv6:[::1]:{ref.port}", 80, wait_s=6))
        await asyncio.sleep(2)       # the attack is in place before the bot connects
        bot = start_bot(ref.address, "b", TOKEN, tmp_path / "bot.log")
        try:
            await asyncio.to_thread(ref.wait_connections, "b", 1, 20)
            game = await asyncio.to_thread(ref.control.CreateGame, control_pb2.CreateGameRequest(
                ruleset="iowa", seats=["b"] * 4, seed=1), metadata=ref.md, timeout=10)
            res = (await asyncio.to_thread(ref.control.WaitGame, control_pb2.WaitGameRequest(game_id=game.game_id),
                                           metadata=ref.md, timeout=60)).result
            return [await attack, res]
        finally:
            bot.kill()
            bot.wait()

    outcomes, res = asyncio.run(attack_and_play())
    refused = [d for code, d in outcomes if code == grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert len(refused) == 30, [c for c, _ in outcomes]
    assert sum(1 for code, _ in outcomes if code is None) == 50     # the admitted ones wait for their Hello timeout
    assert all("from ::1" in d and "limit is 50 per address" in d and "--max-bot-connections-per-peer" in d
               for d in refused), refused[0]
    assert game_pb2.GameStatus.Name(res.status) == "GAME_STATUS_COMPLETED", res
    assert all(s.faults.timeout == 0 and s.faults.disconnect == 0 for s in res.seats), res


def test_when_every_slot_is_taken_the_oldest_stream_without_a_hello_makes_room(referees):
    ref = referees("--max-bot-connections", "10", "--hello-timeout-ms", "60000")
    outcomes = asyncio.run(silent_streams(ref.address, 15, wait_s=3))
    closed = [d for code, d in outcomes if code == grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert len(closed) == 5 and sum(1 for code, _ in outcomes if code is None) == 10, outcomes
    assert all(d.startswith("closed to make room") and "had not said Hello" in d for d in closed), closed[0]


def test_streams_over_the_total_limit_are_refused_once_every_one_has_said_hello(referees):
    ref = referees("--max-bot-connections", "3", "--hello-timeout-ms", "60000")

    async def hold_then_one_more() -> grpc.aio.AioRpcError | None:
        held = [await open_said_hello(ref.address, "b", TOKEN) for _ in range(3)]
        try:
            await hello(ref.address, "b", TOKEN)
        except grpc.aio.AioRpcError as e:
            return e
        finally:
            for ch, _ in held:
                await ch.close(None)
        return None

    refused = asyncio.run(hold_then_one_more())
    assert refused is not None and refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, refused
    assert "the limit is 3" in refused.details() and "--max-bot-connections N" in refused.details(), refused.details()


def test_a_bot_gets_in_within_2_s_during_a_slowloris(referees, tmp_path):
    """An attacker on ::1 holds every slot with streams that never say Hello, re-opening each one the referee ends
    (its per-address allowances lifted, as many addresses would have them); a bot on 127.0.0.1 is welcomed within
    2 s and a game between real bots runs on with no timeout. Before, the bot was refused until the attacker's
    streams met the Hello timeout, and the attacker re-opened them at once."""
    ref = referees("--max-bot-connections", "200", "--hello-timeout-ms", "10000", "--shared-seats",
                   "--max-waiting-streams-per-peer", "100000", "--new-streams-per-peer-per-s", "100000",
                   "--max-bot-connections-per-peer", "100000", address="localhost:0")
    bot = start_bot(ref.address, "b", TOKEN, tmp_path / "bot.log")
    try:
        ref.wait_connections("b", 1, 20)
        attacker = subprocess.Popen([sys.executable, str(Path(__file__).parent / "slowloris.py"),
                                     f"ipv6:[::1]:{ref.port}", "400", "12"], stdout=subprocess.PIPE, text=True)
        time.sleep(4)   # the attack is in place: every slot held
        game = ref.control.CreateGame(control_pb2.CreateGameRequest(ruleset="iowa", seats=["b"] * 4, seed=1),
                                      metadata=ref.md, timeout=10)
        t0 = time.monotonic()
        first = asyncio.run(hello(ref.address, "b", TOKEN))
        welcomed_in = time.monotonic() - t0
        res = ref.control.WaitGame(control_pb2.WaitGameRequest(game_id=game.game_id), metadata=ref.md, timeout=60).result
        report = json.loads(attacker.communicate(timeout=60)[0])
    finally:
        bot.kill()
        bot.wait()
    assert first.WhichOneof("message") == "welcome" and welcomed_in < 2.0, welcomed_in
    assert report["ended"].get("RESOURCE_EXHAUSTED", 0) > 0, report   # its streams were closed to make room
    assert game_pb2.GameStatus.Name(res.status) == "GAME_STATUS_COMPLETED", res
    assert all(s.faults.timeout == 0 and s.faults.disconnect == 0 for s in res.seats), res


def test_one_address_holds_at_most_its_allowance_of_streams_without_a_hello(referees):
    ref = referees("--max-waiting-streams-per-peer", "20", "--hello-timeout-ms", "60000")
    outcomes = asyncio.run(silent_streams(ref.address, 30, wait_s=3))
    refused = [d for code, d in outcomes if code == grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert len(refused) == 10 and sum(1 for code, _ in outcomes if code is None) == 20, outcomes
    assert all("waiting for their Hello: 20, the limit is 20 per address" in d for d in refused), refused[0]
    # A bot from the same address still gets in: a stream that says Hello at once is never refused for waiting.
    assert asyncio.run(hello(ref.address, "b", TOKEN)).WhichOneof("message") == "welcome"


def test_the_soft_open_file_limit_is_raised_and_control_clients_keep_a_reserve(referees):
    """Started under 200/400 open files, the referee runs with 400 and admits 400 - 300 bot streams; the
    control API still answers on new connections when they are all taken."""
    ref = referees("--fd-reserve", "300", "--hello-timeout-ms", "60000", *UNLIMITED_WAITING, nofile=(200, 400))
    assert ref.soft_nofile() == 400

    async def fill_then_control() -> tuple[list, list]:
        attack = asyncio.create_task(silent_streams(ref.address, 130, wait_s=10, channels=13))
        await asyncio.sleep(3)
        listed = []
        for _ in range(5):     # new control clients, each on its own connection
            async with grpc.aio.insecure_channel(ref.address) as ch:
                bots = await control_pb2_grpc.ControlServiceStub(ch).ListBots(
                    control_pb2.ListBotsRequest(), metadata=(("authorization", f"Bearer {CONTROL_TOKEN}"),), timeout=20)
                listed.append([b.name for b in bots.bots])
        return await attack, listed

    outcomes, listed = asyncio.run(fill_then_control())
    closed = [d for code, d in outcomes if code == grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert len(closed) == 30, [c for c, _ in outcomes]    # 100 slots: the oldest 30 made room for the newest
    assert all(d.startswith("closed to make room") for d in closed), closed[0]
    assert listed == [["b"]] * 5


def test_a_bot_connects_past_1100_idle_tcp_connections_under_a_1024_soft_limit(referees, tmp_path):
    """The shell's usual soft limit of 1,024 open files (hard 4,096): the referee raises it, so 1,100 idle TCP
    connections do not lock a new bot out."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1500:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    ref = referees(nofile=(1024, 4096))
    idle = []
    try:
        for _ in range(1100):
            s = socket.create_connection(("127.0.0.1", ref.port))
            idle.append(s)
        time.sleep(1)
        bot = start_bot(ref.address, "b", TOKEN, tmp_path / "bot.log")
        try:
            ref.wait_connections("b", 1, 20)
        finally:
            bot.kill()
            bot.wait()
    finally:
        for s in idle:
            s.close()



def test_tcp_connections_that_never_start_http2_are_closed_after_the_hello_timeout(referees):
    """Before: gRPC's 120 s handshake timeout; under a hard limit of 1,024 open files nothing else frees them."""
    ref = referees("--hello-timeout-ms", "1500")
    idle = [socket.create_connection(("127.0.0.1", ref.port)) for _ in range(50)]
    t0 = time.monotonic()
    try:
        for s in idle:
            s.settimeout(max(0.1, 10 - (time.monotonic() - t0)))
            while s.recv(100):      # the referee's HTTP/2 settings, then the end of the connection
                pass
    except TimeoutError:
        raise AssertionError(f"raw TCP connections still open {time.monotonic() - t0:.1f} s after opening") from None
    finally:
        for s in idle:
            s.close()
