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

from typing import Annotated

import typer

from . import arena, bot, ladder, play, referee, rules, web

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Pepper Arena: the rules, the referee, bots and their conformance checks, tournaments and results.",
)


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


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                                help="Print the version and the protocol version, and exit.")] = False,
          ) -> None:
    pass


app.add_typer(rules.app, name="rules")
for command in (play.simulate, play.play, play.replay):
    app.command()(command)
app.add_typer(referee.app, name="referee")
app.add_typer(bot.app, name="bot")
app.add_typer(arena.app, name="arena")
app.add_typer(ladder.app, name="ladder")
app.command()(web.web)


def main() -> None:
    """Console-script entry point (``pepper``)."""
    app()
