"""Twins apart (arena.twins): the games of a duplicate block are played by processes that play no other game of it.
A bot with memory (memory_bot.py: it remembers every game it played and says when it meets a deal again) plays a
real arena run, a real referee and real bot processes: with the default it never meets a twin; with ``--twins
shared`` its processes meet the decks they played."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from arena.registry import ensure_sample_bots
from arena.schedule import plan
from arena.store import BotKind, Store
from arena.tournament import RunConfig, run
from arena.twins import Seating
from referee.rules import get_ruleset

HERE = Path(__file__).resolve().parent
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
pytestmark = pytest.mark.xdist_group("arena")


def twins_met(tmp_path: Path, **kw) -> tuple[int, int, list[tuple], str]:
    """Play 40 games of the memory bot against random; (twins it recognized, games it ended, stored seat rows, its
    log)."""
    (tmp_path / "short.toml").write_text(SHORT)
    db = tmp_path / "arena.db"
    st = Store(str(db))
    ensure_sample_bots(st, note=lambda m: None)
    st.add_bot("memory", BotKind.COMMAND, command="{python} memory_bot.py", cwd=str(HERE), files=["memory_bot.py"],
               env={"MEMORY_DIR": str(tmp_path)})
    st.close()
    cfg = RunConfig(ruleset=str(tmp_path / "short.toml"), games=40, seed=3, bots=["memory", "random"], db=str(db),
                    log_dir=str(tmp_path / "logs"), **kw)
    _, progress = run(cfg, notify=lambda m: None)
    assert progress.done == 40 and progress.crashes == 0
    log = (tmp_path / "logs" / "bot-memory.log").read_text()
    with sqlite3.connect(db) as c:
        seats = c.execute("SELECT bot, version, COUNT(*) FROM game_seats GROUP BY bot, version ORDER BY bot").fetchall()
    return log.count("memory: twin of a remembered game"), len(re.findall(r"memory: (twin|new)", log)), seats, log


def test_a_bot_with_memory_never_meets_a_twin_of_a_game_it_played(tmp_path):
    twins, ended, seats, log = twins_met(tmp_path)
    assert (twins, ended) == (0, 80)   # 40 games, 2 seats each
    # Its processes connected as its identity of each rotation, 2 each (a connection per seat it takes); what is
    # stored names the bot and its version.
    assert sorted(re.findall(r"memory: started as (\S+)", log)) == ["_r0.memory"] * 2 + ["_r1.memory"] * 2, log
    assert seats == [("memory", 1, 80), ("random", 1, 80)]


def test_with_twins_shared_the_same_bot_meets_the_decks_it_played(tmp_path):
    """The memory bot's two processes hold both of its seats in every game, so each block's second game is played
    by processes that played its first: the bot recognizes the deck (not every time: the two games of a block run
    at once, and the second may end before the first)."""
    twins, ended, _, log = twins_met(tmp_path, twins="shared")
    assert ended == 80 and twins > 0
    assert re.findall(r"memory: started as (\S+)", log) == ["memory"] * 2, log


def test_a_lane_per_rotation_of_a_block():
    iowa, five = get_ruleset("iowa"), get_ruleset("pepper-30")
    mirrored = Seating.of(iowa, 4, "mirrored", True, ["a", "b", "c"], ["a", "b"])
    assert (mirrored.lanes, mirrored.apart) == (2, frozenset({"a", "b"}))
    assert mirrored.identities("a") == ["_r0.a", "_r1.a"] and mirrored.identities("c") == ["c"]   # c is remote
    assert [mirrored.seat(s) for s in (["a", "c", "a", "c"], ["c", "a", "c", "a"])] == [
        ["_r0.a", "c", "_r0.a", "c"], ["c", "_r1.a", "c", "_r1.a"]]
    mixed = Seating.of(iowa, 4, "mixed", True, ["a", "b", "c"], ["a", "b", "c"])
    block = [["a", "b", "a", "c"], ["c", "a", "b", "a"], ["a", "c", "a", "b"], ["b", "a", "c", "a"]]
    assert mixed.lanes == 4 and sorted(mixed.lane(s) for s in block) == [0, 1, 2, 3]
    table = Seating.of(five, 3, "mirrored", True, ["a", "b", "c"], ["a", "b", "c"])
    assert table.lanes == 3 and sorted(table.lane(s) for s in (["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"])) == [0, 1, 2]
    # Every block of a planned run: its games on lanes of their own.
    for mode, seating in (("mirrored", mirrored), ("mixed", mixed)):
        blocks: dict[int, list[int]] = {}
        for m, _, _, _, seats in plan(["a", "b", "c"], "iowa", 4, 60, seed=2, mode=mode):
            blocks.setdefault(m, []).append(seating.lane(seats))
        assert all(sorted(lanes) == list(range(seating.lanes)) for lanes in blocks.values()), blocks
    # Without duplicate deals a block is one game: one identity, the bot's name.
    single = Seating.of(iowa, 4, "mirrored", False, ["a", "b"], ["a", "b"])
    assert (single.lanes, single.identities("a"), single.seat(["a", "b", "a", "b"])) == (1, ["a"], ["a", "b", "a", "b"])
    assert Seating.of(iowa, 4, "mirrored", True, ["a", "b" * 61], ["a", "b" * 61]).too_long() == ["b" * 61]
