"""Connection limits: the open-file limit, and how many Connect streams are admitted (docs/security.md, "6.").

A Connect stream is counted from its first byte, before its Hello: the streams an unauthenticated client can
hold open are what these limits bound (the Hello timeout then ends each one that never says Hello). Streams that
have not said Hello yet have their own, smaller allowance, in all and per address, and a per-address rate of new
streams: so the slots, and the event loop's time, stay with bots that have said Hello. When every slot is taken,
the oldest stream still waiting for its Hello is closed to make room, so that a bot still gets in.
"""

from __future__ import annotations

import logging
import resource
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from urllib.parse import unquote

log = logging.getLogger("referee")


def raise_open_file_limit() -> int:
    """Raise the soft RLIMIT_NOFILE to the hard limit (a shell's usual 1,024 is too few for a busy referee,
    and an unprivileged process may go up to the hard limit); the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            log.info("open-file limit raised from %d to %d", soft, hard)
            soft = hard
        except (ValueError, OSError) as e:
            log.warning("cannot raise the open-file limit from %d to %d: %s", soft, hard, e)
    return soft


def peer_host(peer: str) -> str:
    """The address part of a gRPC peer string ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000", "unix:/path")."""
    kind, _, rest = unquote(peer).partition(":")   # gRPC escapes the brackets of an IPv6 address
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:rest.find("]")]
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    return peer


class _Rate:
    """A token bucket: ``rate`` new streams a second from one address, in bursts of up to ``burst``."""

    __slots__ = ("tokens", "at")

    def __init__(self, burst: float, now: float):
        self.tokens, self.at = burst, now


class StreamLimits:
    """The Connect streams open, per peer address and in all, against their limits.

    The total is capped below the open-file limit by ``fd_reserve``, so that when bots (or streams that never
    say Hello) take every slot, control clients can still connect. A stream is *waiting* from its admission until
    :meth:`said_hello`; the waiting ones are bounded apart (``waiting_total``, ``waiting_per_peer``), and the oldest
    of them is closed (its ``close`` callback) when a new stream needs its slot.
    """

    def __init__(self, per_peer: int, total: int, nofile: int, fd_reserve: int, *, waiting_total: int = 256,
                 waiting_per_peer: int = 64, rate_per_peer: float = 100.0, clock: Callable[[], float] = time.monotonic):
        self.per_peer, self.nofile, self.fd_reserve = per_peer, nofile, fd_reserve
        self.configured_total = total
        self.total = max(1, min(total, nofile - fd_reserve))
        self.waiting_total = max(1, min(waiting_total, self.total))
        self.waiting_per_peer, self.rate_per_peer, self.clock = waiting_per_peer, rate_per_peer, clock
        self.open: Counter[str] = Counter()
        self.count = 0
        self.waiting: OrderedDict[object, tuple[str, Callable[[str], None]]] = OrderedDict()   # oldest first
        self.waiting_from: Counter[str] = Counter()
        self.rates: dict[str, _Rate] = {}
        self.closed: set[object] = set()   # streams closed to make room whose slot is already free again
        self.closed_waiting = 0            # how many were (a figure for tests and logs)

    def admit(self, peer: str, key: object = None, close: Callable[[str], None] | None = None) -> str | None:
        """Count a new stream from ``peer``, waiting for its Hello under ``key`` (``close(reason)`` ends it if it
        must make room); or why it is refused (for RESOURCE_EXHAUSTED), counting nothing."""
        if not self._take_rate(peer):
            return (f"too many new bot connections from {peer}: more than {self.rate_per_peer:g} a second; a bot "
                    "connects once and keeps its stream (back off before reconnecting)")
        if self.open[peer] >= self.per_peer:
            return (f"too many bot connections from {peer}: {self.open[peer]} open, the limit is {self.per_peer} per "
                    "address; raise it with `pepper referee serve --max-bot-connections-per-peer N`")
        if self.waiting_from[peer] >= self.waiting_per_peer:
            return (f"too many bot connections from {peer} waiting for their Hello: {self.waiting_from[peer]}, the "
                    f"limit is {self.waiting_per_peer} per address (a bot sends its Hello first)")
        if self.count >= self.total or len(self.waiting) >= self.waiting_total:
            if not self._close_oldest_waiting():
                return self._full()
        self.open[peer] += 1
        self.count += 1
        if key is not None:
            self.waiting[key] = (peer, close or (lambda reason: None))
            self.waiting_from[peer] += 1
        return None

    def said_hello(self, key: object) -> None:
        """The stream ``key`` said Hello: it no longer counts among the waiting ones."""
        entry = self.waiting.pop(key, None)
        if entry is not None:
            self._unwait(entry[0])

    def release(self, peer: str, key: object = None) -> None:
        """The stream ended (``key``: as admitted)."""
        if key in self.closed:   # closed to make room: its slot went to the stream that needed it
            self.closed.discard(key)
            return
        self.said_hello(key)
        self.count -= 1
        self.open[peer] -= 1
        if not self.open[peer]:
            del self.open[peer]

    def _unwait(self, peer: str) -> None:
        self.waiting_from[peer] -= 1
        if not self.waiting_from[peer]:
            del self.waiting_from[peer]

    def _close_oldest_waiting(self) -> bool:
        """Close the oldest stream that has not said Hello (its slot is released when its handler ends; it stops
        counting as waiting at once); False when there is none."""
        if not self.waiting:
            return False
        key, (peer, close) = self.waiting.popitem(last=False)
        self._unwait(peer)
        self.closed.add(key)
        self.closed_waiting += 1
        # Its slot goes to the new stream at once (its handler ends a moment later, and then releases nothing).
        self.count -= 1
        self.open[peer] -= 1
        if not self.open[peer]:
            del self.open[peer]
        close("closed to make room: every bot connection slot was taken and this stream had not said Hello, the "
              "oldest such; a bot sends its Hello first")
        return True

    def _take_rate(self, peer: str) -> bool:
        now = self.clock()
        r = self.rates.get(peer)
        if r is None:
            if len(self.rates) > 4 * self.total:   # forget idle addresses (full buckets) now and then
                self.rates = {p: b for p, b in self.rates.items() if b.tokens + (now - b.at) * self.rate_per_peer
                              < 2 * self.rate_per_peer}
            r = self.rates[peer] = _Rate(2 * self.rate_per_peer, now)
        r.tokens = min(2 * self.rate_per_peer, r.tokens + (now - r.at) * self.rate_per_peer)
        r.at = now
        if r.tokens < 1:
            return False
        r.tokens -= 1
        return True

    def _full(self) -> str:
        if self.total < self.configured_total:
            return (f"too many bot connections: {self.count} open, the limit is {self.total} (the open-file limit "
                    f"{self.nofile} minus --fd-reserve {self.fd_reserve}); raise the referee's open-file limit "
                    "(ulimit -Hn) or lower --fd-reserve")
        return (f"too many bot connections: {self.count} open, the limit is {self.total}; "
                "raise it with `pepper referee serve --max-bot-connections N`")
