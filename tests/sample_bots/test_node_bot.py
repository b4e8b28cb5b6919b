"""The Node.js sample bot (sample_bots/node) in real games against a real referee.

The tests install the bot's dependencies themselves (``npm ci`` when
``node_modules`` is missing) and fail, never skip, when ``node`` or ``npm`` is
missing: Node 20 is a requirement of the test suite, like Python 3.11.

One referee subprocess on 127.0.0.1 (port 0) serves the module; the Node bot
is registered through the control API and launched as a subprocess with the
``PEPPER_REFEREE`` / ``PEPPER_TOKEN`` / ``PEPPER_BOT_NAME`` convention.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import needs
import pytest
from pepper_proto.v1 import control_pb2, control_pb2_grpc, game_pb2

pytestmark = pytest.mark.xdist_group("node-bot")

ROOT = Path(__file__).resolve().parents[2]
BOT_DIR = ROOT / "sample_bots" / "node"
CONTROL_TOKEN = "node-tests-control-token"
CASES = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("bid-euchre", 8),
         ("pepper-30", 2), ("pepper-30", 3), ("pepper-30", 4), ("five-handed", 5)]
# Messages the bot logs when its strategy failed or chose an action that was not legal (the
# client then plays the first legal action and marks it as a fallback, which the referee counts:
# assert_node_seats_clean checks that count; the log also shows errors outside decisions).
STRATEGY_ERRORS = ("strategy failed", "not legal", "cannot handle", "uncaught")


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        needs.require("node")   # skips on a developer's machine without Node.js; fails under CI
        pytest.fail(f"`{name}` is not on PATH: the Node.js bot tests need Node.js 20+ and npm", pytrace=False)
    return path


@pytest.fixture(scope="module")
def node() -> str:
    """The node binary, with the bot's dependencies installed (npm ci from the lockfile)."""
    node = _tool("node")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    major = int(version.lstrip("v").split(".")[0])
    assert major >= 18, f"the Node.js bot needs Node 18 or newer (20 in CI), found {version}"
    if not (BOT_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        npm = _tool("npm")
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=BOT_DIR,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"npm ci in {BOT_DIR} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return node


class Referee:
    """A ``python -m pepper_cli.referee serve`` subprocess on 127.0.0.1 and a control client."""

    def __init__(self, tmp: Path, address: str = "127.0.0.1:0", *args: str):
        self.tmp = tmp
        self.log = open(tmp / f"referee-{time.monotonic_ns()}.stderr", "w+")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pepper_cli.referee", "serve", "--address", address, "--control-token", CONTROL_TOKEN,
             *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.proc.kill()
            self.log.seek(0)
            raise RuntimeError(f"the referee did not start: {line!r}\n{self.log.read()}")
        self.address = line.split()[-1]
        assert self.address.startswith("127.0.0.1:") and not self.address.endswith(":0")
        self.channel = grpc.insecure_channel(self.address, options=[("grpc.max_receive_message_length", 256 << 20)])
        self.control = control_pb2_grpc.ControlServiceStub(self.channel)
        self.md = [("authorization", f"Bearer {CONTROL_TOKEN}")]

    def register(self, name: str, token: str = "") -> str:
        return self.control.RegisterBot(control_pb2.RegisterBotRequest(name=name, token=token), metadata=self.md).token

    def connections(self, name: str) -> int:
        bots = self.control.ListBots(control_pb2.ListBotsRequest(), metadata=self.md).bots
        return next((b.connections for b in bots if b.name == name), 0)

    def wait_connections(self, name: str, n: int, bot: NodeBot | None = None, timeout: float = 20) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.connections(name) == n:
                return
            if bot is not None and bot.proc.poll() is not None:
                raise AssertionError(f"the Node bot exited with {bot.proc.returncode}:\n{bot.stderr()}")
            time.sleep(0.05)
        raise AssertionError(f"{name}: expected {n} live connections, have {self.connections(name)}"
                             + (f"\n{bot.stderr()}" if bot else ""))

    def create(self, seats: list[str], ruleset: str, deal_cap: int | None = None, **kw) -> str:
        req = control_pb2.CreateGameRequest(seats=seats, players=len(seats), **kw)
        if deal_cap is None:
            req.ruleset = ruleset
        else:
            req.ruleset_json = json.dumps({"extends": ruleset, "deal_cap": deal_cap})
        return self.control.CreateGame(req, metadata=self.md).game_id

    def wait_games(self, ids, timeout: float = 60) -> dict[str, control_pb2.GameResult]:
        ids = set(ids)
        end = time.monotonic() + timeout
        while True:
            running = {g.game_id for g in self.control.ListGames(
                control_pb2.ListGamesRequest(status=game_pb2.GAME_STATUS_RUNNING, page_size=1000), metadata=self.md).games}
            if not ids & running:
                break
            assert time.monotonic() < end, f"{len(ids & running)} of {len(ids)} games still running after {timeout} s"
            time.sleep(0.05)
        return {g: self.control.GetGame(control_pb2.GetGameRequest(game_id=g), metadata=self.md).result for g in ids}

    def kill(self) -> None:
        """Stop at once (SIGKILL): every stream drops without a goodbye."""
        self.channel.close()
        self.proc.kill()
        self.proc.wait()
        self.log.close()

    def close(self) -> None:
        if self.log.closed:
            return
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class NodeBot:
    """``node bot.js`` configured through the environment, logging to a file."""

    def __init__(self, node: str, tmp: Path, address: str, name: str, token: str, *args: str):
        self.name = name
        self.err_path = tmp / f"node-{name}-{time.monotonic_ns()}.stderr"
        env = {**os.environ, "PEPPER_REFEREE": address, "PEPPER_TOKEN": token, "PEPPER_BOT_NAME": name}
        with open(self.err_path, "w") as err:
            self.proc = subprocess.Popen([node, "bot.js", *args], cwd=BOT_DIR, env=env,
                                         stdout=subprocess.DEVNULL, stderr=err)

    def stderr(self) -> str:
        return self.err_path.read_text()

    def stop(self, timeout: float = 10) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the Node bot did not exit within {timeout} s of SIGTERM:\n{self.stderr()}") from None


def assert_node_seats_clean(res: control_pb2.GameResult, node_names: set[str], fallbacks: bool = False) -> None:
    """The game was played to its outcome, and no seat played by a Node bot has a fault (nor, unless
    ``fallbacks``, an answer its client marked as a strategy fallback)."""
    status = game_pb2.GameStatus.Name(res.status)
    assert status == "GAME_STATUS_COMPLETED", (res.game_id, res.ruleset, status, res.reason, list(res.faults)[:3])
    node_seats = {s.seat for s in res.seats if s.bot_name in node_names}
    assert node_seats, res.seats
    faults = [f for f in res.faults if f.seat in node_seats]
    assert not faults, (res.game_id, res.ruleset, faults[:3])
    for s in res.seats:
        if s.seat in node_seats:
            f = s.faults
            assert (f.illegal, f.malformed, f.timeout, f.disconnect) == (0, 0, 0, 0), (res.game_id, s)
            assert game_pb2.SeatStatus.Name(s.status) == "SEAT_STATUS_OK", (res.game_id, s)
            assert fallbacks or s.fallbacks == 0, (res.game_id, list(s.fallback_details))
    assert sum(s.decisions for s in res.seats if s.seat in node_seats) > 0, (res.game_id, res.seats)


def assert_no_strategy_errors(bot: NodeBot) -> None:
    log = bot.stderr()
    bad = [ln for ln in log.splitlines() if any(e in ln for e in STRATEGY_ERRORS)]
    assert not bad, "the Node bot's strategy fell back to the first legal action:\n" + "\n".join(bad[:10])


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def arena(node, tmp_path_factory):
    """A referee with two Node bot processes connected (node-a, node-b).

    With --shared-seats: these tests drive every seat of a table through the two processes, to see the
    bot in every seat (a tournament gives a connection one seat of a game; see test_one_seat_per_connection).
    """
    tmp = tmp_path_factory.mktemp("node-bot")
    ref = Referee(tmp, "127.0.0.1:0", "--shared-seats")
    bots = {}
    try:
        for name in ("node-a", "node-b"):
            bots[name] = NodeBot(node, tmp, ref.address, name, ref.register(name))
        for name, bot in bots.items():
            ref.wait_connections(name, 1, bot)
        yield ref, bots, tmp
    finally:
        for bot in bots.values():
            if bot.proc.poll() is None:
                bot.stop()
        ref.close()


# ----------------------------------------------------------------------------- tests
def test_node_unit_tests(node):
    """The strategy's own unit tests (node --test), so they run with `make test`."""
    r = subprocess.run([node, "--test", "--test-reporter=tap"], cwd=BOT_DIR, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"node --test failed ({r.returncode}):\n{r.stdout[-6000:]}\n{r.stderr[-3000:]}"
    assert "# fail 0" in r.stdout, r.stdout[-3000:]


@pytest.mark.parametrize("ruleset,players", CASES)
def test_every_ruleset_and_player_count(arena, ruleset, players):
    """Node in every seat (two processes, several seats each), short games, no faults."""
    ref, bots, _ = arena
    seats = [("node-a", "node-b")[i % 2] for i in range(players)]
    ids = [ref.create(seats, ruleset, deal_cap=8, seed=100 * players + k) for k in range(3)]
    results = ref.wait_games(ids, timeout=60)
    for gid in ids:
        res = results[gid]
        assert_node_seats_clean(res, set(bots))
        assert res.players == players and res.deals >= 1
    for bot in bots.values():
        assert_no_strategy_errors(bot)


def test_full_length_games(arena):
    """Unchanged built-in rulesets played to the end (target or deal cap), all at once on the two streams."""
    ref, bots, _ = arena
    ids = {}
    for ruleset, players in CASES:
        seats = [("node-a", "node-b")[(i + players) % 2] for i in range(players)]
        ids[ref.create(seats, ruleset, seed=7 + players)] = (ruleset, players)
    results = ref.wait_games(ids, timeout=80)
    for gid, (ruleset, players) in ids.items():
        res = results[gid]
        assert_node_seats_clean(res, set(bots))
        assert res.ruleset == ruleset and res.players == players
        assert res.reason in ("target", "deal-cap"), res.reason
    for bot in bots.values():
        assert_no_strategy_errors(bot)


def test_many_games_multiplexed_in_large_batches(arena):
    """Dozens of games at once on one stream: Batches hold many requests, each answered in full."""
    ref, bots, _ = arena
    ids = [ref.create(["node-a"] * players, ruleset, deal_cap=3, seed=k)
           for k in range(5) for ruleset, players in CASES]
    results = ref.wait_games(ids, timeout=60)
    for gid in ids:
        assert_node_seats_clean(results[gid], {"node-a"})
    assert_no_strategy_errors(bots["node-a"])


def test_against_the_python_heuristic_bot(arena):
    """Node and the Python sample heuristic bot (``python -m sample_bots heuristic``) at one table, every ruleset."""
    ref, bots, tmp = arena
    env = {**os.environ, "PEPPER_REFEREE": ref.address, "PEPPER_TOKEN": ref.register("py-heuristic"),
           "PEPPER_BOT_NAME": "py-heuristic"}
    with open(tmp / "py-heuristic.stderr", "w") as err:
        py = subprocess.Popen([sys.executable, "-m", "sample_bots", "heuristic"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=err)
    try:
        ref.wait_connections("py-heuristic", 1, timeout=30)
        ids = [ref.create([("node-a", "py-heuristic")[(i + k) % 2] for i in range(n)], rs, deal_cap=6, seed=3 + k)
               for rs, n in CASES for k in range(2)]
        results = ref.wait_games(ids, timeout=60)
        for gid in ids:
            assert_node_seats_clean(results[gid], {"node-a"})
    finally:
        py.terminate()
        py.wait(timeout=10)
    assert_no_strategy_errors(bots["node-a"])


def test_passes_the_conformance_checker(node, tmp_path):
    """`pepper bot check -- node bot.js`: every ruleset, the edge cases, large batches, shutdown."""
    report = tmp_path / "check.json"
    slack = ("--deadline-ms", "10000", "--time-bank-ms", "30000")  # a busy test machine must not fail the bot
    r = subprocess.run([sys.executable, "-m", "pepper_cli", "bot", "check", "--report", str(report), *slack, "--",
                        node, str(BOT_DIR / "bot.js")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"the checker failed ({r.returncode}):\n{r.stdout[-5000:]}\n{r.stderr[-3000:]}"
    rep = json.loads(report.read_text())
    assert rep["passed"] and all(c["status"] == "pass" for c in rep["checks"]), r.stdout[-3000:]
    assert " 0 failed" in r.stdout, r.stdout[-3000:]


def _the_guides_bot(tmp_path, broken: bool = False) -> Path:
    """bot.js as docs/writing-a-bot-node.md gives it, in an empty folder; ``broken``: its decide() throws on 30% of
    its decisions."""
    doc = (ROOT / "docs" / "writing-a-bot-node.md").read_text()
    code = next(b for b in re.findall(r"```js\n(.*?)```", doc, re.S) if b.startswith("// bot.js"))
    if broken:
        code = code.replace("function decide(request) {",
                            "function decide(request) {\n  if (Math.random() < 0.3) throw new TypeError('hand is undefined');", 1)
    folder = tmp_path / ("broken-bot" if broken else "my-pepper-bot")
    folder.mkdir()
    (folder / "bot.js").write_text(code)
    (folder / "proto").symlink_to(ROOT / "proto")                     # the guide copies proto/ in
    (folder / "node_modules").symlink_to(BOT_DIR / "node_modules")    # the guide runs npm install
    return folder / "bot.js"


def test_the_guides_bot_passes_the_checker_and_its_broken_twin_fails_the_policy_checks(node, tmp_path):
    """The page's sample output is what the checker says of the page's bot; with a strategy that throws on 30%
    of its decisions, the bot marks its fallbacks and both policy checks fail it."""
    slack = ("--deadline-ms", "10000", "--time-bank-ms", "30000")
    r = subprocess.run([sys.executable, "-m", "pepper_cli", "bot", "check", *slack, "--", node,
                        str(_the_guides_bot(tmp_path))], cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout[-5000:] + r.stderr[-2000:]
    total = re.search(r"^(\d+) checks: \1 passed, 0 failed", r.stdout, re.M)
    assert total, r.stdout[-3000:]
    assert f"# {total[1]} checks: {total[1]} passed, 0 failed" in (ROOT / "docs" / "writing-a-bot-node.md").read_text()

    report = tmp_path / "broken.json"
    r = subprocess.run([sys.executable, "-m", "pepper_cli", "bot", "check", "--report", str(report), *slack,
                        "--only", "iowa 4p", "--only", "policy", "--", node, str(_the_guides_bot(tmp_path, broken=True))],
                       cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert r.returncode == 1, r.stdout[-5000:]
    rep = json.loads(report.read_text())
    failed = {c["name"]: c["reason"] for c in rep["checks"] if c["status"] == "fail"}
    assert set(failed) == {"policy: decide() chose every answer", "policy: no silent fallbacks"}, r.stdout[-3000:]
    assert "raised: decide() threw TypeError: hand is undefined" in failed["policy: decide() chose every answer"]
    assert 0.15 < rep["fallbacks"] / sum(rep["coverage"].values()) < 0.45, rep


def test_the_guides_first_bot_plays(arena, node, tmp_path):
    """docs/writing-a-bot-node.md: bot.js copied from the page into an empty folder plays every ruleset cleanly."""
    ref, _, _ = arena
    folder = _the_guides_bot(tmp_path).parent
    env = {**os.environ, "PEPPER_REFEREE": ref.address, "PEPPER_TOKEN": ref.register("guide-bot"),
           "PEPPER_BOT_NAME": "guide-bot"}
    with open(tmp_path / "guide-bot.stderr", "w+") as err:
        p = subprocess.Popen([node, "bot.js"], cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            ref.wait_connections("guide-bot", 1, timeout=20)
            ids = [ref.create(["guide-bot"] * n, rs, deal_cap=4, seed=5) for rs, n in CASES]
            results = ref.wait_games(ids, timeout=60)
            for gid in ids:
                assert_node_seats_clean(results[gid], {"guide-bot"})
        finally:
            p.send_signal(signal.SIGTERM)
            code = p.wait(timeout=10)
            err.seek(0)
            log = err.read()
    assert code == 0, log
    assert "connected as" in log, log


def test_reconnects_after_the_referee_restarts(node, tmp_path):
    """The stream drops (referee stopped); the bot retries with backoff and plays on the new referee."""
    ref = Referee(tmp_path, "127.0.0.1:0", "--shared-seats")
    token = ref.register("node-r", "node-r-token")
    bot = NodeBot(node, tmp_path, ref.address, "node-r", token)
    try:
        ref.wait_connections("node-r", 1, bot)
        address = ref.address
        ref.kill()
        time.sleep(0.3)
        assert bot.proc.poll() is None, f"the bot exited when the stream dropped:\n{bot.stderr()}"
        ref = Referee(tmp_path, address, "--shared-seats", "--bot", f"node-r={token}")
        ref.wait_connections("node-r", 1, bot, timeout=30)
        gid = ref.create(["node-r"] * 4, "iowa", deal_cap=3, seed=1)
        assert_node_seats_clean(ref.wait_games([gid])[gid], {"node-r"})
        assert "reconnecting in" in bot.stderr()
    finally:
        code = bot.stop()
        ref.close()
    assert code == 0, bot.stderr()


def test_sigterm_exits_cleanly_and_leaves_the_referee(arena, node):
    ref, _, tmp = arena
    bot = NodeBot(node, tmp, ref.address, "node-t", ref.register("node-t"))
    ref.wait_connections("node-t", 1, bot)
    started = time.monotonic()
    assert bot.stop() == 0, bot.stderr()
    assert time.monotonic() - started < 5
    ref.wait_connections("node-t", 0, timeout=5)
    assert "received SIGTERM" in bot.stderr()


def test_refused_token_exits_with_status_2(arena, node):
    ref, _, tmp = arena
    ref.register("node-x", "the-right-token")
    bot = NodeBot(node, tmp, ref.address, "node-x", "a-wrong-token")
    code = bot.proc.wait(timeout=15)
    assert code == 2, bot.stderr()
    assert "UNAUTHENTICATED" in bot.stderr()


FAULTY_BOT = """
// The sample bot's client with a strategy that fails on purpose: it throws on calls 1, 4, 7...,
// names an action that is never legal on calls 2, 5, 8... and plays the sample strategy otherwise.
const { BotClient } = require(%(lib)s + '/client');
const { decide } = require(%(lib)s + '/strategy');
const { makeLogger } = require(%(lib)s + '/log');
let calls = 0;
function faulty(request, game) {
  calls += 1;
  if (calls %% 3 === 1) throw new TypeError(`boom ${calls}`);
  if (calls %% 3 === 2) return 'bid nonsense';
  return decide(request, game);
}
const client = new BotClient({
  address: process.env.PEPPER_REFEREE, token: process.env.PEPPER_TOKEN, botName: process.env.PEPPER_BOT_NAME,
  decide: faulty, log: makeLogger('warn', 'faulty'),
});
process.on('SIGTERM', () => client.stop('received SIGTERM'));
client.run().then((code) => { process.exitCode = code; });
"""


def test_strategy_fallbacks_are_counted_by_the_referee(node, tmp_path):
    """Protocol 1.2: when the strategy throws or answers illegally, the client plays the first legal action
    and says so in its Answer (fallback, fallback_detail); the referee counts them per seat, in the
    GameResult and in the record file, and they are not faults."""
    records = tmp_path / "records"
    ref = Referee(tmp_path, "127.0.0.1:0", "--shared-seats", "--record-dir", str(records))
    script = tmp_path / "faulty.js"
    script.write_text(FAULTY_BOT % {"lib": json.dumps(str(BOT_DIR / "lib"))})
    env = {**os.environ, "PEPPER_REFEREE": ref.address, "PEPPER_TOKEN": ref.register("node-faulty"),
           "PEPPER_BOT_NAME": "node-faulty"}
    err = open(tmp_path / "faulty.stderr", "w+")
    p = subprocess.Popen([node, str(script)], cwd=BOT_DIR, env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        ref.wait_connections("node-faulty", 1, timeout=20)
        gid = ref.create(["node-faulty"] * 4, "iowa", deal_cap=2, seed=11)
        res = ref.wait_games([gid])[gid]
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=10)
        ref.close()
        err.seek(0)
        log = err.read()
        err.close()
    assert_node_seats_clean(res, {"node-faulty"}, fallbacks=True)    # fallbacks are legal answers, not faults
    calls = sum(s.decisions for s in res.seats)
    fallbacks = sum(s.fallbacks for s in res.seats)
    assert calls >= 6 and fallbacks == calls - calls // 3, (calls, [s.fallbacks for s in res.seats], log[-2000:])
    details = [d for s in res.seats for d in s.fallback_details]
    assert any(d.startswith("raised: decide() threw TypeError: boom ") for d in details), details
    assert 'illegal: decide() returned "bid nonsense"' in details, details
    # The record file the referee wrote holds the same per-seat counts and details.
    rec = json.loads((records / f"{gid}.json").read_text())
    assert [s["fallbacks"] for s in rec["seats"]] == [s.fallbacks for s in res.seats]
    assert [s["fallback_details"] for s in rec["seats"]] == [list(s.fallback_details) for s in res.seats]


def test_exits_0_when_the_referee_drains(node, tmp_path):
    """A finished tournament is not a dropped connection: the referee's DRAINING notice (protocol 1.3) ends the
    bot with exit code 0 once its game is over, instead of reconnecting."""
    ref = Referee(tmp_path, "127.0.0.1:0", "--shared-seats")
    bot = NodeBot(node, tmp_path, ref.address, "node-d", ref.register("node-d"))
    try:
        ref.wait_connections("node-d", 1, bot)
        gid = ref.create(["node-d"] * 4, "iowa", deal_cap=1, seed=3)
        assert_node_seats_clean(ref.wait_games([gid])[gid], {"node-d"})
        ref.close()     # SIGTERM: the referee drains, then stops
        started = time.monotonic()
        code = bot.proc.wait(timeout=15)
        assert time.monotonic() - started < 5, bot.stderr()
    finally:
        bot.stop()
        ref.close()
    assert code == 0, bot.stderr()
    assert "the referee drained" in bot.stderr() and "reconnecting in" not in bot.stderr(), bot.stderr()


@pytest.mark.parametrize("policy", ["agreed", "grpc-default"])
def test_an_idle_bot_keeps_its_connection_under_the_agreed_ping_policy(node, tmp_path, monkeypatch, policy):
    """Both sides' keepalive scaled by 1/30 (as in tests/sdk/test_sdk_keepalive.py): the bot pings every second.
    Under the referee's policy (pings 20 s apart, scaled) it keeps its stream; gRPC's default (5 minutes,
    scaled) tells it to go away within seconds, the failure idle bots used to see after about 160 s."""
    from pepper_bot.runner import KEEPALIVE_TIME_MS

    from referee.service.config import MIN_PING_INTERVAL_MS
    scale = 1000 / KEEPALIVE_TIME_MS
    min_ping_ms = MIN_PING_INTERVAL_MS if policy == "agreed" else 300_000
    ref = Referee(tmp_path, "127.0.0.1:0", "--min-ping-interval-ms", str(round(min_ping_ms * scale)))
    monkeypatch.setenv("PEPPER_KEEPALIVE_MS", "1000")
    bot = NodeBot(node, tmp_path, ref.address, "node-k", ref.register("node-k"))
    try:
        ref.wait_connections("node-k", 1, bot)
        end = time.monotonic() + 8
        while time.monotonic() < end and "ended" not in bot.stderr():
            time.sleep(0.2)
        if policy == "agreed":
            assert "ended" not in bot.stderr() and bot.stderr().count("connected to") == 1, bot.stderr()
            assert ref.connections("node-k") == 1
        else:
            assert "ended" in bot.stderr(), bot.stderr()
    finally:
        code = bot.stop()
        ref.close()
    assert code == 0, bot.stderr()
