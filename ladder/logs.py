"""The service's structured log: one JSON object a line (time, level, logger, message, and the record's extras),
so that an organizer's tools filter by bot, game or author. Author keys and bot tokens are never passed to it."""

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


__all__ = ["JsonLines", "setup"]
