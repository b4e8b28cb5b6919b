"""``pepper referee serve``: run the gRPC referee (:func:`referee.service.serving.serve`).

The first line on stdout is ``listening on HOST:PORT`` (with the real port when
``--address`` asks for port 0), so scripts and tests can start it and read
where it is. SIGTERM or SIGINT drains: running games get ``--drain-timeout``
seconds to finish, the rest are aborted and recorded (in ``--record-dir``; without
it, in memory only, so lost at exit: a note on stderr says so), then the server stops.

``python -m pepper_cli.referee serve ...`` runs it without loading the other command groups (what the arena
and the tests spawn).
"""

from __future__ import annotations

import logging
import os
import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer

from referee.service.config import Policy, ServerConfig
from referee.service.enforcement import Verdict

from .common import ControlTokenError, resolve_control_token

app = typer.Typer(help="The gRPC referee (pepper.v1).", no_args_is_help=True, add_completion=False)


def _policy_option(kind: str, default: Verdict):
    return typer.Option(str(default), f"--on-{kind}", help=f"failure policy for {kind}: {', '.join(Verdict)}")


@app.callback()
def _root() -> None:
    """The gRPC referee (pepper.v1)."""


@app.command()
def serve(
    address: str = typer.Option("127.0.0.1:50051", help="HOST:PORT to listen on; port 0 picks a free port"),
    control_token: str = typer.Option("", envvar="PEPPER_CONTROL_TOKEN",
                                      help="token the control API requires (default: a random one, printed on stderr); "
                                      "any process of your user can read it in /proc until the referee hides it: "
                                      "prefer --control-token-file"),
    control_token_file: str = typer.Option(
        "", metavar="PATH", help="read the control token from the first line of PATH (mode 0600), or of stdin with "
        "'-' (what `pepper arena run` does: a pipe no other process can read)"),
    bot: Annotated[list[str] | None, typer.Option("--bot", help="register a bot: NAME=TOKEN (repeatable)")] = None,
    bots_file: Annotated[Path | None, typer.Option(help="file of NAME=TOKEN lines to register")] = None,
    deadline_ms: int = typer.Option(Policy.deadline_ms, help="time per decision, ms"),
    time_bank_ms: int = typer.Option(Policy.time_bank_ms, help="time bank per seat per game, ms"),
    on_illegal: str = _policy_option("illegal", Policy.on_illegal),
    on_malformed: str = _policy_option("malformed", Policy.on_malformed),
    on_timeout: str = _policy_option("timeout", Policy.on_timeout),
    on_disconnect: str = _policy_option("disconnect", Policy.on_disconnect),
    max_faults: int = typer.Option(Policy.max_faults, help="faults a seat may commit in one game before it forfeits (0: no limit)"),
    play_forced: bool = typer.Option(Policy.play_forced, "--play-forced/--ask-forced",
                                     help="play a seat's only legal action without asking it (games may override)"),
    unknown_request: str = typer.Option(
        ServerConfig.unknown_request, help="answers to unknown request ids or naming the wrong game: reject (with a notice) or disconnect"),
    unknown_request_limit: int = typer.Option(
        ServerConfig.unknown_request_limit, help="with --unknown-request reject: drop a connection that sends more "
        "than this many answers to unknown request ids or the wrong game (0: never)"),
    max_batch: int = typer.Option(ServerConfig.max_batch, help="most requests in one batch, whatever a bot asks for"),
    max_message_bytes: int = typer.Option(
        ServerConfig.max_receive_bytes, help="largest message accepted from a bot or control client, bytes (0: sized to "
        "the protocol from --max-batch: 64 KiB + 2 KiB per answer, 576 KiB by default; a bigger message ends its stream)"),
    max_batch_bytes: int = typer.Option(
        ServerConfig.max_batch_bytes, help="largest Batch message sent to a bot, bytes (default 4 MiB, what gRPC clients "
        "accept unless they raise grpc.max_receive_message_length; from 64 KiB)"),
    max_games: int = typer.Option(ServerConfig.max_games, help="most games running at once"),
    shared_seats: bool = typer.Option(
        ServerConfig.shared_seats, "--shared-seats", help="let one bot connection hold several seats of a game; it then receives every one "
        "of those seats' cards (trusted self-play only; by default a bot needs a connection per seat it takes)"),
    min_ping_interval_ms: int = typer.Option(
        ServerConfig.min_ping_interval_ms, help="the shortest keepalive ping interval accepted from a bot, ms (the SDKs "
        "ping every 30,000 ms; a bot that pings more often is told to go away: GOAWAY too_many_pings)"),
    keepalive_time_ms: int = typer.Option(
        ServerConfig.keepalive_time_ms, help="the referee pings every connection this often, ms; with "
        "--keepalive-timeout-ms it bounds how long a stopped or vanished bot keeps its connection"),
    keepalive_timeout_ms: int = typer.Option(
        ServerConfig.keepalive_timeout_ms, help="a connection that does not answer a ping within this is closed, ms"),
    hello_timeout_ms: int = typer.Option(
        ServerConfig.hello_timeout_ms, help="a Connect stream that sends no Hello within this is ended, ms (and a TCP "
        "connection that has not started HTTP/2 by then is closed)"),
    max_streams_per_connection: int = typer.Option(
        ServerConfig.max_streams_per_connection, help="concurrent calls on one HTTP/2 connection (more wait at the client)"),
    max_bot_connections: int = typer.Option(
        ServerConfig.max_bot_connections, help="Connect streams open at once, in all (also kept --fd-reserve below "
        "the open-file limit); more are refused with RESOURCE_EXHAUSTED"),
    max_bot_connections_per_peer: int = typer.Option(
        ServerConfig.max_bot_connections_per_peer, help="Connect streams open at once from one IP address"),
    max_waiting_streams: int = typer.Option(
        ServerConfig.max_waiting_streams, help="of those, streams that have not said Hello yet, in all; when every "
        "slot is taken the oldest of them is closed to make room for a new stream"),
    max_waiting_streams_per_peer: int = typer.Option(
        ServerConfig.max_waiting_streams_per_peer, help="streams that have not said Hello yet, from one IP address"),
    new_streams_per_peer_per_s: float = typer.Option(
        ServerConfig.new_streams_per_peer_per_s, help="new Connect streams a second from one IP address (bursts of "
        "twice as many); more are refused with RESOURCE_EXHAUSTED"),
    fd_reserve: int = typer.Option(
        ServerConfig.fd_reserve, help="open files kept free of bot connections, for control clients and records"),
    tls_cert: Annotated[Path | None, typer.Option(help="PEM certificate: serve TLS (needs --tls-key)")] = None,
    tls_key: Annotated[Path | None, typer.Option(help="PEM private key for --tls-cert")] = None,
    record_dir: Annotated[Path | None, typer.Option(help="write every finished game's result and record here")] = None,
    unix_socket: Annotated[Path | None, typer.Option(help="also listen on this Unix socket; a bot's own socket "
                                                        "(RegisterBotRequest.own_socket: how each sandboxed bot reaches "
                                                        "the referee, docs/sandbox.md) is bound beside it")] = None,
    keep_finished: int = typer.Option(
        ServerConfig.keep_games, help="finished games kept in memory for GetGame/WaitGame/ListGames; older ones are "
        "read from --record-dir, or are gone without it"),
    drain_timeout: float = typer.Option(30.0, help="seconds running games get to finish on shutdown"),
    log_level: str = typer.Option("warning", help="debug, info, warning or error"),
) -> None:
    """Serve the bot and control APIs until SIGTERM/SIGINT."""
    from referee.service.secret import hide_from_proc
    from referee.service.serving import serve as serve_until_stopped

    logging.basicConfig(level=log_level.upper(), stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from referee.rules import why_pure
    if (why := why_pure()) is not None:
        logging.getLogger("referee").warning("the rules engine runs as pure Python, slower: %s", why)
    try:
        control_token = resolve_control_token(control_token, control_token_file) or ""
    except ControlTokenError as e:
        raise typer.BadParameter(str(e), param_hint="--control-token-file") from None
    tokens: dict[str, str] = {}
    lines = list(bot or ())
    if bots_file is not None:
        lines += [ln.strip() for ln in bots_file.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for spec in lines:
        name, sep, tok = spec.partition("=")
        if not sep or not name or not tok:
            raise typer.BadParameter(f"expected NAME=TOKEN, got {spec!r}", param_hint="--bot")
        tokens[name.strip()] = tok.strip()
    for tok in tokens.values():  # given on the command line: out of /proc (resolve_control_token hid the control token)
        hide_from_proc(tok, "PEPPER_CONTROL_TOKEN")
    generated = not control_token
    token = control_token or secrets.token_urlsafe(24)
    try:
        policy = Policy(deadline_ms=deadline_ms, time_bank_ms=time_bank_ms, on_illegal=on_illegal, on_malformed=on_malformed,
                        on_timeout=on_timeout, on_disconnect=on_disconnect, max_faults=max_faults,
                        play_forced=play_forced)
        cfg = ServerConfig(address=address, control_token=token, bot_tokens=tokens, policy=policy,
                           unknown_request=unknown_request,
                           unknown_request_limit=unknown_request_limit, max_batch=max_batch, default_batch=min(ServerConfig.default_batch, max_batch),
                           max_receive_bytes=max_message_bytes, max_batch_bytes=max_batch_bytes, max_games=max_games, shared_seats=shared_seats,
                           min_ping_interval_ms=min_ping_interval_ms, keepalive_time_ms=keepalive_time_ms,
                           keepalive_timeout_ms=keepalive_timeout_ms, hello_timeout_ms=hello_timeout_ms,
                           max_streams_per_connection=max_streams_per_connection, max_bot_connections=max_bot_connections,
                           max_bot_connections_per_peer=max_bot_connections_per_peer, fd_reserve=fd_reserve,
                           max_waiting_streams=max_waiting_streams,
                           max_waiting_streams_per_peer=max_waiting_streams_per_peer,
                           new_streams_per_peer_per_s=new_streams_per_peer_per_s,
                           tls_cert=str(tls_cert) if tls_cert else None, tls_key=str(tls_key) if tls_key else None,
                           record_dir=str(record_dir) if record_dir else None, keep_games=keep_finished,
                           unix_socket=str(unix_socket) if unix_socket else None)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    if record_dir is not None:
        os.makedirs(record_dir, exist_ok=True)
    serve_until_stopped(cfg, drain_timeout, show_token=generated)


if __name__ == "__main__":
    app()
