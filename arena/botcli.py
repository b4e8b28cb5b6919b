"""``pepper bot run`` and ``pepper bot check``.

    pepper bot run mybot.py:MyBot --referee 127.0.0.1:50051 --token T --name mybot
    pepper bot run mypkg.mybot:MyBot ...        a module path (from the current directory or installed)
    pepper bot run heuristic ...                a sample bot: random, heuristic or montecarlo
    pepper bot check -- python mybot.py         the conformance checker (see arena/check.py)
    pepper bot check -- {python} mybot.py       ... with the arena's own Python ({python}, as in `bot register`)

TARGET is a sample bot's name, or ``FILE.py[:NAME]`` / ``MODULE[:NAME]`` as
:mod:`pepper_bot.target` loads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pepper_bot.target import TargetError
from pepper_bot.target import load_target as _load

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Run a bot against a referee, or check that a bot plays by the protocol.")

SAMPLES = ("random", "heuristic", "montecarlo")


def load_target(target: str):
    """The bot a TARGET names: a sample bot by name, else a file or module (:func:`pepper_bot.target.load_target`)."""
    if target in SAMPLES:
        from sample_bots.__main__ import make_policy

        return make_policy(target)
    return _load(target)


@app.callback()
def _root() -> None:
    """Run a bot against a referee, or check that a bot plays by the protocol."""


@app.command()
def run(
    target: Annotated[str, typer.Argument(help="FILE.py[:CLASS], MODULE[:CLASS], or a sample bot: random, heuristic, montecarlo")],
    referee: Annotated[str | None, typer.Option(envvar="PEPPER_REFEREE", help="HOST:PORT of the referee [default: 127.0.0.1:50051]")] = None,
    token: Annotated[str | None, typer.Option(envvar="PEPPER_TOKEN", help="the bot's token")] = None,
    name: Annotated[str | None, typer.Option(envvar="PEPPER_BOT_NAME", help="the bot's registered name [default: the bot's name]")] = None,
    max_batch: Annotated[int, typer.Option(help="most decision requests per batch (0: the referee's default)")] = 0,
    tls_ca: Annotated[str | None, typer.Option(envvar="PEPPER_TLS_CA", help="PEM CA certificate: connect with TLS")] = None,
    log_level: Annotated[str | None, typer.Option(envvar="PEPPER_LOG_LEVEL", help="debug, info, warning or error [default: info]")] = None,
    give_up_after: Annotated[float, typer.Option(help="seconds without a connection before exiting")] = 300.0,
) -> None:
    """Run a bot: connect to the referee and play every seat it is given, until SIGTERM/SIGINT."""
    from pepper_bot import run_bot

    from sample_bots.adapter import as_engine_bot

    try:
        bot = as_engine_bot(load_target(target))
    except (TargetError, TypeError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    if target in SAMPLES and not name:
        name = target
    raise typer.Exit(run_bot(bot, referee, token, name, max_batch, tls_ca=tls_ca, log_level=log_level,
                             give_up_after=give_up_after))


@app.command(context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True})
def check(
    command: Annotated[list[str], typer.Argument(help="the bot's command line, after --, e.g. -- {python} mybot.py ({python}: the arena's Python)")],
    name: Annotated[str, typer.Option(help="the name the bot is registered under")] = "bot-under-test",
    deadline_ms: Annotated[int, typer.Option(help="time per decision, ms")] = 2000,
    time_bank_ms: Annotated[int, typer.Option(help="time bank per seat per game, ms")] = 4000,
    connect_timeout: Annotated[float, typer.Option(help="seconds the bot has to connect")] = 30.0,
    only: Annotated[list[str] | None, typer.Option("--only", help="run only the checks whose name contains this (repeatable)")] = None,
    report: Annotated[Path | None, typer.Option(help="also write the results as JSON to this file")] = None,
    keep_going: Annotated[bool, typer.Option(help="run every check even after a crash or a timeout")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="show the bot's output and what each check saw")] = False,
) -> None:
    """Check a bot: launch COMMAND against a private referee and drive it through every ruleset and edge case.

    The bot gets $PEPPER_REFEREE, $PEPPER_TOKEN and $PEPPER_BOT_NAME; {python} in
    COMMAND is the arena's own interpreter. Prints PASS/FAIL per check with the
    reason (timeout, illegal action, crash, protocol error, policy error: the
    SDK had to replace decide()'s answer); exits 1 if any check fails.
    """
    from arena.check import CheckOptions, run_check

    opts = CheckOptions(name=name, deadline_ms=deadline_ms, time_bank_ms=time_bank_ms, connect_timeout=connect_timeout,
                        only=list(only or []), report=str(report) if report else None, keep_going=keep_going, verbose=verbose)
    raise typer.Exit(run_check(list(command), opts))


def main() -> None:
    app()
