"""The driver's commit of what a match sends back (arena.distributed.commit), with real matches played by the
task's body without Ray (play_match) on a real store: a result delivered twice counts once in everything it
carries, and the run's summary counts faults as the ranked table does."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.config import RunConfig
from arena.distributed import commit, play_match, shipped_files
from arena.stats import table
from arena.store import BotKind, Store
from arena.tournament import Arena, Progress

ROOT = Path(__file__).resolve().parents[2]
SHORT = 'name = "p30-short"\nextends = "pepper-30"\ndeal_cap = 1\n'


def test_a_result_delivered_twice_stores_its_games_crashes_and_faults_once_and_the_summary_agrees_with_the_table(
        tmp_path):
    (tmp_path / "short.toml").write_text(SHORT)
    db = tmp_path / "driver.db"
    st = Store(db)
    try:
        # A bot whose first process dies before it connects (one crash), then plays.
        once = f"if mkdir {tmp_path}/crashed 2>/dev/null; then exit 3; fi; exec {sys.executable} -m sample_bots heuristic"
        st.add_bot("crashy", BotKind.COMMAND, command=f"sh -c '{once}'", cwd=str(ROOT))
        st.add_bot("h", BotKind.COMMAND, command=f"{sys.executable} -m sample_bots heuristic", cwd=str(ROOT))
        cfg = RunConfig(ruleset=str(tmp_path / "short.toml"), players=2, games=2, seed=5, bots=["crashy", "h"],
                        db=str(db), log_dir=str(tmp_path / "logs"), tau=0.0)
        arena = Arena(cfg, st)
        run_id, bots = arena.open_run()
        res = play_match(cfg, bots, arena.versions, st.pending(run_id), shipped_files(cfg))
        assert [c[0] for c in res.crashes] == ["crashy"] and len(res.games) == 2, res
        progress = Progress(total=2)
        notes: list[str] = []
        for _ in range(2):   # the same result, twice
            commit(arena, st, run_id, [res], progress, set(), notes.append)
        assert st.game_ids(run_id).count == 2 and progress.done == 2
        assert st.db.execute("SELECT COUNT(*) FROM crashes").fetchone()[0] == 1 and progress.crashes == 1
        rows = table(st, arena.pool)
        assert progress.faults == sum(r.faults for r in rows) == st.run_table_faults(run_id) >= 1, (progress, rows)
        assert notes == ["2 game(s) already stored were dropped, not counted twice"]
    finally:
        st.close()
