"""``pepper ladder``: a standing ladder (the :mod:`ladder` package; docs/ladder.md).

    pepper ladder init DIR                 a ladder folder: ladder.toml, arena.db, ladder.db, secrets/
    pepper ladder serve DIR                the referee, the scheduler and the web app until SIGTERM
    pepper ladder invite DIR AUTHOR        an author key (its last line)
    pepper ladder enter --server URL --key KEY NAME --remote      a bot's token (its last line)
    pepper ladder admin DIR pause|resume [BOT] | retire BOT | revoke AUTHOR | status
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import EXIT_FAILED, fail

app = typer.Typer(help="A standing ladder: authors' bots join over the network, and games never stop.",
                  no_args_is_help=True, add_completion=False)
admin_app = typer.Typer(help="The organizer's actions on a ladder folder: pepper ladder admin DIR ACTION ...",
                        no_args_is_help=True, add_completion=False)
app.add_typer(admin_app, name="admin")

Dir = Annotated[Path, typer.Argument(help="The ladder folder.")]


def _ladder_dir(root: Path):
    from ladder.config import LadderDir

    return LadderDir(root)


def _fail(e: Exception) -> None:
    from ladder.errors import Conflict, Unauthorized

    fail(str(e), EXIT_FAILED if isinstance(e, Conflict | Unauthorized) else 2)


@app.command()
def init(root: Dir,
         ruleset: Annotated[str, typer.Option("--ruleset", help="A built-in ruleset or a ruleset file (copied in).")] = "iowa",
         players: Annotated[int | None, typer.Option("--players", help="Players a game (default: the ruleset's).")] = None,
         max_in_flight: Annotated[int, typer.Option("--max-in-flight", help="Games in flight at once.")] = 16,
         referee_address: Annotated[str, typer.Option("--referee-address", help="Where the referee listens "
                                                      "(bots connect there).")] = "127.0.0.1:50051",
         web_address: Annotated[str, typer.Option("--web-address", help="Where the web app listens.")] = "127.0.0.1:8000",
         ) -> None:
    """Make a ladder folder: its configuration (ladder.toml, which you edit), its stores and its secrets."""
    from ladder import config
    from ladder.errors import LadderError

    try:
        d = config.init(root, ruleset, players, max_in_flight=max_in_flight, referee_address=referee_address,
                        web_address=web_address)
    except LadderError as e:
        _fail(e)
    from ladder.admin import opened

    with opened(d):   # creates both stores
        pass
    typer.echo(f"ladder made in {root}: edit {d.config}, invite authors with `pepper ladder invite {root} AUTHOR`, "
               f"then `pepper ladder serve {root}`")


@app.command()
def serve(root: Dir,
          referee_address: Annotated[str | None, typer.Option("--referee-address", help="HOST:PORT for the referee "
                                                               "(default: ladder.toml's).")] = None,
          web_address: Annotated[str | None, typer.Option("--web-address", help="HOST:PORT for the web app "
                                                          "(default: ladder.toml's).")] = None) -> None:
    """Run the ladder until SIGTERM (which drains); writes DIR/serve.json once ready."""
    from ladder.errors import LadderError
    from ladder.service import serve as run

    def ready(served: dict) -> None:
        typer.echo(f"ladder {root} served: referee {served['referee']}, web {served['web']} (SIGTERM or Ctrl-C drains "
                   f"and stops; its log: {root / 'logs' / 'ladder.log'})")

    try:
        run(root, referee_address, web_address, ready)
    except LadderError as e:
        _fail(e)


@app.command()
def invite(root: Dir, author: Annotated[str, typer.Argument(help="The author's name.")]) -> None:
    """Make (or replace) AUTHOR's key; the key is the last line, shown this once."""
    from ladder.admin import invite as make
    from ladder.errors import LadderError

    try:
        key = make(_ladder_dir(root), author)
    except LadderError as e:
        _fail(e)
    typer.echo(f"author {author}'s key (give it to them; it is not shown again):")
    typer.echo(key)


