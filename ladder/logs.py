"""The service's structured log: one JSON object a line (time, level, logger, message, and the record's extras),
so that an organizer's tools filter by bot, game or author. Author keys and bot tokens are never passed to it.
And the end of an uploaded bot's own log, for its author's page (:func:`log_tail`)."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

# The attributes every LogRecord has; anything else on a record came from ``extra=`` and goes into the line.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
                "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
        line |= {k: v for k, v in vars(record).items() if k not in _STANDARD}
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def setup(path: Path, level: int = logging.INFO) -> None:
    """Log the ladder's loggers as JSON lines to ``path`` (appended: a restarted service continues it)."""
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(JsonLines())
    root = logging.getLogger("ladder")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False



def log_tail(path: Path, limit: int = 64 << 10) -> str:
    """The last ``limit`` bytes of a bot's log (whole lines), "" when it has none yet."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - limit))
            data = f.read()
    except FileNotFoundError:
        return ""
    if size > limit:
        data = data.partition(b"\n")[2]
    return data.decode("utf-8", errors="replace")


__all__ = ["JsonLines", "log_tail", "setup"]
