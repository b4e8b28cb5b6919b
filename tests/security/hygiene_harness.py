"""A `pepper referee serve` subprocess on loopback with a control client, and attacking clients for it."""

from __future__ import annotations

import asyncio
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc, control_pb2, control_pb2_grpc

from referee import wire

ROOT = Path(__file__).resolve().parents[2]
CONTROL_TOKEN = "hygiene-tests-control-token"


class RefereeProc:
    """``python -m pepper_cli.referee serve ARGS`` (optionally under an open-file limit ``nofile``: (soft, hard))."""

    def __init__(self, tmp: Path, bots: dict[str, str], *args: str, address: str = "127.0.0.1:0",
                 nofile: tuple[int, int] | None = None):
        cmd = [sys.executable, "-m", "pepper_cli.referee", "serve", "--address", address, "--control-token", CONTROL_TOKEN,
               *args, *(f"--bot={n}={t}" for n, t in bots.items())]
        self.stderr = tmp / "referee.stderr"

        def limit() -> None:
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, nofile)

        with open(self.stderr, "w") as err:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True, preexec_fn=limit)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError(f"referee did not start: {line!r}: {self.stderr.read_text()}")
        self.port = int(line.rsplit(":", 1)[1])
        self.address = f"127.0.0.1:{self.port}"
        self.channel = grpc.insecure_channel(self.address)
        self.control = control_pb2_grpc.ControlServiceStub(self.channel)
        self.md = [("authorization", f"Bearer {CONTROL_TOKEN}")]

    def connections(self, bot: str) -> int:
        bots = self.control.ListBots(control_pb2.ListBotsRequest(), metadata=self.md, timeout=10).bots
        return next(b.connections for b in bots if b.name == bot)

    def wait_connections(self, bot: str, n: int, timeout: float) -> float:
        """Seconds until ``bot`` has ``n`` live connections; AssertionError after ``timeout``."""
        t0 = time.monotonic()
        while (got := self.connections(bot)) != n:
            assert time.monotonic() - t0 < timeout, f"{bot}: {got} connection(s) after {timeout} s, expected {n}"
            time.sleep(0.1)
        return time.monotonic() - t0

    def soft_nofile(self) -> int:
        """The referee's soft open-file limit, from /proc/PID/limits."""
        for ln in Path(f"/proc/{self.proc.pid}/limits").read_text().splitlines():
            if ln.startswith("Max open files"):
                return int(ln.split()[3])
        raise AssertionError("no 'Max open files' in /proc/PID/limits")

    def close(self) -> None:
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_bot(address: str, name: str, token: str, log: Path) -> subprocess.Popen:
    """The random sample bot (a real SDK process)."""
    with open(log, "w") as f:
        return subprocess.Popen([sys.executable, "-m", "sample_bots", "random", "--referee", address, "--token", token,
                                 "--name", name, "--give-up-after", "60"], cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)


async def silent_streams(target: str, n: int, wait_s: float, channels: int = 4) -> list[tuple[grpc.StatusCode | None, str]]:
    """Open ``n`` Connect streams to ``target`` that never send a Hello, over ``channels`` TCP connections, 200 at a
    time (a burst of thousands of calls makes gRPC cancel some before the referee sees them); each stream's
    (status, details) once it ends, or (None, "") if it is still open ``wait_s`` after the last one opened."""
    chans = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(channels)]
    try:
        calls = []
        for i in range(n):
            calls.append(bot_pb2_grpc.BotServiceStub(chans[i % channels]).Connect())
            if i % 200 == 199:
                await asyncio.sleep(0.1)

        async def outcome(call) -> tuple[grpc.StatusCode | None, str]:
            try:
                return await asyncio.wait_for(asyncio.gather(call.code(), call.details()), wait_s)
            except TimeoutError:
                return None, ""

        return list(await asyncio.gather(*(outcome(c) for c in calls)))
    finally:
        for c in chans:
            await c.close(None)


async def hello(target: str, name: str, token: str) -> bot_pb2.ConnectResponse:
    """Connect and say Hello; the first response (a Welcome), or the refusal as AioRpcError.

    A referee that refuses a stream at once may close it while the client writes its Hello. The client's gRPC then
    ends the call with an INTERNAL status of its own ("Internal error from Core"), and the referee's status, which
    did arrive, is not what the call reports: that attempt is made again, up to 5 in all."""
    for _ in range(4):
        try:
            return await _hello_once(target, name, token)
        except grpc.aio.AioRpcError as e:
            if e.code() != grpc.StatusCode.INTERNAL or e.details() != "Internal error from Core":
                raise
    return await _hello_once(target, name, token)


async def _hello_once(target: str, name: str, token: str) -> bot_pb2.ConnectResponse:
    async with grpc.aio.insecure_channel(target) as ch:
        call = bot_pb2_grpc.BotServiceStub(ch).Connect()
        try:
            await call.write(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
                bot_name=name, token=token, protocol_version=wire.PROTOCOL_VERSION)))
        except grpc.aio.AioRpcError:
            pass   # refused before the Hello was written: the read below raises the call's status
        first = await asyncio.wait_for(call.read(), 10)
        call.cancel()
        return first


async def open_said_hello(target: str, name: str, token: str) -> tuple[grpc.aio.Channel, object]:
    """A Connect stream that said Hello and was welcomed, held open: (its channel, the call); close the channel."""
    ch = grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
    call = bot_pb2_grpc.BotServiceStub(ch).Connect()
    await call.write(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
        bot_name=name, token=token, protocol_version=wire.PROTOCOL_VERSION)))
    first = await asyncio.wait_for(call.read(), 10)
    assert first.WhichOneof("message") == "welcome", first
    return ch, call
