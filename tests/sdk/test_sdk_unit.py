"""The SDK without a network: wire -> dict conversion, answer matching, batches, targets."""

from __future__ import annotations

import os
import random
import re
import time

import pytest
from pepper_bot import Bot, PolicyBot, as_bot, event_to_dict, match_action, request_view, view_to_dict
from pepper_bot.runner import FLUSH_AFTER_S, Runner
from pepper_proto.v1 import bot_pb2
from sdk_harness import CONFIGS

from referee import wire
from referee.rules import CARDS, Game, get_ruleset, ruleset_from_dict
from sample_bots import BOTS, HeuristicBot, MonteCarloBot, RandomBot
from sample_bots.adapter import EngineBot, ruleset_of


def _engine_view(g: Game, seat: int) -> dict:
    d = g.view(seat).to_dict()
    d.pop("legal_actions")
    return d


def _sdk_view(g: Game, seat: int) -> dict:
    d = view_to_dict(wire.view_to_proto(g.view(seat)))
    if d["contract"] is not None:
        assert d["contract"].pop("tricks_needed") == g.contract.tricks_needed
    return d


@pytest.mark.parametrize("ruleset,players", CONFIGS)
def test_view_dict_matches_the_engine(ruleset, players):
    """The SDK's view of the wire SeatView is exactly SeatView.to_dict(), for every seat at every step."""
    rng = random.Random(players)
    for seed in range(3):
        g = Game(ruleset, players, seed=seed)
        steps = 0
        while not g.is_over and g.deal_number <= 3:
            for seat in range(players):
                assert _sdk_view(g, seat) == _engine_view(g, seat)
            g.apply(rng.choice(g.legal_action_ids()))
            steps += 1
        assert steps > 10


def test_request_view_adds_the_request_facts():
    g = Game("five-handed", 5, seed=3)
    seat = g.to_act
    legal = [str(a) for a in g.legal_actions()]
    r = bot_pb2.DecisionRequest(game_id="g7", request_id=42, seat=seat, kind=1, view=wire.view_to_proto(g.view(seat)),
                                legal_actions=legal, deadline_ms=900, time_bank_ms=5000)
    v = request_view(r, 700)
    assert v["legal_actions"] == legal and v["deadline_ms"] == 700 and v["time_bank_ms"] == 5000
    assert v["game_id"] == "g7" and v["request_id"] == 42 and v["phase"] == "bid" and v["to_act"] == seat
    assert request_view(r)["deadline_ms"] == 900
    # The sample policies accept it as is.
    for cls in BOTS.values():
        assert cls().decide(v) in legal


def test_events_convert_with_engine_kind_names():
    g = Game("five-handed", 5, seed=11)
    rng = random.Random(1)
    while not g.is_over and g.deal_number < 3:
        g.apply(rng.choice(g.legal_action_ids()))
    kinds = set()
    for i, e in g.events_for(2):
        d = event_to_dict(wire.event_to_proto("gx", i, e, seat=None if e.visible_to < 0 else 2))
        assert d["kind"] == e.kind and d["index"] == i and d["game_id"] == "gx" and d["actor"] == e.seat
        kinds.add(d["kind"])
        if e.kind == "deal_end":
            assert d["deal_result"] == e.data.to_dict()
        if e.kind == "play":
            assert d["cards"] == [str(CARDS[e.data])]
    assert {"deal", "hand", "bid", "play", "trick", "deal_end"} <= kinds


@pytest.mark.parametrize("ret,want", [
    ("play 10S", 1), ("  PLAY   10s ", 1), (0, 0), (2, 2), (3, None), (-1, None), (True, None), (None, None),
    ("play 9S", None), ("nonsense", None), (["play 10S"], None),
])
def test_match_action(ret, want):
    assert match_action(ret, ["play AS", "play 10S", "play JD"]) == want


def test_engine_bot_gives_other_engine_spellings_in_the_canonical_one():
    """The SDK knows no engine; the sample bots' adapter canonicalizes ("play TS" -> "play 10S")."""
    class Spelled:
        def decide(self, view):
            return "play TS"

    legal = ["play 9S", "play 10S"]
    assert match_action("play TS", legal) is None
    assert match_action(EngineBot(Spelled()).decide({"legal_actions": legal}), legal) == 1


