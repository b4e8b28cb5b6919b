"""Game record files, written off the event loop.

A finished game's record (its result and the engine's record) is a JSON dump
and a rename: milliseconds that, with thousands of games in flight, would stall
every connection if done on the event loop. One writer thread takes them from
a bounded queue instead; when it falls that far behind, :meth:`RecordWriter.submit`
waits for room (back-pressure rather than loss). :meth:`RecordWriter.close`
writes everything still queued, so a clean shutdown loses nothing.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
from collections.abc import Callable

log = logging.getLogger("referee")

_STOP = object()


def read_record_file(directory: str, name: str) -> dict | None:
    """The parsed ``<dir>/<name>.json`` (as written by :class:`RecordWriter`), or None when there is none.
    ``name`` must be a checked game id (no path separator)."""
    try:
        with open(os.path.join(directory, f"{name}.json"), encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


class RecordWriter:
    """Writes ``<dir>/<name>.json`` files from a thread. ``render()`` makes a file's text, on the thread."""

    def __init__(self, directory: str, max_queued: int = 10_000):
        self.directory = directory
        self._queue: queue.Queue = queue.Queue(max_queued)
        self._thread = threading.Thread(target=self._run, name="record-writer", daemon=True)
        self._thread.start()
        self.written = 0
        self.failed = 0

    def submit(self, name: str, render: Callable[[], str]) -> None:
        """Queue one record file. ``render`` must only read what no longer changes (a finished game)."""
        self._queue.put((name, render))

    def close(self, timeout: float | None = None) -> None:
        """Write everything queued, then stop the thread (blocks: call it off the loop, or at exit)."""
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is _STOP:
                return
            name, render = job
            path = os.path.join(self.directory, f"{name}.json")
            try:
                text = render()
                with open(path + ".tmp", "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(path + ".tmp", path)
                self.written += 1
            except Exception as e:   # a full disk or a removed directory must not stop the next records
                self.failed += 1
                log.error("cannot write the game record %s: %s; the game's result stays available from GetGame "
                          "until the server stops: check that --record-dir %s exists, is writable and has space",
                          path, e, self.directory)
