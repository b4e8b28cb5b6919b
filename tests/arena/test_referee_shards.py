"""Referee shards (docs/arena.md, "Shards"): ``--shards N`` starts N referee processes, each
command bot gets processes on each, and the one tournament loop spreads the games over them. Real referee and bot
subprocesses on 127.0.0.1, a real SQLite file."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.config import RunConfig
from arena.processes import SHARD_MIN_GAMES, default_shards
from arena.store import Store
from arena.tournament import Arena

HERE = Path(__file__).resolve().parent
RAW_BOT = HERE.parent / "sdk" / "bots" / "raw_bot.py"
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
pytestmark = pytest.mark.xdist_group("arena")


def _run(tmp: Path, shards: int, bots: dict[str, str], games: int = 40, seed: int = 11) -> tuple[Arena, Store]:
    """One run of ``games`` short games between ``bots`` (name -> command) on ``shards`` referees, in ``tmp``."""
    tmp.mkdir(exist_ok=True)
    (tmp / "short.toml").write_text(SHORT)
    st = Store(tmp / "arena.db")
    for name, command in bots.items():
        st.add_bot(name, "command", command=command, cwd=str(tmp))
    cfg = RunConfig(ruleset=str(tmp / "short.toml"), games=games, seed=seed, bots=sorted(bots), shards=shards,
                    concurrency=16, db=str(tmp / "arena.db"), log_dir=str(tmp / "logs"))
    arena = Arena(cfg, st)
    asyncio.run(arena.run())
    return arena, st


def _games(st: Store) -> list[tuple]:
    """Every stored game of run 1 as (plan index, seed, status, per seat: bot, score, won), in plan order."""
    return sorted((g.idx, g.seed, g.status, tuple((s.seat, s.bot, s.score, s.won) for s in sorted(g.seats, key=lambda s: s.seat)))
                  for g in st._games("WHERE run_id = 1", ()))


def test_two_shards_play_every_game_once_and_give_the_table_one_shard_gives(tmp_path):
    # Deterministic bots: the first legal action, and the sample heuristic (no randomness).
    bots = {"first": f"{sys.executable} {RAW_BOT} ok", "heur": f"{sys.executable} -m sample_bots heuristic"}
    arena2, st2 = _run(tmp_path / "two", 2, bots)
    try:
        # Both referees played games, and every planned game is stored exactly once, completed.
        assert [s.index for s in arena2.fleet.shards] == [0, 1] and all(s.created > 0 for s in arena2.fleet.shards), \
            [(s.index, s.created) for s in arena2.fleet.shards]
        assert sum(s.created for s in arena2.fleet.shards) == 40
        assert (tmp_path / "two" / "logs" / "referee.log").exists() and (tmp_path / "two" / "logs" / "referee-1.log").exists()
        assert st2.db.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM games WHERE run_id = 1").fetchone() == (40, 40)
        assert st2.planned_count(1) == 40 and not st2.pending(1)
        # Each bot's processes were shared out over the shards and the two rotations of a block (arena.twins; 2
        # seats a game: 2 processes on each shard for each rotation).
        assert [len(sup.handles) for sup in arena2.fleet.launched["first"].sups] == [2, 2, 2, 2]
        arena1, st1 = _run(tmp_path / "one", 1, bots)
        try:
            assert len(arena1.fleet.shards) == 1 and arena1.fleet.shards[0].created == 40
            # The same command and seed: the same games, results and table whichever referee played them.
            assert _games(st2) == _games(st1) and len(_games(st1)) == 40
            pool = st1.pools()[0]
            assert st2.ratings(pool) == st1.ratings(pool) and st1.ratings(pool)
        finally:
            st1.close()
    finally:
        st2.close()


def test_a_crash_on_each_shard_is_replayed_there_and_stored_once(tmp_path):
    marker = tmp_path / "crashed"
    bots = {"crashy": f"{sys.executable} {HERE / 'shard_crash_bot.py'} {marker} 5",
            "first": f"{sys.executable} {RAW_BOT} ok"}
    arena, st = _run(tmp_path, 2, bots, games=40)
    try:
        crashes = arena.fleet.launched["crashy"].crashes
        # One process crashed on each shard (each claimed its shard's marker), and the games in flight on it came back.
        assert sorted(c.shard for c in crashes) == [0, 1] and all(c.exit_code == 3 for c in crashes), crashes
        assert all(c.games_replayed >= 1 and c.recorded for c in crashes), crashes
        assert len(list(tmp_path.glob("crashed.*"))) == 2
        # Every planned game is stored once, none with a disconnect: the crashes forfeited nothing.
        assert st.db.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM games WHERE run_id = 1").fetchone() == (40, 40)
        assert st.db.execute("SELECT COUNT(*) FROM game_seats WHERE disconnect > 0 OR status != 'ok'").fetchone() == (0,)
        stored = st.db.execute("SELECT bot, exit_code, games_replayed FROM crashes ORDER BY id").fetchall()
        assert sorted(stored) == sorted(("crashy", 3, c.games_replayed) for c in crashes)
    finally:
        st.close()


def pepper(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, env=os.environ | {"COLUMNS": "200"})


@pytest.mark.parametrize(("extra", "says"), [
    (["--referee", "127.0.0.1:1", "--control-token", "t"], "--referee ADDRESS is one referee"),
    (["--sandbox", "docker"], "--sandbox docker runs one referee"),
    (["--bots", "random,heuristic,far"], "remote bot(s) far connect to one referee"),
    (["--ray", "local"], "--ray starts one referee per match"),
])
def test_shards_are_refused_where_bots_reach_one_referee(tmp_path, extra, says):
    assert pepper("bot", "register", "far", "--remote", "--db", "arena.db", cwd=tmp_path).returncode == 0
    out = pepper("arena", "run", "--shards", "2", "--games", "4", *extra, "--db", "arena.db", cwd=tmp_path)
    assert out.returncode == 2 and says in " ".join(out.stderr.split()), out.stdout + out.stderr
    assert not (tmp_path / "arena-logs").exists()   # nothing started


def test_the_default_is_a_referee_per_two_cores_up_to_four_for_runs_long_enough():
    assert [default_shards(1000, n) for n in (1, 2, 3, 4, 6, 8, 64)] == [1, 1, 1, 2, 3, 4, 4]
    assert [default_shards(n, 4) for n in (0, 1, SHARD_MIN_GAMES - 1, SHARD_MIN_GAMES)] == [1, 1, 1, 2]
