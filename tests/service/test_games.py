"""Full games over gRPC: a real server subprocess, real bot subprocesses, every ruleset and player count."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from pepper_proto.v1 import control_pb2, game_pb2
from referee_harness import RULESET_CASES, assert_clean, status_name

from referee.rules import CARDS, Game

pytestmark = pytest.mark.xdist_group("referee-games")

BOTS = {"alice": "alice-token-123", "bob": "bob-token-4567", "carol": "carol-token-89"}


def check_replays(res: control_pb2.GameResult) -> Game:
    """The recorded game replays through the engine to the outcome the server reported."""
    rec = json.loads(res.record_json)
    g = Game.from_record(rec)
    assert g.is_over
    assert list(g.outcome.scores) == list(res.scores)
    assert list(g.outcome.winners) == list(res.winners)
    assert g.outcome.deals == res.deals
    assert len(g.history) == res.decisions
    assert sum(s.decisions for s in res.seats) == res.decisions  # no faults: every decision came from a bot
    return g


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from referee_harness import Server

    s = Server(tmp_path_factory.mktemp("games"), bots=BOTS)
    for name in BOTS:
        s.bot(name, "--batch", "64")
    yield s
    s.close()


@pytest.mark.parametrize("ruleset,players", RULESET_CASES)
def test_short_game_every_ruleset_and_player_count(served, ruleset, players):
    seats = [list(BOTS)[i % 3] for i in range(players)]
    ids = [served.create(seats, ruleset, deal_cap=6, seed=seed) for seed in range(5)]
    results = served.wait_games(ids, timeout=60)
    for gid in ids:
        res = results[gid]
        assert_clean(res)
        assert res.ruleset == f"{ruleset}-custom" and res.players == players
        g = check_replays(res)
        assert g.outcome.reason in ("deal-cap", "target")
        assert [s.bot_name for s in res.seats] == seats
        assert all(s.latency_p50_ms > 0 and s.latency_p99_ms >= s.latency_p50_ms for s in res.seats)


def test_full_length_games_default_rulesets(served):
    """The built-in rulesets unchanged, played to the target or the 200-deal cap (all four at once)."""
    cases = {"iowa": 4, "bid-euchre": 6, "pepper-30": 3, "five-handed": 5}
    ids = {rs: served.create([list(BOTS)[i % 3] for i in range(n)], rs, seed=11) for rs, n in cases.items()}
    results = served.wait_games(ids.values(), timeout=120)
    for rs, gid in ids.items():
        res = results[gid]
        assert_clean(res)
        assert res.ruleset == rs
        g = check_replays(res)
        assert g.outcome.reason == "target" or res.deals == 200


def test_seed_and_explicit_decks_are_honoured(served):
    deck = [r + s for s in "SHDC" for r in ("9", "10", "J", "Q", "K", "A")]
    gid = served.create(["alice", "bob", "carol", "alice"], "iowa", deal_cap=2, seed=99,
                        decks=[control_pb2.Deck(cards=deck)], first_dealer=3)
    res = served.wait_games([gid])[gid]
    assert_clean(res)
    rec = json.loads(res.record_json)
    assert rec["seed"] == 99 == res.seed and rec["first_dealer"] == 3 and rec["decks"] == [deck]
    full = json.loads(res.full_state_json)
    assert full["decks"][0] == deck
    # dealt one at a time from the dealer's left (seat 0): seat 0 got 9S, QS, 9H, ...
    first_hand = [e for e in Game.from_record(rec).events if e.kind == "hand" and e.seat == 0][0]
    assert sorted(str(CARDS[c]) for c in first_hand.data) == sorted(deck[0::4])


def test_spectator_stream_hides_private_events_until_over(served):
    gid = served.create(["alice", "bob", "carol", "bob"], "iowa", deal_cap=3, seed=5)
    msgs = list(served.control.WatchGame(control_pb2.WatchGameRequest(game_id=gid), metadata=served.md))
    assert msgs[-1].WhichOneof("item") == "result"
    res = msgs[-1].result
    assert_clean(res)
    events = [m.event for m in msgs[:-1]]
    g = Game.from_record(json.loads(res.record_json))
    # every event arrives exactly once, and the private ones only after the game-over event
    assert sorted(e.index for e in events) == list(range(len(g.events)))
    over_at = next(i for i, e in enumerate(events) if e.kind == game_pb2.EVENT_KIND_GAME_OVER)
    for i, e in enumerate(events):
        private = g.events[e.index].visible_to >= 0
        assert e.HasField("visible_to") == private
        if private:
            assert i > over_at
    # a finished game can be watched again: everything at once
    again = list(served.control.WatchGame(control_pb2.WatchGameRequest(game_id=gid), metadata=served.md))
    assert len(again) == len(msgs)


def test_a_thousand_concurrent_games_over_four_connections(tmp_path):
    """1,000 games running at once, multiplexed over 4 bot processes (2 per bot name).

    Bots answer faster than games can be created, so the bot processes are paused (SIGSTOP)
    while the games are created (long deadline: nothing times out meanwhile), the server is seen
    holding all 1,000 running, then the bots resume and every game must finish cleanly.
    """
    from referee_harness import Server

    s = Server(tmp_path, bots={"x": "x-token-0001", "y": "y-token-0002"})
    procs = []
    try:
        procs = [s.bot(name, "--batch", "128", wait=False).proc for name in ("x", "y", "x", "y")]
        s.wait_connections("x", n=2)
        s.wait_connections("y", n=2)
        cases = [("iowa", 4), ("bid-euchre", 4), ("pepper-30", 3), ("five-handed", 5)]
        policy = control_pb2.GamePolicy(deadline_ms=120_000)
        reqs = []
        for i in range(1000):
            rs, n = cases[i % 4]
            reqs.append(control_pb2.CreateGameRequest(
                ruleset_json=json.dumps({"extends": rs, "deal_cap": 2}), players=n,
                seats=[("x", "y")[(i + k) % 2] for k in range(n)], seed=i, policy=policy))
        for p in procs:
            os.kill(p.pid, signal.SIGSTOP)
        t0 = time.time()
        ids = s.create_many(reqs)
        running = s.list_games(game_pb2.GAME_STATUS_RUNNING)
        assert len(running) == 1000 and {g.game_id for g in running} == set(ids)
        bots = {b.name: b for b in s.control.ListBots(control_pb2.ListBotsRequest(), metadata=s.md).bots}
        assert bots["x"].connections == 2 and bots["y"].connections == 2
        # every seat of every game is held by one of the 4 connections
        assert bots["x"].active_seats + bots["y"].active_seats == sum(len(r.seats) for r in reqs)
        for p in procs:
            os.kill(p.pid, signal.SIGCONT)
        results = s.wait_games(ids, timeout=180)
        elapsed = time.time() - t0
        conns = set()
        for gid in ids:
            res = results[gid]
            assert_clean(res)
            conns.update(seat.connection_id for seat in res.seats)
        assert len(conns) == 4  # the seats were spread over every connection
        decisions = sum(r.decisions for r in results.values())
        print(f"1000 games at once, {decisions} decisions in {elapsed:.1f}s ({decisions / elapsed:.0f}/s)")
        sample = [results[g] for g in ids[:40]]
        for res in sample:
            check_replays(res)
        assert all(status_name(r.status) == "GAME_STATUS_COMPLETED" for r in results.values())
    finally:
        for p in procs:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)   # a stopped bot would not act on the SIGTERM that closes it
        s.close()


def test_play_forced_skips_only_the_publicly_forced_decisions(tmp_path):
    """With GamePolicy.play_forced the referee plays a move every seat can tell is forced (Game.publicly_forced)
    itself: the bot is asked every other decision, including those only its hidden cards force, sees every play
    as an event, and the game replays the same."""
    from pepper_proto.v1 import bot_pb2
    from referee_harness import Server
    from test_audit import read_record

    s = Server(tmp_path, bots={"p0": "p0-token-forced", "p1": "p1-token-forced"})
    try:
        bots = [s.bot(n, "--batch", "64", record=True) for n in ("p0", "p1")]
        policy = control_pb2.GamePolicy(play_forced=True)
        ids = [s.create(["p0", "p1", "p0", "p1"], "iowa", deal_cap=4, seed=seed, policy=policy) for seed in range(6)]
        results = s.wait_games(ids, timeout=60)
        for b in bots:
            b.stop()
        requests: list[bot_pb2.DecisionRequest] = []
        plays_seen = 0
        for b in bots:
            for m in read_record(b.record):
                for item in (m.batch.items if m.WhichOneof("message") == "batch" else ()):
                    kind = item.WhichOneof("item")
                    if kind == "request":
                        requests.append(item.request)
                    elif kind == "event" and item.event.kind == game_pb2.EVENT_KIND_PLAY:
                        plays_seen += 1
        # Forced by hidden cards (one card of the suit led) is still asked: skipping it would tell the table.
        assert requests and any(len(r.legal_actions) == 1 and len(r.view.hand) > 1 for r in requests)
        assert not any(r.kind == game_pb2.DECISION_KIND_PLAY and len(r.view.hand) == 1 for r in requests)
        forced = asked = plays = 0
        for gid in ids:
            res = results[gid]
            assert_clean(res)
            g = Game.from_record(json.loads(res.record_json))
            replay = Game(g.ruleset, 4, seed=res.seed)
            for a in g.history:
                if replay.publicly_forced() is not None:
                    forced += 1
                else:
                    asked += 1
                plays += replay.phase.name == "PLAY"
                replay.apply(a)
            assert replay.outcome == g.outcome and len(g.history) == res.decisions
        # Every decision with a choice was asked and answered by a bot; none of the forced ones was.
        assert forced > 0 and asked == len(requests) == sum(x.decisions for r in results.values() for x in r.seats)
        # Each connection holds two seats of every game and sees every play once per game.
        assert plays_seen == 2 * plays
    finally:
        s.close()
