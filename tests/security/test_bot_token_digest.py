"""Case 5 of docs/security.md, bot tokens: a bot registered by its token's SHA-256 (RegisterBotRequest.token_sha256,
protocol 1.5) is welcomed with the token and refused without it, so whoever registers bots (the arena) need not
keep their tokens. A real `pepper referee serve` reads its control token from a mode-0600 file."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import grpc
import pytest
from pepper_proto import PROTOCOL_VERSION
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc, control_pb2, control_pb2_grpc

CONTROL = "digest-test-control-token"


@pytest.fixture
def referee(tmp_path):
    path = tmp_path / "control-token"
    path.write_text(CONTROL + "\n")
    path.chmod(0o600)
    proc = subprocess.Popen([sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "127.0.0.1:0",
                             "--control-token-file", str(path)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("listening on "), proc.stderr.read() if proc.poll() is not None else line
    with grpc.insecure_channel(line.split()[-1]) as channel:
        yield channel
    proc.terminate()
    proc.wait(15)


def register(channel, **kw) -> control_pb2.RegisterBotResponse:
    return control_pb2_grpc.ControlServiceStub(channel).RegisterBot(
        control_pb2.RegisterBotRequest(name="hashed", **kw), metadata=(("authorization", f"Bearer {CONTROL}"),),
        timeout=10)


def hello(channel, token: str) -> str:
    """What the referee answers a Hello with ``token``: "welcome", or the status code's name."""
    call = bot_pb2_grpc.BotServiceStub(channel).Connect(iter([bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
        bot_name="hashed", protocol_version=PROTOCOL_VERSION, token=token))]), timeout=10)
    try:
        return next(call).WhichOneof("message")
    except grpc.RpcError as e:
        return e.code().name
    finally:
        call.cancel()


def test_a_bot_registered_by_its_tokens_digest_is_welcomed_with_the_token_only(referee):
    token = "a-token-only-its-bot-knows-0123456789"
    answer = register(referee, token_sha256=hashlib.sha256(token.encode()).digest())
    assert answer.token == ""   # the referee does not know it
    assert hello(referee, token) == "welcome"
    assert hello(referee, "a-token-only-its-bot-knows-012345678") == "UNAUTHENTICATED"
    assert hello(referee, hashlib.sha256(token.encode()).hexdigest()) == "UNAUTHENTICATED"


def test_a_bad_digest_is_refused_naming_the_field(referee):
    for kw in ({"token_sha256": b"short"}, {"token": "plain-token-1234", "token_sha256": bytes(32)}):
        with pytest.raises(grpc.RpcError) as e:
            register(referee, **kw)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "token_sha256" in e.value.details()


def test_a_control_token_file_others_can_read_is_refused(tmp_path):
    path = tmp_path / "control-token"
    path.write_text(CONTROL)
    path.chmod(0o644)
    out = subprocess.run([sys.executable, "-m", "pepper_cli.referee", "serve", "--control-token-file", str(path)],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and "chmod 600" in out.stderr, out.stderr
