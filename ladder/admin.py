"""``pepper ladder admin``: the organizer's actions on a ladder folder, served or not (the running service reads
the stores every half second, so a pause or a retirement takes effect within a second)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from arena.store import Store

from . import entries
from .config import LadderDir
from .state import LadderState, Status


@contextmanager
def stores(d: LadderDir) -> Iterator[tuple[LadderState, Store]]:
    """The ladder's own state and its arena store, open for one action (the service's API opens them per request)."""
    state = LadderState(d.ladder_db, d.hashing_key())
    store = Store(d.arena_db)
    try:
        yield state, store
    finally:
        store.close()
        state.close()


@contextmanager
def opened(d: LadderDir) -> Iterator[tuple[LadderState, Store]]:
    """:func:`stores` of a folder checked to be a ladder (NotALadder otherwise)."""
    d.load()
    with stores(d) as both:
        yield both


def invite(d: LadderDir, author: str) -> str:
    """A new key for ``author`` (their old one, if any, stops working)."""
    with opened(d) as (state, _):
        return state.invite(author)


def pause(d: LadderDir, bot: str | None, paused: bool) -> str:
    """Pause (or resume) ``bot``, or the whole ladder when ``bot`` is None. Returns what was done, in a line."""
    with opened(d) as (state, _):
        if bot is None:
            state.pause(paused)
            return f"the ladder is {'paused: no new game starts' if paused else 'running'}"
        e = state.entry(bot)
        if e is not None and e.status is Status.RETIRED:
            return f"bot {bot} is retired: nothing to {'pause' if paused else 'resume'}"
        state.set_status(bot, Status.PAUSED if paused else Status.ACTIVE)
        return f"bot {bot} is {'paused' if paused else 'active'}"


def retire(d: LadderDir, bot: str) -> str:
    with opened(d) as (state, _):
        entries.retire(state, None, bot)
    return f"bot {bot} is retired"


def revoke(d: LadderDir, author: str) -> str:
    with opened(d) as (state, _):
        state.revoke(author)
    return f"author {author}'s key is revoked (their bots stay entered: retire them with `admin retire BOT`)"


def status(d: LadderDir) -> list[str]:
    """The ladder in lines: where it is served, paused or not, its authors and bots, refused actions."""
    with opened(d) as (state, store):
        served = json.loads(d.serve_json.read_text()) if d.serve_json.exists() else None
        lines = [f"ladder {d.load().name} in {d.root}: " + (f"served (referee {served['referee']}, web {served['web']})"
                                                            if served else "not served"),
                 f"scheduling: {'paused' if state.paused else 'running'}",
                 f"refused actions: {state.refusals()}"]
        for a in state.authors():
            lines.append(f"author {a.name}{' (revoked)' if a.revoked else ''}")
            for e in state.entries(a.name):
                b = store.bot(e.bot)
                lines.append(f"  bot {e.bot}: {e.status}, version {b.version if b else '?'}")
    return lines


__all__ = ["invite", "opened", "pause", "retire", "revoke", "status"]
