"""Bot registration: what the arena launches, its files, and the sample bots it knows by default.

A command bot's command may use ``{python}`` for this interpreter (so the
sample bots run in the arena's own environment wherever it is installed).
The sample bots are registered once per database; a user who removes one is
not overridden. The Node.js bot is registered only where ``node`` is on PATH
and its packages are installed (``make node-bot``).

A bot's *files* are what its version's digest covers (:func:`files_digest`):
the paths given with ``--files``, or by default (:func:`default_files`) the
command's arguments that are existing files or directories under its cwd, and
for ``-m PKG`` the package's directory (or module file) under its cwd; the
sample bots' files are their package, ``sample_bots/``. When a run starts, a
command bot whose files no longer match its latest version's digest gets a new
version (:func:`current_versions`), so new code is never rated as the old.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from .store import Bot, BotKind, Store

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "sample_bots" / "node"

# name -> (command, processes). The search bot is the slowest by far, so it
# runs as two processes (each serving half its seats) to use both cores.
SAMPLE_BOTS = {
    "random": ("{python} -m sample_bots random", 1),
    "heuristic": ("{python} -m sample_bots heuristic", 1),
    "montecarlo": ("{python} -m sample_bots montecarlo", 2),
}


SAMPLES_REGISTERED = "samples_registered"  # a meta flag: the sample bots were registered once


def expand(command: str, python: str | None = None) -> str:
    """``command`` with ``{python}`` replaced by ``python`` (by default this interpreter)."""
    return command.replace("{python}", python or sys.executable)


def node_missing(node_dir: Path | None = None) -> str | None:
    """Why the Node bot cannot run here (a one-line note), or None when it can."""
    node_dir = node_dir or NODE_DIR
    try:
        deps = json.loads((node_dir / "package.json").read_text(encoding="utf-8")).get("dependencies", {})
    except (OSError, ValueError):
        return f"{node_dir / 'package.json'} is missing or unreadable"
    if shutil.which("node") is None:
        return "node is not installed: install Node.js 18 or later"
    # Without its packages the bot dies on start and the run would abort ("exited before connecting").
    absent = [d for d in deps if not (node_dir / "node_modules" / d / "package.json").is_file()]
    if absent:
        return f"its packages ({', '.join(absent)}) are not installed: run `make node-bot`"
    return None


def ensure_sample_bots(store: Store, note=print) -> None:
    """Register the sample bots the first time a database is used."""
    if store.flag(SAMPLES_REGISTERED):
        return
    for name, (cmd, processes) in SAMPLE_BOTS.items():
        if store.bot(name) is None:
            files = default_files(cmd, str(ROOT))
            store.add_bot(name, BotKind.COMMAND, command=cmd, cwd=str(ROOT), processes=processes, sample=True,
                          files=files, digest=files_digest(files, str(ROOT)))
    why = node_missing()
    if why:
        note(f"note: the Node.js sample bot is not registered: {why}; then add it with "
             f"`pepper bot register node --command \"node .\" --cwd {NODE_DIR}`")
    elif store.bot("node") is None:
        files = default_files("node .", str(NODE_DIR))
        store.add_bot("node", BotKind.COMMAND, command="node .", cwd=str(NODE_DIR), sample=True, files=files,
                      digest=files_digest(files, str(NODE_DIR)))
    store.set_flag(SAMPLES_REGISTERED)


# -- a bot's files and their digest ------------------------------------------------------------------
SKIPPED = frozenset({"__pycache__", "node_modules", ".git", ".venv", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
MAX_FILES = 20_000  # a bot's tree larger than this is most likely a whole project: ask for --files


class BotFilesError(ValueError):
    """A bot's files cannot be taken: the message says which and what to do."""


def default_files(command: str, cwd: str) -> list[str]:
    """A command's files by default, relative to ``cwd``: its arguments that are existing files or directories
    under ``cwd`` (``{python}`` aside), and for ``-m PKG`` the top package's directory or module file there."""
    root = Path(cwd).resolve()
    try:
        args = shlex.split(command)
    except ValueError as e:
        raise BotFilesError(f"command {command!r}: {e}") from None
    found = []
    for before, arg in zip(["", *args], args):
        if "{python}" in arg:
            continue
        top = arg.split(".")[0]
        for name in ([top, f"{top}.py"] if before == "-m" else [arg]):
            path = (root / name).resolve()
            if path.exists() and path.is_relative_to(root):
                found.append(path.relative_to(root).as_posix() if path != root else ".")
                break
    return sorted(set(found))


def files_digest(files: Iterable[str], cwd: str) -> str:
    """sha256 over the relative paths and contents of ``files`` (each a file or a directory, relative to
    ``cwd`` or absolute), skipping the directories in :data:`SKIPPED`; "" for no files. A missing path counts
    as such, so that removing a file changes the digest too."""
    files = sorted(set(files))
    if not files:
        return ""
    h = hashlib.sha256()
    count = 0
    for name in files:
        base = Path(cwd, name)
        for path, rel in _walk(base, name):
            count += 1
            if count > MAX_FILES:
                raise BotFilesError(f"{base}: more than {MAX_FILES} files; name the bot's own files with --files PATH")
            data = path.read_bytes() if path is not None else b""
            h.update(f"{rel}\0{'-' if path is None else len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()


def _walk(base: Path, name: str):
    """(path, name relative to the bot's cwd) of every file under ``base``; (None, name) when it is missing."""
    if base.is_file():
        yield base, name
    elif not base.is_dir():
        yield None, name
    else:
        for folder, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
            for f in sorted(files):
                path = Path(folder, f)
                yield path, f"{name}/{path.relative_to(base).as_posix()}"


def current_versions(store: Store, bots: list[Bot], note: Callable[[str], None]) -> list[Bot]:
    """``bots`` as they are now: a command bot whose files no longer match its latest version's digest gets a
    new version (said in one line by ``note``), so that new code is never rated as the old. A version from
    before versions, its files unrecorded, records them instead. A bot whose files cannot be read is left as
    it is (starting it will say what is wrong)."""
    out = []
    for b in bots:
        if b.kind is BotKind.COMMAND and b.command and b.cwd:
            try:
                files = b.files if b.files is not None else tuple(default_files(b.command, b.cwd))
                digest = files_digest(files, b.cwd)
            except (OSError, BotFilesError):
                digest = b.digest
            if digest != b.digest:
                was = b.version
                b, new = store.update_bot(b.name, dataclasses.replace(b.build, files=files, digest=digest))
                if new:
                    note(f"bot {b.name}: its files changed since version {was} was registered; "
                         f"this run plays them as version {b.version}")
        out.append(b)
    return out
