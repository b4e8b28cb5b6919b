"""The gRPC referee: the pepper.v1 bot service and control service.

Start one in-process with :func:`start` (returns a :class:`RunningServer`), or
from the command line with ``pepper referee serve --address 127.0.0.1:0`` (:mod:`pepper_cli.referee`).

The per-decision path (:mod:`.enforcement`, :mod:`.connections`, :mod:`.games`) is compiled by Cython from its own
``.py`` source where built (setup.py); :data:`COMPILED` tells which is loaded, and ``PEPPER_PURE=1`` imports the
``.py`` files even where built.
"""

from referee.rules.sources import is_compiled as _is_compiled
from referee.rules.sources import prefer_sources as _prefer_sources

_prefer_sources(__path__[0])   # PEPPER_PURE=1: the .py files

from . import games as _games
from .config import Policy, ServerConfig
from .server import RunningServer, start

#: Whether the compiled per-decision path is loaded (setup.py's COMPILED_MODULES built and imported), not its .py source.
COMPILED: bool = _is_compiled(_games)

__all__ = ["Policy", "ServerConfig", "RunningServer", "start", "COMPILED"]
