"""The planners behind the arena's loop (arena.planners, arena.match): entrants that join and leave while a run is
planned (what a standing ladder needs), and the planners that cannot take them. Real SQLite, no referee."""

import pytest

from arena.context import RunContext
from arena.errors import UsageError
from arena.match import MatchConfig, SequentialPlanner
from arena.planners import AdaptivePlanner, FixedPlanner, Planner, default_planner
from arena.sinks import CollectingSink, RatedSink, ResultSink
from arena.sprt import Sprt
from arena.store import Store
from arena.tournament import RunConfig


def _context(tmp_path, bots: list[str], **kw) -> RunContext:
    st = Store(tmp_path / "a.db")
    for b in bots:
        st.add_bot(b, "command", command="x")
    return RunContext(RunConfig(games=1000, bots=bots, seed=5, db=str(tmp_path / "a.db"), **kw), st)


def _round(planner, ctx: RunContext, run_id: int) -> set[str]:
    """Plan and store the next round; the bots it seats."""
    more = planner.next_round(run_id)
    ctx.store.append_plan(run_id, more)
    return {b for *_, seats in more for b in seats}


def test_an_adaptive_plan_takes_an_entrant_that_joins_and_drops_one_that_leaves(tmp_path):
    ctx = _context(tmp_path, ["a", "b", "c"], adaptive=True)
    planner = AdaptivePlanner(ctx)
    run_id, _ = ctx.store.find_or_create_run(ctx.cfg.run_key(["a", "b", "c"]), planner.begin(["a", "b"]))
    assert ctx.store.planned_count(run_id) == 0    # planned in rounds: nothing up front
    assert _round(planner, ctx, run_id) == {"a", "b"}
    planner.add_entrant("c")
    assert planner.entrants == ["a", "b", "c"]
    seated = set()
    for _ in range(3):   # a round is a few matches: within a few, c has played (its line-ups are the least played)
        seated |= _round(planner, ctx, run_id)
    assert "c" in seated
    planner.remove_entrant("a")
    assert planner.entrants == ["b", "c"]
    after = len(ctx.store.planned(run_id))
    for _ in range(3):
        assert _round(planner, ctx, run_id) == {"b", "c"}
    # The rounds carry on from the plan: later match numbers, every game once.
    plan = ctx.store.planned(run_id)
    assert len(plan) > after and [g.idx for g in plan] == list(range(len(plan)))
    assert min(g.match for g in plan[after:]) > max(g.match for g in plan[:after])


def test_a_fixed_plan_is_stored_up_front_and_refuses_a_new_entrant(tmp_path):
    ctx = _context(tmp_path, ["a", "b"])
    planner = default_planner(ctx)
    assert isinstance(planner, FixedPlanner)
    plan = planner.begin(["a", "b"])
    assert len(plan) >= 1000 and not planner.more(1, len(plan))
    with pytest.raises(UsageError, match="cannot join a planned run"):
        planner.add_entrant("c")
    planner.remove_entrant("b")     # its games stay planned (the arena does not start them)
    assert planner.entrants == ["a"]


def test_a_match_is_between_its_two_bots(tmp_path):
    st = Store(tmp_path / "m.db")
    for b in ("a", "b"):
        st.add_bot(b, "command", command="x")
    ctx = RunContext(MatchConfig(games=64, bots=["a", "b"], sprt=Sprt(), db=str(tmp_path / "m.db")), st)
    planner = SequentialPlanner(ctx)
    run_id, _ = st.find_or_create_run(ctx.cfg.run_key(["a", "b"]), planner.begin(["a", "b"]))
    assert planner.more(run_id, 0) and planner.basis(0) == 0
    assert _round(planner, ctx, run_id) == {"a", "b"}
    with pytest.raises(UsageError, match="cannot join a match"):
        planner.add_entrant("c")


def test_the_planners_and_sinks_are_what_the_arena_asks_for(tmp_path):
    ctx = _context(tmp_path, ["a", "b"], adaptive=True)
    match = RunContext(MatchConfig(games=8, bots=["a", "b"], db=ctx.cfg.db), ctx.store)
    assert all(isinstance(p, Planner) for p in (FixedPlanner(ctx), AdaptivePlanner(ctx), SequentialPlanner(match)))
    assert isinstance(default_planner(ctx), AdaptivePlanner)
    assert all(isinstance(s, ResultSink) for s in (RatedSink(ctx), CollectingSink(ctx, [])))
