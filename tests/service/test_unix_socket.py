"""`pepper referee serve --unix-socket PATH`: the referee also listens on a Unix socket (how sandboxed bots, whose
containers have no network, reach it; docs/sandbox.md), with the same services and the same control token."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc
from referee_harness import CONTROL_TOKEN, ROOT, Server


def test_the_referee_listens_on_its_unix_socket_too(tmp_path):
    path = tmp_path / "referee.sock"
    socket.socket(socket.AF_UNIX).bind(str(path))   # a socket left behind by a killed referee: replaced
    srv = Server(tmp_path, "--unix-socket", str(path))
    try:
        assert stat.S_ISSOCK(os.stat(path).st_mode) and stat.S_IMODE(os.stat(path).st_mode) == 0o666
        with grpc.insecure_channel(f"unix:{path}") as ch:
            health = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            control = control_pb2_grpc.ControlServiceStub(ch)
            with pytest.raises(grpc.RpcError) as e:   # the control API wants its token here as on TCP
                control.ListBots(control_pb2.ListBotsRequest(), timeout=10)
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
            control.ListBots(control_pb2.ListBotsRequest(), timeout=10,
                             metadata=[("authorization", f"Bearer {CONTROL_TOKEN}")])
    finally:
        srv.close()


def test_a_unix_socket_path_that_is_not_a_socket_is_refused_not_removed(tmp_path):
    path = tmp_path / "precious.txt"
    path.write_text("not a socket")
    out = subprocess.run([sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "127.0.0.1:0",
                          "--control-token", CONTROL_TOKEN, "--unix-socket", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and f"{path} exists and is not a socket" in out.stderr, out.stderr
    assert path.read_text() == "not a socket"
