"""Arena benchmark: end-to-end games per second, games in flight, memory per game in flight.

    python bench/arena.py [--games 300] [--concurrency 256] [--runs 3] [--shards 1,2] [--inflight 5000] [--json]
    python bench/arena.py --cli 5000 [--full] [--json]   # only 3., through `pepper arena run`
    python bench/arena.py --quick [--json]        # 3. with 200 games: a smoke test (tests/bench)
    (each also takes [--results PATH | --no-write])

1. Throughput: the real arena (referee subprocess, bot processes through the
   Python SDK, SQLite store, TrueSkill) plays ``--games`` iowa games between
   two bots (``--processes`` each; ``--bot``: the sample heuristic, the default,
   the sample random bot, or bench/lean_bot.py); games per second is the median of
   ``--runs`` runs, each on a fresh database, for each count of referee
   shards in ``--shards`` (``pepper arena run --shards``; default 1 and 2),
   the runs interleaved, and the ratio of each median to the first's.
   Interleaved with those runs, a baseline: the same games with every
   decision asked (``play_forced`` off), on the first count of shards; the
   ratio is what the referee playing forced moves itself is worth.
2. Capacity: a referee with the same bots gets ``--inflight`` games at once
   (a long deadline keeps them all open); the benchmark counts the games the
   referee holds running at the peak and its resident memory above an empty
   referee, per game in flight. Then it drains (aborts) them.
3. Games in flight through ``pepper arena run`` (``--cli N``; target 5,000):
   N one-deal games (a ruleset file extending iowa with ``deal_cap = 1``; ``--full``: whole iowa games, which
   outlast their creation, so that the referee holds all N at once; the run is then interrupted with SIGINT,
   as a user would, rather than played to its end)
   with ``--concurrency N`` between two lean bots, the CLI as a user runs it
   (its output a pipe). While it runs the benchmark samples the games its
   referee holds running (ListGames, with the control token it gave the run);
   it reports those, the most in flight the arena's progress lines showed,
   the games stored, games per second, wall time and the exit status.

The figures also go to docs/results/arena.md (1. and 2.), or arena-cli.md (3.), by bench/results.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import secrets
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# Run as `python bench/arena.py`: the project root first, so the package `referee` wins over bench/referee.py.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import grpc  # noqa: E402
from pepper_proto.v1 import control_pb2, control_pb2_grpc, game_pb2  # noqa: E402

from arena.processes import BotProcesses, RefereeProcess  # noqa: E402
from arena.store import Store, new_token  # noqa: E402
from arena.tournament import Arena, RunConfig  # noqa: E402
from bench import results  # noqa: E402

BOTS = ("bot-a", "bot-b")
#: Asked decisions in an iowa game between the heuristic bots (docs/performance.md, "The arena"): the game length
#: the arena targets count in, for bots whose random play makes longer games.
HEURISTIC_GAME = 410
#: What the two bots run (``--bot``): the sample heuristic through the Python SDK (the default), the
#: sample random bot through the SDK, or bench/lean_bot.py (parses each message, answers, nothing else).
COMMANDS = {"heuristic": "{python} -m sample_bots heuristic", "random": "{python} -m sample_bots random",
            "lean": "{python} bench/lean_bot.py"}


def _store_with_bots(db: Path, processes: int, bot: str = "heuristic") -> Store:
    st = Store(db)
    for name in BOTS:
        st.add_bot(name, "command", command=COMMANDS[bot], processes=processes,
                   cwd=str(Path(__file__).resolve().parent.parent))
    return st


def throughput(games: int, concurrency: int, processes: int, play_forced: bool = True, bot: str = "heuristic",
               shards: int = 1) -> dict:
    with tempfile.TemporaryDirectory() as d:
        st = _store_with_bots(Path(d) / "bench.db", processes, bot)
        cfg = RunConfig(ruleset="iowa", games=games, seed=int(time.time()), bots=list(BOTS), concurrency=concurrency,
                        db=str(Path(d) / "bench.db"), log_dir=str(Path(d) / "logs"), play_forced=play_forced,
                        shards=shards)
        cpu0 = _cpu_s()
        t0 = time.perf_counter()
        run_id, prog = asyncio.run(Arena(cfg, st).run())
        dt = time.perf_counter() - t0
        cpu = _cpu_s() - cpu0
        decisions = sum(s.decisions for gid in st.latest_game_ids(run_id, limit=1 << 30)   # over every seat
                        for s in st.game(gid).seats)
        st.close()
    return {"games": prog.done, "seconds": dt, "games_per_second": prog.done / dt,
            "decisions_per_second": decisions / dt, "shards": shards, "cpu_us_per_decision": 1e6 * cpu / max(1, decisions)}


def _cpu_s() -> float:
    """CPU seconds of this process and its reaped children (the referees and bots a run started and stopped)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _capacity(n: int, processes: int, bot: str = "heuristic") -> dict:
    with tempfile.TemporaryDirectory() as d:
        st = _store_with_bots(Path(d) / "cap.db", processes, bot)
        ref = RefereeProcess(Path(d) / "logs", "bench-capacity-token")
        procs = []
        ch = grpc.aio.insecure_channel(ref.address, options=[("grpc.max_receive_message_length", 64 << 20)])
        try:
            stub = control_pb2_grpc.ControlServiceStub(ch)
            md = (("authorization", "Bearer bench-capacity-token"),)
            for b in st.bots():
                token = new_token()  # as the arena does: a fresh token per run (the store keeps only digests)
                await stub.RegisterBot(control_pb2.RegisterBotRequest(name=b.name, token=token), metadata=md)
                procs.append(BotProcesses(b, ref.address, token, Path(d) / "logs", {}))
            while True:
                info = await stub.ListBots(control_pb2.ListBotsRequest(), metadata=md)
                if all(b.connections > 0 for b in info.bots) and len(info.bots) == len(BOTS):
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            base = _rss_kb(ref.pid)
            # A long deadline and no time pressure: games stay open while we count them.
            policy = control_pb2.GamePolicy(deadline_ms=600_000, time_bank_ms=0)
            sem = asyncio.Semaphore(200)

            async def create(i):
                async with sem:
                    seats = [BOTS[0], BOTS[1], BOTS[0], BOTS[1]]
                    await stub.CreateGame(control_pb2.CreateGameRequest(ruleset="iowa", players=4, seats=seats, seed=i,
                                                                        policy=policy), metadata=md)

            t0 = time.perf_counter()
            await asyncio.gather(*(create(i) for i in range(n)))
            created_s = time.perf_counter() - t0
            running, token = 0, ""
            while True:   # page after page (protocol 1.5)
                page = await stub.ListGames(control_pb2.ListGamesRequest(status=game_pb2.GAME_STATUS_RUNNING,
                                                                         page_token=token), metadata=md)
                running, token = running + len(page.games), page.next_page_token
                if not token:
                    break
            peak = _rss_kb(ref.pid)
            drained = await stub.Drain(control_pb2.DrainRequest(timeout_s=0.0), metadata=md)
            return {"requested": n, "running_at_peak": running, "create_seconds": created_s,
                    "referee_rss_base_mb": base / 1024, "referee_rss_peak_mb": peak / 1024,
                    "kb_per_game_in_flight": (peak - base) / max(1, running),
                    "finished_before_drain": drained.finished, "aborted_by_drain": drained.aborted}
        finally:
            for p in procs:
                p.stop()
            await ch.close()
            ref.stop()
            st.close()


