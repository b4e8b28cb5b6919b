"""Enforcement rules, pure: verdicts from policy and counts, redaction, the request clock (no server)."""

from __future__ import annotations

import pytest

from referee.rules import SeatStatus
from referee.service.config import Policy
from referee.service.enforcement import (
    FaultKind,
    RequestClock,
    TimeBank,
    Verdict,
    public_detail,
    public_fallback,
    rule,
    shared_ms,
)


@pytest.mark.parametrize("kind", list(FaultKind))
@pytest.mark.parametrize("verdict", list(Verdict))
def test_the_policy_for_each_kind_is_the_verdict(kind, verdict):
    r = rule(Policy(**{f"on_{kind}": verdict}), kind, 1)
    assert r.verdict is verdict and r.note == ""
    want = {Verdict.FORFEIT: SeatStatus.FORFEITED, Verdict.ABORT: SeatStatus.ABORTED}.get(
        verdict, SeatStatus.DISCONNECTED if kind is FaultKind.DISCONNECT else SeatStatus.FAULTED)
    assert r.seat_status is want


def test_max_faults_turns_a_fallback_into_a_forfeit_only_beyond_the_limit():
    p = Policy(max_faults=2)
    assert [rule(p, FaultKind.ILLEGAL, n).verdict for n in (1, 2, 3)] == [Verdict.FALLBACK, Verdict.FALLBACK, Verdict.FORFEIT]
    over = rule(p, FaultKind.TIMEOUT, 3)
    assert over.note == " (more than 2 faults)" and over.seat_status is SeatStatus.FORFEITED
    assert rule(Policy(max_faults=0), FaultKind.MALFORMED, 1000).verdict is Verdict.FALLBACK   # 0: no limit
    assert rule(Policy(max_faults=1, on_illegal="abort"), FaultKind.ILLEGAL, 5).verdict is Verdict.ABORT


def test_policies_are_verdicts_and_a_bad_word_is_refused():
    assert Policy(on_timeout="forfeit").on_timeout is Verdict.FORFEIT
    assert Policy().for_fault(FaultKind.DISCONNECT) is Verdict.FORFEIT
    with pytest.raises(ValueError, match=r"on_timeout: unknown failure policy 'explode' \(allowed: fallback, forfeit, abort\)"):
        Policy(on_timeout="explode")


def test_seat_status_only_gets_worse():
    s = SeatStatus.OK.worst(SeatStatus.DISCONNECTED)
    assert s is SeatStatus.DISCONNECTED and s.worst(SeatStatus.FAULTED) is SeatStatus.DISCONNECTED
    assert s.worst(SeatStatus.ABORTED) is SeatStatus.ABORTED and SeatStatus.FORFEITED.worst(SeatStatus.ABORTED) is SeatStatus.ABORTED


def test_redaction_withholds_what_shows_a_seats_cards():
    secret = "play 9H is not a legal action here; legal: play AS, play KS"
    for kind in (FaultKind.ILLEGAL, FaultKind.MALFORMED):
        shown = public_detail(kind, secret)
        assert "AS" not in shown and "9H" not in shown and shown.startswith(f"{kind} answer")
    assert public_detail(FaultKind.TIMEOUT, "no answer within 5 ms") == "no answer within 5 ms"
    assert public_detail(FaultKind.DISCONNECT, "connection c1 lost") == "connection c1 lost"
    assert public_fallback("give AS") == public_fallback("discard 9H") == ""     # face down
    assert public_fallback("give none") == "give none" and public_fallback("play AS") == "play AS"
    assert public_fallback("bid 3") == "bid 3" and public_fallback("") == ""


def test_the_clock_draws_an_overrun_from_the_bank_and_expires_with_it():
    bank = TimeBank(1000)
    c = RequestClock(100, bank)
    assert c.expires(10.0) == pytest.approx(11.1)      # deadline + bank, from when the bot could start
    assert c.charge(50.0) and bank.ms == 1000          # in time: the bank is untouched
    assert RequestClock(100, bank).charge(400.0) and bank.ms == pytest.approx(700.0)
    c3 = RequestClock(100, bank)
    assert c3.expires(30.0) == pytest.approx(30.8)     # the next request gets what is left
    assert c3.charge(800.0) and bank.ms == pytest.approx(0.0)   # exactly deadline + bank: still in time
    assert RequestClock(100, bank).expires(40.0) == pytest.approx(40.1)


def test_a_charge_beyond_deadline_and_bank_is_a_timeout_that_spends_the_bank():
    bank = TimeBank(10)
    c = RequestClock(100, bank)
    assert not c.charge(500.0) and bank.ms == 10       # 400 ms over a 10 ms bank: a timeout, nothing drawn yet
    c.time_out()
    assert bank.ms == 0.0 and bank.left_ms == 0
    assert RequestClock(100, bank).expires(1.0) == pytest.approx(1.1)


def test_answers_sent_together_share_their_time():
    assert shared_ms(10.0, 10.6, 1) == pytest.approx(600.0)
    assert shared_ms(10.0, 10.6, 3) == pytest.approx(200.0)    # three answers in one message: 200 ms each