def test_ruleset_of_builtin_and_variant():
    info = {"ruleset": {"name": "iowa", "params": get_ruleset("iowa").to_dict() | {"source": None}}}
    assert ruleset_of(info) is get_ruleset("iowa")
    variant = ruleset_from_dict({"extends": "bid-euchre", "name": "be-short", "deal_cap": 3, "specials": ["pepper"]})
    params = variant.to_dict()
    params.pop("source")
    rs = ruleset_of({"game_id": "g1", "ruleset": {"name": "be-short", "params": params}})
    assert rs.name == "be-short" and rs.deal_cap == 3 and rs.specials == ("pepper",) and rs.family == "bid-euchre"


def test_policy_bot_teaches_montecarlo_the_variant():
    """A game under a ruleset variant: MonteCarloBot must still find the ruleset to simulate with."""
    variant = ruleset_from_dict({"extends": "iowa", "name": "iowa-short", "deal_cap": 2})
    params = variant.to_dict()
    params.pop("source")
    bot = EngineBot(MonteCarloBot(seed=1))
    bot.on_game_start({"game_id": "g", "seat": 0, "ruleset": {"name": "iowa-short", "family": "iowa", "params": params}})
    assert bot.policy.rulesets["iowa-short"].deal_cap == 2


def test_views_carry_the_family_and_the_heuristic_plays_a_variant_by_it():
    """A variant is named after itself but plays by its family's conventions (cue bids, cedes, ...)."""
    variant = ruleset_from_dict({"extends": "iowa", "name": "iowa-short", "deal_cap": 50, "target_score": 40})
    h = HeuristicBot()
    for seed in range(10):
        games = [Game(variant, 4, seed=seed), Game("iowa", 4, seed=seed)]
        while not games[0].deals:
            views = [g.view(g.to_act).to_dict() for g in games]
            assert views[0]["family"] == views[1]["family"] == "iowa" and views[0]["ruleset"] == "iowa-short"
            # Through the wire too: the SDK's view carries the family.
            wired = view_to_dict(wire.view_to_proto(games[0].view(games[0].to_act)))
            assert wired["family"] == "iowa" and wired["target_score"] == views[0]["target_score"] == 40
            actions = [h.decide(v) for v in views]
            assert actions[0] == actions[1], (seed, views[0]["phase"])
            for g in games:
                g.apply(actions[1])


def test_as_bot_adapters():
    class B(Bot):
        def decide(self, view):
            return 0

    assert isinstance(as_bot(B), B)
    assert isinstance(as_bot(RandomBot(seed=1)), PolicyBot)
    assert as_bot(HeuristicBot()).name == "heuristic"
    fb = as_bot(lambda view: view["legal_actions"][0])
    assert fb.decide({"legal_actions": ["x"]}) == "x"
    with pytest.raises(TypeError):
        as_bot(42)


def _batch_for(g: Game, game_id: str, rid: int) -> bot_pb2.Batch:
    seat = g.to_act
    legal = [str(a) for a in g.legal_actions()]
    return bot_pb2.Batch(items=[
        bot_pb2.BatchItem(game_start=bot_pb2.GameStart(game_id=game_id, seat=seat, players=g.players)),
        bot_pb2.BatchItem(request=bot_pb2.DecisionRequest(game_id=game_id, request_id=rid, seat=seat, kind=int(g.phase),
                                                          view=wire.view_to_proto(g.view(seat)), legal_actions=legal,
                                                          deadline_ms=1000)),
        bot_pb2.BatchItem(notice=bot_pb2.Notice(code=bot_pb2.NOTICE_CODE_TIMEOUT, request_id=1, message="late")),
    ])


def test_runner_answers_every_request_of_a_batch_even_when_the_policy_fails():
    class Flaky(Bot):
        n = 0

        def decide(self, view):
            self.n += 1
            if self.n % 3 == 0:
                raise ZeroDivisionError("boom")
            return "not an action" if self.n % 3 == 1 else view["legal_actions"][-1]

        def on_game_start(self, info):
            raise RuntimeError("hook bug")

    r = Runner(Flaky(), "127.0.0.1:1", "tok", "flaky")
    for k in range(9):
        g = Game("bid-euchre", 6, seed=k)
        batch = _batch_for(g, f"g{k}", 100 + k)
        sent = []
        r._batch(batch, sent.append)
        [[ans]] = sent
        legal = list(batch.items[1].request.legal_actions)
        assert ans.request_id == 100 + k and ans.game_id == f"g{k}" and ans.action in legal
        assert ans.action == (legal[-1] if k % 3 == 1 else legal[0])
    assert r.stats["fallbacks"] == 6 and r.stats["decisions"] == 9 and r.stats["policy-errors"] == 6 + 9


def _requests(n: int) -> bot_pb2.Batch:
    items = []
    for k in range(n):
        items += _batch_for(Game("iowa", 4, seed=k), f"g{k}", 10 + k).items[1:2]
    return bot_pb2.Batch(items=items)


