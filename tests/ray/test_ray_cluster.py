"""`pepper arena run --ray` on a real Ray cluster on loopback: a head and 2 worker nodes with CPUs of
their own, all on 127.0.0.1 (ray.cluster_utils.Cluster). The driver is the real command in a subprocess; the bots
are the heuristic sample bot under two names, which plays the same on the same deal, so that a run's table is a
pure function of its plan: the same plan run on one machine and across the nodes gives the same games and the same
ratings, also when a worker node dies mid-run or the driver is killed and run again.

The cluster is started once for the module (about 5 s); the tests take about a minute in all."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

if os.environ.get("CI") == "true":
    import ray  # under CI a missing Ray is a failure (make install installs the [ray] extra), not a skip
else:
    ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

from arena.store import Store  # noqa: E402

pytestmark = pytest.mark.xdist_group("ray")   # one cluster at a time on a 2-core machine

ROOT = Path(__file__).resolve().parents[2]
# One deal a game, 2 players (one process per bot): a match is 2 games, seconds to play.
SHORT = 'name = "p30-short"\nextends = "pepper-30"\ndeal_cap = 1\n'
# Every Ray process on loopback (Ray otherwise picks the machine's address), no token to pass to the driver.
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


@pytest.fixture(scope="module")
def cluster():
    saved = {k: os.environ.get(k) for k in RAY_ENV}
    os.environ.update(RAY_ENV)
    # A dead node is noticed after 3 missed health checks 0.5 s apart (Ray's default: about 30 s).
    c = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "include_dashboard": False, "node_ip_address": "127.0.0.1",
        "_system_config": {"health_check_period_ms": 500, "health_check_timeout_ms": 1000,
                           "health_check_failure_threshold": 3}})
    workers = [c.add_node(num_cpus=2, node_ip_address="127.0.0.1") for _ in range(2)]
    c.wait_for_nodes()
    c.workers = workers
    try:
        yield c
    finally:
        c.shutdown()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _pepper(args: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args], cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, env=os.environ | RAY_ENV, **kw)


def _db(tmp_path: Path, name: str) -> Path:
    """A fresh database with the heuristic bot registered a second time, as h2."""
    (tmp_path / "short.toml").write_text(SHORT)
    db = tmp_path / name
    out = _pepper(["bot", "register", "h2", "--command", "{python} -m sample_bots heuristic", "--cwd", str(ROOT),
                   "--db", str(db)], tmp_path, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return db


def _run_args(db: Path, games: int) -> list[str]:
    return ["arena", "run", "--ruleset", "short.toml", "--players", "2", "--bots", "heuristic,h2", "--games", str(games),
            "--seed", "5", "--quiet", "--db", str(db)]


def _outcome(db: Path) -> tuple[list, dict, int]:
    """The run's games by plan index (seed and each seat's bot, score, decisions), its ratings, and its games."""
    st = Store(db, read_only=True)
    try:
        games = sorted(st._games("WHERE run_id = 1", ()), key=lambda g: g.idx)
        rows = [(g.idx, g.seed, [(s.bot, s.score, s.won, s.decisions) for s in sorted(g.seats, key=lambda s: s.seat)])
                for g in games]
        return rows, st.ratings(st.pools()[0]), st.planned_count(1)
    finally:
        st.close()


def _local(tmp_path: Path, games: int) -> tuple[list, dict, int]:
    db = _db(tmp_path, "local.db")
    out = _pepper([*_run_args(db, games), "--planned"], tmp_path, timeout=120)   # as --ray plays it
    assert out.returncode == 0, out.stdout + out.stderr
    return _outcome(db)


def _committed(db: Path) -> int:
    try:
        st = Store(db, read_only=True)
    except Exception:  # noqa: BLE001 - not created yet
        return 0
    try:
        return st.game_ids(1).count
    finally:
        st.close()


def _attempts(tmp_path: Path) -> dict[str, int]:
    """Per match, how many times a task started playing it (each attempt says so in the match's log)."""
    return {p.parent.name: p.read_text().count(" started on ") for p in (tmp_path / "arena-logs").glob("match-*/match.log")}


def _on_node(node) -> list[int]:
    """Every process of Ray ``node``: its own (raylet, ...) and their descendants (workers, referees, bots)."""
    roots = {p.pid for _, p in node.live_processes()}
    parent: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass

    def under(pid: int) -> bool:
        while pid > 1:
            if pid in roots:
                return True
            pid = parent.get(pid, 0)
        return False

    return [pid for pid in parent if under(pid)]


def _die(cluster, node) -> None:
    """The node's machine dies: every process of it killed at once (a raylet alone killed leaves its workers a
    moment to finish a match and hand it in), then the node removed from the cluster."""
    for pid in _on_node(node):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    cluster.remove_node(node, allow_graceful=False)


def _playing_on(node) -> list[str]:
    """The log files of the referees on Ray ``node`` that are still playing their match."""
    out = []
    for pid in _on_node(node):
        try:
            if b"pepper_cli.referee" in Path(f"/proc/{pid}/cmdline").read_bytes():
                log = os.readlink(f"/proc/{pid}/fd/2")
                if "stopped" not in Path(log).read_text():
                    out.append(log)
        except OSError:
            pass
    return out


def test_a_tournament_across_two_nodes_gives_the_same_games_and_table_as_on_one_machine(cluster, tmp_path):
    games = 8
    db = _db(tmp_path, "ray.db")
    out = _pepper([*_run_args(db, games), "--ray", cluster.address], tmp_path, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    # The single-machine default is adaptive rounds; --ray says it plays the run planned up front instead.
    assert "--ray: the run's games are planned up front (--planned)" in out.stdout + out.stderr, out.stdout
    on_ray = _outcome(db)
    assert len(on_ray[0]) == on_ray[2] == games
    assert on_ray == _local(tmp_path, games)
    # Each match ran as a task with its own referee, in its own log directory (the logs of the nodes' processes).
    assert _attempts(tmp_path) == {f"match-{m}": 1 for m in range(games // 2)}



def test_a_task_streams_its_finished_games_and_the_driver_commits_them_before_the_task_ends(cluster, tmp_path):
    games = 8
    db = _db(tmp_path, "ray.db")
    # A bot that thinks 100 ms a decision: a game takes a second or so, played one at a time.
    out = _pepper(["bot", "register", "slow", "--command", "{python} -m sample_bots montecarlo --budget-ms 100",
                   "--cwd", str(ROOT), "--db", str(db)], tmp_path, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    args = [*_run_args(db, games), "--ray", cluster.address, "--ray-matches", "4", "--concurrency", "1"]
    args[args.index("heuristic,h2")] = "heuristic,slow"
    # All 4 matches in one task: all-or-nothing, the store would go from 0 games to 8 at once.
    driver = subprocess.Popen([sys.executable, "-m", "pepper_cli", *args], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, stdin=subprocess.DEVNULL, env=os.environ | RAY_ENV)
    seen = set()
    try:
        deadline = time.monotonic() + 150
        while driver.poll() is None and time.monotonic() < deadline:
            seen.add(_committed(db))
            time.sleep(0.02)
        output, _ = driver.communicate(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 0, output
    assert "each task plays 4 match(es)" in output and _attempts(tmp_path) == {"match-0": 1}, output
    assert seen & set(range(1, games)), seen   # some of the task's games committed while it played on
    assert [g[0] for g in _outcome(db)[0]] == list(range(games))


def test_a_worker_node_that_dies_mid_run_loses_and_duplicates_no_game(cluster, tmp_path):
    games = 16
    db = _db(tmp_path, "ray.db")
    driver = subprocess.Popen([sys.executable, "-m", "pepper_cli", *_run_args(db, games), "--ray", cluster.address],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              stdin=subprocess.DEVNULL, env=os.environ | RAY_ENV)
    try:
        deadline = time.monotonic() + 120
        # Mid-run (a match committed) and mid-match on the node to kill (its referee still playing).
        while (_committed(db) < 2 or not _playing_on(cluster.workers[0])) and driver.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        at_kill = _committed(db)
        assert 0 < at_kill < games, driver.communicate()[0] if driver.poll() is not None else at_kill
        _die(cluster, cluster.workers[0])
        output, _ = driver.communicate(timeout=180)
    finally:
        if driver.poll() is None:
            driver.kill()
        cluster.workers.append(cluster.add_node(num_cpus=2, node_ip_address="127.0.0.1"))  # for the next test
        cluster.workers.pop(0)
    assert driver.returncode == 0, output
    # The node died with a match in flight: that match was played again, on the node left.
    assert max(_attempts(tmp_path).values()) >= 2, _attempts(tmp_path)
    on_ray = _outcome(db)
    assert [g[0] for g in on_ray[0]] == list(range(games))   # every planned game once: none lost, none twice
    assert on_ray == _local(tmp_path, games)


def test_a_killed_driver_is_run_again_and_completes_the_run(cluster, tmp_path):
    games = 16
    db = _db(tmp_path, "ray.db")
    args = [sys.executable, "-m", "pepper_cli", *_run_args(db, games), "--ray", cluster.address]
    driver = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              stdin=subprocess.DEVNULL, env=os.environ | RAY_ENV)
    try:
        deadline = time.monotonic() + 120
        while _committed(db) < 2 and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert driver.poll() is None, "the run ended before the driver could be killed"
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=10)
    finally:
        if driver.poll() is None:
            driver.kill()
    at_kill = _committed(db)
    assert 0 < at_kill < games
    out = _pepper(args[3:], tmp_path, timeout=180)   # the same command
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{games}/{games} games" in out.stdout
    on_ray = _outcome(db)
    assert [g[0] for g in on_ray[0]] == list(range(games))
    assert on_ray == _local(tmp_path, games)


def test_the_single_machine_arena_never_imports_ray(tmp_path):
    code = ("import sys, pepper_cli.app, arena.tournament, arena.store, arena.match; "
            "assert 'ray' not in sys.modules, 'ray was imported'; "
            "import arena.distributed; assert 'ray' not in sys.modules, 'ray was imported by arena.distributed'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def test_a_straggler_past_its_timeout_is_cancelled_and_played_again(cluster, tmp_path):
    games = 4
    db = _db(tmp_path, "ray.db")
    # h3 hangs the first time it is started (before connecting: the match cannot end), and plays after that. Its
    # sleep inherits the bot's parent-death signal, so cancelling the task ends it.
    hang = f"if mkdir {tmp_path}/hung 2>/dev/null; then exec sleep 600; fi; exec {sys.executable} -m sample_bots heuristic"
    out = _pepper(["bot", "register", "h3", "--command", f"sh -c '{hang}'", "--cwd", str(ROOT), "--db", str(db)],
                  tmp_path, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    args = [*_run_args(db, games), "--ray", cluster.address, "--ray-timeout", "20"]
    args[args.index("heuristic,h2")] = "heuristic,h3"
    out = _pepper(args, tmp_path, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "(a straggler): cancelled; submitted again" in out.stdout + out.stderr
    assert max(_attempts(tmp_path).values()) >= 2, _attempts(tmp_path)
    st = Store(db, read_only=True)
    try:
        assert sorted(g.idx for g in st._games("WHERE run_id = 1", ())) == list(range(games))
    finally:
        st.close()


def test_a_bot_shipped_as_the_working_dir_runs_from_the_copy_ray_unpacked_on_the_node(cluster, tmp_path):
    games = 2
    db = _db(tmp_path, "ray.db")
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "mybot.py").write_text("import os, sys\nprint('running in', os.getcwd(), file=sys.stderr, flush=True)\n"
                                   "sys.argv[1:] = ['heuristic']\nfrom sample_bots.__main__ import main\nmain()\n")
    out = _pepper(["bot", "register", "shipped", "--command", "{python} mybot.py", "--cwd", str(bots), "--db", str(db)],
                  tmp_path, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    args = [*_run_args(db, games), "--ray", cluster.address, "--ray-working-dir", str(bots)]
    args[args.index("heuristic,h2")] = "h2,shipped"
    out = _pepper(args, tmp_path, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    log = (tmp_path / "arena-logs" / "match-0" / "bot-shipped.log").read_text()
    ran_in = log.split("running in ", 1)[1].split()[0]
    assert Path(ran_in) != bots and (Path(ran_in) / "mybot.py").read_text() == (bots / "mybot.py").read_text(), ran_in
    assert f"{games}/{games} games" in out.stdout


def test_adaptive_rounds_on_the_cluster_plan_the_same_games_as_on_one_machine(cluster, tmp_path):
    """--adaptive with --ray: each round planned once the games it is chosen on are back and rated, so the same
    command and seed plan the same rounds, and so the same games and table, as the single-machine arena."""
    games = 20
    db = _db(tmp_path, "ray.db")
    out = _pepper([*_run_args(db, games), "--adaptive", "--ray", cluster.address], tmp_path, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "planned up front" not in out.stdout + out.stderr
    local = _db(tmp_path, "local.db")
    assert _pepper([*_run_args(local, games), "--adaptive"], tmp_path, timeout=120).returncode == 0
    on_ray = _outcome(db)
    assert len(on_ray[0]) == on_ray[2] == games and on_ray == _outcome(local)
    with closing(Store(db, read_only=True)) as st, closing(Store(local, read_only=True)) as one:
        assert [(g.match, g.seed, g.seats) for g in st.planned(1)] == [(g.match, g.seed, g.seats) for g in one.planned(1)]


def test_until_confident_and_a_match_stop_early_on_the_cluster(cluster, tmp_path):
    """--until-confident with --ray (adaptive by itself) stops once the table's pair is apart, well short of its cap;
    `pepper arena match --ray` plays blocks until its SPRT decides, and says so as it does without Ray."""
    db = _db(tmp_path, "ray.db")
    out = _pepper([*_run_args(db, 400)[:-5], "--bots", "heuristic,random", "--until-confident", "--ray",
                   cluster.address, "--quiet", "--db", str(db)], tmp_path, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "stopped: every adjacent pair of the table is significantly apart" in out.stdout, out.stdout
    with closing(Store(db, read_only=True)) as st:
        assert st.planned_count(1) < 400 and not st.pending(1)
    match = _pepper(["arena", "match", "heuristic", "random", "--ruleset", "short.toml", "--players", "2",
                     "--sprt", "elo0=0 elo1=20 alpha=0.05 beta=0.05", "--max-games", "400", "--ray", cluster.address,
                     "--db", str(tmp_path / "match.db")], tmp_path, timeout=240)
    assert match.returncode == 0 and "H1 accepted: heuristic is stronger than random" in match.stdout, (
        match.stdout + match.stderr)
    with closing(Store(tmp_path / "match.db", read_only=True)) as st:
        assert 0 < st.planned_count(1) < 400


def test_a_broken_bot_is_withdrawn_and_the_other_matches_play_on(cluster, tmp_path):
    db = _db(tmp_path, "ray.db")
    out = _pepper(["bot", "register", "broken", "--command", "/nonexistent/bot", "--db", str(db)], tmp_path, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    args = [*_run_args(db, 6), "--ray", cluster.address]
    args[args.index("heuristic,h2")] = "heuristic,h2,broken"
    out = _pepper(args, tmp_path, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "bot 'broken' cannot be started" in out.stdout + out.stderr
    st = Store(db, read_only=True)
    try:
        stored = st._games("WHERE run_id = 1", ())
        pending = st.pending(1)
        assert stored and all("broken" not in g.bots for g in stored)
        assert pending and all("broken" in p.seats for p in pending)   # not played: the same command plays them
    finally:
        st.close()


def test_a_match_that_comes_back_twice_is_committed_and_rated_once(tmp_path):
    """The task's body without Ray (play_match), and the driver's commit of its result twice: once by the session
    that got it, once more as a later session would (a retried match whose first attempt also came back)."""
    from arena.config import RunConfig
    from arena.distributed import commit, play_match, shipped_files
    from arena.tournament import Arena, Progress

    db = _db(tmp_path, "driver.db")
    cfg = RunConfig(ruleset=str(tmp_path / "short.toml"), players=2, games=4, seed=5, bots=["heuristic", "h2"],
                    db=str(db), log_dir=str(tmp_path / "logs"), tau=0.0)
    st = Store(db)
    try:
        arena = Arena(cfg, st)
        run_id, bots = arena.open_run()
        match0 = [g for g in st.pending(run_id) if g.match == 0]
        res = play_match(cfg, bots, arena.versions, match0, shipped_files(cfg))
        assert sorted(g.idx for g in res.games) == sorted(g.idx for g in match0) and len(match0) == 2   # in finish order
        notes: list[str] = []
        progress = Progress(total=4)
        commit(arena, st, run_id, [res], progress, set(), notes.append)
        commit(arena, st, run_id, [res], progress, set(), notes.append)
        assert progress.done == 2 and st.game_ids(run_id).count == 2
        assert notes == ["2 game(s) already stored were dropped, not counted twice"]
        rated = st.db.execute("SELECT COUNT(DISTINCT game_id), COUNT(*) FROM rating_history").fetchone()
        assert rated == (2, 4)   # each game rated once, for each of its 2 bots
    finally:
        st.close()


def _nodes_played_on(tmp_path: Path) -> set[str]:
    """The Ray node ids the matches were played on (each attempt's line in its match.log)."""
    return {line.split("(Ray node ", 1)[1].split(")", 1)[0]
            for p in (tmp_path / "arena-logs").glob("match-*/match.log") for line in p.read_text().splitlines()
            if " started on " in line}


def test_a_node_smaller_than_a_match_needs_is_used_and_the_start_says_how_the_cpus_are_used(cluster, tmp_path):
    # A match wants 3 CPUs (a referee, two bots); the nodes have 2, 2 and 1: tasks sized to 1 CPU run on all three.
    small = cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
    cluster.wait_for_nodes()
    try:
        db = _db(tmp_path, "ray.db")
        out = _pepper([*_run_args(db, 16), "--ray", cluster.address], tmp_path, timeout=180)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "Ray cluster: 3 node(s) with CPUs (2, 2, 1; 5 in all): each task plays 1 match(es) on 1 CPU(s) with " \
               "a referee and bots of its own, 5 task(s) at once" in out.stdout + out.stderr, out.stdout + out.stderr
        assert small.node_id in _nodes_played_on(tmp_path), (small.node_id, _nodes_played_on(tmp_path))
    finally:
        cluster.remove_node(small)


def test_a_cluster_whose_every_worker_dies_stops_the_run_within_a_minute_and_the_same_command_resumes_it(
        cluster, tmp_path):
    games = 8
    db = _db(tmp_path, "ray.db")
    args = [sys.executable, "-m", "pepper_cli", *_run_args(db, games), "--ray", cluster.address]
    driver = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              stdin=subprocess.DEVNULL, env=os.environ | RAY_ENV)
    try:
        deadline = time.monotonic() + 120
        while _committed(db) < 2 and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert driver.poll() is None, driver.communicate()[0]
        for node in list(cluster.workers):
            _die(cluster, node)
        died = time.monotonic()
        output, _ = driver.communicate(timeout=120)
        waited = time.monotonic() - died
    finally:
        if driver.poll() is None:
            driver.kill()
        cluster.workers = [cluster.add_node(num_cpus=2, node_ip_address="127.0.0.1") for _ in range(2)]
        cluster.wait_for_nodes()
    assert driver.returncode == 1 and waited < 60, (waited, output)
    assert "has had no node with CPUs for 20s (every worker node died or left): stopped with" in output, output
    assert "run the same command again to resume" in output and "Traceback" not in output, output
    out = _pepper(args[3:], tmp_path, timeout=180)   # the same command, on the cluster's new workers
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{games}/{games} games" in out.stdout
    assert [g[0] for g in _outcome(db)[0]] == list(range(games))


def test_a_cluster_address_where_nothing_answers_fails_at_once_in_one_line_with_what_to_do(tmp_path):
    db = _db(tmp_path, "ray.db")
    with socket.socket() as s:   # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    out = _pepper([*_run_args(db, 4), "--ray", f"127.0.0.1:{port}"], tmp_path, timeout=120)
    assert out.returncode == 1 and time.monotonic() - t0 < 30, out.stdout + out.stderr
    assert f"no Ray cluster answers at 127.0.0.1:{port} (Connection refused): start its head there" in out.stderr, \
        out.stderr
    assert "Traceback" not in out.stdout + out.stderr and len(out.stderr.strip().splitlines()) <= 2, out.stderr

