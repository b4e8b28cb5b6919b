"""Scale-out benchmark: `pepper arena run --ray` on a Ray cluster of worker nodes on this machine.

Measures, in one run:

1. the single-machine arena on the same plan (the baseline, games/s);
2. games/s with 1 and with 2 worker nodes (``--nodes``), each node with ``--cpus`` CPUs, a head with none, all on
   127.0.0.1 (``ray.cluster_utils.Cluster``), and the per-match overhead: the task's time before its first game
   (a referee and the bots started, their connections) and Ray's share (submission to result at the driver, less
   the task's own time), medians;
3. the driver's commit rate: games per second it commits into SQLite and rates in plan order, 1 and 10 matches
   (of 2 games) per transaction, the real games' records, into a store that holds ``--fill`` games already (a
   million: a deployment's size); also per second of the driver's CPU time, which a shared machine still measures
   (target: 1,000 games/s);
4. a projection for ``--project`` nodes (100) from the per-node rate and the commit rate, with its assumptions.

The games: the heuristic sample bot against itself under a second name, 2 players, one deal a game (a ruleset
file), duplicate matches of 2 games: short games, so the overhead per match shows. On a 2-core machine two nodes
share the same cores, so 2 nodes cannot be faster than one here; the figure says what the overhead of a second
node costs, not what a second machine gives. ``--pin`` gives each node ``--cpus`` cores of its own (CPU affinity
of its raylet, inherited by its workers, referees and bots): on a machine with nodes x cpus cores, ``--nodes
1,2,4 --pin`` draws the speed-up curve, in a table of its own (the "-pinned" file beside scale.md).

    .venv/bin/python bench/scale.py [--games 40] [--nodes 1,2] [--cpus 2] [--per-task 1,5] [--commit-games 4000]
                                    [--fill 1000000] [--pin] [--project 100]
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


def pin(node, cores: set[int]) -> None:
    """Pin a Ray node's processes (its raylet and what it has started) to ``cores``: the workers it starts later,
    and their referees and bots, inherit the affinity, so the node has those cores to itself (``--pin``)."""
    for _name, proc in node.live_processes():
        os.sched_setaffinity(proc.pid, cores)


def on_cluster(tmp: Path, games: int, nodes: int, cpus: int, per_task: int | None, pinned: bool = False) -> dict:
    import ray
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False,
                                                      "node_ip_address": "127.0.0.1"})
    try:
        for k in range(nodes):
            node = c.add_node(num_cpus=cpus, node_ip_address="127.0.0.1")
            if pinned:
                pin(node, set(range(k * cpus, (k + 1) * cpus)))
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


def fill(db: Path, games: int) -> None:
    """Make the store at ``db`` hold ``games`` games more (``--fill``), in a run of their own: copies of its games
    stored outside any run (the seeds) and their seats and rating history, doubled until there are enough (seconds for a million). The
    benchmark's own filler, so that the commit rate is measured against a database of a real deployment's size;
    the copies carry no record (records are written once, never read by a commit)."""
    import sqlite3

    db_ = sqlite3.connect(db)

    def columns(table: str, *but: str) -> str:
        return ", ".join(r[1] for r in db_.execute(f"PRAGMA table_info({table})") if r[1] not in but)

    with db_:
        db_.execute(f"INSERT INTO runs (key, {columns('runs', 'id', 'key')}) SELECT 'bench-fill', "
                    f"{columns('runs', 'id', 'key')} FROM runs LIMIT 1")
        fill_run = db_.execute("SELECT id FROM runs WHERE key = 'bench-fill'").fetchone()[0]
        while (n := db_.execute("SELECT COUNT(*) FROM games WHERE run_id = ?", (fill_run,)).fetchone()[0]) < games:
            top = db_.execute("SELECT MAX(id) FROM games").fetchone()[0]
            src = "run_id = ?" if n else "run_id IS NULL AND ? IS NOT NULL"   # the seed games, then the copies
            lo, hi = db_.execute(f"SELECT MIN(id), MAX(id) FROM (SELECT id FROM games WHERE {src} ORDER BY id LIMIT ?)",
                                 (fill_run, games - n)).fetchone()
            shift = top - lo + 1
            rest = columns("games", "id", "run_id", "idx")
            db_.execute(f"INSERT INTO games (id, run_id, idx, {rest}) SELECT id + ?, ?, id + ?, {rest} FROM games "
                        f"WHERE {src} AND id BETWEEN ? AND ?", (shift, fill_run, shift, fill_run, lo, hi))
            for table in ("game_seats", "rating_history"):
                rest = columns(table, "game_id")
                db_.execute(f"INSERT INTO {table} (game_id, {rest}) SELECT game_id + ?, {rest} FROM {table} "
                            f"WHERE game_id IN (SELECT id FROM games WHERE {src} AND id BETWEEN ? AND ?)",
                            (shift, fill_run, lo, hi))
    db_.close()


def commit_rate(tmp: Path, source_db: Path, games: int, per_tx: int, filled: int = 0) -> tuple[float, float]:
    """Games/s the driver commits and rates in plan order (distributed.commit: the driver's own code), ``per_tx``
    matches of 2 games per transaction, with the real games of the baseline run as the payload (their records,
    seats and timings), into a store that holds ``filled`` games already (:func:`fill`). Returns (games per
    second, games per second of the driver's own CPU time: the figure a machine shared with other work still
    measures; it leaves out the waits for the disk)."""
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
    if filled:
        st.record_games([NewGame(None, None, g.pool, g.ruleset, g.players, g.seed, g.status, g.duration, g.seats, rec,
                                 (0, 1)) for g, rec in sample])
        st.close()
        fill(Path(cfg.db), filled)
        st = Store(cfg.db)
        arena = tournament.Arena(cfg, st, planner=lambda ctx: FixedPlanner(ctx, plan))
        run_id, _bots = arena.open_run()
    matches = [distributed.MatchResult([m], [NewGame(None, 2 * m + k, g.pool, g.ruleset, g.players, g.seed, g.status,
                                                     g.duration, g.seats, rec, (0, 1)) for k, (g, rec) in enumerate(sample)],
                                       [], {}, "bench", 0.0, 0.0) for m in range(games // 2)]
    progress = tournament.Progress(total=games)
    t0, cpu0 = time.monotonic(), time.process_time()
    for i in range(0, len(matches), per_tx):
        distributed.commit(arena, st, run_id, matches[i:i + per_tx], progress, set(), print)
    rate, cpu_rate = progress.done / (time.monotonic() - t0), progress.done / (time.process_time() - cpu0)
    assert progress.done == games and not st.unrated(run_id, past_gaps=True)
    st.close()
    return rate, cpu_rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--nodes", default="1,2")
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--per-task", default="1,5", help="matches per Ray task, comma-separated")
    ap.add_argument("--commit-games", type=int, default=4000)
    ap.add_argument("--fill", type=int, default=0, metavar="N", help="measure the commits into a store that holds N "
                    "games already (1000000: a deployment's size)")
    ap.add_argument("--pin", action="store_true", help="pin each node to --cpus cores of its own (the speed-up curve "
                    "over --nodes; needs the largest node count times --cpus cores)")
    ap.add_argument("--project", type=int, default=100)
    results.add_arguments(ap)
    a = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    if a.pin and max(int(x) for x in a.nodes.split(",")) * a.cpus > cores:
        ap.error(f"--pin --nodes {a.nodes} --cpus {a.cpus} needs {max(int(x) for x in a.nodes.split(',')) * a.cpus} "
                 f"cores; this machine has {cores}")
    where = (f"each pinned to {a.cpus} core(s) of its own (--pin)" if a.pin else "on this machine, sharing its cores")
    out = results.Results("scale-pinned" if a.pin else "scale", "Scale-out benchmark",
                          f"`pepper arena run --ray` on a Ray cluster of worker nodes of {a.cpus} CPUs {where}, "
                          f"against the single-machine arena on the same plan (the baseline, measured in the same run): "
                          f"{a.games} games, 2 players, one deal a game, heuristic bots; then the driver's commit rate "
                          f"(into a store of {a.fill} games) and a projection.", a)
    cluster_rows = []
    with tempfile.TemporaryDirectory(prefix="pepper-scale-") as d:
        tmp = Path(d)
        (tmp / "short.toml").write_text(SHORT)
        local = baseline(tmp, a.games)
        print(f"single-machine arena: {a.games} games, {local:.1f} games/s (the baseline)")
        rates, cpu_rates = {}, {}
        for per_tx in (1, 10):
            rates[per_tx], cpu_rates[per_tx] = commit_rate(tmp, tmp / "local.db", a.commit_games, per_tx, a.fill)
            print(f"driver commits and rates in plan order: {rates[per_tx]:,.0f} games/s ({cpu_rates[per_tx]:,.0f} per "
                  f"second of its CPU time) with {per_tx} match(es) of 2 games per transaction, into a store of "
                  f"{a.fill:,} games ({rates[per_tx] / 1000:.1f}x the 1,000 games/s target)")
        commit_rated = rates[10]
        per_node = None
        for n in [int(x) for x in a.nodes.split(",")]:
            for per_task in [int(x) for x in a.per_task.split(",")]:
                r = on_cluster(tmp, a.games, n, a.cpus, per_task, a.pin)
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
        out.table(["figure", "games/s", "games per CPU second"],
                  [*[[f"the driver commits and rates, {k} match(es) of 2 games per transaction, into a store of "
                      f"{a.fill} games", v, cpu_rates[k]] for k, v in rates.items()],
                   [f"projected demand of {a.project} nodes (the one node's best)", demand, None]],
                  heading="The driver", note=f"Headroom: {commit_rated / demand:.1f}x (target: 1,000 games/s committed).")
        out.write()


if __name__ == "__main__":
    main()
