"""gRPC referee benchmark: decisions/s and games/s with 4 bot processes, next to a raw batched gRPC echo.

    python bench/referee.py [--runs 3] [--games 400] [--deal-cap 10] [--batch 64] [--bot lean|test] [--profile FILE] [--encoder]
                            [--service] [--results PATH | --no-write]

Each run starts a referee (``python -m pepper_cli.referee serve``) on 127.0.0.1 and
4 separate bot processes (2 per bot name): bench/lean_bot.py, which parses
every message and answers every request with a random legal action and does
nothing else, so that the bots' share of the 2 cores is as small as a bot's
can be (``--bot test``: the test bot, tests/service/bots/random_bot.py),
creates ``--games`` iowa games at once and times them to the end. The bots count
the bytes and batches they receive and the answers they send; from those the
run derives the average message sizes and decisions per batch.

Then the raw echo: an echo server and 4 echo client processes exchange
pre-made byte strings of exactly those sizes (one batch message down, one
answer message up, over one bidirectional stream per process, nothing parsed,
nothing computed), for the same number of round trips per second measure. Its
rate in decisions/s is what gRPC itself allows with these message sizes, batch
fill and process count; the ratio is the referee's share of it. The echo's
own CPU per decision (server and clients) is measured too: since every process
shares the same cores, it bounds what any referee could reach with these bots
(the "ceiling" line: a referee that cost no more than the echo server).

Latency per decision is the referee's own measure: from the moment the batch
holding a request is sent to the moment its answer arrives (p50 / p99 over all
seats, medians over the runs). A final run plays one game alone (``--lone-deal-cap``):
nothing to batch, so each decision costs a full round trip. The CPU time each
process used during the timed part is reported per decision (Linux /proc), to
show where the time goes: referee vs bots. Games are awaited with WaitGame, not
by polling ListGames (which would make the referee build every running game's
result many times a second). Everything stays on 127.0.0.1.

The figures also go to docs/results/referee.md (bench/results.py); ``--encoder`` and ``--service`` to
referee-encoder.md and referee-service.md; ``--profile`` writes none (its figures are for where the time goes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import results  # noqa: E402

BOTS = {"lean": ROOT / "bench" / "lean_bot.py", "test": ROOT / "tests" / "service" / "bots" / "random_bot.py"}
TOKEN = "bench-control-token"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a live process has used so far (Linux /proc; 0.0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


# ------------------------------------------------------------------ the referee run
def referee_run(games: int, deal_cap: int, batch: int, tmp: Path, bot: str = "lean", floor: bool = False,
                profile: str | None = None) -> dict:
    import grpc
    from pepper_proto.v1 import control_pb2, control_pb2_grpc, game_pb2

    server = [str(ROOT / "bench" / "referee_floor.py"), "--deal-cap", str(deal_cap)] if floor else ["-m", "pepper_cli.referee"]
    if profile:   # the referee under cProfile (slower: its figures are for where the time goes, not for speed)
        server = ["-m", "cProfile", "-o", profile, *server]
    srv = subprocess.Popen([sys.executable, *server, "serve", "--address", "127.0.0.1:0",
                            "--control-token", TOKEN, "--bot", "a=bench-token-a", "--bot", "b=bench-token-b",
                            "--max-batch", str(max(batch, 1))],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    addr = srv.stdout.readline().split()[-1]
    bots = []
    for i, name in enumerate("abab"):
        summary = tmp / f"bot{i}.json"
        bots.append((subprocess.Popen([sys.executable, str(BOTS[bot]), "--address", addr, "--name", name,
                                       "--token", f"bench-token-{name}", "--batch", str(batch), "--seed", str(i),
                                       "--summary", str(summary)], cwd=ROOT, stdout=subprocess.DEVNULL), summary))
    ch = grpc.insecure_channel(addr)
    stub = control_pb2_grpc.ControlServiceStub(ch)
    md = [("authorization", f"Bearer {TOKEN}")]
    try:
        while True:
            bs = stub.ListBots(control_pb2.ListBotsRequest(), metadata=md).bots
            if all(b.connections == 2 for b in bs):
                break
            time.sleep(0.05)
        t0 = time.perf_counter()
        cpu0 = [cpu_seconds(srv.pid)] + [cpu_seconds(p.pid) for p, _ in bots]
        pending, waits = [], []

        def wait_for(created):
            for f in created:
                waits.append(stub.WaitGame.future(control_pb2.WaitGameRequest(game_id=f.result().game_id), metadata=md))

        for i in range(games):
            pending.append(stub.CreateGame.future(control_pb2.CreateGameRequest(
                ruleset_json=json.dumps({"extends": "iowa", "deal_cap": deal_cap}), players=4, seats=list("abab"), seed=i),
                metadata=md))
            if len(pending) >= 100:
                wait_for(pending)
                pending = []
        wait_for(pending)
        # WaitGame returns as each game ends. (Polling ListGames instead would make the referee build
        # every running game's result several times a second: a large share of its CPU at 400 games.)
        for w in waits:
            w.result()
        elapsed = time.perf_counter() - t0
        cpu = [cpu_seconds(srv.pid) - cpu0[0], sum(cpu_seconds(p.pid) for p, _ in bots) - sum(cpu0[1:])]
        results = [w.result().result for w in waits]
    finally:
        srv.send_signal(signal.SIGTERM)
        srv.wait(timeout=60)
        for p, _ in bots:
            p.wait(timeout=30)
        ch.close()
    assert all(r.status == game_pb2.GAME_STATUS_COMPLETED for r in results)
    decisions = sum(r.decisions for r in results)
    sums = [json.loads(s.read_text()) for _, s in bots]
    c = {k: sum(x["counts"].get(k, 0) for x in sums) for k in ("bytes_in", "batches", "request", "answer_msgs", "bytes_out")}
    p50 = statistics.median(s.latency_p50_ms for r in results for s in r.seats)
    p99 = statistics.median(s.latency_p99_ms for r in results for s in r.seats)
    return {"decisions_s": decisions / elapsed, "games_s": len(results) / elapsed, "decisions": decisions,
            "elapsed": elapsed, "batch_bytes": c["bytes_in"] / c["batches"], "per_batch": c["request"] / c["batches"],
            "answer_bytes": c["bytes_out"] / c["answer_msgs"], "p50_ms": p50, "p99_ms": p99,
            "referee_cpu_us": cpu[0] / decisions * 1e6, "bots_cpu_us": cpu[1] / decisions * 1e6}


# ------------------------------------------------------------------ the raw echo
ECHO_METHOD = "/bench.Echo/Stream"


async def _echo_server(batch_bytes: int) -> None:
    import grpc

    payload = b"x" * batch_bytes

    async def stream(request_iterator, context):
        async for _ in request_iterator:
            yield payload

    server = grpc.aio.server(options=[("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)])
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {
        "Stream": grpc.stream_stream_rpc_method_handler(stream, request_deserializer=None, response_serializer=None)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


def _echo_client(address: str, answer_bytes: int, seconds: float, out: str) -> None:
    import queue

    import grpc

    ch = grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", 64 << 20)])
    call = ch.stream_stream(ECHO_METHOD, request_serializer=None, response_deserializer=None)
    q: queue.Queue = queue.Queue()
    answer = b"y" * answer_bytes

    def gen():
        while True:
            m = q.get()
            if m is None:
                return
            yield m

    q.put(answer)
    n, start, end, cpu0 = 0, None, None, 0.0
    for _ in call(gen()):
        now = time.perf_counter()
        if start is None:
            start, end, cpu0 = now, now + seconds, time.process_time()
        n += 1
        if now >= end:
            q.put(None)
            break
        q.put(answer)
    Path(out).write_text(json.dumps({"round_trips": n - 1, "seconds": time.perf_counter() - start,
                                     "cpu": time.process_time() - cpu0}))


def echo_run(batch_bytes: int, answer_bytes: int, per_batch: float, seconds: float, tmp: Path) -> dict:
    """The echo's decisions/s, and its CPU per decision: server and clients (over the clients' timed window)."""
    srv = subprocess.Popen([sys.executable, __file__, "--echo-server", str(batch_bytes)], stdout=subprocess.PIPE, text=True)
    addr = srv.stdout.readline().split()[-1]
    outs = [tmp / f"echo{i}.json" for i in range(4)]
    clients = [subprocess.Popen([sys.executable, __file__, "--echo-client", addr, str(answer_bytes), str(seconds), str(o)])
               for o in outs]
    time.sleep(min(1.0, seconds / 4))            # the clients have connected and started timing
    s0, t0 = cpu_seconds(srv.pid), time.perf_counter()
    for c in clients:
        c.wait(timeout=seconds + 60)
    s1, t1 = cpu_seconds(srv.pid), time.perf_counter()
    srv.send_signal(signal.SIGTERM)
    srv.wait(timeout=30)
    rates = [json.loads(o.read_text()) for o in outs]
    rate = sum(r["round_trips"] / r["seconds"] for r in rates) * per_batch
    return {"decisions_s": rate, "server_cpu_us": (s1 - s0) / (t1 - t0) / rate * 1e6,
            "clients_cpu_us": sum(r["cpu"] / r["seconds"] for r in rates) / rate * 1e6}


# ------------------------------------------------------------------ the encoder alone
def encoder_cpu(games: int = 150, deal_cap: int = 10, repeats: int = 5) -> dict:
    """The wire encoder's CPU per decision, in this process: seeded iowa random games played with every request
    and event encoded, minus the same games played without (process time, the least of ``repeats``)."""
    import random

    from referee import rules, wire
    from referee.rules.game import PUBLIC

    def play(encode: bool) -> int:
        n = 0
        for seed in range(games):
            g = rules.Game("iowa", 4, seed=seed, deal_cap=deal_cap)
            rng, enc, sent = random.Random(seed), wire.GameEncoder(g, f"game-{seed}"), 0
            while True:
                if encode:
                    log = g.event_log
                    for i in range(sent, g.event_count):
                        e = log[i]
                        enc.event_frame(i, e, None if e[3] == PUBLIC else e[3])
                    sent = g.event_count
                if g.is_over:
                    break
                legal = wire.legal_ids(g)
                if encode:
                    enc.request_frame(g.to_act, 1000 + n, g.phase, legal, 2000, 10_000)
                n += 1
                g.apply(rng.choice(legal))
        return n

    best = {False: float("inf"), True: float("inf")}
    for _ in range(repeats):
        for encode in (False, True):
            t = time.process_time()
            n = play(encode)
            best[encode] = min(best[encode], time.process_time() - t)
    return {"encoder_us": (best[True] - best[False]) / n * 1e6, "game_us": best[False] / n * 1e6, "decisions": n,
            "wire_compiled": wire.COMPILED, "rules_compiled": rules.COMPILED}


# ------------------------------------------------------------------ the service path alone
def service_cpu(games: int = 600, deal_cap: int = 10, repeats: int = 3) -> dict:
    """The referee's CPU per answered decision in this process, without gRPC: the real Referee, its connections and
    game runs, fed AnswerBatch messages directly (a uniformly random legal action_index each); timed are
    ``Referee.on_answers`` (answer checks, the game step, events and the next request queued) and
    ``Connection.take_batch`` (the Batch bytes), not the making of the answers (process time, the least of
    ``repeats``). Low noise: for A/B runs of the service's own code."""
    import random

    from pepper_proto.v1 import bot_pb2, control_pb2

    import referee.service as service
    from referee import rules, wire
    from referee.service.config import ServerConfig
    from referee.service.referee import Referee

    async def run() -> tuple[float, int]:
        ref = Referee(ServerConfig(address="127.0.0.1:0", control_token=TOKEN, bot_tokens={"a": "a", "b": "b"}))
        conns = [ref.connect(n, 64) for n in "abab"]
        for i in range(games):
            ref.create_game(control_pb2.CreateGameRequest(
                ruleset_json=json.dumps({"extends": "iowa", "deal_cap": deal_cap}), players=4, seats=list("abab"), seed=i))
        loop, rng, spent, n = asyncio.get_running_loop(), random.Random(1), 0.0, 0
        while ref.running:
            for c in conns:
                t = time.process_time()
                c.take_batch(loop.time())
                spent += time.process_time() - t
                if not c.in_flight:
                    continue
                msg = bot_pb2.AnswerBatch(answers=[bot_pb2.Answer(request_id=rid, action_index=rng.randrange(len(p.legal)))
                                                   for rid, p in c.in_flight.items()])
                t = time.process_time()
                ref.on_answers(c, msg.answers)
                spent += time.process_time() - t
                n += len(msg.answers)
        return spent, n

    best, n = float("inf"), 0
    for _ in range(repeats):
        spent, n = asyncio.run(run())
        best = min(best, spent)
    return {"service_us": best / n * 1e6, "decisions": n, "service_compiled": getattr(service, "COMPILED", False),
            "wire_compiled": wire.COMPILED, "rules_compiled": rules.COMPILED}


