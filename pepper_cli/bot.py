"""``pepper bot ...``: register, list and remove the arena's bots; run one; check one.

    pepper bot register NAME --command "{python} mybot.py" | --remote
    pepper bot register NAME --openspiel ismcts   an OpenSpiel bot (ismcts, mcts, random: docs/research.md)
    pepper bot update NAME [--command ...] [--files ...]   a new version when anything changed
    pepper bot update NAME --image IMAGE | --dockerfile PATH   ... or its image did (its id)
    pepper bot list | versions NAME | remove NAME
    pepper bot token NAME --new                 a remote bot's new token (the only time it is shown)
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

from referee.defaults import DEFAULT_DEADLINE_MS, DEFAULT_TIME_BANK_MS

from .common import DbOption
from .common import fail as _fail
from .common import open_store as _store

app = typer.Typer(no_args_is_help=True, help="Register, update, list and remove bots (and run or check one).")

SAMPLES = ("random", "heuristic", "montecarlo")


def load_target(target: str):
    """The bot a TARGET names: a sample bot by name, else a file or module (:func:`pepper_bot.target.load_target`)."""
    if target in SAMPLES:
        from sample_bots.__main__ import make_policy

        return make_policy(target)
    # The SDK (and gRPC) only for the commands that run a bot.
    from pepper_bot.target import load_target

    return load_target(target)


FilesOption = Annotated[list[Path], typer.Option(
    "--files", help="The bot's own files or directories (repeatable): its version's digest covers them. Default: "
                    "the command's arguments that are files under --cwd, or for -m PKG the package there.")]
DeadlineOption = Annotated[int | None, typer.Option(min=1, help="Its own time per decision, ms (default: the run's).")]
TimeBankOption = Annotated[int | None, typer.Option(min=0, help="Its own time bank per seat per game, ms "
                                                                "(default: the run's).")]


def _env(pairs: list[str]) -> dict[str, str]:
    env = {}
    for kv in pairs:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            _fail(f"--env wants KEY=VALUE, got {kv!r}")
        env[k] = v
    return env


def _files(command: str | None, cwd: str, files: list[Path] | None) -> tuple[tuple[str, ...], str]:
    """The bot's files (relative to ``cwd`` where they are under it) and their digest."""
    from arena.registry import BotFilesError, default_files, files_digest

    root = Path(cwd)
    try:
        if files:
            missing = [str(f) for f in files if not (root / f).exists()]
            if missing:
                _fail(f"--files {', '.join(missing)}: no such file or directory (relative to --cwd {cwd})")
            paths = [(root / f).resolve() for f in files]
            names = tuple(sorted({p.relative_to(root.resolve()).as_posix() if p.is_relative_to(root.resolve())
                                  else str(p) for p in paths}))
        else:
            names = tuple(default_files(command, cwd)) if command else ()
        return names, files_digest(names, cwd)
    except BotFilesError as e:
        _fail(str(e))


def _limits(memory_mb: int | None, cpus: float | None, pids: int | None) -> dict[str, float]:
    from arena.sandbox import check_limits

    try:
        return check_limits({"memory_mb": memory_mb, "cpus": cpus, "pids": pids})
    except ValueError as e:
        _fail(str(e))


def _resolve(name: str, image: str | None, dockerfile: Path | None) -> tuple[str, str]:
    """The id of ``image`` (or of the image built from ``dockerfile``) and the command its Entrypoint and Cmd give."""
    from arena.errors import ArenaError
    from arena.sandbox import resolve_image

    if image and dockerfile:
        _fail("give one of --image IMAGE or --dockerfile PATH")
    try:
        return resolve_image(name, image, str(dockerfile) if dockerfile else None)
    except ArenaError as e:
        _fail(str(e))


def _image(name: str, image: str | None, dockerfile: Path | None, command: str | None) -> tuple[str, str]:
    """The id of the image a bot registers with (built from ``dockerfile``), and its command (default: the image's)."""
    image_id, default = _resolve(name, image, dockerfile)
    if not (command or default):
        _fail(f"the image {image or dockerfile} has no Cmd or Entrypoint: give --command \"...\" (run inside it)")
    return image_id, command or default


