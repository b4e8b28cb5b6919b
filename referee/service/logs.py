"""Logs that a client cannot amplify (docs/security.md, "4.").

gRPC logs an ERROR with a traceback (about 850 bytes) for every request it cannot decode, before any handler and
so before any token check runs: a health check, a control call, a Connect stream's first message. Anyone who
can reach the port could fill the disk with them. :class:`UndecodableRequests` lets one line through per
method per ``DECODE_LOG_INTERVAL_S``, without the traceback, saying how many it held back since. (A bot's
undecodable message after Hello ends its connection, logged once as the connection closes.)
"""

from __future__ import annotations

import logging
import re
import time

from google.protobuf.message import DecodeError

#: At most one line per method in this many seconds about requests that could not be decoded.
DECODE_LOG_INTERVAL_S = 60.0
#: The logger gRPC's server reports a servicer's exceptions on.
GRPC_LOGGER = "grpc._cython.cygrpc"
_METHOD = re.compile(r"servicer method \[([^\]]*)\]")


class UndecodableRequests(logging.Filter):
    """Rate-limit gRPC's reports of undecodable requests to one warning line per method per interval."""

    def __init__(self, interval_s: float = DECODE_LOG_INTERVAL_S):
        super().__init__()
        self.interval_s = interval_s
        self._last: dict[str, float] = {}          # method -> when its last line was let through
        self._held: dict[str, int] = {}            # method -> lines held back since

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, DecodeError):
            return True                            # anything else gRPC reports is a bug: kept whole
        m = _METHOD.search(record.getMessage())
        method = m.group(1) if m else "?"
        now = time.monotonic()
        last = self._last.get(method)
        if last is not None and now - last < self.interval_s:
            self._held[method] = self._held.get(method, 0) + 1
            return False
        self._last[method] = now
        held = self._held.pop(method, 0)
        record.msg = "undecodable request to %s refused (%s)%s"
        record.args = (method, exc, f"; {held} more in the last {now - last:.0f} s not logged" if held else "")
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        return True


def limit_undecodable() -> None:
    """Install the filter on gRPC's server logger (once per process)."""
    logger = logging.getLogger(GRPC_LOGGER)
    if not any(isinstance(f, UndecodableRequests) for f in logger.filters):
        logger.addFilter(UndecodableRequests())
