"""Real games on a real referee (127.0.0.1) with bot processes running through the SDK."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from sdk_harness import BOTS_DIR, CONFIGS, assert_clean, status_name

SAMPLES = ("random", "heuristic", "montecarlo")
TOKENS = {name: f"token-{name}-0123456789" for name in SAMPLES}


def _sample(procs, ref, kind: str, *extra: str) -> subprocess.Popen:
    return procs.start([sys.executable, "-m", "sample_bots", kind, "--referee", ref.address, "--token", TOKENS[kind],
                        "--name", kind, "--seed", "7", *extra], kind)


def test_sample_bots_play_every_ruleset_and_player_count(referee_factory, procs):
    """Each Python sample bot, as its own process, plays every ruleset and player count legally."""
    ref = referee_factory(TOKENS)
    bots = {k: _sample(procs, ref, k) for k in SAMPLES}
    for k, p in bots.items():
        ref.wait_connected(k, proc=p)
    ids = []
    for i, (ruleset, n) in enumerate(CONFIGS):
        for rot in range(3):   # every bot in every seat position over the three games
            seats = [SAMPLES[(s + rot) % 3] for s in range(n)]
            ids.append(ref.create(seats, ruleset, deal_cap=3, seed=100 * i + rot))
    # Two full games to the ruleset's own end (built-in rulesets, no deal cap override).
    ids.append(ref.create(["montecarlo", "heuristic", "random", "heuristic"], "iowa", seed=5))
    ids.append(ref.create(["heuristic", "montecarlo", "random"], "pepper-30", seed=6))
    results = ref.wait_games(ids, timeout=150)
    played = {k: set() for k in SAMPLES}
    for r in results.values():
        assert_clean(r)
        assert r.reason in ("target", "deal-cap"), r.reason
        for s in r.seats:
            if s.decisions:
                played[s.bot_name].add((r.ruleset.rsplit("-custom", 1)[0], r.players))
    for k in SAMPLES:
        assert played[k] >= set(CONFIGS), (k, set(CONFIGS) - played[k])
    assert {results[ids[-2]].reason, results[ids[-1]].reason} == {"target"}
    # SIGTERM: a clean exit (code 0) with a summary line in the log.
    for p in bots.values():
        p.terminate()
        assert p.wait(timeout=10) == 0
        log = p.log_path.read_text()
        assert "connected to" in log and "stopping:" in log and " 0 fallbacks, 0 policy errors" in log, log[-500:]


def test_policy_that_raises_still_answers_legally(referee_factory, procs, tmp_path):
    """`pepper bot run FILE.py:CLASS`: a policy that raises or returns junk is logged, and the SDK plays legally."""
    ref = referee_factory({"raising": "token-raising-0123456789"})
    summary = tmp_path / "raising.json"
    p = procs.start([sys.executable, "-m", "pepper_bot", str(BOTS_DIR / "raising_bot.py") + ":RaisingBot",
                     "--referee", ref.address, "--token", "token-raising-0123456789", "--name", "raising"],
                    "raising", env={"RAISING_BOT_SUMMARY": str(summary)})
    ref.wait_connected("raising", proc=p)
    ids = [ref.create(["raising"] * n, ruleset, deal_cap=2, seed=3) for ruleset, n in
           [("iowa", 4), ("bid-euchre", 6), ("pepper-30", 3), ("five-handed", 5)]]
    results = ref.wait_games(ids)
    for r in results.values():
        assert_clean(r)   # no fault: every answer was legal
        assert sum(s.decisions for s in r.seats) == r.decisions
    # Every answer the SDK had to make for the policy said so (Answer.fallback), and the referee counted it.
    fallbacks = sum(s.fallbacks for r in results.values() for s in r.seats)
    details = [d for r in results.values() for s in r.seats for d in s.fallback_details]
    assert any(d.startswith("raised: decide() raised RuntimeError('policy bug") for d in details), details[:5]
    assert any(d.startswith("illegal: decide() returned 'flibbertigibbet'") for d in details), details[:5]
    assert all(len(s.fallback_details) == min(10, s.fallbacks) for r in results.values() for s in r.seats)
    time.sleep(0.3)
    p.terminate()
    assert p.wait(timeout=10) == 0
    log = p.log_path.read_text()
    assert "decide() raised RuntimeError('policy bug" in log
    assert "which is not one of the legal actions" in log
    assert "on_game_start() raised ValueError('hook bug')" in log
    assert "Traceback" in log
    s = json.loads(summary.read_text())
    seats = sum(r.players for r in results.values())
    assert s["starts"] == seats and s["ends"] == seats and s["events"] > 100
    assert s["decisions"] == sum(r.decisions for r in results.values())
    assert fallbacks > 0 and f" {fallbacks} fallbacks, " in log, log[-300:]


def test_run_module_target_with_environment_variables(referee_factory, procs):
    """The launch convention: PEPPER_REFEREE, PEPPER_TOKEN and PEPPER_BOT_NAME, and a MODULE:CLASS target."""
    ref = referee_factory({"envbot": "token-envbot-0123456789"})
    p = procs.start([sys.executable, "-m", "pepper_bot", "sample_bots.heuristic:HeuristicBot"], "envbot",
                    env={"PEPPER_REFEREE": ref.address, "PEPPER_TOKEN": "token-envbot-0123456789", "PEPPER_BOT_NAME": "envbot"})
    ref.wait_connected("envbot", proc=p)
    r = ref.wait_games([ref.create(["envbot"] * 4, "bid-euchre", deal_cap=2)])
    assert_clean(next(iter(r.values())))


def test_max_batch_from_the_environment(referee_factory, procs):
    """PEPPER_MAX_BATCH is part of the launch contract (docs/protocol.md, "The bot process"), as in the Node bot."""
    ref = referee_factory({"envbatch": "token-envbatch-0123456789"})
    p = procs.start([sys.executable, "-m", "pepper_bot", "sample_bots.random_bot:RandomBot"], "envbatch",
                    env={"PEPPER_REFEREE": ref.address, "PEPPER_TOKEN": "token-envbatch-0123456789",
                         "PEPPER_BOT_NAME": "envbatch", "PEPPER_MAX_BATCH": "7"})
    ref.wait_connected("envbatch", proc=p)
    assert_clean(next(iter(ref.wait_games([ref.create(["envbatch"] * 4, "iowa", deal_cap=1)]).values())))
    assert "batches of up to 7)" in p.log_path.read_text()


def test_refused_hello_exits_with_code_2(referee_factory, procs):
    ref = referee_factory({"someone": "token-someone-0123456789"})
    p = procs.start([sys.executable, "-m", "sample_bots", "random", "--referee", ref.address, "--token", "wrong-token-xyz",
                     "--name", "someone"], "refused")
    assert p.wait(timeout=20) == 2
    assert "UNAUTHENTICATED" in p.log_path.read_text()


def test_many_games_at_once_in_large_batches(referee_factory, procs):
    """One connection, 80 games at once, batches of up to 256 requests."""
    ref = referee_factory({"random": TOKENS["random"]})
    p = _sample(procs, ref, "random", "--max-batch", "256")
    ref.wait_connected("random", proc=p)
    ids = [ref.create(["random"] * 8, "bid-euchre", deal_cap=1, seed=k) for k in range(40)]
    ids += [ref.create(["random"] * 5, "five-handed", deal_cap=1, seed=k) for k in range(40)]
    results = ref.wait_games(ids)
    for r in results.values():
        assert status_name(r.status) == "GAME_STATUS_COMPLETED" and not r.faults, (r.game_id, r.reason, list(r.faults)[:2])
    assert "batches of up to 256" in p.log_path.read_text()