def _version_line(b) -> str:
    return f"version {b.version}" + (f", files {b.digest[:12]}" if b.digest else "")


_OPENSPIEL_BOTS = ("ismcts", "mcts", "random")   # pepper_spiel.entrant.BOTS (not imported: the CLI starts fast)


@app.command("register")
def bot_register(
    name: Annotated[str, typer.Argument(help="A unique name for the bot.")],
    command: Annotated[str | None, typer.Option(help="How the arena launches it, e.g. \"python mybot.py\".")] = None,
    remote: Annotated[bool, typer.Option("--remote", help="The bot's owner runs it; it connects with the printed token.")] = False,
    cwd: Annotated[Path | None, typer.Option(help="Working directory for --command.")] = None,
    env: Annotated[list[str], typer.Option("--env", help="KEY=VALUE for the bot's environment (repeatable).")] = [],  # noqa: B006
    processes: Annotated[int, typer.Option(min=1, max=64, help="Processes to launch; each serves many seats.")] = 1,
    files: FilesOption = [],  # noqa: B006
    openspiel: Annotated[str | None, typer.Option("--openspiel", help="An OpenSpiel bot (ismcts, mcts or random) as the "
                                                  "command: {python} -m pepper_spiel.entrant --bot BOT.")] = None,
    deadline_ms: DeadlineOption = None,
    time_bank_ms: TimeBankOption = None,
    image: Annotated[str | None, typer.Option(help="A local Docker image it runs in (with --sandbox docker), its "
                                                   "command inside it (default: the image's own); its id versions it.")] = None,
    dockerfile: Annotated[Path | None, typer.Option(help="Build its image from this Dockerfile (its directory is "
                                                         "the build context), as --image.")] = None,
    memory_mb: Annotated[int | None, typer.Option(min=16, help="Sandbox: its memory limit, MiB (default 512).")] = None,
    cpus: Annotated[float | None, typer.Option(min=0.01, help="Sandbox: its CPU limit, cores (default 1).")] = None,
    pids: Annotated[int | None, typer.Option(min=8, help="Sandbox: its process and thread limit (default 64).")] = None,
    db: DbOption = Path("arena.db"),
) -> None:
    """Register a bot the arena launches (--command, or --image / --dockerfile for the sandbox) or one that
    connects by itself (--remote).

    A name registered before (and removed) gets a new version unless this is its latest version's registration
    again: a new version starts unrated."""
    import re

    from arena.store import StoreError, new_token

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", name):
        _fail(f"bad bot name {name!r}: use letters, digits, '_', '.', '-' (at most 64, starting with a letter or digit)")
    if openspiel is not None:
        if openspiel not in _OPENSPIEL_BOTS:
            _fail(f"--openspiel {openspiel!r}: expected one of {', '.join(_OPENSPIEL_BOTS)}")
        if command or remote:
            _fail("give one of --command, --remote or --openspiel")
        command = f"{{python}} -m pepper_spiel.entrant --bot {openspiel}"
    if image and dockerfile:
        _fail("give one of --image IMAGE or --dockerfile PATH")
    boxed = bool(image or dockerfile)
    if (bool(command) or boxed) == remote:
        _fail("give exactly one of --command \"...\" (the arena launches the bot), --image / --dockerfile (it runs "
              "in that image) or --remote (you run it)")
    envd = _env(env)
    if cwd is not None and not cwd.is_dir():
        _fail(f"--cwd {cwd} is not a directory")
    limits = _limits(memory_mb, cpus, pids)
    where = str(cwd.resolve()) if cwd else str(Path.cwd())
    image_id = None
    if boxed:   # its files are its image: the image's id is its digest
        image_id, command = _image(name, image, dockerfile, command)
        where, names, digest = None, (), image_id
    else:
        names, digest = _files(command, where, files)
    st = _store(db)
    token = new_token()  # a command bot's is never used: the arena makes one per run
    try:
        b = st.add_bot(name, "remote" if remote else "command", command=command, cwd=where, env=envd,
                       processes=processes, files=names, digest=digest, deadline_ms=deadline_ms,
                       time_bank_ms=time_bank_ms, token=token, image=image_id, limits=limits)
    except StoreError as e:
        _fail(str(e))
    if remote:
        typer.echo(f"registered remote bot {b.name} ({_version_line(b)}); its token (keep it secret):\n{token}")
        typer.echo("run it with PEPPER_REFEREE=HOST:PORT PEPPER_TOKEN=<token> PEPPER_BOT_NAME="
                   f"{b.name} once `pepper arena run` is up. The token is shown only now (the database keeps its "
                   f"SHA-256); `pepper bot token {b.name} --new` makes a new one")
    elif b.image:
        typer.echo(f"registered {b.name} (version {b.version}, image {b.image[:19]}): {b.command} (in its image; "
                   "run it with `pepper arena run --sandbox docker`)")
    else:
        typer.echo(f"registered {b.name} ({_version_line(b)}): {b.command} (in {b.cwd})")


