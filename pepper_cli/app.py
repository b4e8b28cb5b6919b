"""The ``pepper`` command: the one place that puts every layer's commands together.

    pepper rules list|show                the rulesets                      (rules.py)
    pepper simulate|play|replay           the rules engine on its own       (play.py)
    pepper referee serve|...              the referee service               (referee.py)
    pepper bot register|list|token|remove|run|check                         (bot.py)
    pepper arena run|table|games|replay   tournaments and results           (arena.py)
    pepper web                            the results in a browser          (web.py)
    pepper ladder init|serve|invite|enter|admin   a standing ladder         (ladder.py)

Heavy modules are imported inside the commands so ``pepper --help`` stays fast.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated

import typer

# The command groups and top-level commands, each with the module that defines it. `pepper GROUP ...` imports only
# that group's module (the others pull in gRPC, the SDK, the checker, the web app: a quarter of a second a
# command, paid by every bot launch script and test that runs one); `pepper --help` imports them all.
# In the order `pepper --help` lists them.
GROUPS = {"rules": "rules", "referee": "referee", "bot": "bot", "arena": "arena", "ladder": "ladder"}
COMMANDS = {"simulate": "play", "play": "play", "replay": "play", "web": "web"}
ORDER = ("rules", "simulate", "play", "replay", "referee", "bot", "arena", "ladder", "web")


def version_line() -> str:
    """What ``pepper --version`` prints: the installed pepper-arena, the protocol (package and version) it speaks,
    and whether its rules engine is the compiled build (setup.py) or the pure-Python source, and why."""
    from importlib.metadata import version

    from pepper_proto import PROTOCOL_VERSION
    from pepper_proto.v1 import bot_pb2

    from referee.rules import why_pure

    why = why_pure()
    engine = "compiled" if why is None else f"pure Python: {why}"
    return f"pepper {version('pepper-arena')} (protocol {bot_pb2.DESCRIPTOR.package} {PROTOCOL_VERSION}; rules engine {engine})"


def _print_version(wanted: bool) -> None:
    if wanted:
        typer.echo(version_line())
        raise typer.Exit()


def _root(version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                                help="Print the version and the protocol version, and exit.")] = False,
          ) -> None:
    pass


def build_app(only: str | None = None) -> typer.Typer:
    """The ``pepper`` command: every group and command, or only ``only`` (a name of GROUPS or COMMANDS), which
    runs and helps the same, its siblings unimported."""
    app = typer.Typer(
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        help="Pepper Arena: the rules, the referee, bots and their conformance checks, tournaments and results.",
    )
    app.callback()(_root)
    for name in ORDER if only is None else (only,):
        if name in GROUPS:
            app.add_typer(importlib.import_module(f"{__package__}.{GROUPS[name]}").app, name=name)
        else:
            app.command()(getattr(importlib.import_module(f"{__package__}.{COMMANDS[name]}"), name))
    return app


def __getattr__(name: str):
    if name == "app":   # the whole command (tests drive it through typer's CliRunner), built on first use
        globals()["app"] = full = build_app()
        return full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Console-script entry point (``pepper``)."""
    first = sys.argv[1] if len(sys.argv) > 1 else None
    build_app(first if first in GROUPS or first in COMMANDS else None)()
