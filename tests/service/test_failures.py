"""Every failure kind, each with its recorded outcome, while other games on the same server carry on unaffected."""

from __future__ import annotations

import json

import pytest
from pepper_proto.v1 import control_pb2, game_pb2
from referee_harness import Server, assert_clean, seat_status_name, status_name

from referee.rules import Game

pytestmark = pytest.mark.xdist_group("referee-failures")

GOOD = {"good1": "good1-token-aa", "good2": "good2-token-bb"}
BAD = ["illegal", "malformed", "badindex", "sleepy", "hang", "crashy", "unknown", "guess", "wronggame"]
TOKENS = GOOD | {n: f"{n}-token-xyz" for n in BAD}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("failures"), bots=TOKENS)
    s.bot("good1")
    s.bot("good2")
    yield s
    s.close()


def with_controls(s: Server, make_bad, n_controls: int = 4, deal_cap: int = 3):
    """Start control games among good bots around the games under test; check the controls stayed clean."""
    rulesets = [("iowa", 4), ("bid-euchre", 4), ("pepper-30", 3), ("five-handed", 5)]
    controls = []
    for i in range(n_controls):
        rs, n = rulesets[i % 4]
        controls.append(s.create([("good1", "good2")[k % 2] for k in range(n)], rs, deal_cap=deal_cap, seed=100 + i))
    bad = make_bad()
    for i in range(n_controls):
        rs, n = rulesets[i % 4]
        controls.append(s.create([("good2", "good1")[k % 2] for k in range(n)], rs, deal_cap=deal_cap, seed=200 + i))
    results = s.wait_games(controls + list(bad), timeout=90)
    for gid in controls:
        assert_clean(results[gid])
    return [results[g] for g in bad]


def seat0_faults(res, kind: int):
    return [f for f in res.faults if f.seat == 0 and f.kind == kind]


def replay(res) -> Game:
    g = Game.from_record(json.loads(res.record_json))
    assert len(g.history) == res.decisions
    return g


def test_illegal_answers_get_the_fallback_and_are_recorded(served):
    bot = served.bot("illegal", "--mode", "illegal", "--after", "0", "--count", "0")
    [res] = with_controls(served, lambda: [served.create(["illegal", "good1", "good2", "good1"], "iowa", deal_cap=3, seed=7)])
    summary = bot.stop()
    assert status_name(res.status) == "GAME_STATUS_COMPLETED"
    s0 = res.seats[0]
    assert seat_status_name(s0.status) == "SEAT_STATUS_FAULTED"
    faults = seat0_faults(res, game_pb2.FAULT_KIND_ILLEGAL)
    assert s0.faults.illegal == len(faults) == len(res.faults) > 0
    assert s0.decisions == 0                       # nothing it answered was accepted
    assert all(f.policy == game_pb2.FAILURE_POLICY_FALLBACK and f.fallback_action for f in faults)
    assert all(seat_status_name(s.status) == "SEAT_STATUS_OK" for s in res.seats[1:])
    g = replay(res)
    assert g.is_over
    # each fallback action is in the record, and was the first legal action at that point
    assert sum(s.decisions for s in res.seats) + len(faults) == res.decisions
    assert summary["notices"]["NOTICE_CODE_ILLEGAL_ACTION"] == len(faults)
    assert summary["game_ends"] == {"GAME_STATUS_COMPLETED": 1}


def test_illegal_answer_with_abort_policy(served):
    bot = served.bot("illegal", "--mode", "illegal", "--after", "2", "--count", "1")
    policy = control_pb2.GamePolicy(on_illegal=game_pb2.FAILURE_POLICY_ABORT)
    [res] = with_controls(served, lambda: [served.create(["illegal", "good1", "good1", "good2"], "iowa", deal_cap=5, seed=8,
                                                         policy=policy)])
    bot.stop()
    assert status_name(res.status) == "GAME_STATUS_ABORTED"
    assert "illegal" in res.reason and not res.winners
    assert seat_status_name(res.seats[0].status) == "SEAT_STATUS_ABORTED"
    assert res.seats[0].faults.illegal == 1 and res.seats[0].decisions == 2
    g = replay(res)
    assert not g.is_over


