"""Which build of the referee's compiled modules runs: the Cython extensions or their own ``.py`` sources.

setup.py compiles the hot modules of :mod:`referee.rules`, :mod:`referee.wire` and :mod:`referee.service` from
their ``.py`` files, which stay the only source. Each package's ``__init__`` calls :func:`prefer_sources` before
importing a compiled submodule, and sets its ``COMPILED`` flag with :func:`is_compiled`. Never compiled itself.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import BYTECODE_SUFFIXES, SOURCE_SUFFIXES, FileFinder, SourceFileLoader, SourcelessFileLoader
from types import ModuleType


def prefer_sources(*folders: str) -> None:
    """Under PEPPER_PURE=1 (the differential tests, the pure-Python smoke run): import the ``.py`` sources from
    ``folders`` even where compiled modules sit beside them. Each folder gets a finder that knows only source and
    bytecode files; call it before any module of those folders is imported."""
    if os.environ.get("PEPPER_PURE"):
        for d in folders:
            sys.path_importer_cache[d] = FileFinder(d, (SourceFileLoader, SOURCE_SUFFIXES),
                                                    (SourcelessFileLoader, BYTECODE_SUFFIXES))


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a compiled extension, not from its ``.py`` source."""
    return os.path.splitext(module.__file__ or "")[1] not in (".py", ".pyc")
