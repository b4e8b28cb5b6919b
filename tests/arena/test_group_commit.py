"""Finished games committed in groups, off the event loop (arena.commits; docs/store.md,
"Writing"). The disk sync of a commit is made slow at the SQLite level (a trace callback that sleeps as a transaction
that stores a game commits), on a real Store file, with a real referee and bot subprocesses on 127.0.0.1."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.commits import GroupCommitter
from arena.config import RunConfig
from arena.sinks import RatedSink
from arena.store import Faults, GameStatus, NewGame, Seat, SeatStatus, Store, StoreError
from arena.tournament import Arena

REPO = Path(__file__).resolve().parents[2]
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
SLOW_COMMIT_S = 0.6
pytestmark = pytest.mark.xdist_group("arena")


class SlowStore(Store):
    """A Store whose commits of a transaction that stored a game take SLOW_COMMIT_S longer (on the connection's own
    thread, as a slow disk sync would). Every such commit is logged: (thread, games it stored, start, end)."""

    commits: list[tuple[int, int, float, float]] = []
    slow = True

    def __init__(self, path, **kw):
        super().__init__(path, **kw)
        self._games_in_tx = 0
        self.db.set_trace_callback(self._trace)

    def _trace(self, sql: str) -> None:
        if sql.startswith("BEGIN"):
            self._games_in_tx = 0
        elif sql.startswith("INSERT INTO games "):
            self._games_in_tx += 1
        elif sql == "COMMIT" and self._games_in_tx:
            start = time.monotonic()
            if self.slow:
                time.sleep(SLOW_COMMIT_S)
            SlowStore.commits.append((threading.get_ident(), self._games_in_tx, start, time.monotonic()))


def test_a_slow_commit_does_not_block_the_event_loop_and_games_commit_in_groups(tmp_path, monkeypatch):
    monkeypatch.setattr(SlowStore, "commits", [])
    # The writer opens its own connection the way the arena's store was opened (here: slow as well).
    sink = lambda ctx: RatedSink(ctx, committer=lambda ctx, then: GroupCommitter(  # noqa: E731
        ctx.store.path, then=then, open_store=type(ctx.store)))
    (tmp_path / "short.toml").write_text(SHORT)
    st = SlowStore(tmp_path / "arena.db")
    for name in ("r1", "r2"):
        st.add_bot(name, "command", command=f"{sys.executable} -m sample_bots random", cwd=str(REPO))
    games = 12
    cfg = RunConfig(ruleset=str(tmp_path / "short.toml"), games=games, seed=3, bots=["r1", "r2"], concurrency=games,
                    adaptive=False, db=str(tmp_path / "arena.db"), log_dir=str(tmp_path / "logs"))
    lags: list[tuple[float, float]] = []   # (when the probe woke, how late)

    async def main():
        async def probe():  # the loop's responsiveness: how late a 10 ms sleep wakes up
            while True:
                t = time.monotonic()
                await asyncio.sleep(0.01)
                now = time.monotonic()
                lags.append((now, now - t - 0.01))

        p = asyncio.create_task(probe())
        try:
            return await Arena(cfg, st, sink=sink).run()
        finally:
            p.cancel()

    try:
        _run_id, progress = asyncio.run(main())
        assert progress.done == games
        assert st.game_ids(1).count == games
        commits = SlowStore.commits
        first, last = min(c[2] for c in commits), max(c[3] for c in commits)
        during = [lag for when, lag in lags if first < when <= last]
        assert during, "the probe never ran while games were committed"
        # Each commit took SLOW_COMMIT_S; the loop went on meanwhile (on the old code it slept in each of them).
        assert max(during) < SLOW_COMMIT_S / 2, f"the event loop was blocked {max(during):.2f}s by a commit"
        assert threading.get_ident() not in {c[0] for c in commits}, "a game was committed on the loop's thread"
        # Fewer commits than games: the games that finished while one commit ran went in the next, together.
        assert sum(c[1] for c in commits) == games and len(commits) < games and max(c[1] for c in commits) > 1
        # Rated in plan order, each game once, in the groups' transactions.
        order = [r[0] for r in st.db.execute("SELECT DISTINCT g.idx FROM rating_history h JOIN games g "
                                             "ON g.id = h.game_id ORDER BY h.rowid")]
        assert order == list(range(games))
    finally:
        st.close()


def _game(run_id: int, idx: int) -> NewGame:
    seats = tuple(Seat(s, bot, SeatStatus.OK, Faults(), 10 * s, s % 2 == 0) for s, bot in enumerate("abab"))
    return NewGame(run_id, idx, "iowa/4p", "iowa", 4, 7, GameStatus.COMPLETED, 0.5, seats, {"deals": []})


def test_games_queued_when_their_callers_are_cancelled_are_committed_by_close(tmp_path, monkeypatch):
    """An error or an interrupt cancels the games' tasks while they wait for their commit: close() commits them all
    the same (nothing finished is lost), and a game stored already is an error, not a second copy."""
    monkeypatch.setattr(SlowStore, "commits", [])
    st = Store(tmp_path / "arena.db")
    run_id, _ = st.find_or_create_run({"k": 1}, [(0, "iowa", 4, i, list("abab")) for i in range(6)])
    st.record_games([_game(run_id, 5)])

    async def main():
        commits = GroupCommitter(st.path, open_store=SlowStore)
        await commits.start()
        waiting = [asyncio.create_task(commits.commit(_game(run_id, i))) for i in range(5)]
        await asyncio.sleep(0.1)              # the first group is committing (slowly)
        waiting.append(asyncio.create_task(commits.commit(_game(run_id, 5))))
        await asyncio.sleep(0)
        for t in waiting[1:]:
            t.cancel()                        # like _play's tasks on an error or Ctrl-C
        with pytest.raises(StoreError, match="game 5 of run 1 is already stored"):
            await commits.close()
        return commits.groups

    try:
        groups = asyncio.run(main())
        assert sorted(r[0] for r in st.db.execute("SELECT idx FROM games")) == [0, 1, 2, 3, 4, 5]
        assert sum(groups) == 6 and len(groups) < 6
    finally:
        st.close()
