"""Every command's --help says what its source says (typer's rich markup would take ``[words]`` for tags and
drop them), and ``pepper --version``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import click
import pytest
import typer
from pepper_proto import PROTOCOL_VERSION
from typer.testing import CliRunner

from pepper_cli.app import app
from referee.rules import COMPILED, why_pure

_SCRIPT = Path(sys.executable).with_name("pepper")
PEPPER = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "pepper_cli"]
BRACKETED = re.compile(r"\\?\[[^\]\n]*\]")
FRAME = re.compile(r"[│╭╮╰╯─]+")


def _commands(cmd: click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    yield path, cmd
    for name, sub in getattr(cmd, "commands", {}).items():
        yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(typer.main.get_command(app)))


def _bracketed(cmd: click.Command) -> list[str]:
    """The ``[...]`` of a command's own help and its parameters' help, as the user should read them."""
    texts = [cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params]
    return [m.removeprefix("\\") for text in texts for m in BRACKETED.findall(text)]


def test_the_walk_finds_every_command_and_some_bracketed_help():
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"arena table", "arena run", "bot run", "bot check", "referee serve", "rules show", "replay"} <= names
    assert "[rows]" in "".join(_bracketed(dict(COMMANDS)[("arena", "table")]))


@pytest.mark.parametrize("path", [path for path, cmd in COMMANDS if _bracketed(cmd)], ids=" ".join)
def test_help_keeps_every_bracketed_word(path):
    out = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"}).output
    flat = " ".join(FRAME.sub(" ", out).split())
    for text in _bracketed(dict(COMMANDS)[path]):
        assert " ".join(text.split()) in flat, f"pepper {' '.join(path)} --help lost {text!r}:\n{out}"


def test_arena_table_help_shows_the_json_shape():
    out = CliRunner().invoke(app, ["arena", "table", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"}).output
    assert "JSON: {pool: [rows]}." in out


def test_version_names_the_package_and_the_protocol():
    r = subprocess.run([*PEPPER, "--version"], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "NO_COLOR": "1"})
    assert r.returncode == 0, r.stderr
    engine = "compiled" if COMPILED else f"pure Python: {why_pure()}"   # this process's engine: the same install
    assert r.stdout == f"pepper {version('pepper-arena')} (protocol pepper.v1 {PROTOCOL_VERSION}; rules engine {engine})\n"
    assert re.fullmatch(r"pepper \d+\.\d+\.\d+\S* \(protocol pepper\.v1 \d+\.\d+; rules engine "
                        r"(compiled|pure Python: .+)\)\n", r.stdout)
