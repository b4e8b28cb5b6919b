"""``pepper web``: serve the results database's pages and JSON API (the :mod:`web` package; docs/web.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import DbOption, fail


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        fail(f"--address {text!r} is not HOST:PORT (for example 127.0.0.1:8000, or 0.0.0.0:8000 to listen on every "
             "interface)")
    return host.strip("[]"), int(port)


def web(db: DbOption = Path("arena.db"),
        address: Annotated[str, typer.Option("--address", help="HOST:PORT to listen on. The default is this machine "
                                             "only; the pages are read-only and need no login.")] = "127.0.0.1:8000",
        ) -> None:
    """Serve the leaderboard (live while a run goes), the games, the replay viewer and the JSON API behind them."""
    host, port = _address(address)
    if not db.exists():
        fail(f"no results database at {db} (run `pepper arena run` first, or pass --db)")
    import uvicorn

    from arena.store import StoreError
    from web.app import create_app

    try:
        app = create_app(db)
    except StoreError as e:
        fail(str(e))
    typer.echo(f"serving {db} on http://{'[' + host + ']' if ':' in host else host}:{port}/ (Ctrl-C stops)")
    # Open event streams (a leaderboard tab) never end on their own: give them a second on Ctrl-C, not forever.
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=1)