@app.command("update")
def bot_update(
    name: Annotated[str, typer.Argument(help="A registered bot.")],
    command: Annotated[str | None, typer.Option(help="A new command (default: as it is).")] = None,
    cwd: Annotated[Path | None, typer.Option(help="A new working directory.")] = None,
    env: Annotated[list[str] | None, typer.Option("--env", help="KEY=VALUE: the bot's whole environment anew "
                                                                 "(repeatable; default: as it is).")] = None,
    processes: Annotated[int | None, typer.Option(min=1, max=64, help="Processes to launch.")] = None,
    files: Annotated[list[Path] | None, typer.Option("--files", help="Its files anew (repeatable; default: as they "
                                                                      "were given, read again).")] = None,
    deadline_ms: DeadlineOption = None,
    time_bank_ms: TimeBankOption = None,
    image: Annotated[str | None, typer.Option(help="A local Docker image it runs in from now on (as in `bot register`): "
                                                   "a new version when its id differs.")] = None,
    dockerfile: Annotated[Path | None, typer.Option(help="Build its image anew from this Dockerfile (its directory is "
                                                         "the build context), as --image.")] = None,
    db: DbOption = Path("arena.db"),
) -> None:
    """Change a bot, or record that its files or its image changed: a new version (rated on its own) when
    anything differs from its latest version, else that version still.

    With --image or --dockerfile its command is --command, else as it was when the image is the same one,
    else the new image's own (Entrypoint and Cmd; the one it had where the image has none). A bot in an
    image has no --cwd or --files: its image is its files."""
    import dataclasses

    from arena.store import StoreError

    st = _store(db)
    b = st.bot(name)
    if b is None:
        _fail(f"no bot named {name!r} in {db} (see `pepper bot list`; `pepper bot register` adds one)")
    if cwd is not None and not cwd.is_dir():
        _fail(f"--cwd {cwd} is not a directory")
    if b.kind == "remote" and (command or cwd or processes or image or dockerfile):
        _fail(f"{name} is a remote bot: --command, --cwd, --processes, --image and --dockerfile do not apply (remove "
              "it and register it again with --command or --image to have the arena launch it)")
    boxed = bool(image or dockerfile)
    if (boxed or b.image) and (cwd or files):
        _fail(f"{name} runs in a Docker image: --cwd and --files do not apply (its image is its files; give "
              "--image IMAGE or --dockerfile PATH for new ones)")
    if boxed:   # its files are its image: the image's id is its digest
        image_id, default = _resolve(name, image, dockerfile)
        new_command = command or (b.command if image_id == b.image else default or (b.command if b.image else None))
        if not new_command:
            _fail(f"the image {image or dockerfile} has no Cmd or Entrypoint: give --command \"...\" (run inside it)")
        new_cwd, names, digest = None, (), image_id
    elif b.image:
        image_id, new_command, new_cwd, names, digest = b.image, command or b.command, None, (), b.image
    else:
        image_id = None
        new_cwd = str(cwd.resolve()) if cwd else b.cwd or str(Path.cwd())
        new_command = command or b.command
        # Its files: --files anew; else the default ones of a new command or directory (or where none were
        # recorded); else the recorded ones, read again.
        if not files and not command and not cwd and b.files is not None:
            files = [Path(f) for f in b.files]
        names, digest = _files(new_command, new_cwd, files or None)
        if b.kind != "command":
            new_cwd = b.cwd
    build = dataclasses.replace(
        b.build, command=new_command, cwd=new_cwd, image=image_id,
        env=b.env if env is None else _env(env), processes=processes or b.processes, files=names, digest=digest,
        deadline_ms=b.deadline_ms if deadline_ms is None else deadline_ms,
        time_bank_ms=b.time_bank_ms if time_bank_ms is None else time_bank_ms)
    try:
        after, new = st.update_bot(name, build)
    except StoreError as e:
        _fail(str(e))
    where = f", image {after.image[:19]}" if after.image else ""
    if new:
        typer.echo(f"{name}: new version {after.version}{where} (rated on its own; version {b.version} keeps its games "
                   "and ratings)")
    else:
        typer.echo(f"{name}: unchanged, still version {after.version}{where}")


