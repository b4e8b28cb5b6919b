"""Optional compiled build of the referee's hot modules: the rules engine, the wire encoder and the service's
per-decision path (docs/performance.md, "The compiled engine").

Cython compiles these modules from their own ``.py`` source (pure-Python mode: the ``.py`` file is the only
source and runs unchanged when not compiled). Without Cython or a C compiler the build skips them with a
one-line notice and the package stays pure Python. ``make install`` runs ``python setup.py build_ext --inplace``;
everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

FAMILIES_PACKAGE = "referee.rules.families"


def _family_modules() -> list[str]:
    """The families package's registry, FAMILY_MODULES, as dotted names: read from its source, not imported
    (the build must not import what it is about to compile)."""
    source = Path(FAMILIES_PACKAGE.replace(".", "/")) / "__init__.py"
    for node in ast.parse(source.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "FAMILY_MODULES" for t in targets):
            return [f"{FAMILIES_PACKAGE}.{m}" for m in ast.literal_eval(node.value)]
    raise SystemExit(f"{source} has no FAMILY_MODULES tuple: the build cannot tell which family modules to compile")


#: The compiled modules, as dotted names; each is ``<name with / for .>.py`` beside its optional ``.pxd``. The
#: family modules come from the families package's registry (FAMILY_MODULES), so that a family registered there
#: is compiled (tests/rules/test_compiled_build.py checks that each imports from its extension module).
COMPILED_MODULES = [
    "referee.rules.cards",
    "referee.rules.machinery",
    "referee.rules.game",
    f"{FAMILIES_PACKAGE}.base",
    *_family_modules(),
    # The wire encoder: every decision request and event is written by codec (convert resolves each answer).
    "referee.wire.convert",
    "referee.wire.codec",
    # The service's per-decision path: the request clock, connections (batching, answers) and game runs.
    "referee.service.enforcement",
    "referee.service.connections",
    "referee.service.games",
]
#: Written by a build that compiled every module, one "module sha256-of-its-source" a line:
#: tests/rules/test_compiled_build.py then insists that they load and were built from today's sources.
MARKER = Path("referee/rules/_compiled_build.txt")

DIRECTIVES = {
    "language_level": 3,
    "binding": True,            # functions keep their Python signatures, names and docstrings
    "annotation_typing": False, # a hint like `list[int]` documents; it must not reject a tuple
    "embedsignature": True,
}


def _digest(module: str) -> str:
    """The sha256 of a compiled module's sources (its .py, and its .pxd where there is one)."""
    h = hashlib.sha256()
    for suffix in (".py", ".pxd"):
        f = Path(module.replace(".", "/") + suffix)
        if f.exists():
            h.update(f.read_bytes())
    return h.hexdigest()


def _extensions() -> list:
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("note: Cython is not installed: the rules engine, the wire encoder and the referee service stay pure Python", file=sys.stderr)
        return []
    from setuptools import Extension

    exts = [Extension(m, [m.replace(".", "/") + ".py"], extra_compile_args=["-O2"]) for m in COMPILED_MODULES]
    try:
        return cythonize(exts, compiler_directives=DIRECTIVES, quiet=True, nthreads=2)
    except Exception as e:  # a source Cython cannot compile: the .py files serve
        print(f"note: the rules engine, the wire encoder and the referee service were not compiled ({type(e).__name__}: {e}); they run as "
              "pure Python", file=sys.stderr)
        return []


def _remove_compiled() -> None:
    for m in COMPILED_MODULES:
        path = Path(m.replace(".", "/"))
        for f in path.parent.glob(path.name + ".*"):
            if f.suffix in (".so", ".pyd"):
                f.unlink()


class OptionalBuildExt(build_ext):
    """build_ext that falls back to pure Python (a one-line notice) when a module does not compile."""

    def run(self) -> None:
        inplace = self.inplace   # setuptools clears it while building (and leaves it so when the build fails)
        if inplace:
            MARKER.unlink(missing_ok=True)
        try:
            super().run()
        except Exception as e:  # no compiler, no headers: the .py files serve
            print(f"note: the rules engine, the wire encoder and the referee service were not compiled ({type(e).__name__}: {e}); they "
                  "run as pure Python", file=sys.stderr)
            self.extensions = []
        if inplace and not self.extensions:
            _remove_compiled()   # an older build would shadow today's sources
            return
        if inplace:
            MARKER.write_text("".join(f"{m} {_digest(m)}\n" for m in COMPILED_MODULES))

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as e:
            raise RuntimeError(f"{ext.name}: {e}") from e


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
