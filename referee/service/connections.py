"""Bot connections: one outbox per stream, batching, the requests in flight and their clock.

Time (docs/protocol.md, "Time"): a connection's requests are served in the
order sent, so only the oldest open one, the *head*, has a running clock. It
starts when the bot could start on it: when it was sent, or when the bot's
previous answer message arrived (or the previous head timed out), whichever is
later; it expires after its deadline plus its seat's time bank. The m answers
of one message arriving at T share the time since then: each is charged
(T - start) / m, which is also the latency recorded for it. So a bot answering
60 requests of a Batch one by one has the same time per decision as a bot
given one request at a time.

A hung bot: after its head times out, every request already waiting on the
connection starts its clock at once (not one after another, which would take
a queue of n requests n deadlines plus n banks to fault); the next answer
message returns the connection to one clock at a time.

Events wait (docs/protocol.md, "Batches"): a game event goes out with the
connection's next Batch that carries something else, a request, a game start
or end, or a notice, not in a message of its own. Every seat gets a request or
its game end after any event, so none is held for ever, and the bot sees the
same items in the same order. At a few games in flight per connection, most
messages held a single event for a seat that was not to act (half of a
heuristic bot's messages in a 24-game arena run), and each message costs the
referee and the bot far more than its items (docs/performance.md). A bot that
wants every event as it happens (to think on the others' time) says so in its
Hello (``live_events``, protocol 1.6).
"""

from __future__ import annotations

import asyncio
import enum
from array import array
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from referee import wire

from .enforcement import RequestClock, TimeBank, shared_ms

if TYPE_CHECKING:
    from .games import GameRun


#: The budget of messages that carry no work (docs/security.md, "1."): an AnswerBatch that applies no answer
#: (empty, or answering only unknown, closed or other games' requests) or a message other than AnswerBatch.
#: Each still costs the referee a read and a turn of its loop, and nothing else bounds them, so a bot may send
#: IDLE_BURST of them at once and IDLE_RATE a second on average (a token bucket shared by the bot's
#: connections, so that reconnecting does not refill it); the connection that goes over is dropped. A bot
#: following the protocol sends one at most per request it was given (a late answer): the burst covers
#: answering a whole batch of the largest size one by one, late.
IDLE_BURST = 1000
IDLE_RATE = 100.0
#: A bot dropped for going over its budget may not connect again for this long (seconds): reconnecting at once
#: would otherwise let it go on at the cost of a Connect and a Hello per message.
IDLE_PENALTY_S = 5.0


class IdleBudget:
    """A token bucket: ``IDLE_BURST`` tokens, refilled at ``IDLE_RATE`` a second; one per message with no work.
    ``barred_until``: after the bucket ran dry, when the bot may connect again (the loop's clock, seconds)."""

    __slots__ = ("tokens", "at", "barred_until")

    def __init__(self, now: float):
        self.tokens, self.at, self.barred_until = float(IDLE_BURST), now, 0.0

    def take(self, now: float) -> bool:
        """Spend a token at ``now`` (the loop's clock, seconds); False when there is none left."""
        tokens = min(float(IDLE_BURST), self.tokens + (now - self.at) * IDLE_RATE)
        self.at = now
        if tokens < 1.0:
            self.tokens, self.barred_until = tokens, now + IDLE_PENALTY_S
            return False
        self.tokens = tokens - 1.0
        return True


class Closed(enum.IntEnum):
    """Why a request id is closed (named in the STALE notice of a late answer)."""

    ANSWERED = 1
    EXPIRED = 2

    @property
    def word(self) -> str:
        return self.name.lower()


#: How many of its most recently closed request ids a connection remembers: at least this many, and at least
#: CLOSED_BATCHES of its batches. A late answer (to an expired request, or repeated) comes within a batch or two;
#: an older id is answered as unknown, as a guessed one is.
# A Batch message is at most this big (docs/protocol.md, "Batches"): gRPC clients accept 4 MiB by default
# (grpc.max_receive_message_length), so a bot that never raised its limit can read every Batch.
MAX_BATCH_BYTES = 4 * 1024 * 1024
BATCH_OVERHEAD = 16   # ConnectResponse{batch=Batch{...}} around the items: a tag and a length varint, and spare

CLOSED_MIN = 256
CLOSED_BATCHES = 4


class ClosedIds:
    """The last ``size`` request ids a connection closed, and why: tells a stale answer from a guessed id.

    A ring of ids in an array (8 bytes an id, 1 for why; no object per id): a connection closes one id per
    decision it is asked, so a dict of them cost ~100 bytes per decision of every game it served. Looking an
    id up scans the ring, but only answers to ids not in flight are looked up, and those are rate-limited.
    """

    __slots__ = ("_ids", "_why", "_next")

    def __init__(self, size: int):
        self._ids = array("q", bytes(8 * size))   # 0: an empty slot (request ids start at 1)
        self._why = bytearray(size)
        self._next = 0

    def add(self, rid: int, why: Closed) -> None:
        i = self._next
        self._ids[i], self._why[i] = rid, why
        self._next = (i + 1) % len(self._why)

    def pop(self, rid: int) -> Closed | None:
        """Why ``rid`` was closed, forgetting it (its STALE notice is given once), or None if not remembered."""
        if rid <= 0:
            return None
        try:
            i = self._ids.index(rid)
        except (ValueError, OverflowError):
            return None
        self._ids[i] = 0
        return Closed(self._why[i])