def test_malformed_answer_forfeits_under_forfeit_policy(served):
    bot = served.bot("malformed", "--mode", "malformed", "--after", "1", "--count", "1")
    policy = control_pb2.GamePolicy(on_malformed=game_pb2.FAILURE_POLICY_FORFEIT)
    [res] = with_controls(served, lambda: [served.create(["malformed", "good1", "good2", "good1"], "iowa", deal_cap=5, seed=9,
                                                         policy=policy)])
    summary = bot.stop()
    assert status_name(res.status) == "GAME_STATUS_FORFEITED"
    assert list(res.winners) == [1] and list(res.winning_seats) == [1, 3]   # seat 0's team (0, 2) lost
    assert seat_status_name(res.seats[0].status) == "SEAT_STATUS_FORFEITED"
    assert res.seats[0].faults.malformed == 1
    assert "forfeited" in res.reason and "malformed" in res.reason
    assert summary["notices"]["NOTICE_CODE_MALFORMED_ANSWER"] == 1
    assert summary["game_ends"] == {"GAME_STATUS_FORFEITED": 1}


def test_out_of_range_index_is_malformed_and_gets_the_fallback(served):
    bot = served.bot("badindex", "--mode", "bad-index", "--after", "0", "--count", "3")
    [res] = with_controls(served, lambda: [served.create(["badindex", "good1", "good2", "good1", "good2"], "five-handed",
                                                         deal_cap=2, seed=10)])
    bot.stop()
    assert status_name(res.status) == "GAME_STATUS_COMPLETED"
    assert res.seats[0].faults.malformed == 3 and seat_status_name(res.seats[0].status) == "SEAT_STATUS_FAULTED"
    assert all("out of range" in f.detail for f in res.faults)


def test_timeouts_draw_on_the_time_bank_then_fall_back(served):
    # deadline 150 ms, bank 600 ms; the bot sleeps 500 ms on its first two decisions:
    # the first overruns by ~350 ms (taken from the bank), the second exceeds what is left.
    bot = served.bot("sleepy", "--mode", "sleep", "--sleep-s", "0.5", "--after", "0", "--count", "2")
    policy = control_pb2.GamePolicy(deadline_ms=150, time_bank_ms=600)
    [res] = with_controls(served, lambda: [served.create(["sleepy", "good1", "good2"], "pepper-30", deal_cap=2, seed=11,
                                                         policy=policy)])
    summary = bot.stop()
    assert status_name(res.status) == "GAME_STATUS_COMPLETED"
    s0 = res.seats[0]
    assert s0.faults.timeout == 1, list(res.faults)
    assert seat_status_name(s0.status) == "SEAT_STATUS_FAULTED"
    assert s0.time_bank_left_ms == 0
    assert s0.latency_max_ms >= 450      # the first slow answer was accepted
    assert summary["notices"]["NOTICE_CODE_TIMEOUT"] == 1
    assert summary["notices"]["NOTICE_CODE_STALE_REQUEST"] == 1   # its late answer was refused


def test_a_bot_that_never_answers_forfeits_on_timeout(served):
    bot = served.bot("hang", "--mode", "hang", "--after", "1")
    policy = control_pb2.GamePolicy(deadline_ms=100, time_bank_ms=100, on_timeout=game_pb2.FAILURE_POLICY_FORFEIT)
    [res] = with_controls(served, lambda: [served.create(["good1", "hang", "good2", "good1"], "iowa", deal_cap=4, seed=12,
                                                         policy=policy)])
    bot.stop()
    assert status_name(res.status) == "GAME_STATUS_FORFEITED"
    assert res.seats[1].faults.timeout == 1 and seat_status_name(res.seats[1].status) == "SEAT_STATUS_FORFEITED"
    assert list(res.winning_seats) == [0, 2]


