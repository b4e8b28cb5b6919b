"""Bot connections: one outbox per stream, batching, the requests in flight and their deadline timer."""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from referee import wire

from .enforcement import RequestClock

if TYPE_CHECKING:
    from .games import GameRun


class Pending:
    """One decision request: created when the game waits for a seat, open until answered or expired.

    A plain class with __slots__: one is made per decision, so it is kept cheap.
    """

    __slots__ = ("rid", "run", "seat", "legal", "item", "clock", "cancelled")

    def __init__(self, rid: int, run: GameRun, seat: int, legal: list[int], item: bytes, clock: RequestClock):
        self.rid, self.run, self.seat, self.legal, self.item, self.clock = rid, run, seat, legal, item, clock
        self.cancelled = False


class Connection:
    """One bot stream: its outbox, the requests in flight and the deadline timer.

    ``on_expired(p)`` is called (from the timer) for each request whose time ran out.
    """

    def __init__(self, cid: str, bot_name: str, max_batch: int, on_expired: Callable[[Pending], None]):
        self.id, self.bot_name, self.max_batch, self.on_expired = cid, bot_name, max_batch, on_expired
        self.outbox: deque = deque()       # lists of item frames, and Pending requests, in order (see push)
        self.in_flight: dict[int, Pending] = {}
        self.closed_ids: dict[int, str] = {}   # recently resolved request ids -> why (stale answers)
        self.seats: set[tuple[GameRun, int]] = set()
        self.wake = asyncio.Event()
        self.closed = False
        self.close_reason = ""
        self.unknown = 0
        self.stale = 0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    # -- queueing ---------------------------------------------------------
    # The outbox holds, in order, lists of pre-serialized item frames (events,
    # notices, game starts and ends: consecutive ones share one list, so a busy
    # connection does not pay per item) and Pending requests (kept apart: a
    # Batch holds at most max_batch of them, and a withdrawn one is skipped).
    def push(self, frame: bytes) -> None:
        """Queue pre-serialized batch item frames (see :func:`referee.wire.item_frame`; several may be concatenated)."""
        if self.closed:
            return
        out = self.outbox
        if out and type(out[-1]) is list:
            out[-1].append(frame)
        else:
            out.append([frame])
        if not self.in_flight:
            self.wake.set()

    def push_request(self, p: Pending) -> None:
        """Queue a decision request (its frame is ``p.item``)."""
        if self.closed:
            return
        self.outbox.append(p)
        if not self.in_flight:
            self.wake.set()

    def notice(self, code: str, rid: int, game_id: str, message: str) -> None:
        """Tell the bot about an answer that was not applied (``code``: a notice word, see wire.messages)."""
        self.push(wire.messages.notice_frame(code, rid, game_id, message))

    def take_batch(self, now: float) -> bytes | None:
        """A serialized ConnectResponse holding everything pending (at most max_batch requests), or None
        while the last batch is still open. ``now``: the loop's time; each request's clock starts then."""
        if self.in_flight or not self.outbox:
            return None
        items, n, out, fl, cap = [], 0, self.outbox, self.in_flight, self.max_batch
        soonest = None
        while out:
            p = out[0]
            if type(p) is list:
                items += p
            else:
                if p.cancelled:
                    out.popleft()
                    continue
                if n == cap:
                    break
                n += 1
                exp = p.clock.start(now)
                fl[p.rid] = p
                if soonest is None or exp < soonest:
                    soonest = exp
                items.append(p.item)
            out.popleft()
        if soonest is not None:
            self._arm(soonest)
        return wire.batch_response(items) if items else None

    def _arm(self, when: float) -> None:
        if self._timer is not None and self._timer_at <= when:
            return
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer_at = when
        self._timer = loop.call_at(when + 0.001, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self.closed:
            return
        now = asyncio.get_running_loop().time()
        expired = [p for p in self.in_flight.values() if p.clock.expires <= now]
        for p in expired:
            del self.in_flight[p.rid]
            self.remember(p.rid, "expired")
            if not p.cancelled:
                self.on_expired(p)
        if self.in_flight:
            self._arm(min(p.clock.expires for p in self.in_flight.values()))
        elif self.outbox:
            self.wake.set()

    def final_batch(self) -> bytes | None:
        """After close: what is left to say (notices, events), without requests; then the stream ends."""
        frames = [f for x in self.outbox if type(x) is list for f in x]
        self.outbox.clear()
        return wire.batch_response(frames) if frames else None

    def remember(self, rid: int, why: str) -> None:
        ci = self.closed_ids
        ci[rid] = why
        if len(ci) > 100_000:
            for k in list(itertools.islice(ci, 50_000)):
                del ci[k]

    def close(self, reason: str) -> None:
        if not self.closed:
            self.closed, self.close_reason = True, reason
            if self._timer is not None:
                self._timer.cancel()
            self.wake.set()
