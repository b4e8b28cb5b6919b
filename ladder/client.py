"""The author's side of the submission API (``pepper ladder enter``): HTTP requests with the key in an
``Authorization: Bearer`` header, on the standard library alone."""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from .errors import LadderError
from .uploads import pack

TIMEOUT_S = 60.0


class ServerError(LadderError):
    """The ladder's server refused a request or could not be reached; the message says which and why."""


def call(server: str, method: str, path: str, key: str | None = None, body: dict | bytes | None = None,
         ca: str | None = None) -> dict:
    """``method`` ``path`` on ``server`` (``http(s)://HOST:PORT``), the answer's JSON; ``body``: JSON, or the bytes
    of an upload. ``ca``: a PEM file of the CA that signed a TLS server's certificate (default: the system's)."""
    headers = {"Accept": "application/json"}
    data = None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if isinstance(body, bytes):
        data, headers["Content-Type"] = body, "application/gzip"
    elif body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    req = urllib.request.Request(server.rstrip("/") + path, data=data, headers=headers, method=method)
    context = ssl.create_default_context(cafile=ca) if ca else None
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S, context=context) as r:
            return json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        try:
            detail = json.loads(e.read()).get("detail", e.reason)
        except ValueError:
            detail = e.reason
        raise ServerError(f"{server}: {e.code} {detail}") from None
    except (urllib.error.URLError, OSError) as e:
        raise ServerError(f"{server}: cannot reach the ladder ({getattr(e, 'reason', e)}); check --server") from None


def enter_remote(server: str, key: str, name: str, ca: str | None = None) -> dict:
    """Enter ``name`` as a remote bot: {"bot", "version", "token", "author"}."""
    return call(server, "POST", "/api/ladder/bots", key, {"name": name, "kind": "remote"}, ca)


def upload(server: str, key: str, name: str, folder: Path, ca: str | None = None) -> dict:
    """Upload ``folder`` (packed by :func:`ladder.uploads.pack`) as ``name``: the upload, queued ({"upload": ID, ...})."""
    return call(server, "POST", f"/api/ladder/bots/{quote(name, safe='')}/uploads", key, pack(folder), ca)


def follow(server: str, key: str, upload_id: int, ca: str | None = None, timeout: float = 3600.0,
           progress: Callable[[dict], None] = lambda u: None, poll_s: float = 1.0) -> dict:
    """Wait for upload ``upload_id`` to be entered or failed (``progress`` hears each new status): its last state,
    with the checker's report."""
    deadline = time.monotonic() + timeout
    seen = None
    while True:
        u = call(server, "GET", f"/api/ladder/uploads/{upload_id}", key, ca=ca)
        if (u["status"], u["detail"]) != seen:
            seen = (u["status"], u["detail"])
            progress(u)
        if u["status"] in ("entered", "failed"):
            return u
        if time.monotonic() > deadline:
            raise ServerError(f"{server}: upload {upload_id} is still {u['status']} after {timeout:g} s; follow it on "
                              "your author page")
        time.sleep(poll_s)


__all__ = ["ServerError", "call", "enter_remote", "follow", "upload"]
