"""The checker's parts without a bot: the check list, the house's script, verdicts from results, the report."""

from __future__ import annotations

import json
from pathlib import Path

from pepper_proto.v1 import control_pb2, game_pb2

from conformance.checks import CONFIGS, build_checks
from conformance.house import House
from conformance.model import BOT, Check, GameSpec, Played, Status, variant
from conformance.report import Summary, check_lines
from conformance.verify import Tally, judge, replay
from referee.rules import Game, GameStatus


def test_the_check_list_has_one_check_per_config_and_edge_case_with_unique_game_ids():
    checks = build_checks()
    names = [c.name for c in checks]
    assert names[:len(CONFIGS)] == [f"play {b} {n}p" for b, n in CONFIGS]
    assert len(names) == len(set(names)) == 20
    ids = [g.game_id for c in checks for g in c.games]
    assert len(ids) == len(set(ids)) and all(i.startswith(("play-", "iowa-", "bid-euchre-", "pepper-30-", "five-handed-",
                                                             "duplicate-", "game-", "large-", "policy-")) for i in ids)
    auctions = next(c for c in checks if c.name == "pepper-30: auctions")
    assert [g.game_id for g in auctions.games][1] == "pepper-30-auctions-2-last"
    assert {c.wave for c in checks} == {1, 2}


def test_the_house_follows_its_script():
    assert House(bid="pepper").choose("bid", ["pass", "bid 3 S", "bid pepper S", "bid pepper H"]) == "bid pepper S"
    assert House(bid="min:4", trump="H").choose("bid", ["pass", "bid 3 S", "bid 4 H", "bid 5 H"]) == "bid 4 H"
    assert House(bid="top").choose("bid", ["pass", "bid 3", "bid 4"]) == "bid 4"
    assert House().choose("bid", ["bid 3"]) == "bid 3"                # must bid: the lowest
    assert House(exchange=False).choose("exchange", ["exchange yes", "exchange no"]) == "exchange no"
    assert House(give="none").choose("give-card", ["give none", "give AS"]) == "give none"
    h = House(misbehave_at=2)
    assert h.choose("play", ["play AS"]) == "play AS" and h.choose("play", ["play KS"]) is None


def _result(game: Game, game_id: str, seats: list[str], faults=(), fallbacks=(0, 0, 0, 0), details=()) -> control_pb2.GameResult:
    r = control_pb2.GameResult(game_id=game_id, status=game_pb2.GAME_STATUS_COMPLETED, record_json=json.dumps(game.record()))
    for s, name in enumerate(seats):
        r.seats.add(seat=s, bot_name=name, decisions=10, fallbacks=fallbacks[s], fallback_details=details[s] if details else ())
    for seat, kind in faults:
        r.faults.add(seat=seat, kind=kind, deal=1, detail="no answer in 2000 ms")
    return r


def _played(**kw) -> Played:
    g = Game("iowa", 4, seed=5)
    while g.outcome is None and len(g.history) < 40:
        g.apply(g.legal_action_ids()[0])
    spec = GameSpec(variant("iowa", "t"), 4, [House(), BOT, BOT, BOT], 1, game_id="t-1")
    p = Played(spec, _result(g, "t-1", ["checker-house", "b", "b", "b"], **kw))
    replay(p)
    return p


def test_a_check_passes_on_clean_games_and_fails_on_the_bots_worst_fault():
    c = Check("t", [], verify=lambda played: ([], [f"{len(played)} games"]))
    c.played = [_played()]
    assert not c.played[0].replay_error and c.played[0].steps and c.played[0].deals
    assert judge(c, crash=None, stalled="") is False
    assert (c.status, c.reason, c.notes) == (Status.PASS, "1 games, 30 decisions", ["1 games"])
    c = Check("t", [])
    c.played = [_played(faults=[(0, game_pb2.FAULT_KIND_TIMEOUT), (2, game_pb2.FAULT_KIND_ILLEGAL), (1, game_pb2.FAULT_KIND_TIMEOUT)])]
    judge(c, crash=None, stalled="")
    assert c.status == Status.FAIL and c.reason.startswith("timeout: game t-1 seat 1, deal 1") and c.reason.endswith("(and 1 more)")
    c = Check("t", [])
    c.played = [_played(faults=[(3, game_pb2.FAULT_KIND_DISCONNECT)])]
    assert judge(c, crash="crash: the bot exited with code 3", stalled="") is True
    assert c.reason == "crash: the bot exited with code 3"
    c = Check("t", [])
    c.played = [_played()]
    c.played[0].spec.expect = GameStatus.FORFEITED
    judge(c, crash=None, stalled="")
    assert c.reason == "error: game t-1 ended completed ()"


def test_the_fallbacks_the_referee_counted_are_tallied_and_reported():
    detail = "raised: decide() raised KeyError('x')"
    p = _played(fallbacks=(5, 2, 0, 1), details=[[f"raised: house {k}" for k in range(5)], [detail] * 2, [], ["illegal: chose 'x'"]])
    t = Tally()
    t.add(p)
    assert (t.fallbacks, t.decisions) == (3, 30)   # the house's seat is not the bot's
    assert t.fallback_details == [("game t-1 seat 1", detail)] * 2 + [("game t-1 seat 3", "illegal: chose 'x'")]
    failed = Check("policy", []).done(Status.FAIL, "policy error: ...")
    s = Summary(["bot"], [failed], t, 1.0, Path("bot.log"), ["last line"], [])
    lines = s.lines()
    i = lines.index("its fallbacks, as the referee counted them (3 in all):")
    assert lines[i + 1:i + 5] == [f"  - {detail} (first: game t-1 seat 1)", "  - illegal: chose 'x' (first: game t-1 seat 3)",
                                  "the end of its output:", "  | last line"]
    d = s.to_dict()
    assert d["fallbacks"] == 3 and d["fallback_details"][0] == f"game t-1 seat 1: {detail}" and not d["passed"]
    assert check_lines(failed, verbose=False)[0] == f"FAIL  {'policy':<40} policy error: ..."


def test_a_bot_that_looks_for_its_token_in_the_environment_is_told_where_it_is():
    from conformance.launch import startup_hint

    hint = startup_hint(["Traceback (most recent call last):", "KeyError: 'PEPPER_TOKEN'"], 1)
    assert "PEPPER_TOKEN_FD" in hint and "read it to its end" in hint, hint
    assert "PEPPER_TOKEN_FD" not in startup_hint(["ValueError: bad move"], 1)


def test_the_sign_test_of_the_silent_fallback_probe():
    from conformance.checks import P_SILENT, sign_test

    assert sign_test(0, 0) == 1.0 and sign_test(1, 0) == 0.5 and sign_test(2, 2) == 11 / 16
    assert sign_test(33, 38) > 0.5              # uniform random play: spades no more often than clubs
    assert sign_test(14, 0) < P_SILENT < sign_test(13, 0)
    assert sign_test(44 * 2, 14 * 2) < P_SILENT  # a random strategy falling back on 30% of 200 decisions