def test_a_fast_bot_sends_one_message_per_batch():
    sent = []
    Runner(as_bot(RandomBot(seed=1)), "127.0.0.1:1", "tok", "fast")._batch(_requests(6), sent.append)
    assert [[a.request_id for a in msg] for msg in sent] == [[10, 11, 12, 13, 14, 15]]


def test_a_slow_bot_sends_each_answer_when_it_is_decided_with_the_whole_deadline():
    """The referee times each request from the bot's previous answer message, so a bot slower than the flush
    interval sends each answer at once, and each decision sees the whole deadline (1000 ms, less the little
    spent since the last send), not a share of the Batch's."""
    seen = []

    class Slow(Bot):
        def decide(self, view):
            seen.append(view["deadline_ms"])
            time.sleep(FLUSH_AFTER_S * 1.5)
            return 0

    sent = []
    Runner(Slow(), "127.0.0.1:1", "tok", "slow")._batch(_requests(4), lambda answers: sent.append((time.monotonic(), answers)))
    assert [[a.request_id for a in msg] for _, msg in sent] == [[10], [11], [12], [13]]
    assert all(990 <= d <= 1000 for d in seen), seen
    gaps = [b[0] - a[0] for a, b in zip(sent, sent[1:])]
    assert all(g >= FLUSH_AFTER_S for g in gaps), gaps     # sent as decided, not together at the end


def test_policy_errors_carry_the_stable_marker_and_fallback_answers_say_so(caplog):
    """Every policy-error line starts with [policy error N, fallbacks F]; every fallback answer is marked as one,
    with what went wrong (the referee counts them for `pepper bot check`)."""
    POLICY_ERROR_RE = re.compile(r"\[policy error (\d+), fallbacks (\d+)\]")
    SUMMARY_RE = re.compile(r"(\d+) fallbacks, (\d+) policy errors")

    class Broken(Bot):
        def decide(self, view):
            raise KeyError("x")

        def on_game_start(self, info):
            raise RuntimeError("hook bug")

    r = Runner(Broken(), "127.0.0.1:1", "tok", "broken")
    with caplog.at_level("ERROR", logger="pepper.bot"):
        sent = []
        for k in range(150):
            r._batch(_batch_for(Game("iowa", 4, seed=k), f"g{k}", k), sent.append)
        answers = [a for msg in sent for a in msg]
    lines = [rec.getMessage() for rec in caplog.records]
    marked = [ln for ln in lines if POLICY_ERROR_RE.search(ln)]
    assert marked[0].startswith("[policy error 1, fallbacks 0] on_game_start() raised RuntimeError('hook bug')")
    assert marked[1].startswith("[policy error 2, fallbacks 1] game g0 seat ") and "decide() raised KeyError('x')" in marked[1]
    assert len(marked) == 10 + 3   # the first 10, then one in 100
    assert r.stats["fallbacks"] == 150 and r.stats["policy-errors"] == 300
    assert SUMMARY_RE.search(r._summary()).groups() == ("150", "300")
    assert len(answers) == 150 and {(a.fallback, a.fallback_detail) for a in answers} == {
        (bot_pb2.STRATEGY_FALLBACK_RAISED, "decide() raised KeyError('x')")}


def test_the_launch_token_is_read_from_its_pipe_and_dropped_from_the_environment(monkeypatch):
    """What the arena hands a launched bot: the token on the pipe PEPPER_TOKEN_FD names, read once; the SDK drops
    both variables from its environment, so that programs the bot starts inherit neither."""
    from pepper_bot import runner

    r, w = os.pipe()
    os.write(w, b"piped-token-0123\n")
    os.close(w)
    monkeypatch.setattr(runner, "_launched", [])
    monkeypatch.setenv("PEPPER_TOKEN_FD", str(r))
    monkeypatch.setenv("PEPPER_TOKEN", "stale-env-token")
    assert runner.launch_token() == "piped-token-0123"
    assert "PEPPER_TOKEN_FD" not in os.environ and "PEPPER_TOKEN" not in os.environ
    assert runner.launch_token() == "piped-token-0123"          # the same token on a second call (the pipe is gone)
    with pytest.raises(OSError):
        os.fstat(r)                                              # the descriptor was closed once read
    monkeypatch.setattr(runner, "_launched", [])
    monkeypatch.setenv("PEPPER_TOKEN", "by-hand-token")          # by hand: the variable, then dropped too
    assert runner.launch_token() == "by-hand-token" and "PEPPER_TOKEN" not in os.environ
