"""``pepper web``: serve the results database's pages and JSON API (the :mod:`web` package; docs/web.md)."""

from __future__ import annotations

import os
import secrets
import threading
import time
from pathlib import Path
from typing import Annotated

import typer

from .common import DbOption, fail


def _address(text: str, flag: str = "--address") -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        fail(f"{flag} {text!r} is not HOST:PORT (for example 127.0.0.1:8000, or 0.0.0.0:8000 to listen on every "
             "interface)")
    return host.strip("[]"), int(port)


# A refused seat asks again this often: the arena registers its bots with its referee only once that is up, and
# `pepper web --seat` may be started first (as the docs' example does, in another terminal).
SEAT_RETRY_S = 1.0


def _hold_seat(human, referee: str, token: str, seat: str) -> None:
    """Keep ``seat`` connected for as long as the server runs. The SDK ends at a refused Hello (a bot process should
    say so and exit); a person's seat waits for the arena to register the bot instead, saying why once."""
    from pepper_bot import run_bot
    from pepper_bot.runner import EXIT_REFUSED

    said = False
    while run_bot(human, referee, token, seat, install_signal_handlers=False, give_up_after=None) == EXIT_REFUSED:
        if not said:
            typer.echo(f"the referee at {referee} refused {seat!r} (not registered yet, or a wrong token): asking again "
                       f"every {SEAT_RETRY_S:.0f} s", err=True)
            said = True
        time.sleep(SEAT_RETRY_S)
    human.session_over("the referee has no more games for this seat (it drained, or the server is stopping)")


def _token(token_file: Path | None) -> str:
    if token_file is not None:
        try:
            token = token_file.read_text().split("\n", 1)[0].strip()
        except OSError as e:
            fail(f"--token-file {token_file}: cannot read it ({e.strerror})")
    else:
        token = os.environ.get("PEPPER_TOKEN", "").strip()
    if not token:
        fail("--seat needs the bot's token: --token-file PATH (its first line) or $PEPPER_TOKEN, as printed by "
             "`pepper bot register NAME --remote` or `pepper bot token NAME --new`")
    return token


def web(db: DbOption = Path("arena.db"),
        address: Annotated[str, typer.Option("--address", help="HOST:PORT to listen on. The default is this machine "
                                             "only; the pages are read-only and need no login.")] = "127.0.0.1:8000",
        seat: Annotated[str | None, typer.Option("--seat", help="Play this remote bot's seats yourself, in the browser: "
                                                 "the server connects to --referee with its token and prints the play "
                                                 "page's address (with a secret of its own).")] = None,
        referee: Annotated[str, typer.Option("--referee", help="With --seat: the referee's HOST:PORT (what `pepper "
                                             "arena run --listen` says).")] = "127.0.0.1:50051",
        token_file: Annotated[Path | None, typer.Option("--token-file", help="With --seat: a file whose first line is "
                                                        "the bot's token (default: $PEPPER_TOKEN).")] = None,
        allowed_host: Annotated[list[str] | None, typer.Option(
            "--allowed-host", metavar="NAME", help="A host name the pages may be reached by, besides localhost, "
            "127.0.0.1, [::1] and the --address host (repeatable; e.g. the machine's name when listening on "
            "0.0.0.0). Requests naming any other host are refused (DNS rebinding).")] = None,
        ) -> None:
    """Serve the leaderboard (live while a run goes), the games, the replay viewer and the JSON API behind them."""
    host, port = _address(address)
    if not db.exists():
        fail(f"no results database at {db} (run `pepper arena run` first, or pass --db)")
    import uvicorn

    from arena.store import StoreError
    from web.app import create_app

    human = play_token = None
    if seat is not None:
        _address(referee, "--referee")
        token = _token(token_file)
        from web.seat import HumanSeat

        human, play_token = HumanSeat(seat), secrets.token_urlsafe(16)
        threading.Thread(target=_hold_seat, args=(human, referee, token, seat), daemon=True, name="seat").start()
    hosts = ["localhost", "127.0.0.1", "[::1]", *(allowed_host or [])]
    if host not in ("0.0.0.0", "::", ""):
        hosts.append(f"[{host}]" if ":" in host else host)
    try:
        app = create_app(db, seat=human, play_token=play_token, allowed_hosts=hosts)
    except StoreError as e:
        fail(str(e))
    shown = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    typer.echo(f"serving {db} on {shown}/ (Ctrl-C stops)")
    if human is not None:
        typer.echo(f"play {seat}'s seats at {shown}/play?token={play_token}", err=False)
    # Open event streams (a leaderboard tab) never end on their own: give them a second on Ctrl-C, not forever.
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=1)