ROOT = Path(__file__).resolve().parent.parent
ONE_DEAL = 'name = "iowa-one-deal"\nextends = "iowa"\ndeal_cap = 1\n'
FULL = 'name = "iowa-full"\nextends = "iowa"\n'
IN_FLIGHT = re.compile(r", (\d+) in flight$")


def _pepper(*args: str, **kw) -> subprocess.Popen:
    kw = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE} | kw
    return subprocess.Popen([sys.executable, "-m", "pepper_cli", *args], stdin=subprocess.DEVNULL, text=True, **kw)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _sample_running(address: str, token: str, stop: threading.Event, peak: list[int]) -> None:
    """The most games the referee at ``address`` holds running (``peak[0]``, over ``peak[1]`` samples), sampled until
    ``stop`` (it may not be up yet)."""
    md = (("authorization", f"Bearer {token}"),)
    with grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", 64 << 20)]) as ch:
        stub = control_pb2_grpc.ControlServiceStub(ch)
        while not stop.wait(0.5):
            try:
                games, token = [], ""
                while True:   # page after page (protocol 1.5)
                    page = stub.ListGames(control_pb2.ListGamesRequest(status=game_pb2.GAME_STATUS_RUNNING, page_token=token),
                                          metadata=md, timeout=10)
                    games, token = games + list(page.games), page.next_page_token
                    if not token:
                        break
            except grpc.RpcError:
                continue
            peak[0], peak[1] = max(peak[0], len(games)), peak[1] + 1


