"""``pepper ladder serve``: the referee, the continuous scheduler and the web app in one long-running process.

Once all three are up it writes ``DIR/serve.json`` (``{"referee": "HOST:PORT", "web": "http://HOST:PORT"}``,
replaced atomically) and removes it when it stops. SIGTERM or SIGINT drains (:meth:`Scheduler.run`); a ``kill -9``
loses nothing (the next ``serve`` plays the games left pending). One service at a time holds a ladder folder
(a lock on ``DIR/serve.lock``, released by the kernel however the process ends).

The web app runs in a thread of its own (uvicorn, which then leaves the process's signals to this module); the
scheduler runs on the main thread's event loop.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from . import logs
from .api import Intake, create_ladder_app
from .builds import Builder
from .config import LadderDir
from .errors import Conflict, LadderError
from .scheduler import Scheduler

log = logging.getLogger("ladder.service")


def parse_address(text: str, what: str) -> tuple[str, int]:
    """``HOST:PORT`` (an IPv6 host in brackets) as (host, port); LadderError naming ``what`` otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise LadderError(f"{what} {text!r} is not HOST:PORT (for example 127.0.0.1:8000, or 0.0.0.0:8000 for every "
                          "interface)")
    return host.strip("[]"), int(port)


@contextmanager
def _held(d: LadderDir) -> Iterator[None]:
    with open(d.lock, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Conflict(f"{d.root}: a `pepper ladder serve` is running on this ladder already "
                           f"(see {d.serve_json}); stop it first") from None
        yield


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class WebThread:
    """The web app served by uvicorn on ``sock`` in a thread; :meth:`stop` ends it."""

    def __init__(self, app, sock: socket.socket, tls: tuple[str, str] | None):
        config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=1,
                                ssl_certfile=tls[0] if tls else None, ssl_keyfile=tls[1] if tls else None)
        self.server = uvicorn.Server(config)
        self.sock = sock
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, name="ladder-web", daemon=True)

    def start(self, timeout: float = 30.0) -> None:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if not self.server.started:
            raise LadderError("the web app did not start; see the log in the ladder's logs/ folder")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise LadderError(f"the web app cannot listen on {host}:{port} ({e.strerror}); choose another --web-address") from None
    sock.listen(128)
    return sock


def serve(root: Path, referee_address: str | None = None, web_address: str | None = None,
          on_ready: Callable[[dict], None] | None = None) -> None:
    """Run the ladder in ``root`` until SIGTERM or SIGINT (see the module's docstring); ``on_ready`` hears what
    serve.json says once it is written."""
    d = LadderDir(root)
    cfg = d.load()
    referee_address = referee_address or cfg.referee_address
    web_host, web_port = parse_address(web_address or cfg.web_address, "--web-address")
    parse_address(referee_address, "--referee-address")
    with _held(d):
        d.serve_json.unlink(missing_ok=True)
        d.logs.mkdir(exist_ok=True)
        logs.setup(d.logs / "ladder.log")
        asyncio.run(_serve(d, cfg, referee_address, web_host, web_port, on_ready or (lambda served: None)))


async def _serve(d: LadderDir, cfg, referee_address: str, web_host: str, web_port: int,
                 on_ready: Callable[[dict], None]) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    scheduler = Scheduler(d, cfg, referee_address)
    web: WebThread | None = None
    builder: Builder | None = None
    try:
        await scheduler.start()
        intake = Intake(refused=scheduler.no_uploads, knows=scheduler.knows, nudge=scheduler.nudge)
        if scheduler.sandbox is not None:
            builder = Builder(d, cfg, scheduler.sandbox)
            builder.start()
            intake.wake = builder.wake
        sock = _listen(web_host, web_port)
        host, port = sock.getsockname()[:2]
        hosts = ["localhost", "127.0.0.1", "[::1]", *cfg.allowed_hosts]
        if host not in ("0.0.0.0", "::"):
            hosts.append(f"[{host}]" if ":" in host else host)
        app = create_ladder_app(d, scheduler.gauges, allowed_hosts=hosts, intake=intake)
        web = WebThread(app, sock, (cfg.tls_cert, cfg.tls_key) if cfg.tls_cert else None)
        web.start()
        scheme = "https" if cfg.tls_cert else "http"
        shown = f"[{host}]" if ":" in host else host
        served = {"referee": scheduler.address, "web": f"{scheme}://{shown}:{port}"}
        _write_json(d.serve_json, served)
        log.info("ready", extra=served)
        on_ready(served)
        await scheduler.run(stop)
    finally:
        d.serve_json.unlink(missing_ok=True)
        if web is not None:
            web.stop()
        if builder is not None:
            await asyncio.to_thread(builder.stop)
        if scheduler.referee is not None:
            await scheduler.close()
        log.info("stopped")


__all__ = ["WebThread", "parse_address", "serve"]
