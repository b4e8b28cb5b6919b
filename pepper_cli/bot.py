"""``pepper bot ...``: register, list and remove the arena's bots; run one; check one.

    pepper bot register NAME --command "{python} mybot.py" | --remote
    pepper bot list | token NAME | remove NAME
    pepper bot run mybot.py:MyBot --referee 127.0.0.1:50051 --token T --name mybot
    pepper bot run mypkg.mybot:MyBot ...        a module path (from the current directory or installed)
    pepper bot run heuristic ...                a sample bot: random, heuristic or montecarlo
    pepper bot check -- python mybot.py         the conformance checker (the conformance package)
    pepper bot check -- {python} mybot.py       ... with the arena's own Python ({python}, as in `bot register`)

TARGET is a sample bot's name, or ``FILE.py[:NAME]`` / ``MODULE[:NAME]`` as
:mod:`pepper_bot.target` loads it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pepper_bot.target import TargetError
from pepper_bot.target import load_target as _load

from conformance import CheckOptions

from .common import DbOption
from .common import fail as _fail
from .common import open_store as _store

app = typer.Typer(no_args_is_help=True, help="Register, list and remove bots (and run or check one).")

SAMPLES = ("random", "heuristic", "montecarlo")


def load_target(target: str):
    """The bot a TARGET names: a sample bot by name, else a file or module (:func:`pepper_bot.target.load_target`)."""
    if target in SAMPLES:
        from sample_bots.__main__ import make_policy

        return make_policy(target)
    return _load(target)


@app.command("register")
def bot_register(
    name: Annotated[str, typer.Argument(help="A unique name for the bot.")],
    command: Annotated[str | None, typer.Option(help="How the arena launches it, e.g. \"python mybot.py\".")] = None,
    remote: Annotated[bool, typer.Option("--remote", help="The bot's owner runs it; it connects with the printed token.")] = False,
    cwd: Annotated[Path | None, typer.Option(help="Working directory for --command.")] = None,
    env: Annotated[list[str], typer.Option("--env", help="KEY=VALUE for the bot's environment (repeatable).")] = [],  # noqa: B006
    processes: Annotated[int, typer.Option(min=1, max=64, help="Processes to launch; each serves many seats.")] = 1,
    db: DbOption = Path("arena.db"),
) -> None:
    """Register a bot the arena launches (--command) or one that connects by itself (--remote)."""
    import re

    from arena.store import StoreError

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", name):
        _fail(f"bad bot name {name!r}: use letters, digits, '_', '.', '-' (at most 64, starting with a letter or digit)")
    if bool(command) == remote:
        _fail("give exactly one of --command \"...\" (the arena launches the bot) or --remote (you run it)")
    envd = {}
    for kv in env:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            _fail(f"--env wants KEY=VALUE, got {kv!r}")
        envd[k] = v
    if cwd is not None and not cwd.is_dir():
        _fail(f"--cwd {cwd} is not a directory")
    st = _store(db)
    try:
        b = st.add_bot(name, "remote" if remote else "command", command=command,
                       cwd=str(cwd.resolve()) if cwd else str(Path.cwd()), env=envd, processes=processes)
    except StoreError as e:
        _fail(str(e))
    if remote:
        typer.echo(f"registered remote bot {b.name}; its token (keep it secret):\n{b.token}")
        typer.echo("run it with PEPPER_REFEREE=HOST:PORT PEPPER_TOKEN=<token> PEPPER_BOT_NAME="
                   f"{b.name} once `pepper arena run` is up (`pepper bot token {b.name}` prints the token again)")
    else:
        typer.echo(f"registered {b.name}: {b.command} (in {b.cwd})")


@app.command("list")
def bot_list(db: DbOption = Path("arena.db"), json_out: Annotated[bool, typer.Option("--json")] = False) -> None:
    """The registered bots."""
    st = _store(db, read_only=True)
    bots = st.bots()
    if json_out:
        typer.echo(json.dumps([{"name": b.name, "kind": b.kind, "command": b.command, "cwd": b.cwd,
                                "processes": b.processes, "sample": b.sample} for b in bots]))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"Bots in {db}")
    for col in ("name", "kind", "command", "processes", "sample"):
        t.add_column(col)
    for b in bots:
        t.add_row(b.name, b.kind, b.command or "(connects itself)", str(b.processes), "yes" if b.sample else "")
    Console().print(t)


@app.command("token")
def bot_token(name: Annotated[str, typer.Argument(help="A registered bot.")], db: DbOption = Path("arena.db")) -> None:
    """Print a bot's token (what a remote bot presents as PEPPER_TOKEN); keep it secret."""
    st = _store(db, read_only=True)
    b = st.bot(name)
    if b is None:
        _fail(f"no bot named {name!r} in {db} (see `pepper bot list`)")
    typer.echo(b.token)


@app.command("remove")
def bot_remove(name: str, db: DbOption = Path("arena.db")) -> None:
    """Unregister a bot (its games and ratings stay in the database)."""
    st = _store(db)
    if not st.remove_bot(name):
        _fail(f"no bot named {name!r} (see `pepper bot list`)")
    typer.echo(f"removed {name}")


@app.command()
def run(
    target: Annotated[str, typer.Argument(help="FILE.py[:CLASS], MODULE[:CLASS], or a sample bot: random, heuristic, montecarlo")],
    referee: Annotated[str | None, typer.Option(envvar="PEPPER_REFEREE", help="HOST:PORT of the referee \\[default: 127.0.0.1:50051]")] = None,
    token: Annotated[str | None, typer.Option(envvar="PEPPER_TOKEN", help="the bot's token")] = None,
    name: Annotated[str | None, typer.Option(envvar="PEPPER_BOT_NAME", help="the bot's registered name \\[default: the bot's name]")] = None,
    max_batch: Annotated[int, typer.Option(help="most decision requests per batch (0: the referee's default)")] = 0,
    tls_ca: Annotated[str | None, typer.Option(envvar="PEPPER_TLS_CA", help="PEM CA certificate: connect with TLS")] = None,
    log_level: Annotated[str | None, typer.Option(envvar="PEPPER_LOG_LEVEL", help="debug, info, warning or error \\[default: info]")] = None,
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
    deadline_ms: Annotated[int, typer.Option(help="time per decision, ms")] = CheckOptions.deadline_ms,
    time_bank_ms: Annotated[int, typer.Option(help="time bank per seat per game, ms")] = CheckOptions.time_bank_ms,
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
    bot's SDK answered a fallback for its strategy); exits 1 if any check fails.
    """
    import shlex

    from arena.registry import expand
    from conformance import run_check

    if len(command) == 1 and " " in command[0].strip():   # one quoted command line
        command = shlex.split(command[0])
    opts = CheckOptions(name=name, deadline_ms=deadline_ms, time_bank_ms=time_bank_ms, connect_timeout=connect_timeout,
                        only=list(only or []), report=str(report) if report else None, keep_going=keep_going, verbose=verbose)
    raise typer.Exit(run_check([expand(a) for a in command], opts))
