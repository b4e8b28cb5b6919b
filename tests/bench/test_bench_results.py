"""bench/results.py: a benchmark writes its results table (docs/results/<bench>.md) with the figures of its run, the
command that reproduces it, the machine and the date; --results sends it elsewhere, --no-write nowhere."""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_results", ROOT / "bench" / "results.py")
results = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = results     # its dataclasses look their module up there
_spec.loader.exec_module(results)


def tables(text: str) -> list[list[dict[str, str]]]:
    """The Markdown tables of a results file, each as its rows keyed by column."""
    out, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("| ---"):
            head = [c.strip() for c in lines[i].strip("|").split("|")]
            rows, i = [], i + 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(dict(zip(head, (c.strip() for c in lines[i].strip("|").split("|")), strict=True)))
                i += 1
            out.append(rows)
        else:
            i += 1
    return out


def test_the_engine_benchmark_writes_its_table_where_told(tmp_path):
    """The quickest engine run (iowa, one run of 0.05 s) writes a table whose figures parse, the command without the
    --results option, the machine it ran on and the date; its console output is still there."""
    path = tmp_path / "engine.md"
    run = subprocess.run([sys.executable, "bench/engine.py", "--runs", "1", "--seconds", "0.05", "--rulesets", "iowa",
                          "--results", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "deals/s" in run.stdout and "ratio iowa/OpenSpiel" in run.stdout, run.stdout
    text = path.read_text()
    lines = text.splitlines()
    assert lines[0] == "# Engine benchmark", text
    assert "Command: `.venv/bin/python bench/engine.py --runs 1 --seconds 0.05 --rulesets iowa`" in lines, text
    [machine] = [line for line in lines if line.startswith("Machine: ")]
    assert f"{__import__('os').cpu_count()} cores" in machine and "Python 3." in machine, machine
    assert " engine, load average " in machine and machine.endswith(" at start"), machine
    assert any(line.startswith("Date: 20") and line.endswith(" UTC") for line in lines), text
    rates, against = tables(text)
    [iowa] = rates
    assert (iowa["ruleset"], iowa["players"]) == ("iowa", "4") and float(iowa["deals/s"]) > 100, iowa
    baseline, ours = against
    assert float(baseline["deals/s"]) > 100 and float(baseline["ratio to OpenSpiel euchre"]) == 1.0, against
    # The ratio is the two rates' (each rounded to three significant digits in its cell).
    assert float(ours["ratio to OpenSpiel euchre"]) == pytest.approx(float(ours["deals/s"]) / float(baseline["deals/s"]),
                                                                     rel=0.02), against


def test_no_write_writes_nothing_and_results_overrides_the_default_path(tmp_path):
    args = argparse.ArgumentParser()
    results.add_arguments(args)
    default = results.Results("engine", "T", "m", args.parse_args([]), argv=[])
    assert default.path == results.RESULTS_DIR / "engine.md"
    assert results.Results("referee", "T", "m", args.parse_args([]), mode="encoder").path == \
        results.RESULTS_DIR / "referee-encoder.md"
    quiet = results.Results("engine", "T", "m", args.parse_args(["--no-write"]), argv=["--no-write"])
    assert quiet.path is None and quiet.write() is None
    there = results.Results("engine", "T", "m", args.parse_args(["--results", str(tmp_path / "x.md")]))
    there.table(["figure", "value"], [["a", 1.5]])
    assert there.write() == tmp_path / "x.md" and "| a | 1.50 |" in (tmp_path / "x.md").read_text()
    with pytest.raises(SystemExit):
        args.parse_args(["--no-write", "--results", "x.md"])


def test_the_command_is_the_run_s_less_its_results_options(monkeypatch):
    monkeypatch.delenv("PEPPER_PURE", raising=False)
    assert results.command("arena", ["--runs", "3", "--results", "/tmp/a.md", "--no-write", "--results=b.md"]) == \
        ".venv/bin/python bench/arena.py --runs 3"
    assert results.command("ranking", ["scale", "--rates", "0,0.5"]) == ".venv/bin/python bench/ranking.py scale --rates 0,0.5"
    monkeypatch.setenv("PEPPER_PURE", "1")
    assert results.command("engine", []) == "PEPPER_PURE=1 .venv/bin/python bench/engine.py"


@pytest.mark.parametrize("value, text", [(56716.31, "56716"), (16.72, "16.7"), (2.1034, "2.10"), (0.04123, "0.0412"),
                                         (0.0, "0"), (-1.25, "-1.25"), (7, "7"), (None, "-"), (True, "yes"), ("a|b", "a\\|b")])
def test_a_cell_is_three_significant_digits_that_parse_back(value, text):
    assert results.cell(value) == text
    if isinstance(value, float):
        assert float(text) == pytest.approx(value, rel=5e-3, abs=1e-9)


def test_a_row_that_does_not_fit_its_columns_is_refused():
    with pytest.raises(ValueError, match="a row of 1 cells under 2 columns"):
        results.Table(["figure", "value"], [["a"]], heading="figures").markdown()
