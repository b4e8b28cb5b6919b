"""A benchmark's results table: ``docs/results/<name>.md``, written by the benchmark itself at the end of its run.

The docs point at these files instead of carrying figures typed by hand; ``make bench`` (and ``make bench-ranking``
and the other long ones, ``make help``) regenerates them. A file holds one run of one command: a title, one line on
what is measured, Markdown tables of the figures (medians, and the ratio to the baseline measured in the same run
where the benchmark has one), the command that reproduces it, the machine it ran on and the date. Each run
overwrites its file: the file is the current figure, the history is in git.

Names. A benchmark's main measurement writes ``<stem>.md``, the stem of its script (``bench/engine.py``:
``engine.md``). A benchmark whose modes measure different things writes one file per mode, ``<stem>-<mode>.md``
(``bench/referee.py --encoder``: ``referee-encoder.md``; ``bench/ranking.py scale``: ``ranking-scale.md``), so that
every file is one command's run and a quick run of one mode never overwrites another mode's figures. Options that
only change the settings (``--runs``, ``--games``, ...) write the same file, and its command line says which.

Cells hold plain numbers (units go in the column's header, no thousands separators), so that every figure parses
back with ``float``: :func:`cell` formats them to three significant digits.

Each benchmark adds the two options of :func:`add_arguments` to its own: ``--results PATH`` writes there instead,
``--no-write`` writes nothing (tests and quick looks).

    out = results.Results("engine", "Engine benchmark", "random-play deals per CPU second ...", args)
    out.table(["ruleset", "players", "deals/s"], rows)
    out.write()
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Where the files live; the docs link to ``docs/results/<name>.md``.
RESULTS_DIR = ROOT / "docs" / "results"
#: The interpreter the command lines name: the project's virtualenv, as the Makefile runs them.
PYTHON = ".venv/bin/python"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The benchmark's ``--results PATH`` and ``--no-write`` options."""
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--results", metavar="PATH", type=Path, default=None,
                       help="write the results table to PATH (default: docs/results/<benchmark>.md)")
    group.add_argument("--no-write", action="store_true", help="write no results table (tests, quick runs)")


def cell(value) -> str:
    """One table cell: None as "-", a bool as yes/no, an int as it is, a float to three significant digits (all its
    integer digits kept, no exponent, no thousands separator: ``float(cell(x))`` reads it back)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value == 0:
            return "0"
        return f"{value:.{max(0, 2 - math.floor(math.log10(abs(value))))}f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


@dataclass(frozen=True)
class Machine:
    """What ran the benchmark: taken when it starts (the load average is the load it started under)."""

    cpu: str
    cores: int
    memory_gib: float
    python: str
    engine: str
    load: tuple[float, float, float]

    @classmethod
    def now(cls) -> Machine:
        return cls(cpu=_cpu_model(), cores=os.cpu_count() or 1, memory_gib=_memory_bytes() / 2 ** 30,
                   python=platform.python_version(), engine=_engine(), load=_load())

    def __str__(self) -> str:
        load = ", ".join(f"{x:.2f}" for x in self.load)
        return (f"{self.cpu}, {self.cores} cores, {self.memory_gib:.1f} GiB memory, Python {self.python}, "
                f"{self.engine} engine, load average {load} at start")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def _load() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:   # not available on this platform
        return (math.nan, math.nan, math.nan)


def _engine() -> str:
    """"compiled" or "pure Python": the rules engine this process imports (the benchmarks' subprocesses import the
    same, under the same PEPPER_PURE)."""
    try:
        from referee import rules
    except ImportError:
        return "no"
    return "compiled" if rules.COMPILED else "pure Python"


def command(script: str, argv: list[str]) -> str:
    """The shell command that reproduces a run of ``bench/<script>.py`` with ``argv``: the interpreter, the script,
    the options as given less the results file's own, and ``PEPPER_PURE=1`` in front when the run had it."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--no-write":
            continue
        elif arg == "--results":
            skip = True
        elif not arg.startswith("--results="):
            kept.append(arg)
    env = "PEPPER_PURE=1 " if os.environ.get("PEPPER_PURE") else ""
    return env + shlex.join([PYTHON, f"bench/{script}.py", *kept])


@dataclass
class Table:
    columns: list[str]
    rows: list[list]
    heading: str = ""
    note: str = ""

    def markdown(self) -> str:
        head = [f"## {self.heading}", ""] if self.heading else []
        lines = ["| " + " | ".join(self.columns) + " |", "|" + "|".join(" --- " for _ in self.columns) + "|"]
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.heading or self.columns[0]!r}: a row of {len(row)} cells "
                                 f"under {len(self.columns)} columns: {row!r}")
            lines.append("| " + " | ".join(cell(v) for v in row) + " |")
        return "\n".join(head + lines + (["", self.note] if self.note else []))


@dataclass
class Results:
    """One run's results file. Make it when the benchmark starts (it takes the machine and its load then), add
    its tables as the figures come, :meth:`write` at the end.

    ``script`` is the benchmark's stem, ``mode`` names the file of a mode that measures something else (see the
    module's docstring); ``args`` are the parsed options (their ``results`` and ``no_write``), ``argv`` the command
    line they came from (default ``sys.argv[1:]``)."""

    script: str
    title: str
    measures: str
    args: argparse.Namespace
    argv: list[str] | None = None
    mode: str = ""
    tables: list[Table] = field(default_factory=list)
    machine: Machine = field(default_factory=Machine.now)
    started: datetime.datetime = field(default_factory=lambda: datetime.datetime.now(datetime.UTC))

    @property
    def name(self) -> str:
        return f"{self.script}-{self.mode}" if self.mode else self.script

    @property
    def path(self) -> Path | None:
        """The file this run writes, None with ``--no-write``."""
        if getattr(self.args, "no_write", False):
            return None
        return self.args.results or RESULTS_DIR / f"{self.name}.md"

    def table(self, columns: list[str], rows: list[list], heading: str = "", note: str = "") -> None:
        self.tables.append(Table(list(columns), [list(r) for r in rows], heading, note))

    def markdown(self) -> str:
        argv = sys.argv[1:] if self.argv is None else self.argv
        parts = [f"# {self.title}", "", self.measures, ""]
        for t in self.tables:
            parts += [t.markdown(), ""]
        parts += [f"Command: `{command(self.script, argv)}`", "",
                  f"Machine: {self.machine}", "",
                  f"Date: {self.started:%Y-%m-%d %H:%M} UTC", ""]
        return "\n".join(parts)

    def write(self) -> Path | None:
        """Write (overwrite) the file; say where on stderr, so that a benchmark's stdout (its --json line) is
        unchanged. Returns the path, None with ``--no-write``."""
        path = self.path
        if path is None:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.markdown())
        print(f"results: {_shown(path)}", file=sys.stderr)
        return path


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)
