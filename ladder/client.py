"""The author's side of the submission API (``pepper ladder enter``): HTTP requests with the key in an
``Authorization: Bearer`` header, on the standard library alone."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request

from .errors import LadderError

TIMEOUT_S = 60.0


class ServerError(LadderError):
    """The ladder's server refused a request or could not be reached; the message says which and why."""


def call(server: str, method: str, path: str, key: str | None = None, body: dict | None = None,
         ca: str | None = None) -> dict:
    """``method`` ``path`` on ``server`` (``http(s)://HOST:PORT``), the answer's JSON. ``ca``: a PEM file of the CA
    that signed a TLS server's certificate (default: the system's)."""
    headers = {"Accept": "application/json"}
    data = None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if body is not None:
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


__all__ = ["ServerError", "call", "enter_remote"]
