"""Bot registration: what the arena launches, and the sample bots it knows by default.

A command bot's command may use ``{python}`` for this interpreter (so the
sample bots run in the arena's own environment wherever it is installed).
The sample bots are registered once per database; a user who removes one is
not overridden. The Node.js bot is registered only where ``node`` is on PATH
and its packages are installed (``make node-bot``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from .store import BotKind, Store

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


def expand(command: str) -> str:
    return command.replace("{python}", sys.executable)


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


def node_command(node_dir: Path | None = None) -> str | None:
    """The Node bot's command, or None when it cannot run here (see :func:`node_missing`)."""
    return None if node_missing(node_dir) else "node ."


def ensure_sample_bots(store: Store, note=print) -> None:
    """Register the sample bots the first time a database is used."""
    if store.flag(SAMPLES_REGISTERED):
        return
    for name, (cmd, processes) in SAMPLE_BOTS.items():
        if store.bot(name) is None:
            store.add_bot(name, BotKind.COMMAND, command=cmd, cwd=str(ROOT), processes=processes, sample=True)
    why = node_missing()
    if why:
        note(f"note: the Node.js sample bot is not registered: {why}; then add it with "
             f"`pepper bot register node --command \"node .\" --cwd {NODE_DIR}`")
    elif store.bot("node") is None:
        store.add_bot("node", BotKind.COMMAND, command="node .", cwd=str(NODE_DIR), sample=True)
    store.set_flag(SAMPLES_REGISTERED)
