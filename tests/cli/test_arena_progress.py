"""Progress and commits in lockstep: `pepper arena run` (a subprocess, its output a pipe) prints progress lines
while it runs, stores each game as it finishes, and keeps no more games in flight by default than the run has.
A real referee, real bot subprocesses, a real SQLite file."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.config import RunConfig
from arena.registry import ensure_sample_bots
from arena.store import Store
from arena.tournament import Progress, run

SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
LINE = re.compile(r"^iowa-short/4p: (\d+)/(\d+) games \(\d+%\), [\d.]+ games/s, ETA (\S+), (\d+) faults, (\d+) in flight$")
pytestmark = pytest.mark.xdist_group("arena")


def start(tmp_path: Path, *args: str, ruleset: str = "short.toml") -> subprocess.Popen:
    (tmp_path / "short.toml").write_text(SHORT)
    return subprocess.Popen([sys.executable, "-m", "pepper_cli", "arena", "run", "--ruleset", ruleset,
                             "--bots", "random,heuristic", "--db", str(tmp_path / "arena.db"), *args],
                            cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def test_piped_output_shows_progress_lines_while_the_run_goes(tmp_path):
    arena = start(tmp_path, "--games", "120", "--seed", "3")   # a line at the first finished game, then every 10 s
    seen = []   # (progress line, the arena still running when it was read)
    for line in arena.stdout:
        if m := LINE.match(line.strip()):
            seen.append((m, arena.poll() is None))
    assert arena.wait(60) == 0, arena.stderr.read()
    done = [int(m[1]) for m, _ in seen]
    # From the first finished game on, with rate and ETA, while games are still to play; one line at the end.
    assert done[0] >= 1 and seen[0][0][3] != "-" and any(0 < d < 120 for d in done), done
    assert any(running and 0 < int(m[1]) < 120 for m, running in seen), done
    assert done == sorted(done) and done[-1] == 120 and seen[-1][0][5] == "0"


def test_quiet_prints_no_progress_lines(tmp_path):
    arena = start(tmp_path, "--games", "8", "--progress-every", "0.2", "--quiet")
    out, err = arena.communicate(timeout=60)
    assert arena.returncode == 0, err
    assert not [ln for ln in out.splitlines() if LINE.match(ln)] and "run 1: 8/8 games" in out


def test_the_store_holds_finished_games_while_the_run_goes_at_the_default_concurrency(tmp_path):
    """Polled from outside, as `pepper arena table` would: games are committed in small groups while the run
    plays, not all at its end."""
    games = 400
    arena = start(tmp_path, "--games", str(games), "--seed", "4", "--quiet")
    db = tmp_path / "arena.db"
    counts = []   # (seconds into the run, stored games)
    t0 = time.monotonic()
    while arena.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as c:
                    counts.append((time.monotonic() - t0, c.execute("SELECT COUNT(*) FROM games").fetchone()[0]))
            except sqlite3.OperationalError:   # created, its schema not there yet
                pass
        time.sleep(0.1)
    assert arena.returncode == 0, arena.stderr.read()
    partial = [(t, n) for t, n in counts if 0 < n < games]
    assert partial, counts
    # Games are stored while the run plays, not at its end: polled from outside, the count is seen in its first
    # quarter and again in its middle half. (Not a share of the run's time: on a loaded machine the referee's and
    # the bots' start can take half of a run this short.)
    assert any(n < games / 4 for _, n in partial) and any(games / 4 <= n < 3 * games / 4 for _, n in partial), counts


def test_the_default_concurrency_is_not_larger_than_the_run(tmp_path):
    from arena.tournament import default_concurrency

    assert RunConfig().concurrency is None
    assert default_concurrency(pending=10, processes=4, cpus=2) == 10
    assert default_concurrency(pending=100_000, processes=4, cpus=2) < 1000
    db = tmp_path / "arena.db"
    st = Store(db)
    ensure_sample_bots(st, note=lambda m: None)
    st.close()
    seen: list[Progress] = []
    _, progress = run(RunConfig(games=6, seed=2, bots=["random", "heuristic"], db=str(db),
                                log_dir=str(tmp_path / "logs")), on_progress=seen.append)
    assert progress.done == 6 and progress.concurrency == 6 and progress.most_in_flight <= 6
    assert seen and seen[-1].in_flight == 0


def test_a_run_on_the_pure_engine_says_so_once(tmp_path):
    """A run whose engine is not compiled says so in one line, with why, and plays on; a compiled one says nothing."""
    import os

    import referee.rules

    def notes(env: dict) -> list[str]:
        (tmp_path / "short.toml").write_text(SHORT)
        run_ = subprocess.run([sys.executable, "-m", "pepper_cli", "arena", "run", "--ruleset", "short.toml", "--bots",
                               "random,heuristic", "--games", "4", "--db", str(tmp_path / f"{len(env)}.db")],
                              cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120)
        assert run_.returncode == 0 and "4/4 games" in run_.stdout, run_.stdout + run_.stderr
        return [ln for ln in (run_.stdout + run_.stderr).splitlines() if "rules engine runs as pure Python" in ln]

    pure = notes({**os.environ, "PEPPER_PURE": "1"})
    assert len(pure) == 1 and pure[0].startswith("note: ") and "PEPPER_PURE=1 is set" in pure[0], pure
    if referee.rules.COMPILED:
        assert notes({k: v for k, v in os.environ.items() if k != "PEPPER_PURE"}) == []
