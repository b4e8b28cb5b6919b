"""Entering, retiring and listing an author's bots: the ladder state says who owns a bot, the arena store holds the
bot, its versions and its token's digest (the referee is given the digest, never the token).

A remote bot runs on its author's machine, so there are no files to digest: each entry of a name is a new build
(:class:`arena.store.Build` with a fresh random digest), hence a new version, rated on its own, with a new token.
An uploaded bot is taken first (:func:`accept_upload`: the name claimed, the rate limit counted) and entered only
once it is built and passes the checker (:func:`enter_build`): its version's digest is its files' (or its image's),
so the same folder uploaded again is the same version.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from arena.store import BotKind, Build, Store, new_token

from .errors import Conflict, LadderError, TooMany
from .state import LadderState, Status

ENTRIES_PER_HOUR = 30   # entries (new bots and new versions) an author may make in an hour, by default

#: The referee's bot names (1-64 letters, digits, '-', '_', '.'), less a leading '_' (the arena's own identities).
BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class Entered:
    """A bot entered: its version, and its token (shown this once)."""

    bot: str
    version: int
    token: str


def _claim(state: LadderState, author: str, name: str, kind: str, per_hour: int) -> bool:
    """``name`` is ``author``'s to enter (new, or theirs: then whether it is new), one entry counted against
    ``per_hour`` (Forbidden: another's; TooMany: ``per_hour`` entries in the last hour already)."""
    if not BOT_NAME.fullmatch(name):
        raise LadderError(f"bot name {name!r}: 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
    new = state.claim(author, name, "enter")
    try:
        state.submit(author, name, kind, per_hour)
    except TooMany:
        if new:
            state.unclaim(name)
        raise
    return new


def enter_remote(state: LadderState, store: Store, author: str, name: str, per_hour: int = ENTRIES_PER_HOUR) -> Entered:
    """Enter ``name`` for ``author`` as a remote bot: new, or a new version of theirs (Forbidden: another's; TooMany:
    ``per_hour`` entries in the last hour already)."""
    new = _claim(state, author, name, "remote", per_hour)
    token = new_token()
    build = Build(BotKind.REMOTE, digest=secrets.token_hex(32))
    try:
        if new:
            if store.bot(name) is not None:
                raise Conflict(f"bot name {name!r} is taken on this ladder's arena store: choose another name")
            bot = store.add_bot(name, BotKind.REMOTE, token=token, digest=build.digest)
        else:
            bot, _ = store.update_bot(name, build)
            store.set_token(name, token)
    except BaseException:
        if new:
            state.unclaim(name)
        raise
    return Entered(name, bot.version, token)


def accept_upload(state: LadderState, author: str, name: str, per_hour: int = ENTRIES_PER_HOUR) -> int:
    """Take an upload of ``name`` for ``author`` (as :func:`enter_remote` takes an entry); returns its id, under which
    its folder is unpacked and the service builds and checks it."""
    _claim(state, author, name, "upload", per_hour)
    return state.add_upload(author, name)


def enter_build(store: Store, name: str, build: Build) -> tuple[int, bool]:
    """Make ``build`` (an upload that passed its check) ``name``'s latest version: (that version, whether it is a new
    one; not when the latest version is the same build)."""
    if store.bot(name) is None:
        b = store.add_bot(name, build.kind, command=build.command, cwd=build.cwd, processes=build.processes,
                          files=build.files, digest=build.digest, image=build.image)
        return b.version, True
    bot, new = store.update_bot(name, build)
    return bot.version, new


def retire(state: LadderState, author: str | None, name: str) -> None:
    """Retire ``name`` for good (``author``: only theirs; None: the organizer's command): it is never scheduled again,
    and its games and ratings stay."""
    if author is not None:
        state.owned(author, name, "retire")
    state.set_status(name, Status.RETIRED)


__all__ = ["BOT_NAME", "Entered", "accept_upload", "enter_build", "enter_remote", "retire"]
