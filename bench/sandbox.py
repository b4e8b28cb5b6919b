"""Sandbox benchmark: the arena's throughput with every bot in a Docker container against the same run with local
processes, and what starting a container costs.

    python bench/sandbox.py [--games 200] [--runs 3] [--starts 10] [--bots heuristic,random] [--load N] [--json]
                            [--results PATH | --no-write]

1. Throughput: ``--runs`` pairs of runs, each pair interleaved (unsandboxed, then ``--sandbox docker``), each on a
   fresh database: ``--games`` iowa games between the sample bots ``--bots`` (the whole `arena.tournament.run`, the
   referee's and the bots' starts included). Games per second and decisions per second (the bots' answers, from
   the store) are medians over the runs, for the whole run and for its playing part alone (from the bots'
   connections on: what the containers' starts do not weigh on); the ratio sandboxed / unsandboxed is the figure to
   watch (target: 0.8 or more).
2. Container start: ``--starts`` containers of the base image (`make images`) running ``python3 -c pass`` under the
   sandbox's limits: the median time from the create call to the container running (``start``), and to its exit
   with its end recorded and the container removed (``whole``); beside it the same command as a local process.

``--load N`` keeps N busy host processes (``while True: pass``) running throughout: the sandboxed bots' share of a
loaded host.

The figures also go to docs/results/sandbox.md (bench/results.py). It needs a Docker Engine and the images.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)   # the project root first (as bench/arena.py)

from arena.registry import ensure_sample_bots  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.tournament import RunConfig, run  # noqa: E402
from bench import results  # noqa: E402
from supervisor import LocalRuntime, ProcessSpec  # noqa: E402
from supervisor.docker_runtime import DockerRuntime, Sandbox, client  # noqa: E402


def one_run(sandbox: str, games: int, bots: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="pepper-bench-sandbox-") as d:
        db = Path(d, "arena.db")
        st = Store(str(db))
        ensure_sample_bots(st, note=lambda m: None)
        st.close()
        cfg = RunConfig(games=games, seed=7, bots=bots, db=str(db), log_dir=str(Path(d, "logs")), sandbox=sandbox)
        t0 = time.perf_counter()
        run_id, prog = run(cfg, notify=lambda m: None)
        wall = time.perf_counter() - t0
        play = games / prog.rate()   # from the bots' connections to the last game (Progress.started)
        st = Store(str(db))
        decisions = sum(s.decisions for gid in st.latest_game_ids(run_id, limit=1 << 30)   # over every seat
                        for s in st.game(gid).seats)
        st.close()
    if prog.done != games or prog.faults:
        raise SystemExit(f"the {sandbox} run played {prog.done}/{games} games with {prog.faults} faults")
    return {"games_s": games / wall, "decisions_s": decisions / wall, "wall_s": wall,
            "play_games_s": games / play, "play_decisions_s": decisions / play}


def starts(n: int) -> dict:
    dc = client()
    rt = DockerRuntime(Sandbox(), dc)
    up, whole, local = [], [], []
    with tempfile.TemporaryDirectory(prefix="pepper-bench-start-") as d:
        spec = ProcessSpec("probe", ("python3", "-c", "pass"), Path(d, "probe.log"))
        for _ in range(n):
            t0 = time.perf_counter()
            h = rt.start(spec)
            up.append(time.perf_counter() - t0)
            h.wait(60)
            whole.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            LocalRuntime().start(ProcessSpec("probe", (sys.executable, "-c", "pass"), Path(d, "local.log"))).wait(60)
            local.append(time.perf_counter() - t0)
    return {"start_s": statistics.median(up), "whole_s": statistics.median(whole), "local_s": statistics.median(local)}


def write_results(written: results.Results, out: dict) -> None:
    """docs/results/sandbox.md: both throughputs and their ratio, then the container's start."""
    rows = [[label, m["games_s"], m["decisions_s"], m["wall_s"], m["play_games_s"], m["play_decisions_s"]]
            for label, m in (("local processes (the baseline)", out["unsandboxed"]),
                             ("--sandbox docker", out["sandboxed"]))]
    rows.append(["ratio sandboxed / local", out["ratio_games"], out["ratio_decisions"], None, out["ratio_play_games"],
                 out["ratio_play_decisions"]])
    written.table(["run", "games/s", "decisions/s", "s a run", "playing: games/s", "playing: decisions/s"], rows,
                  heading="Throughput (medians)", note="Playing: from the bots' connections on. Target: a ratio of 0.80 or more.")
    c = out["container"]
    written.table(["figure", "ms"], [["container running after its create call", 1000 * c["start_s"]],
                                     ["`python3 -c pass` in a container, done and removed", 1000 * c["whole_s"]],
                                     ["the same as a local process", 1000 * c["local_s"]]],
                  heading="Container start (medians)")
    written.write()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--bots", default="heuristic,random")
    ap.add_argument("--load", type=int, default=0, help="busy host processes running throughout")
    ap.add_argument("--json", action="store_true")
    results.add_arguments(ap)
    a = ap.parse_args()
    load = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(a.load)]
    try:
        measure(a)
    finally:
        for p in load:
            p.kill()
            p.wait()


def measure(a: argparse.Namespace) -> None:
    bots = a.bots.split(",")
    written = results.Results("sandbox", "Sandbox benchmark", f"The arena's throughput with every bot in a Docker "
                              f"container (`--sandbox docker`) against the same run with local processes (the baseline, "
                              f"runs interleaved): {a.games} iowa games, {' vs '.join(bots)}, medians of {a.runs} runs; "
                              f"then what starting a container costs (medians of {a.starts}).", a)
    runs: dict[str, list[dict]] = {"none": [], "docker": []}
    for _ in range(a.runs):
        for sandbox in ("none", "docker"):
            runs[sandbox].append(one_run(sandbox, a.games, bots))
    med = {s: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for s, rs in runs.items()}
    st = starts(a.starts)
    out = {"games": a.games, "runs": a.runs, "bots": bots, "unsandboxed": med["none"], "sandboxed": med["docker"],
           "ratio_games": med["docker"]["games_s"] / med["none"]["games_s"],
           "ratio_decisions": med["docker"]["decisions_s"] / med["none"]["decisions_s"],
           "ratio_play_games": med["docker"]["play_games_s"] / med["none"]["play_games_s"],
           "ratio_play_decisions": med["docker"]["play_decisions_s"] / med["none"]["play_decisions_s"], "container": st}
    write_results(written, out)
    if a.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{a.games} iowa games, {' vs '.join(bots)}, medians of {a.runs} runs each (interleaved):")
    for label, key in (("unsandboxed", "none"), ("sandboxed  ", "docker")):
        m = med[key]
        print(f"  {label}  {m['games_s']:7.2f} games/s  {m['decisions_s']:9.0f} decisions/s  ({m['wall_s']:.1f} s a run); "
              f"playing: {m['play_games_s']:7.2f} games/s  {m['play_decisions_s']:9.0f} decisions/s")
    print(f"  ratio sandboxed/unsandboxed: whole run: games {out['ratio_games']:.2f}, decisions {out['ratio_decisions']:.2f}; "
          f"playing: games {out['ratio_play_games']:.2f}, decisions {out['ratio_play_decisions']:.2f} (target >= 0.80)")
    print(f"container start (median of {a.starts}): running after {st['start_s'] * 1000:.0f} ms, "
          f"`python3 -c pass` done and removed after {st['whole_s'] * 1000:.0f} ms "
          f"(a local process: {st['local_s'] * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
