"""The control API, authentication, health, reflection, TLS, limits, draining and graceful shutdown."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc, control_pb2, game_pb2
from referee_harness import ROOT, Server, assert_clean, status_name

from referee import wire

pytestmark = pytest.mark.xdist_group("referee-control")

BOTS = {"amy": "amy-token-0001", "ben": "ben-token-0002", "rogue": "rogue-token-003", "sloth": "sloth-token-04"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("control"), bots=BOTS)
    s.bot("amy")
    s.bot("ben")
    yield s
    s.close()


def code_of(call) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as e:
        call()
    return e.value.code(), e.value.details()


def raw_stream(s: Server, *msgs: bot_pb2.ConnectRequest, hold: threading.Event | None = None):
    """A hand-made bot stream: sends ``msgs`` then (optionally) holds the stream open until ``hold`` is set."""
    def gen():
        yield from msgs
        if hold is not None:
            hold.wait(10)
    return bot_pb2_grpc.BotServiceStub(s.channel).Connect(gen())


def hello(name="amy", token=None, version="1.0", batch=0):
    return bot_pb2.ConnectRequest(hello=bot_pb2.Hello(bot_name=name, protocol_version=version,
                                                      token=token if token is not None else BOTS.get(name, ""), max_batch=batch))


# ---------------------------------------------------------------- authentication
def test_control_api_requires_the_control_token(served):
    req = control_pb2.ListBotsRequest()
    assert code_of(lambda: served.control.ListBots(req))[0] == grpc.StatusCode.UNAUTHENTICATED
    code, details = code_of(lambda: served.control.ListBots(req, metadata=[("authorization", "Bearer wrong")]))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "control token" in details
    # a bot token is not a control token
    assert code_of(lambda: served.control.ListBots(req, metadata=[("authorization", f"Bearer {BOTS['amy']}")]))[0] \
        == grpc.StatusCode.UNAUTHENTICATED


def test_bot_hello_is_checked(served):
    code, details = code_of(lambda: list(raw_stream(served, hello(token="not-the-token"))))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "wrong token" in details
    code, details = code_of(lambda: list(raw_stream(served, hello(name="nobody", token="whatever-123"))))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    code, details = code_of(lambda: list(raw_stream(served, hello(version="2.0"))))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and wire.PROTOCOL_VERSION in details
    code, details = code_of(lambda: list(raw_stream(served, bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch()))))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "Hello" in details


def test_welcome_caps_the_batch_size_and_registration_issues_tokens(served):
    hold = threading.Event()
    stream = raw_stream(served, hello(batch=100_000, version="1.7"), hold=hold)
    first = next(stream)
    assert first.WhichOneof("message") == "welcome"
    assert first.welcome.max_batch == 256 and first.welcome.protocol_version == wire.PROTOCOL_VERSION
    hold.set()
    stream.cancel()
    r = served.control.RegisterBot(control_pb2.RegisterBotRequest(name="newbie"), metadata=served.md)
    assert len(r.token) >= 16
    served.bots_tokens["newbie"] = r.token
    bot = served.bot("newbie")
    gid = served.create(["newbie", "amy", "ben", "amy"], "iowa", deal_cap=2, seed=3)
    assert_clean(served.wait_games([gid])[gid])
    bot.stop()
    code, details = code_of(lambda: served.control.RegisterBot(control_pb2.RegisterBotRequest(name="bad name!"), metadata=served.md))
    assert code == grpc.StatusCode.INVALID_ARGUMENT


# ---------------------------------------------------------------- creating games
@pytest.mark.parametrize("kw,code,words", [
    (dict(ruleset="whist", seats=["amy"] * 4), grpc.StatusCode.INVALID_ARGUMENT, "unknown ruleset"),
    (dict(ruleset="iowa", seats=["amy"] * 3, players=3), grpc.StatusCode.INVALID_ARGUMENT, "played by 4"),
    (dict(ruleset="iowa", seats=["amy"] * 3), grpc.StatusCode.INVALID_ARGUMENT, "3 bots for a 4-player"),
    (dict(ruleset="iowa", seats=["amy", "zed", "amy", "amy"]), grpc.StatusCode.NOT_FOUND, "zed"),
    (dict(ruleset="iowa", seats=["amy"] * 4, decks=[control_pb2.Deck(cards=["JH"] * 24)]), grpc.StatusCode.INVALID_ARGUMENT,
     "not a complete"),
    (dict(ruleset_toml="extends = 'iowa'\ndeal_cap = 'many'", seats=["amy"] * 4), grpc.StatusCode.INVALID_ARGUMENT, "deal_cap"),
    (dict(ruleset_toml="extends = [", seats=["amy"] * 4), grpc.StatusCode.INVALID_ARGUMENT, "cannot parse"),
    (dict(ruleset_json='{"extends": "iowa", "colour": 1}', seats=["amy"] * 4), grpc.StatusCode.INVALID_ARGUMENT, "unknown key"),
    (dict(ruleset="iowa", seats=["amy"] * 4, game_id="has space"), grpc.StatusCode.INVALID_ARGUMENT, "bad game id"),
])
def test_bad_create_requests_get_clear_errors(served, kw, code, words):
    got, details = code_of(lambda: served.control.CreateGame(control_pb2.CreateGameRequest(**kw), metadata=served.md))
    assert got == code and words in details, details


def test_game_ids_are_unique_and_rulesets_can_be_sent_as_toml(served):
    toml = 'extends = "pepper-30"\nname = "short-30"\ndeal_cap = 2\ntarget_score = 10\n'
    req = control_pb2.CreateGameRequest(game_id="mine-1", ruleset_toml=toml, players=2, seats=["amy", "ben"], seed=4)
    assert served.control.CreateGame(req, metadata=served.md).game_id == "mine-1"
    code, details = code_of(lambda: served.control.CreateGame(req, metadata=served.md))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    res = served.wait_games(["mine-1"])["mine-1"]
    assert_clean(res)
    assert res.ruleset == "short-30" and json.loads(res.record_json)["ruleset_params"]["target_score"] == 10
    listed = served.control.ListGames(control_pb2.ListGamesRequest(status=game_pb2.GAME_STATUS_COMPLETED), metadata=served.md).games
    assert "mine-1" in {g.game_id for g in listed} and all(not g.record_json for g in listed)
    assert code_of(lambda: served.control.GetGame(control_pb2.GetGameRequest(game_id="nope"), metadata=served.md))[0] \
        == grpc.StatusCode.NOT_FOUND


def test_wait_game_answers_once_the_game_is_over(served):
    toml = 'extends = "pepper-30"\nname = "wait-30"\ndeal_cap = 3\n'
    req = control_pb2.CreateGameRequest(game_id="wait-1", ruleset_toml=toml, players=2, seats=["amy", "ben"], seed=9)
    served.control.CreateGame(req, metadata=served.md)
    res = served.control.WaitGame(control_pb2.WaitGameRequest(game_id="wait-1"), metadata=served.md).result
    assert res.game_id == "wait-1" and status_name(res.status) == "GAME_STATUS_COMPLETED"
    assert json.loads(res.record_json)["outcome"]["deals"] == res.deals >= 1
    assert code_of(lambda: served.control.WaitGame(control_pb2.WaitGameRequest(game_id="nope"), metadata=served.md))[0] \
        == grpc.StatusCode.NOT_FOUND


def test_a_running_game_shows_nothing_of_the_deal_to_control_clients(served):
    """GetGame / ListGames on a running game: no seed, no record (both rebuild every hand), no hidden cards, and
    a fault without the legal actions its detail lists; once the game is over all of it is there and replays."""
    from referee.rules import Game

    rogue = served.bot("rogue", "--mode", "illegal", "--after", "0", "--count", "1")
    sloth = served.bot("sloth", "--mode", "sleep", "--sleep-s", "1.0", "--after", "0", "--count", "1")
    try:
        # first_dealer 3: seat 0 (rogue: one illegal bid) acts first, then seat 1 (sloth) holds the game for 1 s
        gid = served.create(["rogue", "sloth", "amy", "ben"], "iowa", deal_cap=2, seed=77, first_dealer=3,
                            policy=control_pb2.GamePolicy(deadline_ms=20_000))
        seen = 0
        while True:
            res = served.get(gid)
            listed = [g for g in served.control.ListGames(control_pb2.ListGamesRequest(), metadata=served.md).games
                      if g.game_id == gid]
            if status_name(res.status) != "GAME_STATUS_RUNNING":
                break
            # ListGames comes a moment after GetGame: the game may have ended in between, and then shows it all.
            for r in (res, *(g for g in listed if status_name(g.status) == "GAME_STATUS_RUNNING")):
                assert r.seed == 0 and not r.record_json and not r.full_state_json, r
                assert all("legal:" not in f.detail for f in r.faults), list(r.faults)
            seen += bool(res.faults)
            time.sleep(0.05)
        assert seen >= 3, "the game was not seen running after the fault"
        res = served.wait_games([gid])[gid]
        assert status_name(res.status) == "GAME_STATUS_COMPLETED" and res.seed == 77
        [fault] = res.faults
        assert fault.seat == 0 and "legal:" in fault.detail and fault.fallback_action
        assert json.loads(res.full_state_json)["decks"]
        g = Game.from_record(json.loads(res.record_json))
        assert g.is_over and g.seed == 77 and list(g.outcome.scores) == list(res.scores) and len(g.history) == res.decisions
        waited = served.control.WaitGame(control_pb2.WaitGameRequest(game_id=gid), metadata=served.md).result
        assert waited.seed == 77 and waited.record_json == res.record_json
    finally:
        rogue.stop()
        sloth.stop()


def test_a_bot_without_a_live_connection_cannot_be_seated(served):
    served.control.RegisterBot(control_pb2.RegisterBotRequest(name="ghost", token="ghost-token-1"), metadata=served.md)
    code, details = code_of(lambda: served.create(["ghost", "amy", "ben", "amy"], "iowa"))
    assert code == grpc.StatusCode.UNAVAILABLE and "no live connection" in details


# ---------------------------------------------------------------- operations
def test_health_and_reflection_are_served(served):
    h = health_pb2_grpc.HealthStub(served.channel)
    for svc in ("", "pepper.v1.BotService", "pepper.v1.ControlService"):
        assert h.Check(health_pb2.HealthCheckRequest(service=svc)).status == health_pb2.HealthCheckResponse.SERVING
    r = reflection_pb2_grpc.ServerReflectionStub(served.channel)
    resp = list(r.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")])))
    names = {s.name for s in resp[0].list_services_response.service}
    assert {"pepper.v1.BotService", "pepper.v1.ControlService", "grpc.health.v1.Health"} <= names
    resp = list(r.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(file_containing_symbol="pepper.v1.BotService")])))
    assert resp[0].file_descriptor_response.file_descriptor_proto


def test_oversized_messages_are_refused_and_the_server_carries_on(tmp_path):
    s = Server(tmp_path, "--max-message-bytes", str(64 * 1024), bots=BOTS)
    try:
        big = bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch(answers=[bot_pb2.Answer(request_id=1, action="x" * 100_000)]))
        code, _ = code_of(lambda: list(raw_stream(s, hello(), big)))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        s.bot("amy")
        s.bot("ben")
        gid = s.create(["amy", "ben", "amy", "ben"], "iowa", deal_cap=2, seed=1)
        assert_clean(s.wait_games([gid])[gid])
    finally:
        s.close()


def _self_signed(tmp_path):
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return str(cert), str(key)


def test_tls(tmp_path):
    s = Server(tmp_path, bots=BOTS, tls=_self_signed(tmp_path))
    try:
        s.bot("amy")
        s.bot("ben")
        gid = s.create(["amy", "ben", "amy", "ben"], "bid-euchre", deal_cap=2, seed=2)
        assert_clean(s.wait_games([gid])[gid])
        plain = grpc.insecure_channel(s.address)
        from pepper_proto.v1 import control_pb2_grpc
        with pytest.raises(grpc.RpcError) as e:
            control_pb2_grpc.ControlServiceStub(plain).ListBots(control_pb2.ListBotsRequest(), metadata=s.md, timeout=3)
        assert e.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
        plain.close()
    finally:
        s.close()


def test_drain_finishes_or_aborts_every_game_and_refuses_new_ones(tmp_path):
    s = Server(tmp_path, bots=BOTS)
    try:
        s.bot("amy")
        s.bot("ben", "--mode", "sleep", "--sleep-s", "0.2")
        quick = s.create(["amy"] * 4, "iowa", deal_cap=1, seed=1)
        slow = s.create(["ben", "amy", "amy", "amy"], "iowa", seed=2)    # 200 deals at 0.2 s a decision: cannot finish
        time.sleep(0.3)
        r = s.control.Drain(control_pb2.DrainRequest(timeout_s=1.0), metadata=s.md)
        assert r.aborted == 1
        res = s.get(slow)
        assert status_name(res.status) == "GAME_STATUS_ABORTED" and "drained" in res.reason
        assert status_name(s.get(quick).status) == "GAME_STATUS_COMPLETED"
        assert json.loads(res.record_json)["actions"]       # what was played is kept
        code, details = code_of(lambda: s.create(["amy"] * 4, "iowa"))
        assert code == grpc.StatusCode.UNAVAILABLE and "draining" in details
        h = health_pb2_grpc.HealthStub(s.channel)
        assert h.Check(health_pb2.HealthCheckRequest(service="")).status == health_pb2.HealthCheckResponse.NOT_SERVING
    finally:
        s.close()


def test_sigterm_drains_and_records_every_game(tmp_path):
    rec = tmp_path / "records"
    s = Server(tmp_path, "--record-dir", str(rec), "--drain-timeout", "1", bots=BOTS)
    try:
        s.bot("amy")
        s.bot("ben", "--mode", "sleep", "--sleep-s", "0.1")
        done = s.create(["amy"] * 4, "iowa", deal_cap=1, seed=1)
        s.wait_games([done])
        running = [s.create(["ben", "amy", "amy", "amy"], "iowa", seed=k) for k in range(3)]
        time.sleep(0.3)
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(timeout=20) == 0
        files = {p.stem: json.loads(p.read_text()) for p in rec.glob("*.json")}
        assert set(files) == {done, *running}
        assert files[done]["status"] == "GAME_STATUS_COMPLETED"
        for gid in running:
            f = files[gid]
            assert f["status"] == "GAME_STATUS_ABORTED" and "drained" in f["reason"]
            assert f["record"]["format"] == "pepper-game/1" and f["record"]["actions"]
            assert [x["status"] for x in f["seats"]] == ["SEAT_STATUS_OK"] * 4
    finally:
        s.close()


def test_cli_reports_bad_options_and_prints_the_bound_address(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pepper_cli.referee", "serve", "--on-timeout", "explode", "--control-token", "t"],
                         cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "explode" in out.stderr
    out = subprocess.run([sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "nonsense", "--control-token", "t"],
                         cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "HOST:PORT" in out.stderr
    p = subprocess.Popen([sys.executable, "-m", "pepper_cli.referee", "serve", "--address", "127.0.0.1:0"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("listening on 127.0.0.1:") and int(line.rsplit(":", 1)[1]) > 0
        assert p.stderr.readline().startswith("control token: ")   # generated when none is given
        assert "--record-dir" in p.stderr.readline()                 # results live in memory only: say so
    finally:
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=20) == 0