def test_a_crashing_bot_forfeits_or_is_played_by_fallback_per_policy(served):
    bot = served.bot("crashy", "--mode", "crash", "--after", "2")
    fallback = control_pb2.GamePolicy(on_disconnect=game_pb2.FAILURE_POLICY_FALLBACK)

    def make():
        return [served.create(["crashy", "good1", "good2", "good1"], "iowa", deal_cap=3, seed=13),            # default: forfeit
                served.create(["good1", "crashy", "good2", "good2"], "iowa", deal_cap=3, seed=14, policy=fallback)]

    forfeited, completed = with_controls(served, make)
    assert bot.proc.wait(timeout=20) == 3
    assert status_name(forfeited.status) == "GAME_STATUS_FORFEITED"
    assert forfeited.seats[0].faults.disconnect == 1
    assert seat_status_name(forfeited.seats[0].status) == "SEAT_STATUS_FORFEITED"
    assert list(forfeited.winning_seats) == [1, 3]
    assert status_name(completed.status) == "GAME_STATUS_COMPLETED"
    s1 = completed.seats[1]
    assert s1.faults.disconnect == 1 and seat_status_name(s1.status) == "SEAT_STATUS_DISCONNECTED"
    assert replay(completed).is_over
    served.wait_connections("crashy", n=0)


def test_unknown_foreign_and_wrong_game_answers_are_rejected_without_harm(served):
    """Answers to ids never issued, to other connections' requests, or naming another game change nothing."""
    bots = {name: served.bot(name, "--mode", mode) for name, mode in
            (("unknown", "unknown"), ("guess", "guess"), ("wronggame", "wrong-game"))}
    good_bot = served.bot("good2")

    def make():
        return [served.create([name, "good1", "good2", "good1"], "iowa", deal_cap=3, seed=20 + i) for i, name in enumerate(bots)] + \
               [served.create(["guess", "good2", "guess", "good2"], "bid-euchre", deal_cap=3, seed=30)]

    results = with_controls(served, make, n_controls=6)
    for res in results:
        assert_clean(res)     # no fault was recorded against anyone, and every game finished
        replay(res)
    summaries = {n: b.stop() for n, b in bots.items()}
    assert summaries["unknown"]["notices"]["NOTICE_CODE_UNKNOWN_REQUEST"] == summaries["unknown"]["decisions"]
    assert summaries["guess"]["notices"].get("NOTICE_CODE_UNKNOWN_REQUEST", 0) > 0
    assert summaries["wronggame"]["notices"]["NOTICE_CODE_WRONG_GAME"] == summaries["wronggame"]["decisions"]
    # the bots whose request ids were guessed never saw their own requests taken away
    good = good_bot.stop()
    assert "NOTICE_CODE_STALE_REQUEST" not in good["notices"] and good["decisions"] > 0


def test_max_faults_turns_fallbacks_into_a_forfeit(served):
    bot = served.bot("illegal", "--mode", "illegal")
    policy = control_pb2.GamePolicy(max_faults=2)
    [res] = with_controls(served, lambda: [served.create(["good1", "good2", "illegal"], "pepper-30", deal_cap=3, seed=40,
                                                         policy=policy)])
    bot.stop()
    assert status_name(res.status) == "GAME_STATUS_FORFEITED"
    assert res.seats[2].faults.illegal == 3
    assert [f.policy for f in res.faults] == [game_pb2.FAILURE_POLICY_FALLBACK] * 2 + [game_pb2.FAILURE_POLICY_FORFEIT]
    assert list(res.winners) == [0, 1]   # pepper-30 with 3 players: everyone else wins


def test_server_wide_disconnect_policy_for_unknown_request_ids(tmp_path):
    s = Server(tmp_path, "--unknown-request", "disconnect", bots={"good1": GOOD["good1"], "unknown": TOKENS["unknown"]})
    try:
        s.bot("good1")
        bot = s.bot("unknown", "--mode", "unknown", "--after", "0")   # its very first answer names an unknown id
        gid = s.create(["unknown", "good1", "good1", "good1"], "iowa", deal_cap=5, seed=50)
        ok = s.create(["good1"] * 4, "iowa", deal_cap=3, seed=51)
        res = s.wait_games([gid, ok], timeout=60)
        assert status_name(res[gid].status) == "GAME_STATUS_FORFEITED"
        assert res[gid].seats[0].faults.disconnect == 1
        assert_clean(res[ok])
        assert bot.proc.wait(timeout=20) == 0   # the server ended its stream; it exits cleanly
        assert bot.summary()["notices"]["NOTICE_CODE_UNKNOWN_REQUEST"] >= 1
    finally:
        s.close()


