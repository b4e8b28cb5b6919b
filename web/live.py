"""Following the store while a tournament writes it: one watcher of its change mark for every open event stream,
and answers cached per mark.

The change mark (:func:`arena.store.browse.change_mark`) moves with every stored game, rating, crash and finished
run. Each open page holds an event stream; were each stream to read the store itself, a few hundred open pages
would keep the server's threads busy opening the database and slow every other request. So one task reads the
mark, and the streams wait on it. What the pages reload on a change (the leaderboard) is a function of the store's content, so
it is computed once per mark and answered from the cache until the mark moves.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TypeVar

from arena.store import Store, StoreError
from arena.store import browse as queries

T = TypeVar("T")
Mark = tuple[int, ...]


def read_mark(db: Path) -> Mark:
    """The store's change mark, read on a connection of its own."""
    st = Store(db, read_only=True)
    try:
        return tuple(queries.change_mark(st))
    finally:
        st.close()


class ChangeFeed:
    """The change mark as one watcher reads it every ``poll`` seconds while any stream follows it.

    A stream calls :meth:`wait` with the mark it last sent; it returns the current mark once that differs, or after
    ``timeout`` seconds (so that the stream can notice its reader has gone)."""

    def __init__(self, db: Path, poll: float):
        self.db, self.poll = db, poll
        self.mark: Mark | None = None
        self.followers = 0
        self._changed = asyncio.Event()
        self._task: asyncio.Task | None = None

    async def _watch(self) -> None:
        while self.followers:
            try:
                mark = await asyncio.to_thread(read_mark, self.db)
            except (StoreError, sqlite3.Error):   # busy or being replaced: the streams wait for the next look
                mark = self.mark
            if mark != self.mark:
                self.mark = mark
                self._changed.set()
                self._changed = asyncio.Event()
            await asyncio.sleep(self.poll)
        self._task = None

    def follow(self) -> None:
        self.followers += 1
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._watch())

    def leave(self) -> None:
        self.followers -= 1

    async def wait(self, last: Mark | None, timeout: float) -> Mark | None:
        if self.mark is None or self.mark == last:
            try:
                await asyncio.wait_for(self._changed.wait(), timeout)
            except TimeoutError:
                pass
        return self.mark


class MarkCache:
    """Answers by key, computed once per change mark: a newer mark drops every answer of the old one.

    Requests that miss the same key together (every open page reloading on the same change) wait for the first
    one's answer instead of each computing it; other keys go on meanwhile. A request that read an older mark than
    the cache holds (it opened the store just before a change) computes its answer without keeping it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._mark: Mark | None = None
        self._answers: dict[Hashable, object] = {}
        self._computing: dict[Hashable, threading.Lock] = {}
        self.computed = 0   # how many answers were computed and kept: for tests and curiosity

    def get(self, mark: Mark, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            if self._mark is None or mark > self._mark:   # every part of a mark only grows
                self._mark, self._answers, self._computing = mark, {}, {}
            if mark != self._mark:
                return compute()
            if key in self._answers:
                return self._answers[key]  # type: ignore[return-value]
            one = self._computing.setdefault(key, threading.Lock())
        with one:
            with self._lock:
                if mark == self._mark and key in self._answers:
                    return self._answers[key]  # type: ignore[return-value]
            answer = compute()
            with self._lock:
                if mark == self._mark:
                    self._answers[key] = answer
                    self.computed += 1
            return answer
