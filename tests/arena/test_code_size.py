"""The arena's code stays in parts a reader can hold: no module of arena/ over MAX_MODULE_LINES lines, no function
or method over MAX_FUNCTION_LINES (decorators and docstring included). Read with ``ast``, not run."""

import ast
from pathlib import Path

ARENA = Path(__file__).resolve().parents[2] / "arena"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
# The schema's migrations are a record of the past, frozen as they were released: not reshaped to fit.
FROZEN = {ARENA / "store" / "migrations.py"}


def _modules() -> list[Path]:
    return sorted(p for p in ARENA.rglob("*.py") if p not in FROZEN)


def test_the_arena_has_modules_to_check():
    names = {p.name for p in _modules()}
    assert {"tournament.py", "fleet.py", "planners.py", "sinks.py", "store.py"} <= names


def test_no_arena_module_is_over_the_limit():
    long = {str(p.relative_to(ARENA)): n for p in _modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by what they do): {long}"


def test_no_arena_function_is_over_the_limit():
    long = {}
    for p in _modules():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if (n := node.end_lineno - first + 1) > MAX_FUNCTION_LINES:
                    long[f"{p.relative_to(ARENA)}:{node.lineno} {node.name}"] = n
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines (give their parts names): {long}"


def test_the_run_configuration_loads_no_wire_encoder():
    """arena.config needs the protocol's default time controls, which live in a module of constants: reading a run's
    configuration (every `pepper arena` command does) does not load referee.wire and its compiled encoder."""
    import subprocess
    import sys

    code = "import sys, arena.config; print(sorted(m for m in sys.modules if m.startswith(('referee.wire', 'pepper_proto'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