def through_cli(games: int, concurrency: int, full: bool = False, full_limit: float = 600.0) -> dict:
    """``pepper arena run`` with ``games`` one-deal games at ``--concurrency``, as a subprocess (see 3. above). With
    ``full``: whole iowa games, and the run is interrupted (SIGINT) once the referee holds all of them running, or
    after ``full_limit`` seconds."""
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        (d / "one-deal.toml").write_text(FULL if full else ONE_DEAL)
        db = str(d / "arena.db")
        for name in BOTS:
            reg = _pepper("bot", "register", name, "--command", COMMANDS["lean"], "--cwd", str(ROOT), "--db", db, cwd=d)
            if reg.wait() != 0:
                raise SystemExit(f"pepper bot register {name} failed: {reg.stderr.read()}")
        address, token = f"127.0.0.1:{_free_port()}", secrets.token_urlsafe(16)
        peak, stop = [0, 0], threading.Event()
        sampler = threading.Thread(target=_sample_running, args=(address, token, stop, peak), daemon=True)
        t0 = time.perf_counter()
        run = _pepper("arena", "run", "--planned", "--ruleset", "one-deal.toml", "--bots", ",".join(BOTS), "--games", str(games),
                      "--concurrency", str(concurrency), "--seed", str(int(time.time())), "--listen", address,
                      "--progress-every", "1", "--db", db, cwd=d, env=os.environ | {"PEPPER_CONTROL_TOKEN": token},
                      stdout=(d / "out.txt").open("w"), stderr=(d / "err.txt").open("w"))   # files: nobody reads a pipe meanwhile
        sampler.start()
        interrupted = False
        if full:    # capacity: once the referee holds every game (or after --full-limit s), interrupt as a user would
            while run.poll() is None and peak[0] < games and time.perf_counter() - t0 < full_limit:
                time.sleep(0.5)
            if run.poll() is None:
                run.send_signal(signal.SIGINT)
                interrupted = True
        run.wait()
        wall = time.perf_counter() - t0
        out, err = (d / "out.txt").read_text(), (d / "err.txt").read_text()
        stop.set()
        sampler.join()
        with sqlite3.connect(db) as c:
            stored = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    shown = [int(m[1]) for line in out.splitlines() if (m := IN_FLIGHT.search(line))]
    return {"games": games, "kind": "whole iowa" if full else "one-deal", "concurrency": concurrency, "interrupted": interrupted, "exit_status": run.returncode, "stored": stored,
            "referee_running_peak": peak[0], "referee_samples": peak[1], "progress_in_flight_peak": max(shown, default=0), "seconds": wall,
            "games_per_second": stored / wall, "error": err.strip()[-2000:] if run.returncode else ""}


def _report_cli(r: dict) -> None:
    print(f"pepper arena run: {r['games']} {r['kind']} games, --concurrency {r['concurrency']}, 2 lean bots: "
          f"exit {r['exit_status']}, {r['stored']} games stored in {r['seconds']:.1f}s ({r['games_per_second']:.1f} games/s)")
    if r["interrupted"]:
        why = "once the referee held them all" if r["referee_running_peak"] >= r["games"] else "at --full-limit"
        print(f"  interrupted (SIGINT) {why}, after {r['seconds']:.0f}s: exit {r['exit_status']}, {r['stored']} finished "
              "games kept; the same command resumes the rest")
    print(f"  games in flight: {r['progress_in_flight_peak']} at most in the arena's progress lines (target: 5,000); "
          f"{r['referee_running_peak']} at most running at once in the referee ({r['referee_samples']} samples): the "
          "others were waiting to be created, or had finished")
    if r["error"]:
        print(f"  error: {r['error']}")