@app.command("versions")
def bot_versions(name: Annotated[str, typer.Argument(help="A bot, registered or removed.")],
                 db: DbOption = Path("arena.db"),
                 json_out: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Every version of a bot: when it was made, its files' digest, its command, its games and ratings."""
    import datetime

    from arena.ratings import Pool, Rating

    st = _store(db, read_only=True)
    versions = st.versions(name)
    if not versions:
        _fail(f"no bot named {name!r} has been registered in {db} (see `pepper bot list`)")
    pools = [Pool.parse(k) for k in st.pools()]
    if json_out:
        typer.echo(json.dumps([{"version": v.version, "created_at": v.created_at, "kind": v.build.kind,
                                "command": v.build.command, "cwd": v.build.cwd, "processes": v.build.processes,
                                "files": v.build.files, "digest": v.build.digest, "deadline_ms": v.build.deadline_ms,
                                "time_bank_ms": v.build.time_bank_ms,
                                "pools": {Pool.parse(k).label(pools): {"games": g, "mu": mu, "sigma": sigma}
                                          for k, (g, mu, sigma) in v.pools.items()}} for v in versions]))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"Versions of {name} in {db}", caption="rating = mu - 3*sigma, per pool")
    for col in ("version", "created", "digest", "command", "games", "rating"):
        t.add_column(col, justify="right" if col in ("version", "games") else "left", overflow="fold")
    for v in versions:
        ratings = "; ".join(f"{Pool.parse(k).label(pools)} {Rating(mu, sigma).conservative:.2f}"
                            for k, (_, mu, sigma) in v.pools.items())
        t.add_row(str(v.version), datetime.datetime.fromtimestamp(v.created_at).strftime("%Y-%m-%d %H:%M"),
                  (v.build.digest or "-")[:12], v.build.command or "(connects itself)",
                  str(sum(g for g, _, _ in v.pools.values())), ratings or "-")
    Console(highlight=False).print(t)


@app.command("list")
def bot_list(db: DbOption = Path("arena.db"), json_out: Annotated[bool, typer.Option("--json")] = False) -> None:
    """The registered bots, each as its latest version."""
    st = _store(db, read_only=True)
    bots = st.bots()
    if json_out:
        typer.echo(json.dumps([{"name": b.name, "kind": b.kind, "command": b.command, "cwd": b.cwd,
                                "processes": b.processes, "sample": b.sample, "version": b.version, "digest": b.digest,
                                "deadline_ms": b.deadline_ms, "time_bank_ms": b.time_bank_ms} for b in bots]))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"Bots in {db}")
    for col in ("name", "version", "kind", "command", "processes", "sample"):
        t.add_column(col)
    for b in bots:
        t.add_row(b.name, str(b.version), b.kind, b.command or "(connects itself)", str(b.processes),
                  "yes" if b.sample else "")
    Console().print(t)


