"""The gRPC referee: the pepper.v1 bot service and control service.

Start one in-process with :func:`start` (returns a :class:`RunningServer`), or
from the command line with ``python -m referee.service serve --address 127.0.0.1:0``.
"""

from .config import Policy, ServerConfig
from .server import RunningServer, start

__all__ = ["Policy", "ServerConfig", "RunningServer", "start"]
