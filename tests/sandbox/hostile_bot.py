"""A hostile bot for the sandbox's tests: it plays uniformly random legal actions, but at its first decision it
tries one attack, named by $PEPPER_HOSTILE, and reports on stderr (its log) what it got:

    tcp      connect to the referee's TCP port(s) on loopback ($PEPPER_HOSTILE_TCP: HOST:PORT,...)
    snoop    read every /proc/*/environ it sees, and the arena database ($PEPPER_HOSTILE_DB)
    write    write outside its tmpfs (/, /bot, /etc/passwd, the referee's socket directory)
    fork     fork without bound (every child forks too) and never answer
    memory   allocate 4 GB
    spin     compute forever
    exit     exit with code 3

and one that attacks from its start, once it is connected itself:

    silent   in a second process, hold 200 Connect streams that never say Hello, opening another at once as each
             ends (the referee's limits refuse most), for as long as it runs; its first stream says Hello as the
             bot $PEPPER_HOSTILE_AS with this bot's token instead (refused)
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import socket
import subprocess
import sys
import time
from collections import Counter

from pepper_bot import run_bot


def say(*parts) -> None:
    print("hostile:", *parts, file=sys.stderr, flush=True)


def attempt(what: str, f) -> None:
    try:
        say(what, "->", f())
    except OSError as e:
        say(what, "-> blocked:", type(e).__name__, e.strerror or e)


def tcp(address: str) -> str:
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host.strip("[]"), int(port)), timeout=2):
        return "CONNECTED"


def read(path: str) -> str:
    with open(path, "rb") as f:
        return f"READ {len(f.read())} bytes"


def write(path: str) -> str:
    with open(path, "w") as f:
        f.write("hostile")
    return "WRITTEN"


def attack(mode: str) -> None:
    if mode == "tcp":
        for a in os.environ.get("PEPPER_HOSTILE_TCP", "").split(","):
            attempt(f"tcp {a}", lambda a=a: tcp(a))
    elif mode == "snoop":
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
        say("pids seen:", ",".join(sorted(pids)))
        for p in pids:
            try:
                with open(f"/proc/{p}/environ", "rb") as f:
                    names = sorted(v.split(b"=", 1)[0].decode() for v in f.read().split(b"\0") if v)
                say(f"environ of {p}:", ",".join(names))
            except OSError as e:
                say(f"environ of {p} -> blocked:", type(e).__name__)
        db = os.environ.get("PEPPER_HOSTILE_DB", "")
        attempt(f"read {db}", lambda: read(db))
    elif mode == "write":
        for path in ("/hostile", "/bot/hostile", "/etc/passwd", "/run/pepper/hostile", "/tmp/hostile"):
            attempt(f"write {path}", lambda path=path: write(path))
    elif mode == "fork":
        say("fork bomb")
        while True:
            try:
                os.fork()
            except OSError:
                pass
    elif mode == "memory":
        say("allocating 4 GB")
        hog = b"x" * (4 << 30)
        say("allocated", len(hog))
    elif mode == "spin":
        say("spinning")
        while True:
            pass
    elif mode == "exit":
        say("exiting")
        os._exit(3)


async def silent(target: str, streams: int) -> None:
    import grpc
    from pepper_proto import PROTOCOL_VERSION
    from pepper_proto.v1 import bot_pb2, bot_pb2_grpc

    chans = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(4)]
    impostor = bot_pb2_grpc.BotServiceStub(chans[0]).Connect()
    await impostor.write(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
        bot_name=os.environ.get("PEPPER_HOSTILE_AS", ""), token=sys.stdin.readline().strip(),
        protocol_version=PROTOCOL_VERSION)))
    say("hello as", os.environ.get("PEPPER_HOSTILE_AS"), "->", (await impostor.code()).name, await impostor.details())
    opened, ended = 0, Counter()

    async def hold(i: int) -> None:
        nonlocal opened
        while True:
            call = bot_pb2_grpc.BotServiceStub(chans[i % len(chans)]).Connect()
            opened += 1
            ended[(await call.code()).name] += 1
            await asyncio.sleep(0.01)

    async def report() -> None:
        while True:
            await asyncio.sleep(2)
            say(f"silent streams: {opened} opened, ended {dict(ended)}")

    await asyncio.gather(report(), *(hold(i) for i in range(streams)))


def attack_from_start(mode: str) -> None:
    """Start ``mode``'s attack once this bot is connected (its own Hello first: the attack must not lock it out)."""
    if mode != "silent":
        return

    class Started(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("connected to") and not hasattr(self, "worker"):
                self.worker = subprocess.Popen([sys.executable, os.path.abspath(__file__)], stdin=subprocess.PIPE,
                                               env={**os.environ, "PEPPER_HOSTILE": "silent-worker"})
                self.worker.stdin.write(f"{token}\n".encode())
                self.worker.stdin.close()
                say("silent streams from", self.worker.pid, "at", time.time())

    from pepper_bot.runner import launch_token
    token = launch_token()
    logging.getLogger("pepper.bot").addHandler(Started())


class Hostile:
    name = "hostile"

    def __init__(self, mode: str):
        self.mode, self.rng, self.done = mode, random.Random(1), False

    def decide(self, view: dict) -> str:
        if not self.done:
            self.done = True
            attack(self.mode)
        return self.rng.choice(view["legal_actions"])


if __name__ == "__main__":
    if os.environ.get("PEPPER_HOSTILE") == "silent-worker":
        asyncio.run(silent(os.environ["PEPPER_REFEREE"], 200))
    attack_from_start(os.environ.get("PEPPER_HOSTILE", ""))
    sys.exit(run_bot(Hostile(os.environ.get("PEPPER_HOSTILE", ""))))
