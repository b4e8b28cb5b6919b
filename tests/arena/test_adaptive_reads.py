"""What an adaptive run costs besides its games (adaptive runs as fast as planned ones): planning a
round reads only the plan rows added since the last round, not the whole plan (which made each round's planning grow
with the run), and the arena reports the mean games in flight over time, which a waiting adaptive run keeps below its
most. Real SQLite, synthetic results (no referee), as in test_adaptive_lag."""

from stored import record_rated
from test_adaptive_lag import BOTS, _result

from arena.planners import ADAPTIVE_LAG_GAMES, ADAPTIVE_ROUND_GAMES
from arena.store import Store
from arena.tournament import Arena, Progress, RunConfig


class CountingStore(Store):
    """A real store that counts the plan rows it hands out."""

    rows_read = 0

    def planned(self, run_id, start=0):
        rows = super().planned(run_id, start) if start else super().planned(run_id)
        self.rows_read += len(rows)
        return rows


def test_a_round_reads_only_the_plan_rows_added_since_the_last(tmp_path):
    st = CountingStore(tmp_path / "a.db")
    for b in BOTS:
        st.add_bot(b, "command", command="x")
    cfg = RunConfig(games=1000, adaptive=True, bots=BOTS, seed=5, db=str(tmp_path / "a.db"))
    arena = Arena(cfg, st)
    arena.planner.begin(BOTS)
    run_id, _ = st.find_or_create_run(cfg.run_key(BOTS), [])
    rounds = (ADAPTIVE_LAG_GAMES + 32 * ADAPTIVE_ROUND_GAMES) // ADAPTIVE_ROUND_GAMES
    stored = 0
    for _ in range(rounds):
        basis = arena.planner.basis(len(arena.ctx.planned(run_id)))
        for g in Store.planned(st, run_id)[stored:basis]:  # the games the round waits for (not counted)
            record_rated(st, _result(arena, run_id, g.idx, g.seed, g.seats), lambda current: {})
        stored = max(stored, basis)
        arena.sink.rate(run_id)
        st.append_plan(run_id, arena.planner.next_round(run_id))
    planned = st.planned_count(run_id)
    assert planned >= rounds * ADAPTIVE_ROUND_GAMES // 2
    # Each planned row read about once (the whole plan at every round: rounds * planned / 2 rows, ~10,000 here).
    assert st.rows_read <= planned + 2 * rounds * ADAPTIVE_ROUND_GAMES, (st.rows_read, planned)


def test_mean_in_flight_weighs_each_count_by_how_long_it_held():
    p = Progress(total=10)
    assert p.mean_in_flight(now=5.0) == 0.0           # no game started yet
    p.fly(+1, now=10.0)
    p.fly(+1, now=10.0)                               # 2 in flight for 4 s
    p.fly(-1, now=14.0)                               # 1 for 6 s
    p.fly(+3, now=20.0)                               # 4 for 10 s
    assert p.most_in_flight == 4 and p.in_flight == 4
    assert p.mean_in_flight(now=30.0) == (2 * 4 + 1 * 6 + 4 * 10) / 20
    p.fly(-4, now=30.0)
    assert p.mean_in_flight(now=40.0) == (2 * 4 + 1 * 6 + 4 * 10) / 30   # none in flight for the last 10 s