def test_unknown_request_limit_drops_only_the_offending_connections(tmp_path):
    """With --unknown-request-limit 20, a bot guessing other connections' request ids, one naming the wrong game
    and one repeating closed ids are each dropped at the 21st such answer; each got a bounded number of notices
    (a closed id is noticed as stale once, then it is unknown), and the other bots' games carry on unaffected."""
    from test_audit import read_record

    limit = 20
    bad = {"guess": "guess", "wronggame": "wrong-game", "stale": "stale"}
    s = Server(tmp_path, "--unknown-request-limit", str(limit), bots={n: TOKENS.get(n, f"{n}-token-xyz") for n in [*GOOD, *bad]})
    try:
        goods = [s.bot("good1"), s.bot("good2")]
        bots = {name: s.bot(name, "--mode", mode, record=name == "wronggame") for name, mode in bad.items()}

        def make():
            # Long games (20 deals, a target no one reaches): each bad bot is asked far more than `limit` times
            # unless it is dropped. (With the usual target a game of random play may end first: seen under load.)
            return [s.create([name, "good1", "good2", "good1"], "iowa", deal_cap=20, target_score=10_000, seed=60 + i)
                    for i, name in enumerate(bad)]

        results = dict(zip(bad, with_controls(s, make, n_controls=4)))
        for name, res in results.items():
            assert status_name(res.status) == "GAME_STATUS_FORFEITED", (name, res.reason)
            assert res.seats[0].faults.disconnect == 1 and "disconnect" in res.reason
            assert seat_status_name(res.seats[0].status) == "SEAT_STATUS_FORFEITED"
            assert all(seat_status_name(x.status) == "SEAT_STATUS_OK" for x in res.seats[1:])
        summaries = {}
        for name, b in bots.items():
            assert b.proc.wait(timeout=20) == 0, name    # the server ended its stream
            summaries[name] = b.summary()
        s.wait_connections("guess", n=0)
        guess, wrong, stale = summaries["guess"]["notices"], summaries["wronggame"]["notices"], summaries["stale"]["notices"]
        assert guess["NOTICE_CODE_UNKNOWN_REQUEST"] == limit + 1
        assert guess.get("NOTICE_CODE_STALE_REQUEST", 0) <= summaries["guess"]["decisions"]   # its own closed ids, once each
        assert wrong == {"NOTICE_CODE_WRONG_GAME": limit + 1} and summaries["wronggame"]["decisions"] == limit + 1
        # each answer repeated twice: the first repeat is stale, the second unknown
        assert stale == {"NOTICE_CODE_STALE_REQUEST": limit + 1, "NOTICE_CODE_UNKNOWN_REQUEST": limit + 1}
        last = [it.notice for m in read_record(bots["wronggame"].record) if m.WhichOneof("message") == "batch"
                for it in m.batch.items if it.WhichOneof("item") == "notice"][-1]
        assert "connection closed" in last.message and f"limit of {limit}" in last.message, last.message
        # the good bots kept their connections and were refused nothing, but for an answer to a request
        # withdrawn when a bad bot's forfeit ended the game (at most one per bad game)
        listed = {b.name: b for b in s.control.ListBots(control_pb2.ListBotsRequest(), metadata=s.md).bots}
        assert listed["good1"].connections == listed["good2"].connections == 1
        cancelled = 0
        for g in goods:
            summary = g.stop()
            assert set(summary["notices"]) <= {"NOTICE_CODE_CANCELLED"} and summary["decisions"] > 0, summary
            cancelled += summary["notices"].get("NOTICE_CODE_CANCELLED", 0)
        assert cancelled <= len(bad)
    finally:
        s.close()
