"""A bot's own Unix socket (RegisterBotRequest.own_socket; docs/sandbox.md, docs/security.md "6."): the referee binds
one per bot asked for, counts each as a peer of its own for the limits on streams that have not said Hello, and
lets a Hello on it name its bot only.

Before: every sandboxed bot connected through the referee's one socket, the same peer ("unix:") for those limits,
so one bot's streams that never say Hello took the allowance every other bot's (re)connection needed."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import grpc
import pytest
from hygiene_harness import RefereeProc, hello, silent_streams
from pepper_proto.v1 import control_pb2

TOKENS = {"a": "bot-a-token-0123456789", "b": "bot-b-token-0123456789"}


@pytest.fixture
def referee(tmp_path):
    made: list[RefereeProc] = []

    def make(*args: str) -> RefereeProc:
        made.append(RefereeProc(tmp_path, {}, *args))
        return made[-1]

    yield make
    for r in made:
        r.close()


def own_socket(ref: RefereeProc, name: str) -> str:
    req = control_pb2.RegisterBotRequest(name=name, token=TOKENS[name], own_socket=True)
    return ref.control.RegisterBot(req, metadata=ref.md, timeout=10).unix_socket


def test_each_bot_gets_a_socket_of_its_own_beside_the_referees_and_removed_when_it_stops(referee, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    ref = referee("--unix-socket", str(run_dir / "referee.sock"))
    a, b = own_socket(ref, "a"), own_socket(ref, "b")
    assert a != b and {Path(a).parent, Path(b).parent} == {run_dir}, (a, b)
    for path in (a, b):   # the container's user (65534) must connect
        assert stat.S_ISSOCK(os.stat(path).st_mode) and stat.S_IMODE(os.stat(path).st_mode) == 0o666
    assert own_socket(ref, "a") == a   # registering again keeps it
    assert asyncio.run(hello(f"unix:{a}", "a", TOKENS["a"])).WhichOneof("message") == "welcome"
    ref.close()
    assert sorted(p.name for p in run_dir.iterdir() if p.name.startswith("bot-")) == []


def test_a_hello_on_another_bots_socket_is_refused_even_with_a_good_token(referee, tmp_path):
    ref = referee("--unix-socket", str(tmp_path / "referee.sock"))
    a, _ = own_socket(ref, "a"), own_socket(ref, "b")
    with pytest.raises(grpc.aio.AioRpcError) as e:
        asyncio.run(hello(f"unix:{a}", "b", TOKENS["b"]))
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "bot 'a''s own" in e.value.details() and "'b'" in e.value.details(), e.value.details()
    # Its own name with another bot's token: the token is wrong, as anywhere.
    with pytest.raises(grpc.aio.AioRpcError) as e:
        asyncio.run(hello(f"unix:{a}", "a", TOKENS["b"]))
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert asyncio.run(hello(f"unix:{a}", "a", TOKENS["a"])).WhichOneof("message") == "welcome"


def test_streams_that_never_say_hello_on_one_bots_socket_leave_the_others_allowance_alone(referee, tmp_path):
    ref = referee("--unix-socket", str(tmp_path / "referee.sock"), "--max-waiting-streams-per-peer", "16",
                  "--hello-timeout-ms", "60000")
    a, b = own_socket(ref, "a"), own_socket(ref, "b")

    async def attack() -> tuple[list, object, object]:
        # Bot a's socket: 40 streams that never say Hello (16 of them admitted, the rest refused), held open
        # while bot b says Hello on its own socket, and a on its own.
        held = asyncio.ensure_future(silent_streams(f"unix:{a}", 40, wait_s=3, channels=2))
        await asyncio.sleep(1.5)
        got_b = await hello(f"unix:{b}", "b", TOKENS["b"])
        try:
            got_a = await hello(f"unix:{a}", "a", TOKENS["a"])
        except grpc.aio.AioRpcError as e:
            got_a = e
        return await held, got_a, got_b

    outcomes, got_a, got_b = asyncio.run(attack())
    refused = [d for code, d in outcomes if code == grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert len(refused) == 40 - 16 and f"unix:{a}" in refused[0] and "waiting for their Hello" in refused[0], outcomes
    assert got_b.WhichOneof("message") == "welcome"
    # The attacker's socket is its own bot's: what it spends, that bot lacks. (Refused with RESOURCE_EXHAUSTED; on a
    # loaded machine the refusal can end the stream while the client is still sending its Hello, which the client
    # library reports as its own INTERNAL error in sending.)
    assert isinstance(got_a, grpc.aio.AioRpcError), got_a
    assert got_a.code() == grpc.StatusCode.RESOURCE_EXHAUSTED or (
        got_a.code() == grpc.StatusCode.INTERNAL and "SendMessageOperation" in (got_a.debug_error_string() or "")), got_a


def test_a_socket_of_its_own_needs_a_referee_with_a_unix_socket(referee):
    ref = referee()
    with pytest.raises(grpc.RpcError) as e:
        own_socket(ref, "a")
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "--unix-socket" in e.value.details()
