"""Connection limits: the open-file limit, and how many Connect streams are admitted (docs/security.md, "6.").

A Connect stream is counted from its first byte, before its Hello: the streams an unauthenticated client can
hold open are what these limits bound (the Hello timeout then ends each one that never says Hello).
"""

from __future__ import annotations

import logging
import resource
from collections import Counter
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


class StreamLimits:
    """The Connect streams open, per peer address and in all, against their limits.

    The total is capped below the open-file limit by ``fd_reserve``, so that when bots (or streams that never
    say Hello) take every slot, control clients can still connect.
    """

    def __init__(self, per_peer: int, total: int, nofile: int, fd_reserve: int):
        self.per_peer, self.nofile, self.fd_reserve = per_peer, nofile, fd_reserve
        self.configured_total = total
        self.total = max(1, min(total, nofile - fd_reserve))
        self.open: Counter[str] = Counter()
        self.count = 0

    def admit(self, peer: str) -> str | None:
        """Count a new stream from ``peer``; or why it is refused (for RESOURCE_EXHAUSTED), counting nothing."""
        if self.count >= self.total:
            if self.total < self.configured_total:
                return (f"too many bot connections: {self.count} open, the limit is {self.total} (the open-file limit "
                        f"{self.nofile} minus --fd-reserve {self.fd_reserve}); raise the referee's open-file limit "
                        "(ulimit -Hn) or lower --fd-reserve")
            return (f"too many bot connections: {self.count} open, the limit is {self.total}; "
                    "raise it with `pepper referee serve --max-bot-connections N`")
        if self.open[peer] >= self.per_peer:
            return (f"too many bot connections from {peer}: {self.open[peer]} open, the limit is {self.per_peer} per "
                    "address; raise it with `pepper referee serve --max-bot-connections-per-peer N`")
        self.open[peer] += 1
        self.count += 1
        return None

    def release(self, peer: str) -> None:
        self.count -= 1
        self.open[peer] -= 1
        if not self.open[peer]:
            del self.open[peer]