# ------------------------------------------------------------------ main
def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--echo-server":
        signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
        asyncio.run(_echo_server(int(sys.argv[2])))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--echo-client":
        _echo_client(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--deal-cap", type=int, default=10)
    ap.add_argument("--batch", type=int, default=64, help="max batch the bots ask for")
    ap.add_argument("--echo-seconds", type=float, default=3.0)
    ap.add_argument("--lone-deal-cap", type=int, default=30, help="deal cap of the lone-game run (0: skip it)")
    ap.add_argument("--no-floor", dest="floor", action="store_false",
                    help="skip the floor run (bench/referee_floor.py: the service with a free game step)")
    ap.add_argument("--bot", choices=sorted(BOTS), default="lean",
                    help="the bots: lean (bench/lean_bot.py, the default) or test (tests/service/bots/random_bot.py)")
    ap.add_argument("--profile", metavar="FILE",
                    help="run the referee once under cProfile, write its profile to FILE and print the top functions")
    ap.add_argument("--encoder", action="store_true",
                    help="only measure the wire encoder's CPU per decision in this process (no server, no bots)")
    ap.add_argument("--service", action="store_true",
                    help="only measure the referee's CPU per decision in this process without gRPC (no server, no bots)")
    results.add_arguments(ap)
    a = ap.parse_args()
    if a.service:
        out = results.Results("referee", "Referee without gRPC", "The referee's CPU per answered decision in one process, "
                              "without gRPC: the real Referee fed AnswerBatch messages (answer checks, game step, events, "
                              "requests, batches); 600 iowa games, deal cap 10, the least of 3 repeats.", a, mode="service")
        r = service_cpu()
        built = ", ".join(f"{k} {'compiled' if r[k + '_compiled'] else 'pure'}" for k in ("service", "wire", "rules"))
        print(f"referee without gRPC: {r['service_us']:.2f} us of CPU per answered decision (answer checks, game step, "
              f"events, requests, batches; {r['decisions']:,} decisions of 600 iowa games, deal cap 10; {built})")
        out.table(["figure", "value", "unit"], [["referee CPU per answered decision", r["service_us"], "µs"],
                                                ["decisions", r["decisions"], ""]],
                  note=f"Modules: {built}.")
        out.write()
        return 0
    if a.encoder:
        out = results.Results("referee", "Wire encoder", "The wire encoder's CPU per decision (a request and its events) "
                              "in one process: seeded iowa random games played with every request and event encoded, "
                              "minus the same games played without (150 games, deal cap 10, the least of 5 repeats).",
                              a, mode="encoder")
        r = encoder_cpu()
        print(f"encoder ({'compiled' if r['wire_compiled'] else 'pure Python'}): {r['encoder_us']:.2f} us of CPU per "
              f"decision (a request and its events); the game step alone {r['game_us']:.2f} us "
              f"({'compiled' if r['rules_compiled'] else 'pure'} engine, iowa random play, {r['decisions']:,} decisions)")
        out.table(["figure", "value", "unit"], [["encoder CPU per decision", r["encoder_us"], "µs"],
                                                ["game step alone, per decision", r["game_us"], "µs"],
                                                ["decisions", r["decisions"], ""]],
                  note=f"Encoder {'compiled' if r['wire_compiled'] else 'pure Python'}, rules engine "
                       f"{'compiled' if r['rules_compiled'] else 'pure Python'}.")
        out.write()
        return 0
    if a.profile:
        with tempfile.TemporaryDirectory() as tmp:
            r = referee_run(a.games, a.deal_cap, a.batch, Path(tmp), a.bot, profile=str(Path(a.profile).resolve()))
        print(f"referee under cProfile: {r['decisions']:,} decisions, {r['referee_cpu_us']:.0f} us of CPU each")
        import pstats

        pstats.Stats(a.profile).sort_stats("tottime").print_stats(30)
        return 0
    out = results.Results("referee", "Referee benchmark", f"Decisions and games per second of the gRPC referee with 4 "
                          f"{a.bot} bot processes ({a.games} iowa games at once, deal cap {a.deal_cap}, batches of up to "
                          f"{a.batch}), against a raw batched gRPC echo of the same message sizes (the baseline, measured "
                          f"in the same run); medians of {a.runs} runs.", a)
    ref, echo, floor = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(a.runs):
            r = referee_run(a.games, a.deal_cap, a.batch, Path(tmp), a.bot)
            e = echo_run(round(r["batch_bytes"]), round(r["answer_bytes"]), r["per_batch"], a.echo_seconds, Path(tmp))
            f = referee_run(a.games, a.deal_cap, a.batch, Path(tmp), a.bot, floor=True) if a.floor else None
            ref.append(r)
            echo.append(e)
            if f is not None:
                floor.append(f)
            print(f"run {k + 1}: referee {r['decisions_s']:,.0f} decisions/s, {r['games_s']:.1f} games/s "
                  f"({r['decisions']:,} decisions in {r['elapsed']:.1f}s; {r['per_batch']:.1f} requests/batch, "
                  f"{r['batch_bytes']:,.0f} B/batch, {r['answer_bytes']:,.0f} B/answer msg; CPU per decision: referee "
                  f"{r['referee_cpu_us']:.1f} us, bots {r['bots_cpu_us']:.0f} us) | raw echo {e['decisions_s']:,.0f} "
                  f"decisions/s (CPU per decision: server {e['server_cpu_us']:.0f} us, clients {e['clients_cpu_us']:.0f} us)"
                  + (f" | floor {f['decisions_s']:,.0f} decisions/s (referee {f['referee_cpu_us']:.1f} us)" if f else ""),
                  flush=True)
        # A lone game: nothing to batch, every decision waits for its own round trip.
        lone = referee_run(1, a.lone_deal_cap, a.batch, Path(tmp), a.bot) if a.lone_deal_cap else None
    med = {k: statistics.median(r[k] for r in ref) for k in ref[0]}
    em = {k: statistics.median(x[k] for x in echo) for k in echo[0]}
    e = em["decisions_s"]
    print(f"\nreferee (median of {a.runs}): {med['decisions_s']:,.0f} decisions/s, {med['games_s']:.1f} games/s "
          f"(iowa, deal cap {a.deal_cap}, 4 {a.bot} bot processes, batch <= {a.batch})")
    print(f"raw batched echo, same message sizes: {e:,.0f} decisions/s")
    print(f"ratio: {med['decisions_s'] / e:.1%} (target >= 50%)")
    print(f"latency per decision (the time charged to each answer: from when the bot could start on it, shared by the answers of one message): p50 {med['p50_ms']:.2f} ms, p99 {med['p99_ms']:.2f} ms")
    if lone is not None:
        print(f"lone game (one game, deal cap {a.lone_deal_cap}): {lone['decisions_s']:,.0f} decisions/s, "
              f"latency p50 {lone['p50_ms']:.2f} ms, p99 {lone['p99_ms']:.2f} ms")
    print(f"CPU per decision: referee process {med['referee_cpu_us']:.1f} us, 4 bot processes {med['bots_cpu_us']:.0f} us "
          f"({os.cpu_count()} CPUs)")
    echo_cpu = em["server_cpu_us"] + em["clients_cpu_us"]
    print(f"echo CPU per decision: server {em['server_cpu_us']:.1f} us, 4 clients {em['clients_cpu_us']:.1f} us")
    # When every process shares the same cores, decisions/s is bounded by cores / CPU per decision. A referee that
    # cost no more than the echo server, serving these bots, would reach at most this share of the echo:
    print(f"ceiling with these bots (a referee as cheap as the echo server): "
          f"{echo_cpu / (em['server_cpu_us'] + med['bots_cpu_us']):.0%} of the echo")
    if floor:
        fm = {k: statistics.median(r[k] for r in floor) for k in floor[0]}
        # The same service with every rules-engine and encoder step replaced by a lookup (bench/referee_floor.py):
        # what a native game core behind this Python gRPC service would reach.
        print(f"floor (the same service, game steps replayed from pre-encoded scripts): {fm['decisions_s']:,.0f} decisions/s "
              f"= {fm['decisions_s'] / e:.1%} of the echo; CPU per decision: referee {fm['referee_cpu_us']:.0f} us, "
              f"bots {fm['bots_cpu_us']:.0f} us")
    write_results(out, a, med, em, lone, fm if floor else None)
    return 0


def write_results(out: results.Results, a, med: dict, em: dict, lone: dict | None, fm: dict | None) -> None:
    """docs/results/referee.md: the referee's medians beside the echo's, the ratio, the lone game, the floor."""
    e = em["decisions_s"]
    echo_cpu = em["server_cpu_us"] + em["clients_cpu_us"]
    rows = [["referee", "decisions/s", med["decisions_s"], med["decisions_s"] / e],
            ["referee", "games/s", med["games_s"], None],
            ["raw batched echo (the baseline)", "decisions/s", e, 1.0],
            ["referee", "latency p50, ms", med["p50_ms"], None],
            ["referee", "latency p99, ms", med["p99_ms"], None],
            ["referee process", "CPU per decision, µs", med["referee_cpu_us"], None],
            ["4 bot processes", "CPU per decision, µs", med["bots_cpu_us"], None],
            ["echo server", "CPU per decision, µs", em["server_cpu_us"], None],
            ["4 echo clients", "CPU per decision, µs", em["clients_cpu_us"], None],
            ["ceiling: a referee as cheap as the echo server, these bots", "decisions/s",
             e * echo_cpu / (em["server_cpu_us"] + med["bots_cpu_us"]),
             echo_cpu / (em["server_cpu_us"] + med["bots_cpu_us"])]]
    if fm:
        rows += [["floor: the same service, game steps replayed", "decisions/s", fm["decisions_s"], fm["decisions_s"] / e],
                 ["floor", "referee CPU per decision, µs", fm["referee_cpu_us"], None]]
    if lone:
        rows += [[f"lone game (deal cap {a.lone_deal_cap}: nothing to batch)", "decisions/s", lone["decisions_s"], None],
                 ["lone game", "latency p50, ms", lone["p50_ms"], None],
                 ["lone game", "latency p99, ms", lone["p99_ms"], None]]
    out.table(["what", "figure", "median", "ratio to the echo"], rows,
              note=f"Per batch: {med['per_batch']:.1f} requests, {med['batch_bytes']:.0f} bytes; "
                   f"{med['answer_bytes']:.0f} bytes per answer message. Target: 50% of the echo.")
    out.write()


if __name__ == "__main__":
    sys.exit(main())
