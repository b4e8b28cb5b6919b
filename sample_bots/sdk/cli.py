"""``pepper bot run`` and ``pepper bot check`` (also ``python -m sample_bots.sdk run|check``).

    pepper bot run mybot.py:MyBot --referee 127.0.0.1:50051 --token T --name mybot
    pepper bot run mypkg.mybot:MyBot ...        a module path (from the current directory or installed)
    pepper bot run heuristic ...                a sample bot: random, heuristic or montecarlo
    pepper bot check -- python mybot.py         the conformance checker (see arena/check.py)
    pepper bot check -- {python} mybot.py       ... with the arena's own Python ({python}, as in `bot register`)

TARGET is ``FILE.py[:NAME]`` or ``MODULE[:NAME]``; NAME is a Bot subclass, any
class or object with ``decide(view)``, or a function ``decide(view)``. Without
``:NAME`` the module's one Bot subclass is used (or its one class with a
``decide`` method, or its ``decide`` function).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Run a bot against a referee, or check that a bot plays by the protocol.")

SAMPLES = ("random", "heuristic", "montecarlo")


class TargetError(Exception):
    pass


def _load_module(spec: str):
    path = Path(spec)
    if spec.endswith(".py") or os.sep in spec or path.is_file():
        if not path.is_file():
            raise TargetError(f"no such file: {spec}")
        path = path.resolve()
        sys.path.insert(0, str(path.parent))   # the bot's own helper modules import as siblings
        mod_name = f"_pepper_bot_{path.stem}"
        s = importlib.util.spec_from_file_location(mod_name, path)
        if s is None or s.loader is None:
            raise TargetError(f"cannot load {spec} as a Python file")
        mod = importlib.util.module_from_spec(s)
        sys.modules[mod_name] = mod
        s.loader.exec_module(mod)
        return mod
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as e:
        if e.name and spec.startswith(e.name):
            raise TargetError(f"no module named {spec!r} (give a file path like mybot.py:MyBot, or a module on the path)") from None
        raise


def load_target(target: str):
    """The bot object a TARGET names (not yet wrapped: see :func:`sample_bots.sdk.as_bot`)."""
    from .bot import Bot

    if target in SAMPLES:
        from sample_bots.__main__ import make_policy

        return make_policy(target)
    spec, _, attr = target.rpartition(":") if ":" in target and not Path(target).is_file() else (target, "", "")
    mod = _load_module(spec)
    if attr:
        try:
            obj = getattr(mod, attr)
        except AttributeError:
            raise TargetError(f"{spec} has no {attr!r}") from None
    else:
        own = [v for v in vars(mod).values() if inspect.isclass(v) and v.__module__ == mod.__name__]
        found = ([c for c in own if issubclass(c, Bot)] or [c for c in own if callable(getattr(c, "decide", None))])
        if len(found) == 1:
            obj = found[0]
        elif not found and callable(getattr(mod, "decide", None)):
            obj = mod.decide
        else:
            names = ", ".join(c.__name__ for c in found) or "none"
            raise TargetError(f"say which bot {spec} holds as {spec}:NAME (bot classes found: {names})")
    if inspect.isclass(obj):
        try:
            obj = obj()
        except TypeError as e:
            raise TargetError(f"cannot create {target}: {e} (a bot class must take no arguments)") from None
    return obj


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
    from .bot import as_bot
    from .runner import run_bot

    try:
        bot = as_bot(load_target(target), None)
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