class Pending(RequestClock):
    """One decision request: created when the game waits for a seat, open until answered or expired.

    It is its own clock (the seat's deadline and time bank: :class:`.enforcement.RequestClock`). One is made per
    decision, so it is one object with slots (an extension type where compiled: connections.pxd).
    """

    __slots__ = ("rid", "run", "seat", "legal", "item", "cancelled")

    def __init__(self, rid: int, run: GameRun, seat: int, legal: list[int], item: bytes, deadline_ms: int,
                 bank: TimeBank):
        self.deadline_ms, self.bank = deadline_ms, bank
        self.rid, self.run, self.seat, self.legal, self.item = rid, run, seat, legal, item
        self.cancelled = False


class Connection:
    """One bot stream: its outbox, the requests in flight and their clock (see the module docstring).

    ``on_expired(p)`` is called (from the timer, or before an answer message is applied) for each request
    whose time ran out.
    """

    def __init__(self, cid: str, bot_name: str, max_batch: int, on_expired: Callable[[Pending], None],
                 idle: IdleBudget, max_batch_bytes: int = MAX_BATCH_BYTES, live_events: bool = False):
        self.id, self.bot_name, self.max_batch, self.on_expired = cid, bot_name, max_batch, on_expired
        self.live_events = live_events     # events are sent at once too, not with the next Batch (module docstring)
        self.ready = False                 # the outbox holds more than events: the next Batch may go
        self.max_batch_bytes = max_batch_bytes   # a Batch message is at most this big (one bigger item goes alone)
        self.idle = idle                   # the bot's budget of messages with no work (shared by its connections)
        self.outbox: deque = deque()       # lists of item frames, and Pending requests, in order (see push)
        self.in_flight: dict[int, Pending] = {}
        self._sent: deque[Pending] = deque()   # the requests in flight in the order sent (answered ones popped lazily)
        self.start = 0.0                   # when the bot could start on the head (the loop's clock, seconds)
        self.rush = False                  # after a timeout: every request in flight runs its clock from start
        self.timed_out_at = 0.0            # when its head-of-line request last timed out, until it answers (0: never)
        self.closed_ids = ClosedIds(max(CLOSED_MIN, CLOSED_BATCHES * max_batch))   # to notice stale answers
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
        """Queue pre-serialized batch item frames (see :func:`referee.wire.item_frame`; several may be
        concatenated) that go out with the next Batch: a game start or end, a notice."""
        if not self.closed:
            self._append(frame)
            self._ready()

    def push_event(self, frame: bytes) -> None:
        """Queue event frames: they wait for the next Batch that carries something else (the module docstring),
        or go out like :meth:`push` on a connection with ``live_events``."""
        if not self.closed:
            self._append(frame)
            if self.live_events:
                self._ready()

    def push_request(self, p: Pending) -> None:
        """Queue a decision request (its frame is ``p.item``)."""
        if not self.closed:
            self.outbox.append(p)
            self._ready()

    def _append(self, frame: bytes) -> None:
        out = self.outbox
        if out and type(out[-1]) is list:
            out[-1].append(frame)
        else:
            out.append([frame])

    def _ready(self) -> None:
        # The outbox holds more than events now. The writer is woken when it becomes ready with nothing in flight,
        # and by rearm() when what is in flight is all closed while it is ready: so a push to a ready outbox needs
        # no wake-up (asyncio.Event.set is a Python call: it was several a decision).
        if not self.ready:
            self.ready = True
            if not self.in_flight:
                self.wake.set()

    def notice(self, code: str, rid: int, game_id: str, message: str) -> None:
        """Tell the bot about an answer that was not applied (``code``: a notice word, see wire.messages)."""
        self.push(wire.messages.notice_frame(code, rid, game_id, message))

    def take_batch(self, now: float) -> bytes | None:
        """A serialized ConnectResponse holding what is pending, or None while the last batch is still open.

        It holds at most max_batch requests and, so that a client with gRPC's usual 4 MiB receive limit
        can read it, at most max_batch_bytes (an item bigger than that on its own goes alone); what does
        not fit waits for the next one. ``now``: the loop's time; the first request's clock starts then."""
        if self.in_flight or not self.ready:
            return None
        items, n, out, fl, sent, cap = [], 0, self.outbox, self.in_flight, self._sent, self.max_batch
        room = self.max_batch_bytes - BATCH_OVERHEAD
        sent.clear()
        while out:
            p = out[0]
            if type(p) is list:
                size = sum(map(len, p))
                if size > room:   # take the frames that fit, leave the rest at the head of the outbox
                    k = 0
                    while k < len(p) and (len(p[k]) <= room or not items):
                        room -= len(p[k])
                        items.append(p[k])
                        k += 1
                    del p[:k]
                    break
                items += p
                room -= size
            else:
                if p.cancelled:
                    out.popleft()
                    continue
                if n == cap or (len(p.item) > room and items):
                    break
                n += 1
                fl[p.rid] = p
                sent.append(p)
                items.append(p.item)
                room -= len(p.item)
                p.item = b""   # sent: not kept while the bot decides (docs/security.md, "8.")
            out.popleft()
        if n:
            self.start, self.rush = now, False
            self._arm(sent[0].expires(now))
        elif out:
            self.wake.set()   # no request holds the next batch back: send the rest at once
        # What a full Batch left behind goes with the next one, events included (it may be a request).
        self.ready = bool(out)
        return wire.batch_response(items) if items else None

    # -- answers --------------------------------------------------------------
    def take_answers(self, answers, refuse: Callable) -> list | None:
        """Close the open requests that an AnswerBatch's ``answers`` answer: ``[p, answer, p, answer, ...]`` (a flat
        list: the whole message is handled in one call, with no object per answer), in the message's order.

        An answer to no open request of this connection, or naming another game than its request's, is not
        taken: ``refuse(self, rid, answer, p)`` says why (``p``: the request, when the answer named the wrong
        game; None for an unknown or closed id). None when the connection closed meanwhile (refused once too
        often): the rest of the message is moot.
        """
        fl, taken = self.in_flight, []
        for ans in answers:
            if self.closed:
                return None
            rid = ans.request_id
            p = fl.get(rid)
            if p is None:
                refuse(self, rid, ans, None)
                continue
            gid = ans.game_id
            if gid and gid != p.run.id:
                refuse(self, rid, ans, p)
                continue
            del fl[rid]
            self.closed_ids.add(rid, Closed.ANSWERED)
            taken.append(p)
            taken.append(ans)
        return None if self.closed else taken

    # -- the clock ----------------------------------------------------------
    def head(self) -> Pending:
        """The oldest request in flight (call only while there is one)."""
        sent, fl = self._sent, self.in_flight
        while sent[0].rid not in fl:
            sent.popleft()
        return sent[0]

    def expire(self, now: float) -> None:
        """Time out what is due at ``now``: the head, and after a timeout every request that was waiting.

        Called by the timer, and before an answer message is applied, so that the outcome does not depend
        on which of the two the event loop runs first."""
        fl = self.in_flight
        while fl and not self.closed:
            if self.rush:
                start = self.start
                for p in [p for p in fl.values() if p.expires(start) < now]:
                    self._expire(p)
                return
            head = self.head()
            at = head.expires(self.start)
            if at >= now:
                return
            self._expire(head)
            self.start, self.rush = at, True    # the rest were waiting: their clocks all start at once
            self.timed_out_at = at              # suspect (a stopped or stuck bot) until it answers again

    def _expire(self, p: Pending) -> None:
        del self.in_flight[p.rid]
        self.closed_ids.add(p.rid, Closed.EXPIRED)
        if not p.cancelled:
            self.on_expired(p)

    def charge(self, now: float, answers: int) -> float:
        """``answers`` requests were answered by one message arriving at ``now``: the ms charged to each.
        The next request's clock starts now, and only its own."""
        ms = shared_ms(self.start, now, answers)
        self.start, self.rush, self.timed_out_at = now, False, 0.0
        return ms

    def next_expiry(self) -> float | None:
        """When the next request in flight expires, if none is answered before."""
        fl = self.in_flight
        if not fl:
            return None
        start = self.start
        if self.rush:
            return min([p.expires(start) for p in fl.values()])
        return self.head().expires(start)

    def rearm(self) -> None:
        """After answers or timeouts: time the next request, or send the next batch when none is in flight."""
        when = self.next_expiry()
        if when is not None:
            self._arm(when)
        elif self.ready:
            self.wake.set()

    def _arm(self, when: float) -> None:
        # A timer that fires early finds nothing due and re-arms (the head's expiry mostly moves later).
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
        self.expire(asyncio.get_running_loop().time())
        if not self.closed:
            self.rearm()

    def final_batches(self) -> list[bytes]:
        """After close: what is left to say (notices, events), without requests, in messages of at most
        max_batch_bytes; then the stream ends."""
        frames = [f for x in self.outbox if type(x) is list for f in x]
        self.outbox.clear()
        out, batch, room = [], [], self.max_batch_bytes - BATCH_OVERHEAD
        for f in frames:
            if len(f) > room and batch:
                out.append(wire.batch_response(batch))
                batch, room = [], self.max_batch_bytes - BATCH_OVERHEAD
            batch.append(f)
            room -= len(f)
        return out + ([wire.batch_response(batch)] if batch else [])

    def close(self, reason: str) -> None:
        if not self.closed:
            self.closed, self.close_reason = True, reason
            if self._timer is not None:
                self._timer.cancel()
            self.wake.set()
