"""referee.service.limits.StreamLimits on its own: the allowances of streams that have not said Hello, the oldest
of them closed to make room, and the per-address rate of new streams (a fake clock)."""

from __future__ import annotations

from referee.service.limits import StreamLimits


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def limits(**kw) -> tuple[StreamLimits, Clock]:
    clock = Clock()
    base = {"per_peer": 100, "total": 100, "nofile": 10_000, "fd_reserve": 0, "waiting_total": 100,
            "waiting_per_peer": 100, "rate_per_peer": 1000.0}
    return StreamLimits(clock=clock, **(base | kw)), clock


def test_the_oldest_waiting_stream_makes_room_and_its_end_releases_nothing():
    lim, _ = limits(total=3)
    closed: list[str] = []
    for k in "abc":
        assert lim.admit("p", k, lambda why, k=k: closed.append(k)) is None
    lim.said_hello("b")                       # b is a bot now: never closed to make room
    assert lim.admit("q", "d", lambda why: closed.append("d")) is None
    assert closed == ["a"] and lim.count == 3
    assert lim.admit("q", "e", lambda why: closed.append("e")) is None
    assert closed == ["a", "c"] and lim.count == 3
    lim.release("p", "a")                     # the closed streams' handlers end: their slots were already given
    lim.release("p", "c")
    assert lim.count == 3 and lim.open == {"p": 1, "q": 2}
    # Every stream has said Hello: a new one is refused, naming the limit.
    lim.said_hello("d")
    lim.said_hello("e")
    assert "the limit is 3" in lim.admit("r", "f", lambda why: None)
    for peer, k in (("p", "b"), ("q", "d"), ("q", "e")):
        lim.release(peer, k)
    assert lim.count == 0 and not lim.open and not lim.waiting and not lim.waiting_from


def test_waiting_streams_have_their_own_allowance_in_all_and_per_address():
    lim, _ = limits(waiting_total=2, waiting_per_peer=1)
    closed: list[str] = []
    assert lim.admit("p", "a", closed.append) is None
    assert "waiting for their Hello: 1, the limit is 1 per address" in lim.admit("p", "b", closed.append)
    assert lim.admit("q", "c", closed.append) is None
    assert lim.admit("r", "d", closed.append) is None     # two waiting in all: the oldest (a) makes room
    assert len(closed) == 1 and closed[0].startswith("closed to make room")
    assert list(lim.waiting) == ["c", "d"]


def test_new_streams_from_one_address_are_rate_limited_and_the_bucket_refills():
    lim, clock = limits(rate_per_peer=10.0)
    admitted = [lim.admit("p", i) for i in range(25)]
    assert admitted.count(None) == 20        # a burst of twice the rate
    assert "more than 10 a second" in admitted[-1]
    assert lim.admit("q", "other") is None   # another address has its own bucket
    clock.now += 0.5
    assert [lim.admit("p", f"later{i}") for i in range(6)].count(None) == 5
