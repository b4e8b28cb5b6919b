"""What the command modules share: exit codes, the one-line error exit, rulesets and the results database."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from arena.store import Store
    from referee.rules import Game, Ruleset

EXIT_FAILED = 1   # a replay that does not check out, a failed check, a run that stopped (resumable)
EXIT_USAGE = 2    # bad input: unknown ruleset, bad ruleset file, bad player count, unreadable record

DbOption = Annotated[Path, typer.Option("--db", help="The results database (SQLite).", envvar="PEPPER_ARENA_DB")]


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One line on stderr, then exit (no traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def echo_lines(lines: list[str]) -> None:
    for line in lines:
        typer.echo(line)


def load_ruleset(name: str, rules_file: Path | None = None) -> Ruleset:
    """A built-in ruleset by name, or a ruleset file (``rules_file`` wins; ``name`` may be a path)."""
    from referee.rules import BUILTIN_RULESETS, RulesetError, get_ruleset, load_ruleset_file

    try:
        if rules_file is not None:
            return load_ruleset_file(rules_file)
        if name not in BUILTIN_RULESETS and Path(name).is_file():
            return load_ruleset_file(name)
        return get_ruleset(name)
    except RulesetError as e:
        fail(str(e))


def new_game(rs: Ruleset, players: int | None, seed: int) -> Game:
    from referee.rules import Game, RulesetError

    try:
        return Game(rs, players, seed=seed)
    except RulesetError as e:  # a player count the ruleset does not allow
        fail(str(e))


def open_store(db: Path, *, read_only: bool = False) -> Store:
    """The results database. A new one is created, with the sample bots registered. ``read_only`` for commands
    that only read: an existing database is opened read-only, so that they work where it cannot be written."""
    from arena.registry import ensure_sample_bots
    from arena.store import Store, StoreError

    try:
        if read_only and db.exists():
            return Store(db, read_only=True)
        st = Store(db)
        ensure_sample_bots(st, note=lambda m: typer.echo(m, err=True))
        return st
    except StoreError as e:
        fail(str(e))


class ControlTokenError(ValueError):
    """A control token given twice, or a --control-token-file that cannot be read; the message says which."""


def resolve_control_token(token: str | None, token_file: str | None) -> str | None:
    """The control token of ``pepper referee serve`` and ``pepper arena run --referee``: ``--control-token`` (or
    PEPPER_CONTROL_TOKEN) or the first line of ``--control-token-file`` (``-``: stdin), never both; None if neither.

    A token that came on the command line or in the environment is then hidden from /proc (referee.service.secret),
    where the bots, run by the same user, could read it."""
    from referee.service import secret

    if token and token_file:
        raise ControlTokenError("give the control token once: --control-token (PEPPER_CONTROL_TOKEN) or "
                                "--control-token-file")
    if token_file:
        try:
            token = secret.read_token(token_file)
        except secret.SecretError as e:
            raise ControlTokenError(str(e)) from None
    if token:
        secret.hide_from_proc(token, "PEPPER_CONTROL_TOKEN")
    return token or None
