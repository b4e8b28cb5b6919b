"""Ratings in plan order: the same command and seed give the same table whatever order the games
finish in. The arena stores each game as it finishes and rates the stored games in the order of the run's plan."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from arena.ratings import Rater, ranks_from_result
from arena.store import Store
from referee.rules import get_ruleset

SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
pytestmark = pytest.mark.xdist_group("arena")


def _in_plan_order(st: Store, run_id: int) -> dict:
    """The ratings of the run's games rated from scratch in plan order."""
    table = get_ruleset("iowa").table(4)
    rater, ratings = Rater(), {}
    for g in sorted(st._games("WHERE run_id = ?", (run_id,)), key=lambda g: g.idx):
        seats = sorted(g.seats, key=lambda s: s.seat)
        teams = [[s for s in seats if table.team_of[s.seat] == t] for t in range(table.teams)]
        ranks = ranks_from_result([m[0].score for m in teams], [any(s.won for s in m) for m in teams])
        ratings.update(rater.rate(ratings, [[s.bot for s in m] for m in teams], ranks))
    return ratings


def test_a_run_rates_its_games_in_plan_order_whatever_order_they_finish_in(tmp_path):
    (tmp_path / "short.toml").write_text(SHORT)
    db = tmp_path / "arena.db"
    # Games in flight finish in an order the machine decides; random's are faster than montecarlo's.
    out = subprocess.run([sys.executable, "-m", "pepper_cli", "arena", "run", "--ruleset", "short.toml", "--bots",
                          "random,heuristic,montecarlo", "--lineup", "mixed", "--games", "72", "--seed", "7",
                          "--concurrency", "24", "--quiet", "--db", str(db)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300, stdin=subprocess.DEVNULL, env=os.environ | {"PEPPER_MC_SAMPLES": "4"})
    assert out.returncode == 0, out.stdout + out.stderr
    st = Store(db, read_only=True)
    try:
        finished = [g.idx for g in sorted(st._games("WHERE run_id = 1", ()), key=lambda g: g.id)]
        assert finished != sorted(finished)   # the games were stored out of plan order: the test means something
        pool = st.pools()[0]
        assert st.ratings(pool) == _in_plan_order(st, 1)
        # And the history says so: the rating after each game, in plan order.
        order = [r[0] for r in st.db.execute("SELECT g.idx FROM rating_history h JOIN games g ON g.id = h.game_id "
                                             "ORDER BY h.rowid")]
        assert order == sorted(order)
    finally:
        st.close()
