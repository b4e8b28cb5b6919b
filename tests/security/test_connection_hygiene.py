"""Issue 12, case 6: connections are reclaimed and limited (docs/security.md, "6.").

Before: Connect streams that never sent a Hello stayed open for ever, nothing limited how many a client held,
and the referee kept a shell's 1,024 open files, so 1,100 idle TCP connections locked every new bot out.
"""

from __future__ import annotations

import asyncio
import resource
import socket
import time

import grpc
import pytest
from hygiene_harness import CONTROL_TOKEN, RefereeProc, hello, silent_streams, start_bot
from pepper_proto.v1 import control_pb2, control_pb2_grpc, game_pb2

TOKEN = "hygiene-bot-token-0123"


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
    ref = referees("--hello-timeout-ms", "1500", "--max-bot-connections-per-peer", "4096")
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


def test_streams_over_the_total_limit_are_refused(referees):
    ref = referees("--max-bot-connections", "10", "--hello-timeout-ms", "60000")
    outcomes = asyncio.run(silent_streams(ref.address, 15, wait_s=3))
    refused = [d for code, d in outcomes if code == grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert len(refused) == 5, outcomes
    assert all("the limit is 10" in d and "--max-bot-connections N" in d for d in refused), refused[0]


def test_the_soft_open_file_limit_is_raised_and_control_clients_keep_a_reserve(referees):
    """Started under 200/400 open files, the referee runs with 400 and admits 400 - 300 bot streams; the
    control API still answers on new connections when they are all taken."""
    ref = referees("--fd-reserve", "300", "--hello-timeout-ms", "60000", nofile=(200, 400))
    assert ref.soft_nofile() == 400

    async def fill_then_control() -> tuple[list, list]:
        attack = asyncio.create_task(silent_streams(ref.address, 130, wait_s=4, channels=13))
        await asyncio.sleep(2)
        listed = []
        for _ in range(5):     # new control clients, each on its own connection
            async with grpc.aio.insecure_channel(ref.address) as ch:
                bots = await control_pb2_grpc.ControlServiceStub(ch).ListBots(
                    control_pb2.ListBotsRequest(), metadata=(("authorization", f"Bearer {CONTROL_TOKEN}"),), timeout=5)
                listed.append([b.name for b in bots.bots])
        return await attack, listed

    outcomes, listed = asyncio.run(fill_then_control())
    refused = [d for code, d in outcomes if code == grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert len(refused) == 30, [c for c, _ in outcomes]
    assert all("the limit is 100 (the open-file limit 400 minus --fd-reserve 300)" in d for d in refused), refused[0]
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
