"""Scale-out benchmark: `pepper arena run --ray` on a Ray cluster of worker nodes on this machine.

Measures, in one run:

1. the single-machine arena on the same plan (the baseline, games/s);
2. games/s with 1 and with 2 worker nodes (``--nodes``), each node with ``--cpus`` CPUs, a head with none, all on
   127.0.0.1 (``ray.cluster_utils.Cluster``), and the per-match overhead: the task's time before its first game
   (a referee and the bots started, their connections) and Ray's share (submission to result at the driver, less
   the task's own time), medians;
3. the driver's commit rate: games per second it can commit into SQLite, a match (2 games) per transaction, the
   real games' records; alone, and with the plan-order rating that follows each commit (target: 1,000 games/s);
4. a projection for ``--project`` nodes (100) from the per-node rate and the commit rate, with its assumptions.

The games: the heuristic sample bot against itself under a second name, 2 players, one deal a game (a ruleset
file), duplicate matches of 2 games: short games, so the overhead per match shows. On a 2-core machine two nodes
share the same cores, so 2 nodes cannot be faster than one here; the figure says what the overhead of a second
node costs, not what a second machine gives.

    .venv/bin/python bench/scale.py [--games 40] [--nodes 1,2] [--cpus 2] [--per-task 1,5] [--commit-games 4000] [--project 100]
                                    [--results PATH | --no-write]

The figures also go to docs/results/scale.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
os.environ.update(RAY_ENV)

from arena import distributed, tournament  # noqa: E402
from arena.config import RunConfig  # noqa: E402
from arena.store import Store  # noqa: E402
from bench import results  # noqa: E402

SHORT = 'name = "p30-short"\nextends = "pepper-30"\ndeal_cap = 1\n'
BOT = "{python} -m sample_bots heuristic"


def _config(tmp: Path, name: str, games: int) -> RunConfig:
    db = tmp / f"{name}.db"
    st = Store(db)
    for bot in ("heuristic", "h2"):
        st.add_bot(bot, "command", command=BOT, cwd=str(ROOT))
    st.close()
    return RunConfig(ruleset=str(tmp / "short.toml"), players=2, games=games, seed=5, bots=["heuristic", "h2"],
                     db=str(db), log_dir=str(tmp / f"{name}-logs"), tau=0.0)


def baseline(tmp: Path, games: int) -> float:
    cfg = _config(tmp, "local", games)
    t0 = time.monotonic()
    tournament.run(cfg)
    return games / (time.monotonic() - t0)


def on_cluster(tmp: Path, games: int, nodes: int, cpus: int, per_task: int) -> dict:
    import ray
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False,
                                                      "node_ip_address": "127.0.0.1"})
    try:
        for _ in range(nodes):
            c.add_node(num_cpus=cpus, node_ip_address="127.0.0.1")
        c.wait_for_nodes()
        ray.init(address=c.address, log_to_driver=False)
        cfg = _config(tmp, f"ray{nodes}-{per_task}", games)
        results: list[distributed.MatchResult] = []
        t0 = time.monotonic()
        distributed.run(cfg, c.address, on_match=results.append, matches_per_task=per_task)
        wall = time.monotonic() - t0
        return {"games_s": games / wall, "matches": len(results),
                "setup_s": statistics.median(r.setup_s for r in results),
                "task_s": statistics.median(r.seconds for r in results),
                "ray_s": statistics.median(r.round_trip_s - r.seconds for r in results),
                }
    finally:
        ray.shutdown()
        c.shutdown()


def commit_rate(tmp: Path, source_db: Path, games: int, per_tx: int) -> float:
    """Games/s the driver commits and rates in plan order (distributed.commit: the driver's own code), ``per_tx``
    matches of 2 games per transaction, with the real games of the baseline run as the payload (their records,
    seats and timings)."""
    from arena.planners import FixedPlanner
    from arena.store import NewGame

    src = Store(source_db, read_only=True)
    sample = [(g, src.record(g.id)) for g in sorted(src._games("WHERE run_id = 1", ()), key=lambda g: g.idx)[:2]]
    src.close()
    cfg = _config(tmp, f"commit-{per_tx}", games)
    st = Store(cfg.db)
    plan = [(i // 2, sample[i % 2][0].ruleset, 2, sample[i % 2][0].seed, [s.bot for s in sample[i % 2][0].seats])
            for i in range(games)]
    arena = tournament.Arena(cfg, st, planner=lambda ctx: FixedPlanner(ctx, plan))
    run_id, _bots = arena.open_run()
    matches = [distributed.MatchResult([m], [NewGame(None, 2 * m + k, g.pool, g.ruleset, g.players, g.seed, g.status,
                                                     g.duration, g.seats, rec, (0, 1)) for k, (g, rec) in enumerate(sample)],
                                       [], {}, "bench", 0.0, 0.0) for m in range(games // 2)]
    progress = tournament.Progress(total=games)
    t0 = time.monotonic()
    for i in range(0, len(matches), per_tx):
        distributed.commit(arena, st, run_id, matches[i:i + per_tx], progress, set(), print)
    rate = progress.done / (time.monotonic() - t0)
    assert progress.done == games and not st.unrated(run_id, past_gaps=True)
    st.close()
    return rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--nodes", default="1,2")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--per-task", default="1,5", help="matches per Ray task, comma-separated")
    ap.add_argument("--commit-games", type=int, default=4000)
    ap.add_argument("--project", type=int, default=100)
    results.add_arguments(ap)
    a = ap.parse_args()
    out = results.Results("scale", "Scale-out benchmark", f"`pepper arena run --ray` on a Ray cluster of worker nodes of "
                          f"{a.cpus} CPUs on this machine, against the single-machine arena on the same plan (the "
                          f"baseline, measured in the same run): {a.games} games, 2 players, one deal a game, heuristic "
                          "bots; then the driver's commit rate and a projection. Nodes on one machine share its cores.", a)
    cluster_rows = []
    with tempfile.TemporaryDirectory(prefix="pepper-scale-") as d:
        tmp = Path(d)
        (tmp / "short.toml").write_text(SHORT)
        local = baseline(tmp, a.games)
        print(f"single-machine arena: {a.games} games, {local:.1f} games/s (the baseline)")
        rates = {}
        for per_tx in (1, 10):
            rates[per_tx] = commit_rate(tmp, tmp / "local.db", a.commit_games, per_tx)
            print(f"driver commits and rates in plan order: {rates[per_tx]:,.0f} games/s with {per_tx} match(es) of 2 "
                  f"games per transaction ({rates[per_tx] / 1000:.1f}x the 1,000 games/s target)")
        commit_rated = rates[10]
        per_node = None
        for n in [int(x) for x in a.nodes.split(",")]:
            for per_task in [int(x) for x in a.per_task.split(",")]:
                r = on_cluster(tmp, a.games, n, a.cpus, per_task)
                cluster_rows.append([f"{n} worker node(s), {per_task} match(es) per task", r["games_s"], r["games_s"] / local,
                                     r["matches"], r["task_s"], r["setup_s"], 1000 * r["ray_s"]])
                if n == 1:  # the one node's best
                    per_node = max(per_node or 0.0, r["games_s"])
                print(f"ray, {n} worker node(s) x {a.cpus} CPUs, {per_task} match(es) per task: {r['games_s']:.1f} games/s "
                      f"({r['games_s'] / local:.2f}x the baseline), {r['matches']} tasks; per task (medians): "
                      f"{r['task_s']:.2f}s of which {r['setup_s']:.2f}s before its first game (referee, bots, their "
                      f"connections); submission to result less the task: {r['ray_s'] * 1000:.0f} ms (Ray, and the "
                      "wait in its queue)")
        per_node = per_node or 1.0
        demand = a.project * per_node
        print(f"projection for {a.project} nodes: {demand:,.0f} games/s of these games against a driver that commits and "
              f"rates {commit_rated:,.0f} games/s: {'the driver is not the limit' if commit_rated > demand else 'the driver is the limit'}"
              f" ({commit_rated / demand:.1f}x headroom)")
        print("assumptions: each node plays as the one measured node did at its best --per-task (its CPUs, the same games: a node of N CPUs "
              "scales this figure by N/--cpus); matches are independent (no shared state but the driver); the driver "
              "commits on one core with the database on a local disk (synchronous=FULL, 10 matches per transaction: at that rate of results every poll finds many back); "
              "Ray's scheduling of 1 task per match stays far below its limits (thousands of tasks/s); longer games "
              "(full iowa games are about 10-20x longer) lower the demand on the driver in proportion.")
        out.table(["run", "games/s", "ratio to the baseline", "tasks", "s a task", "s before its first game",
                   "Ray ms a task"], [["single-machine arena (the baseline)", local, 1.0, None, None, None, None],
                                      *cluster_rows], heading="Games per second (per task: medians)")
        out.table(["figure", "games/s"], [*[[f"the driver commits and rates, {k} match(es) of 2 games per transaction", v]
                                            for k, v in rates.items()],
                                          [f"projected demand of {a.project} nodes (the one node's best)", demand]],
                  heading="The driver", note=f"Headroom: {commit_rated / demand:.1f}x (target: 1,000 games/s committed).")
        out.write()


if __name__ == "__main__":
    main()
