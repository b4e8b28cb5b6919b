"""The service's words (statuses, fault kinds, verdicts) are the wire's: each one has its proto enum value
(but UNKNOWN, which stands for the protocol's UNSPECIFIED and values this code does not know)."""

from __future__ import annotations

from referee.rules import GameStatus, SeatStatus
from referee.service.enforcement import FaultKind, Verdict
from referee.wire import messages


def test_every_service_word_has_a_proto_value_and_back():
    assert set(messages.GAME_STATUS) == set(GameStatus) - {GameStatus.UNKNOWN}
    assert set(messages.SEAT_STATUS) == set(SeatStatus) - {SeatStatus.UNKNOWN}
    assert set(messages.FAULT_KIND) == set(FaultKind)
    assert set(messages.FAILURE_POLICY) == set(Verdict)
    assert all(messages.game_status_word(v) == w for w, v in messages.GAME_STATUS.items())
    assert messages.game_status_word(0) is None
