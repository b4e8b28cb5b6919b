"""The gRPC referee: the pepper.v1 bot service and control service.

Start one in-process with :func:`start` (returns a :class:`RunningServer`), or
from the command line with ``python -m referee.service serve --address 127.0.0.1:0``.

The per-decision path (:mod:`.enforcement`, :mod:`.connections`, :mod:`.games`) is compiled by Cython from its own
``.py`` source where built (setup.py); :data:`COMPILED` tells which is loaded, and ``PEPPER_PURE=1`` imports the
``.py`` files even where built.
"""

import os as _os

if _os.environ.get("PEPPER_PURE"):
    # As in referee.rules: this folder gets a finder that knows only source and bytecode files.
    from importlib.machinery import BYTECODE_SUFFIXES, SOURCE_SUFFIXES, FileFinder, SourceFileLoader, SourcelessFileLoader
    from sys import path_importer_cache as _cache

    _cache[__path__[0]] = FileFinder(__path__[0], (SourceFileLoader, SOURCE_SUFFIXES),
                                     (SourcelessFileLoader, BYTECODE_SUFFIXES))

from . import games as _games
from .config import Policy, ServerConfig
from .server import RunningServer, start

#: Whether the compiled per-decision path is loaded (setup.py's COMPILED_MODULES built and imported), not its .py source.
COMPILED: bool = _os.path.splitext(_games.__file__)[1] not in (".py", ".pyc")

__all__ = ["Policy", "ServerConfig", "RunningServer", "start", "COMPILED"]