@app.command("token")
def bot_token(
    name: Annotated[str, typer.Argument(help="A registered remote bot.")],
    new: Annotated[bool, typer.Option("--new", help="Make and print a new token; the old one stops working at the "
                                                    "next `pepper arena run`.")] = False,
    db: DbOption = Path("arena.db"),
) -> None:
    """Give a remote bot a new token (what it presents as PEPPER_TOKEN) and print it; keep it secret.

    A token is shown only when it is made (here, or by `pepper bot register --remote`): the database keeps its
    SHA-256, not the token. A command bot needs none: the arena makes one for each run."""
    from arena.store import BotKind, new_token

    st = _store(db, read_only=not new)
    b = st.bot(name)
    if b is None:
        _fail(f"no bot named {name!r} in {db} (see `pepper bot list`)")
    if b.kind is BotKind.COMMAND:
        _fail(f"{name!r} is a command bot: the arena gives it a fresh token for each run, so it has none to show")
    if not new:
        _fail(f"the token of {name!r} cannot be shown again: {db} keeps only its SHA-256. `pepper bot token {name} "
              "--new` makes a new one (the old one then stops working)")
    token = new_token()
    st.set_token(name, token)
    typer.echo(token)


@app.command("remove")
def bot_remove(name: str, db: DbOption = Path("arena.db")) -> None:
    """Unregister a bot (its versions, games and ratings stay in the database; registering the name again
    with another build is a new version, unrated)."""
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
    from pepper_bot.target import TargetError

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
    deadline_ms: Annotated[int, typer.Option(help="time per decision, ms")] = DEFAULT_DEADLINE_MS,
    time_bank_ms: Annotated[int, typer.Option(help="time bank per seat per game, ms")] = DEFAULT_TIME_BANK_MS,
    connect_timeout: Annotated[float, typer.Option(help="seconds the bot has to connect")] = 30.0,
    only: Annotated[list[str] | None, typer.Option("--only", help="run only the checks whose name contains this (repeatable)")] = None,
    report: Annotated[Path | None, typer.Option(help="also write the results as JSON to this file")] = None,
    keep_going: Annotated[bool, typer.Option(help="run every check even after a crash or a timeout")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="show the bot's output and what each check saw")] = False,
    sandbox: Annotated[str | None, typer.Option(help="docker: run the bot in the arena's sandbox (docs/sandbox.md), its "
                                                     "files from the current directory under /bot")] = None,
    image: Annotated[str | None, typer.Option(help="with --sandbox docker: run COMMAND in this image (default: the "
                                                   "project's base image, `make images`)")] = None,
) -> None:
    """Check a bot: launch COMMAND against a private referee and drive it through every ruleset and edge case.

    The bot gets $PEPPER_REFEREE, $PEPPER_TOKEN and $PEPPER_BOT_NAME; {python} in
    COMMAND is the arena's own interpreter. Prints PASS/FAIL per check with the
    reason (timeout, illegal action, crash, protocol error, policy error: the
    bot's SDK answered a fallback for its strategy); exits 1 if any check fails.
    """
    import shlex

    from arena.registry import expand
    from conformance import CheckOptions, run_check

    if len(command) == 1 and " " in command[0].strip():   # one quoted command line
        command = shlex.split(command[0])
    opts = CheckOptions(name=name, deadline_ms=deadline_ms, time_bank_ms=time_bank_ms, connect_timeout=connect_timeout,
                        only=list(only or []), report=str(report) if report else None, keep_going=keep_going, verbose=verbose)
    if sandbox is None:
        if image:
            _fail("--image runs the bot in a container: give --sandbox docker too")
        raise typer.Exit(run_check([expand(a) for a in command], opts))
    if sandbox != "docker":
        _fail(f"--sandbox {sandbox}: the one sandbox is docker")
    from arena.errors import ArenaError
    from arena.sandbox import SANDBOX_PYTHON, BotSandbox, resolve_image
    from arena.store import Bot, BotKind
    from conformance import Contained

    try:
        box = BotSandbox()
        image_id = resolve_image(name, image=image, docker_client=box.client)[0] if image else None
    except ArenaError as e:
        _fail(str(e))
    command = [expand(a, SANDBOX_PYTHON) for a in command]
    # Its files: the whole current directory, mounted at /bot.
    bot = Bot(name, BotKind.COMMAND, shlex.join(command), str(Path.cwd()), {}, 1, "", False, files=(".",), image=image_id)
    opts.contained = Contained(runtime=lambda socket: box.runtime_at(bot, socket), address=box.address)
    try:
        code = run_check(command, opts)
    finally:
        box.close()
    raise typer.Exit(code)
