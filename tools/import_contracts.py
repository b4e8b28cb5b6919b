"""The import-linter contract type that `.importlinter` declares as ``allowed``: an allow-list of what a package imports.

import-linter's own types say what may not be imported (``forbidden``) or who may import a module (``protected``);
neither says "this package imports these and nothing else", so a package that picks up a new dependency passes
them unless someone thought to forbid it. An ``allowed`` contract names, for each of its source packages, the only
packages its modules may import directly::

    [importlinter:contract:rules]
    name = The rules engine is the standard library only
    type = allowed
    source_modules = referee.rules
    allowed_modules =

Each source module is taken as a package (itself and its descendants, which may import each other). An import is
allowed when it is of the standard library (``sys.stdlib_module_names``; ``standard_library = False`` refuses it
too), of the source package itself, or of an ``allowed_modules`` entry or one of its descendants: a project package
(``referee.rules``) or a third-party distribution's top-level package (``grpc``, ``google`` for protobuf). Only
direct imports are checked: what an allowed package imports in turn is its own contract's business, so the
allow-lists compose.

`make lint` runs it through ``lint-imports`` (the ``contract_types`` option of `.importlinter`), which puts the
working directory on ``sys.path``: that is how ``tools.import_contracts`` is found.
"""

from __future__ import annotations

import sys
from typing import NamedTuple

import grimp
from importlinter import Contract, ContractCheck, fields, output


class IllegalImport(NamedTuple):
    importer: str
    imported: str
    line_numbers: tuple[int, ...]


def _within(module: str, packages: list[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


class AllowedContract(Contract):
    """Each module of ``source_modules`` (as packages) imports only the standard library, its own package and
    ``allowed_modules`` (as packages)."""

    type_name = "allowed"

    source_modules = fields.ListField(subfield=fields.ModuleField())
    allowed_modules = fields.ListField(subfield=fields.ModuleField(), required=False)
    standard_library = fields.BooleanField(required=False, default=True)

    def _allowed(self) -> list[str]:
        return [m.name for m in self.allowed_modules or []]  # type: ignore[attr-defined]

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        allowed = self._allowed()
        illegal: list[IllegalImport] = []
        for source in self.source_modules:  # type: ignore[attr-defined]
            if source.name not in graph.modules:
                raise ValueError(f"contract {self.name!r}: source module {source.name!r} is not in the graph "
                                 "(misspelt, or not under a root package?)")
            own = sorted({source.name} | graph.find_descendants(source.name))
            for importer in own:
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    if _within(imported, [source.name, *allowed]):
                        continue
                    if self.standard_library and imported.split(".")[0] in sys.stdlib_module_names:
                        continue
                    details = graph.get_import_details(importer=importer, imported=imported)
                    illegal.append(IllegalImport(importer, imported, tuple(d["line_number"] for d in details)))
        return ContractCheck(kept=not illegal, warnings=[], metadata={"illegal": illegal})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for imp in check.metadata["illegal"]:
            lines = ", ".join(map(str, imp.line_numbers)) or "?"
            output.print_error(f"- {imp.importer} -> {imp.imported} (l.{lines}): not on the allow-list", bold=False)
            output.new_line()
        allowed = ["the standard library"] * bool(self.standard_library) + self._allowed()  # type: ignore[attr-defined]
        output.print(f"Allowed: {', '.join(allowed) or 'nothing'} (and the package's own modules). Add a "
                     "package to this contract's allowed_modules in .importlinter only if the layer may depend on it.")
        output.new_line()
