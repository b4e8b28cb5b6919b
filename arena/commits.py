"""Committing finished games in groups, off the event loop.

The store runs WAL with ``synchronous=FULL``: a commit is a disk sync, and a
loop that committed each game as it finished would wait for the disk at every
game, creating no game, collecting no result and planning no adaptive round
meanwhile. :class:`GroupCommitter` is one writer instead:

- a game's task queues its result and awaits :meth:`GroupCommitter.commit`,
  which returns once the game's transaction is committed: a game counts as
  done (progress, adaptive planning) only then;
- one writer task takes every result queued so far and commits them in one
  transaction (one disk sync for the group), with whatever the caller's
  ``then`` does inside it (the arena rates the run's stored games in plan
  order there), then takes the next group;
- the transaction runs in a thread of its own on a second connection that the
  thread opens, uses and closes: SQLite's rule that a connection is used by
  one thread at a time holds without ``check_same_thread=False``, and the
  loop's own connection keeps reading (WAL readers do not wait for a writer).
  Sharing the loop's connection with the thread would need a lock around every
  read of the loop, which would then wait for the disk sync again.

An adaptive round's plan goes through the same thread (:meth:`GroupCommitter.call`):
committed by the loop, it would wait for the disk and for the writer's lock.

:meth:`GroupCommitter.close` commits whatever is still queued before it returns
(the end of a run, an error, an interrupt: nothing finished is lost); a crash
loses only the games queued and not yet committed, which a resume plays again
like the games in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .store import NewGame, Store, StoreError


class GroupCommitter:
    """The writer of a run's finished games into the store at ``path``: each group in one transaction, in a thread.

    ``then(store)`` runs inside each group's transaction, in the writer's thread, on the writer's own
    :class:`Store` (the arena rates the games it can there); ``open_store`` opens that store (a subclass of
    :class:`Store`, in tests). Start it with :meth:`start` on the running loop."""

    def __init__(self, path: str | Path, then: Callable[[Store], object] | None = None,
                 open_store: Callable[[Path], Store] = Store):
        self.path = Path(path)
        self.then = then
        self._open_store = open_store
        self._store: Store | None = None          # the writer's connection: used only in self._thread
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-commit")
        self._queue: list[tuple[NewGame, asyncio.Future]] = []
        self._abandoned: set[asyncio.Future] = set()   # games whose callers were cancelled while they waited
        self.error: BaseException | None = None    # the error of a game whose caller was cancelled
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._closing = False                      # close(): the writer returns once the queue is empty
        self.groups: list[int] = []               # the size of each group committed (for tests and benchmarks)

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, self._open)
        self._wake = asyncio.Event()
        self._task = asyncio.create_task(self._write(), name="arena-commit")

    def _open(self) -> None:
        self._store = self._open_store(self.path)

    async def commit(self, game: NewGame) -> None:
        """Queue ``game`` and return once its group is committed (StoreError: it was not). Cancelling the caller
        does not take the game out of the queue: it is committed all the same."""
        fut = asyncio.get_running_loop().create_future()
        self._queue.append((game, fut))
        self._wake.set()
        try:
            await asyncio.shield(fut)
        except asyncio.CancelledError:
            self._abandoned.add(fut)   # its error, if any, is close()'s to raise
            raise

    async def call(self, fn: Callable[[Store], object]) -> object:
        """``fn(store)`` in the writer's thread on its connection, after the groups before it (the arena stores an
        adaptive round's plan so: the loop neither waits for the disk nor for the writer's lock)."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, self._store)

    async def _write(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                group, self._queue = self._queue, []
                try:
                    stored = await loop.run_in_executor(self._thread, self._commit, [g for g, _ in group])
                except Exception as e:  # noqa: BLE001 - told to every game of the group
                    self._fail(group, e)
                    continue
                self._settle(group, stored)
            if self._closing:
                return

    def _commit(self, games: list[NewGame]) -> list[bool]:
        """In the writer's thread: the group and ``then`` in one transaction."""
        with self._store.tx():
            stored = self._store.record_group(games)
            if self.then is not None:
                self.then(self._store)
        self.groups.append(len(games))
        return stored

    def _settle(self, group: list[tuple[NewGame, asyncio.Future]], stored: list[bool]) -> None:
        for (game, fut), new in zip(group, stored):
            if new:
                if not fut.done():
                    fut.set_result(None)
            else:  # another session stored it: counted once, and this one says so (as record_game did)
                self._fail([(game, fut)], StoreError(f"game {game.idx} of run {game.run_id} is already stored; not "
                                                     "counting it twice"))

    def _fail(self, group: list[tuple[NewGame, asyncio.Future]], e: BaseException) -> None:
        for _, fut in group:
            if fut in self._abandoned:
                self.error = e
            elif not fut.done():
                fut.set_exception(e)

    async def close(self) -> None:
        """Commit every game still queued, then close the writer's connection. A group's error goes to its games'
        callers; one whose caller was cancelled meanwhile (an error or an interrupt ends the run) is raised here."""
        if self._task is None:
            self._thread.shutdown()
            return
        self._closing = True
        self._wake.set()
        try:
            await asyncio.shield(self._task)
        finally:
            # What the writer did not get to (the caller interrupted while waiting for it): committed here, blocking
            # the loop, which is ending anyway; the thread finishes the group it may be in first.
            if self._queue:
                group, self._queue = self._queue, []
                try:
                    self._settle(group, self._thread.submit(self._commit, [g for g, _ in group]).result())
                except Exception as e:  # noqa: BLE001 - raised below
                    self.error = e
                    self._fail(group, e)
            self._thread.submit(self._store.close).result()
            self._thread.shutdown()
        if self.error is not None:
            raise self.error