@app.command()
def enter(name: Annotated[str, typer.Argument(help="The bot's name on the ladder.")],
          server: Annotated[str, typer.Option("--server", help="The ladder's web address (serve.json's \"web\").")],
          key: Annotated[str, typer.Option("--key", envvar="PEPPER_LADDER_KEY", help="Your author key "
                                           "(or $PEPPER_LADDER_KEY, which keeps it off the command line).")],
          remote: Annotated[bool, typer.Option("--remote", help="A bot you run yourself: it connects with the "
                                               "token printed.")] = False,
          upload: Annotated[Path | None, typer.Option("--upload", help="A bot the ladder runs: its folder, with a "
                                                      "pepper-bot.toml (its command) or a Dockerfile.")] = None,
          wait: Annotated[float, typer.Option(help="With --upload: seconds to wait for its build and check.")] = 3600.0,
          ca: Annotated[str | None, typer.Option("--ca", help="PEM CA file of a TLS ladder.")] = None) -> None:
    """Enter a bot (again: a new version). --remote prints its token as the last line; --upload waits for the
    ladder to build and check it, prints the checker's report, and exits 1 if it was not entered."""
    from ladder.client import ServerError, enter_remote

    if remote == (upload is not None):
        fail("say how the bot runs: --remote (you run it, and it connects with the token printed) or --upload FOLDER "
             "(the ladder builds, checks and runs it)")
    if upload is not None:
        _enter_upload(server, key, name, upload, ca, wait)
        return
    try:
        got = enter_remote(server, key, name, ca)
    except ServerError as e:
        fail(str(e), EXIT_FAILED)
    typer.echo(f"bot {got['bot']} version {got['version']} entered for {got['author']}; run it with "
               f"PEPPER_BOT_NAME={got['bot']}, PEPPER_REFEREE=<the ladder's referee> and this PEPPER_TOKEN:")
    typer.echo(got["token"])


def _enter_upload(server: str, key: str, name: str, folder: Path, ca: str | None, wait: float) -> None:
    from ladder.client import ServerError, follow, upload
    from ladder.errors import LadderError

    try:
        u = upload(server, key, name, folder, ca)
        typer.echo(f"upload {u['upload']} of bot {name} taken; the ladder builds and checks it in its sandbox", err=True)
        u = follow(server, key, u["upload"], ca, wait, progress=lambda u: typer.echo(f"  {u['status']}: {u['detail']}",
                                                                                     err=True))
    except LadderError as e:   # ServerError, or a folder it will not pack (BadUpload)
        fail(str(e), EXIT_FAILED if isinstance(e, ServerError) else 2)
    if u.get("report"):
        typer.echo(u["report"].rstrip())
    if u["status"] != "entered":
        fail(f"bot {name} was not entered: {u['detail']}", EXIT_FAILED)
    typer.echo(f"bot {name} entered: {u['detail']}")


@admin_app.callback()
def _admin_root(ctx: typer.Context, root: Dir) -> None:
    """The organizer's actions on the ladder folder DIR."""
    ctx.obj = root


@admin_app.command()
def pause(ctx: typer.Context,
          bot: Annotated[str | None, typer.Argument(help="A bot (default: the whole ladder).")] = None) -> None:
    """Stop scheduling BOT (or every game); games in flight finish."""
    _admin(ctx.obj, "pause", bot, True)


@admin_app.command()
def resume(ctx: typer.Context,
           bot: Annotated[str | None, typer.Argument(help="A bot (default: the whole ladder).")] = None) -> None:
    """Schedule BOT (or the ladder) again."""
    _admin(ctx.obj, "pause", bot, False)


@admin_app.command()
def retire(ctx: typer.Context, bot: Annotated[str, typer.Argument(help="The bot.")]) -> None:
    """Retire BOT for good: never scheduled again; its games and ratings stay."""
    _admin(ctx.obj, "retire", bot)


@admin_app.command()
def revoke(ctx: typer.Context, author: Annotated[str, typer.Argument(help="The author.")]) -> None:
    """Refuse AUTHOR's key from now on."""
    _admin(ctx.obj, "revoke", author)


@admin_app.command()
def status(ctx: typer.Context) -> None:
    """Where the ladder is served, whether it schedules, its authors and bots."""
    _admin(ctx.obj, "status")


def _admin(root: Path, action: str, *args) -> None:
    """Run ``ladder.admin``'s ``action`` on the ladder in ``root`` and print what it says."""
    from ladder import admin
    from ladder.errors import LadderError

    try:
        said = getattr(admin, action)(_ladder_dir(root), *args)
    except LadderError as e:
        _fail(e)
    typer.echo("\n".join(said) if isinstance(said, list) else said)
