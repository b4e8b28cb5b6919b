"""A real ladder for the tests: ``pepper ladder init`` and ``serve`` as processes, author keys from ``invite``, and
the sample bots run as remote bots (PEPPER_REFEREE, PEPPER_BOT_NAME, PEPPER_TOKEN) over loopback."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ladder import admin
from ladder.config import LadderDir

ROOT = Path(__file__).resolve().parents[2]
PEPPER = [sys.executable, "-m", "pepper_cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pepper(*args: str, check: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*PEPPER, *args], cwd=ROOT, capture_output=True, text=True, check=check, timeout=120,
                          env={**os.environ, **(env or {})})


def wait_for(what: str, ready: Callable[[], object], timeout: float = 60.0, every: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if got := ready():
            return got
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


class Ladder:
    """A ladder folder in ``tmp`` (pepper-30 for 2 players by default: each remote bot needs one connection), of
    remote bots only unless ``uploads`` (which needs the Docker sandbox: the ``images`` fixture)."""

    def __init__(self, tmp: Path, *init_args: str, uploads: bool = False):
        self.dir = tmp / "ladder"
        self.referee_port = free_port()
        # Short games: pepper-30's rules to 6 points (a ruleset file, which the ladder copies in).
        quick = tmp / "quick.toml"
        quick.write_text('extends = "pepper-30"\nname = "quick"\ntarget_score = 6\n')
        pepper("ladder", "init", str(self.dir), "--ruleset", str(quick), "--players", "2", *init_args)
        self.folder = LadderDir(self.dir)
        if not uploads:
            toml = self.dir / "ladder.toml"
            toml.write_text(toml.read_text().replace("uploads = true", "uploads = false"))
        self.ca: Path | None = None    # with TLS: the certificate, its own CA
        self.serving: subprocess.Popen | None = None
        self.bots: list[subprocess.Popen] = []
        self.web = ""

    def use_tls(self) -> Path:
        """A self-signed certificate for localhost and 127.0.0.1 (openssl), named in ladder.toml."""
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(self.dir / "key.pem"),
                        "-out", str(self.dir / "cert.pem")], check=True, capture_output=True)
        toml = self.dir / "ladder.toml"
        toml.write_text(toml.read_text().replace('tls_cert = ""', 'tls_cert = "cert.pem"')
                        .replace('tls_key = ""', 'tls_key = "key.pem"'))
        self.ca = self.dir / "cert.pem"
        return self.ca

    @property
    def referee(self) -> str:
        return f"127.0.0.1:{self.referee_port}"

    def serve(self) -> dict:
        """Start ``pepper ladder serve`` and wait for its serve.json."""
        (self.dir / "serve.json").unlink(missing_ok=True)
        log = open(self.dir / "serve.out", "a")
        self.serving = subprocess.Popen([*PEPPER, "ladder", "serve", str(self.dir), "--referee-address", self.referee,
                                         "--web-address", "127.0.0.1:0"], cwd=ROOT, stdout=log, stderr=log)
        served = wait_for("serve.json", self._served, timeout=60)
        self.web = served["web"]
        return served

    def _served(self) -> dict | None:
        assert self.serving.poll() is None, f"serve exited: {(self.dir / 'serve.out').read_text()}"
        try:
            return json.loads((self.dir / "serve.json").read_text())
        except (OSError, ValueError):
            return None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        p, self.serving = self.serving, None
        p.send_signal(sig)
        return p.wait(timeout)

    def invite(self, author: str) -> str:
        """An author key, as `pepper ladder invite` makes it (in this process: the CLI's own test runs the command)."""
        return admin.invite(self.folder, author)

    def admin(self, action: str, *args):
        """``pepper ladder admin DIR ACTION ARGS`` in this process."""
        return getattr(admin, action)(self.folder, *args)

    def enter(self, key: str, name: str) -> str:
        """A remote bot's token, entered through the submission API."""
        status, got = http("POST", f"{self.web}/api/ladder/bots", key, {"name": name, "kind": "remote"}, self.ca)
        assert status == 201, got
        return got["token"]

    def enter_cli(self, key: str, name: str) -> str:
        """A remote bot's token (the last line `pepper ladder enter` prints)."""
        return pepper("ladder", "enter", "--server", self.web, "--key", key, name, "--remote").stdout.strip().splitlines()[-1]

    def run_bot(self, name: str, token: str, kind: str = "random") -> subprocess.Popen:
        """A sample bot as its author runs it: restarted when it exits (an SDK bot exits 0 when the referee drains,
        as a restarting ladder's does), in a process group of its own (:meth:`stop_bot`)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PEPPER_")}
        env |= {"PEPPER_REFEREE": self.referee, "PEPPER_BOT_NAME": name, "PEPPER_TOKEN": token}
        if self.ca:
            env["PEPPER_TLS_CA"] = str(self.ca)
        loop = f"while :; do {shlex.quote(sys.executable)} -m sample_bots {kind}; sleep 0.5; done"
        p = subprocess.Popen(["sh", "-c", loop], cwd=ROOT, env=env, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=open(self.dir / f"bot-{name}.log", "a"))
        self.bots.append(p)
        return p

    @staticmethod
    def stop_bot(p: subprocess.Popen) -> None:
        """SIGTERM to the bot's process group, then SIGKILL to whatever is left of it (an SDK bot reconnecting to a
        referee that is gone does not stop on SIGTERM)."""
        try:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(10)

    def db(self, sql: str, args: tuple = ()) -> list[tuple]:
        with sqlite3.connect(f"file:{self.dir / 'arena.db'}?mode=ro", uri=True) as c:
            return c.execute(sql, args).fetchall()

    def games(self) -> int:
        return self.db("SELECT COUNT(*) FROM games")[0][0]

    def close(self) -> None:
        for b in self.bots:
            self.stop_bot(b)
        if self.serving is not None and self.serving.poll() is None:
            self.stop(signal.SIGKILL)


def http(method: str, url: str, key: str | None = None, body: dict | None = None,
         ca: Path | None = None) -> tuple[int, dict | str]:
    """(status, JSON answer or text) of one request, whatever its status (``ca``: an https server's CA file)."""
    import ssl
    import urllib.error
    import urllib.request

    headers = {"Content-Type": "application/json"} if body is not None else {}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers=headers,
                                 method=method)
    try:
        with urllib.request.urlopen(req, timeout=30, context=ssl.create_default_context(cafile=ca) if ca else None) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text
