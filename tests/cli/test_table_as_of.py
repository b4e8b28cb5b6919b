"""`pepper arena table --as-of N`: the table after the first N planned games of a run. The same
command and seed give the same table, whatever order the games finished in. Real runs, a real SQLite file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.ratings import Rater, ranks_from_result
from arena.store import Store
from referee.rules import get_ruleset

SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
pytestmark = pytest.mark.xdist_group("arena")


def pepper(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, env=os.environ | {"COLUMNS": "200"})


ROOT = Path(__file__).resolve().parents[2]


def run(db: Path, concurrency: str, *more: str) -> None:
    """A mixed run of three deterministic bots (heuristic under three names: the random and montecarlo sample bots
    draw from one generator across every game a process plays, so their play depends on the order of the games)."""
    (db.parent / "short.toml").write_text(SHORT)
    for name in ("h2", "h3"):
        out = pepper(db, "bot", "register", name, "--command", "{python} -m sample_bots heuristic", "--cwd", str(ROOT))
        assert out.returncode == 0, out.stdout + out.stderr
    out = pepper(db, "arena", "run", "--ruleset", "short.toml", "--bots", "heuristic,h2,h3", "--games", "24", "--seed",
                 "11", "--concurrency", concurrency, "--quiet", *(more or ("--lineup", "mixed")))
    assert out.returncode == 0, out.stdout + out.stderr


RESULTS = ("rank", "mu", "sigma", "games", "win_pct", "avg_points", "contracts_made_pct")  # not the latencies


def table(db: Path, *args: str) -> dict:
    out = pepper(db, "arena", "table", "--json", *args)
    assert out.returncode == 0, out.stdout + out.stderr
    return {r["bot"]: {k: r[k] for k in RESULTS} for r in json.loads(out.stdout)["iowa-short/4p"]}


def test_as_of_shows_the_table_after_the_first_n_planned_games_and_a_rerun_gives_the_same_table(tmp_path):
    (tmp_path / "one").mkdir(), (tmp_path / "two").mkdir()
    one, two = tmp_path / "one" / "arena.db", tmp_path / "two" / "arena.db"
    run(one, "24")     # every game in flight at once: they finish in any order
    run(two, "1")      # one at a time: in plan order
    final = table(one)
    assert final == table(two)            # the same command and seed, the same table
    assert table(one, "--as-of", "24") == final
    # After 10 games: the ratings of the first 10 planned games rated in order, counted over those games only.
    st = Store(one, read_only=True)
    try:
        games = sorted(st._games("WHERE run_id = 1 AND idx < 10", ()), key=lambda g: g.idx)
    finally:
        st.close()
    t = get_ruleset("iowa").table(4)
    rater, want, played = Rater(), {}, {}
    for g in games:
        seats = sorted(g.seats, key=lambda s: s.seat)
        teams = [[s for s in seats if t.team_of[s.seat] == k] for k in range(2)]
        ranks = ranks_from_result([m[0].score for m in teams], [any(s.won for s in m) for m in teams])
        want.update(rater.rate(want, [[s.bot for s in m] for m in teams], ranks))
        for b in {s.bot for s in seats}:
            played[b] = played.get(b, 0) + 1
    early = table(one, "--as-of", "10")
    assert {b: (r["mu"], r["sigma"], r["games"]) for b, r in early.items()} == \
        {b: (want[b].mu, want[b].sigma, played[b]) for b in want}
    assert table(two, "--as-of", "10", "--run", "1") == early

    text = pepper(one, "arena", "table", "--as-of", "10")
    assert text.returncode == 0 and "iowa-short/4p after the first 10 games of run 1" in text.stdout, text.stdout
    for bad, says in ((["--as-of", "25"], "run 1 has 24 planned games; give N from 1 to 24"),
                      (["--as-of", "3", "--run", "2"], "run 2 has no games in pool iowa-short/4p; its runs: 1"),
                      (["--run", "1"], "--run needs --as-of N")):
        out = pepper(one, "arena", "table", *bad)
        assert out.returncode == 2 and says in " ".join(out.stderr.split()), out.stderr


def test_an_adaptive_run_plans_the_same_rounds_whatever_order_its_games_finish_in(tmp_path):
    """Each round is chosen on the ratings after all but the last ADAPTIVE_LAG_GAMES planned games, not on whatever has
    finished when it is planned: 96 games, the rounds from game 72 on chosen on ratings, at concurrency 96 and 1."""
    from arena.planners import ADAPTIVE_LAG_GAMES, ADAPTIVE_ROUND_GAMES

    games = ADAPTIVE_LAG_GAMES + 4 * ADAPTIVE_ROUND_GAMES
    (tmp_path / "one").mkdir(), (tmp_path / "two").mkdir()
    one, two = tmp_path / "one" / "arena.db", tmp_path / "two" / "arena.db"
    run(one, str(games), "--adaptive", "--games", str(games))
    run(two, "1", "--adaptive", "--games", str(games))
    plans = []
    for db in (one, two):
        st = Store(db, read_only=True)
        try:
            plans.append([(g.seed, g.seats) for g in st.planned(1)])
        finally:
            st.close()
    assert len(plans[0]) == games and plans[0] == plans[1]
    assert table(one) == table(two)