def write_results(out: results.Results, a, counts: list[int], med: dict, base_gps: float | None, cap: dict | None) -> None:
    """docs/results/arena.md: throughput per count of shards, the first count's against the baseline (measured on
    that count alone), then the capacity."""
    first = med[counts[0]]["games_per_second"]
    cores = os.cpu_count() or 1
    rows = [[f"{n} shard(s)", m["games_per_second"], m["decisions_per_second"], m["seconds"], m["cpu_us_per_decision"],
             cores * 1e6 / m["cpu_us_per_decision"], m["games_per_second"] / first,
             m["games_per_second"] / base_gps if base_gps and n == counts[0] else None] for n, m in med.items()]
    if base_gps:
        rows.append([f"baseline: every decision asked, {counts[0]} shard(s)", base_gps, None, None, None, None,
                     base_gps / first, 1.0])
    note = "Targets: 100 games/s with the lean bots, 40 with the heuristic."
    if a.bot != "heuristic":
        note += (f" Games of the heuristic's length ({HEURISTIC_GAME} asked decisions): "
                 + ", ".join(f"{n} shard(s) {m['decisions_per_second'] / HEURISTIC_GAME:.1f} games/s" for n, m in med.items())
                 + ".")
    out.table(["run", "games/s", "decisions/s", "s a run", "CPU µs a decision, all processes",
               f"ceiling on {cores} cores, decisions/s", f"ratio to {counts[0]} shard(s)", "ratio to the baseline"],
              rows, heading="Throughput (medians)", note=note)
    if cap:
        out.table(["figure", "value"], [["games requested", cap["requested"]], ["running at once", cap["running_at_peak"]],
                                        ["seconds to create them", cap["create_seconds"]],
                                        ["referee memory empty, MB", cap["referee_rss_base_mb"]],
                                        ["referee memory at the peak, MB", cap["referee_rss_peak_mb"]],
                                        ["KB per game in flight", cap["kb_per_game_in_flight"]]],
                  heading="Games in flight", note="Target: 5,000 games in flight at no more than 20 KB each.")
    out.write()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--concurrency", type=int, default=256)
    ap.add_argument("--processes", type=int, default=2, help="processes per bot (shared out over the shards, at "
                    "least the seats a bot takes in a game on each)")
    ap.add_argument("--shards", default="1,2", help="referee shards to compare, comma-separated (default 1,2)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--inflight", type=int, default=5000)
    ap.add_argument("--no-baseline", action="store_true", help="skip the baseline runs (every decision asked)")
    ap.add_argument("--bot", choices=sorted(COMMANDS), default="heuristic",
                    help="what both bots run: heuristic (default), random, or lean (bench/lean_bot.py)")
    ap.add_argument("--cli", type=int, metavar="N", default=0,
                    help="only measure games in flight through `pepper arena run`: N one-deal games, --concurrency N")
    ap.add_argument("--full", action="store_true",
                    help="with --cli: whole iowa games rather than one-deal ones, so that they outlast their creation "
                         "and the referee holds all N running at once")
    ap.add_argument("--full-limit", type=float, default=600.0, metavar="S",
                    help="with --full: interrupt the run after S seconds if the referee has not held all N by then")
    ap.add_argument("--quick", action="store_true", help="--cli 200: a smoke test")
    ap.add_argument("--json", action="store_true")
    results.add_arguments(ap)
    a = ap.parse_args()
    if a.cli or a.quick:
        out = results.Results("arena", "Games in flight through pepper arena run", "`pepper arena run` as a user runs "
                              "it, between two lean bots: the games it held in flight, the most its referee held running "
                              "at once, games stored and games per second.", a, mode="cli")
        r = through_cli(a.cli or 200, a.cli or 200, full=a.full, full_limit=a.full_limit)
        if a.json:
            print(json.dumps(r))
        else:
            _report_cli(r)
        out.table(["figure", "value"], [["games", r["games"]], ["kind", r["kind"]], ["--concurrency", r["concurrency"]],
                                        ["exit status", r["exit_status"]], ["interrupted (SIGINT)", r["interrupted"]],
                                        ["games stored", r["stored"]], ["seconds", r["seconds"]],
                                        ["games/s", r["games_per_second"]],
                                        ["most in flight, the arena's progress lines", r["progress_in_flight_peak"]],
                                        ["most running at once in the referee", r["referee_running_peak"]],
                                        ["referee samples", r["referee_samples"]]],
                  note="Target: 5,000 games in flight.")
        out.write()
        sys.exit(0 if r["exit_status"] == 0 or (r["interrupted"] and r["referee_running_peak"] >= r["games"]) else 1)
    out = results.Results("arena", "Arena benchmark", f"End-to-end iowa games per second of the real arena (referee, "
                          f"2 {a.bot} bots x {a.processes} processes through the Python SDK, SQLite, TrueSkill), "
                          f"{a.games} games a run, medians of {a.runs} runs per count of referee shards, against the first "
                          "count and against the baseline (every decision asked, measured in the same run); then the games "
                          "a referee holds in flight and its memory per game.", a)
    counts = [int(n) for n in a.shards.split(",")]
    runs: dict[int, list[dict]] = {n: [] for n in counts}
    base: list[dict] = []
    for _ in range(a.runs):   # interleaved, so that the machine's load hits each alike
        for n in counts:
            runs[n].append(throughput(a.games, a.concurrency, a.processes, bot=a.bot, shards=n))
        if not a.no_baseline:
            base.append(throughput(a.games, a.concurrency, a.processes, play_forced=False, bot=a.bot, shards=counts[0]))
    cap = asyncio.run(_capacity(a.inflight, a.processes, a.bot)) if a.inflight else None
    med = {n: {k: statistics.median(r[k] for r in rs)
               for k in ("games_per_second", "decisions_per_second", "seconds", "cpu_us_per_decision")}
           for n, rs in runs.items()}
    base_gps = statistics.median(r["games_per_second"] for r in base) if base else None
    first = med[counts[0]]["games_per_second"]
    write_results(out, a, counts, med, base_gps, cap)
    if a.json:
        print(json.dumps({"throughput_runs": runs, "throughput_median": med, "shards_ratio": {
            n: m["games_per_second"] / first for n, m in med.items()}, "baseline_runs": base,
            "baseline_games_per_second": base_gps, "capacity": cap}))
        return
    print(f"Arena end to end: iowa, {a.games} games per run, concurrency {a.concurrency}, "
          f"2 {a.bot} bots x {a.processes} processes, {a.runs} runs per count of referee shards, on {os.cpu_count()} cores")
    for n in counts:
        print(f"  {n} shard(s):")
        for r in runs[n]:
            print(f"    {r['games']} games in {r['seconds']:.1f}s: {r['games_per_second']:.1f} games/s, "
                  f"{r['decisions_per_second']:.0f} decisions/s, {r['cpu_us_per_decision']:.0f} us of CPU a decision")
        m = med[n]
        # Random play (lean, random) makes iowa games about six times longer than the heuristic's: the targets
        # count games of the heuristic's length, HEURISTIC_GAME asked decisions (docs/performance.md).
        length = "" if a.bot == "heuristic" else (
            f" = {m['decisions_per_second'] / HEURISTIC_GAME:.1f} games/s of the heuristic's length")
        print(f"    median: {m['games_per_second']:.1f} games/s, {m['decisions_per_second']:.0f} decisions/s{length}; "
              f"{m['games_per_second'] / first:.2f}x {counts[0]} shard(s) (target: 100 games/s lean, 40 heuristic)")
        # Every process of the run (arena, referees, bots) shares the cores: their CPU per decision bounds the rate.
        cores = os.cpu_count() or 1
        print(f"    CPU, all processes: {m['cpu_us_per_decision']:.0f} us a decision; the {cores} cores' ceiling: "
              f"{cores * 1e6 / m['cpu_us_per_decision']:.0f} decisions/s")
    if base_gps:
        print(f"  baseline, every decision asked (--ask-forced), {counts[0]} shard(s): {base_gps:.1f} games/s median; "
              f"play_forced: {first / base_gps:.2f}x")
    if cap:
        print(f"Games in flight: {cap['running_at_peak']} of {cap['requested']} running at once "
              f"(created in {cap['create_seconds']:.1f}s; target: 5,000)")
        print(f"  referee memory: {cap['referee_rss_base_mb']:.0f} MB empty, {cap['referee_rss_peak_mb']:.0f} MB at peak: "
              f"{cap['kb_per_game_in_flight']:.1f} KB per game in flight")


if __name__ == "__main__":
    main()
