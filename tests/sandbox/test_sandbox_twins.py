"""Twins apart in the sandbox (arena.twins): a bot with memory (tests/arena/memory_bot.py, which keeps what it saw
in its container's /tmp) plays sandboxed runs with a real Docker Engine. By default each rotation of a block is
played by containers of their own, and the bot never meets a deal it played; with ``--twins shared`` its containers
meet the decks of the blocks they played."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from arena.registry import ensure_sample_bots
from arena.store import BotKind, Store
from arena.tournament import RunConfig, run

ARENA_TESTS = Path(__file__).resolve().parents[1] / "arena"
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
pytestmark = [pytest.mark.usefixtures("images"), pytest.mark.xdist_group("sandbox")]


def sandboxed(tmp_path: Path, **kw) -> tuple[int, int, list[str], list[tuple]]:
    """16 games of the memory bot against random in containers: (twins recognized, games ended, the names its
    containers connected as, stored seat rows)."""
    (tmp_path / "short.toml").write_text(SHORT)
    db = tmp_path / "arena.db"
    st = Store(str(db))
    ensure_sample_bots(st, note=lambda m: None)
    st.add_bot("memory", BotKind.COMMAND, command="{python} memory_bot.py", cwd=str(ARENA_TESTS),
               files=["memory_bot.py"])
    st.close()
    cfg = RunConfig(ruleset=str(tmp_path / "short.toml"), games=16, seed=3, bots=["memory", "random"], db=str(db),
                    log_dir=str(tmp_path / "logs"), sandbox="docker", **kw)
    _, progress = run(cfg, notify=lambda m: None)
    assert progress.done == 16 and progress.crashes == 0
    log = (tmp_path / "logs" / "bot-memory.log").read_text()
    with sqlite3.connect(db) as c:
        seats = c.execute("SELECT bot, COUNT(*) FROM game_seats GROUP BY bot ORDER BY bot").fetchall()
    return (log.count("memory: twin of a remembered game"), len(re.findall(r"memory: (twin|new)", log)),
            sorted(re.findall(r"memory: started as (\S+)", log)), seats)


def test_a_sandboxed_bot_with_memory_never_meets_a_twin(tmp_path, docker_client):
    twins, ended, names, seats = sandboxed(tmp_path)
    assert (twins, ended) == (0, 32), (twins, ended)
    assert names == ["_r0.memory"] * 2 + ["_r1.memory"] * 2   # four containers, two per rotation
    assert seats == [("memory", 32), ("random", 32)]


def test_with_twins_shared_its_containers_meet_the_decks_they_played(tmp_path, docker_client):
    twins, ended, names, _ = sandboxed(tmp_path, twins="shared")
    assert ended == 32 and twins > 0 and names == ["memory"] * 2
