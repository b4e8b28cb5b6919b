"""Bot registration: what the arena launches, and the sample bots it knows by default.

A command bot's command may use ``{python}`` for this interpreter (so the
sample bots run in the arena's own environment wherever it is installed).
The sample bots are registered once per database; a user who removes one is
not overridden. The Node.js bot is registered only where ``node`` is on PATH.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from .store import Store

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "sample_bots" / "node"

# name -> (command, processes). The search bot is the slowest by far, so it
# runs as two processes (each serving half its seats) to use both cores.
SAMPLE_BOTS = {
    "random": ("{python} -m sample_bots random", 1),
    "heuristic": ("{python} -m sample_bots heuristic", 1),
    "montecarlo": ("{python} -m sample_bots montecarlo", 2),
}


def expand(command: str) -> str:
    return command.replace("{python}", sys.executable)


def node_command() -> str | None:
    """The Node bot's command, or None (with the reason) when it cannot run here."""
    entry = NODE_DIR / "package.json"
    if not entry.exists() or shutil.which("node") is None:
        return None
    return "node ."


def ensure_sample_bots(store: Store, note=print) -> None:
    """Register the sample bots the first time a database is used."""
    if store.db.execute("SELECT 1 FROM meta WHERE key = 'samples_registered'").fetchone():
        return
    for name, (cmd, processes) in SAMPLE_BOTS.items():
        if store.bot(name) is None:
            store.add_bot(name, "command", command=cmd, cwd=str(ROOT), processes=processes, sample=True)
    nc = node_command()
    if nc is None:
        note("note: node is not installed, so the Node.js sample bot is not registered")
    elif store.bot("node") is None:
        store.add_bot("node", "command", command=nc, cwd=str(NODE_DIR), sample=True)
    with store.tx():
        store.db.execute("INSERT OR REPLACE INTO meta VALUES ('samples_registered', '1')")
