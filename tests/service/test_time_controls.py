"""Time controls over real gRPC (a referee in this process on 127.0.0.1, raw bot streams): fair under batching.

A request's clock starts when the bot could start on it (it was sent, or the bot's previous answer message
arrived); answers sent together share their time; seats may have their own time controls (protocol 1.4);
a hung bot's queue is faulted within two deadlines plus banks, not one after another.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time

import grpc
import pytest
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc, control_pb2, control_pb2_grpc, game_pb2

from referee.service import ServerConfig, start

pytestmark = pytest.mark.xdist_group("referee-time-controls")

TOKEN = "control-token-time"
BOTS = {"probe": "probe-token-0123", "quick": "quick-token-0123"}
FIRST_DEALER = 3     # in a 4-seat iowa game seat 0 bids first: every new game asks the probe at once


class RawBot:
    """One Connect stream, with nothing of an SDK: what it reads is queued; it answers only when told to."""

    def __init__(self, address: str, name: str):
        self.channel = grpc.aio.insecure_channel(address)
        self.call = bot_pb2_grpc.BotServiceStub(self.channel).Connect()
        self.name = name
        self.batches: asyncio.Queue = asyncio.Queue()
        self.game_starts: list[bot_pb2.GameStart] = []
        self.notices: list[bot_pb2.Notice] = []
        self._reader: asyncio.Task | None = None

    async def connect(self) -> None:
        await self.call.write(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
            bot_name=self.name, protocol_version="1.4", token=BOTS[self.name])))
        first = await self.call.read()
        assert first.WhichOneof("message") == "welcome", first
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            m = await self.call.read()
            if m is grpc.aio.EOF:
                return
            requests = []
            for it in m.batch.items:
                kind = it.WhichOneof("item")
                if kind == "request":
                    requests.append(it.request)
                elif kind == "game_start":
                    self.game_starts.append(it.game_start)
                elif kind == "notice":
                    self.notices.append(it.notice)
            if requests:
                await self.batches.put(requests)

    async def next_batch(self, timeout: float = 10.0) -> list[bot_pb2.DecisionRequest]:
        return await asyncio.wait_for(self.batches.get(), timeout)

    async def answer(self, *requests: bot_pb2.DecisionRequest) -> None:
        """One AnswerBatch answering ``requests`` (each with its first legal action)."""
        await self.call.write(bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch(answers=[
            bot_pb2.Answer(request_id=r.request_id, action_index=0) for r in requests])))

    async def serve(self) -> None:
        """Answer every batch at once, forever."""
        while True:
            await self.answer(*await self.batches.get())

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        self.call.cancel()
        await self.channel.close()


class Referee:
    """A referee on 127.0.0.1 with the probe (the bot under test) and a quick bot that plays every other seat."""

    async def __aenter__(self):
        self.srv = await start(ServerConfig(address="127.0.0.1:0", control_token=TOKEN, bot_tokens=BOTS,
                                            shared_seats=True))
        self.channel = grpc.aio.insecure_channel(self.srv.address)
        self.control = control_pb2_grpc.ControlServiceStub(self.channel)
        self.md = [("authorization", f"Bearer {TOKEN}")]
        self.quick = RawBot(self.srv.address, "quick")
        await self.quick.connect()
        self.quick_task = asyncio.create_task(self.quick.serve())
        self.probe = RawBot(self.srv.address, "probe")
        await self.probe.connect()
        return self

    async def __aexit__(self, *exc):
        self.quick_task.cancel()
        await self.probe.close()
        await self.quick.close()
        await self.channel.close()
        await self.srv.shutdown(drain_s=0.0, grace_s=0.1)

    async def create(self, policy: control_pb2.GamePolicy, seat_time_controls=()) -> str:
        r = await self.control.CreateGame(control_pb2.CreateGameRequest(
            ruleset="iowa", seats=["probe", "quick", "quick", "quick"], seed=7, first_dealer=FIRST_DEALER,
            policy=policy, seat_time_controls=seat_time_controls), metadata=self.md)
        return r.game_id

    async def probe_seat(self, game_id: str) -> control_pb2.SeatResult:
        r = await self.control.GetGame(control_pb2.GetGameRequest(game_id=game_id), metadata=self.md)
        return r.result.seats[0]

    async def queue_behind_a_blocker(self, n: int, policy: control_pb2.GamePolicy) -> tuple[list[str], list]:
        """n games whose first requests reach the probe in one Batch: they queue while it holds a first request
        (of a game with all the time in the world); answering that one releases them together."""
        await self.create(control_pb2.GamePolicy(deadline_ms=120_000))
        [blocker] = await self.probe.next_batch()
        ids = [await self.create(policy) for _ in range(n)]
        await self.probe.answer(blocker)
        batch = await self.probe.next_batch()
        assert sorted(r.game_id for r in batch) == sorted(ids), "the n requests came in one Batch"
        return ids, batch


def run(coro):
    return asyncio.run(coro)


def test_a_batch_answered_one_by_one_gets_the_full_deadline_for_each_request():
    """Six requests of one Batch, each answered in its own message after 0.6 x the deadline: every one is in time
    and no bank is drawn. (Timed from the Batch, the fourth and later overran: banks drawn, then timeouts.)"""
    deadline, bank, n = 250, 500, 6

    async def main():
        async with Referee() as ref:
            ids, batch = await ref.queue_behind_a_blocker(n, control_pb2.GamePolicy(deadline_ms=deadline,
                                                                                    time_bank_ms=bank))
            for r in batch:
                await asyncio.sleep(0.6 * deadline / 1000)
                await ref.probe.answer(r)
            await ref.probe.next_batch()   # the next Batch comes once all six were applied
            return [await ref.probe_seat(g) for g in ids]

    seats = run(main())
    assert [s.faults.timeout for s in seats] == [0] * n
    assert [s.time_bank_left_ms for s in seats] == [bank] * n
    assert [s.decisions for s in seats] == [1] * n
    # Latency is the time the bot spent on each decision (about 150 ms), not its wait behind the Batch.
    assert all(0.5 * deadline <= s.latency_max_ms < deadline for s in seats), [s.latency_max_ms for s in seats]


def test_answers_sent_together_share_their_time():
    """Four requests answered together 400 ms after their Batch: each is charged 100 ms (recorded latency, and no
    bank drawn though 400 ms is over the deadline), not the 400 ms since the Batch was sent."""
    n, wait_ms = 4, 400

    async def main():
        async with Referee() as ref:
            ids, batch = await ref.queue_behind_a_blocker(n, control_pb2.GamePolicy(deadline_ms=300, time_bank_ms=2000))
            await asyncio.sleep(wait_ms / 1000)
            await ref.probe.answer(*batch)
            await ref.probe.next_batch()
            return [await ref.probe_seat(g) for g in ids]

    seats = run(main())
    assert [s.faults.timeout for s in seats] == [0] * n
    assert [s.time_bank_left_ms for s in seats] == [2000] * n     # 100 ms each: within the 300 ms deadline
    p50 = statistics.median(s.latency_p50_ms for s in seats)
    assert wait_ms / n * 0.9 <= p50 < wait_ms / n * 1.5, p50


def test_a_hung_bots_queue_is_faulted_after_two_deadlines_not_one_after_another():
    """The head times out after deadline + bank; the requests waiting behind it then start their clocks at once:
    five hung requests are all faulted by about 2 x (deadline + bank), not 5 x."""
    deadline, bank, n = 200, 300, 5

    async def main():
        async with Referee() as ref:
            policy = control_pb2.GamePolicy(deadline_ms=deadline, time_bank_ms=bank,
                                            on_timeout=game_pb2.FAILURE_POLICY_FORFEIT)
            ids, _ = await ref.queue_behind_a_blocker(n, policy)
            t0 = time.monotonic()
            results = [(await ref.control.WaitGame(control_pb2.WaitGameRequest(game_id=g), metadata=ref.md)).result
                       for g in ids]
            return results, time.monotonic() - t0

    results, took = run(main())
    assert [game_pb2.GameStatus.Name(r.status) for r in results] == ["GAME_STATUS_FORFEITED"] * n
    assert all(r.seats[0].faults.timeout == 1 for r in results)
    limit = (deadline + bank) / 1000
    assert 2 * limit * 0.9 <= took < 2 * limit + 0.5, took


def test_seats_have_their_own_time_controls():
    """seat_time_controls (protocol 1.4): seat 0 gets 100 ms and no bank and times out where the game's 2 s would not;
    seat 2 gets its own bank; seats 1 and 3, left unset, get the game's. Each seat's GameStart and request say so."""

    async def main():
        async with Referee() as ref:
            tcs = [control_pb2.TimeControl(deadline_ms=100, time_bank_ms=0), control_pb2.TimeControl(),
                   control_pb2.TimeControl(time_bank_ms=777), control_pb2.TimeControl()]
            gid = await ref.create(control_pb2.GamePolicy(deadline_ms=2000, time_bank_ms=5000), tcs)
            [r] = await ref.probe.next_batch()
            await asyncio.sleep(0.3)
            await ref.probe.answer(r)
            res = (await ref.control.GetGame(control_pb2.GetGameRequest(game_id=gid), metadata=ref.md)).result
            return r, ref.probe.game_starts, ref.quick.game_starts, ref.probe.notices, res

    r, probe_starts, quick_starts, notices, res = run(main())
    assert (r.deadline_ms, r.time_bank_ms) == (100, 0)
    assert [(g.seat, g.deadline_ms, g.time_bank_ms) for g in probe_starts] == [(0, 100, 0)]
    assert sorted((g.seat, g.deadline_ms, g.time_bank_ms) for g in quick_starts) == [
        (1, 2000, 5000), (2, 2000, 777), (3, 2000, 5000)]
    first = res.faults[0]
    assert (first.seat, first.kind, first.request_id) == (0, game_pb2.FAULT_KIND_TIMEOUT, r.request_id)
    assert any(n.code == bot_pb2.NOTICE_CODE_TIMEOUT and n.request_id == r.request_id for n in notices)
    assert [s.time_bank_left_ms for s in res.seats[1:]] == [5000, 777, 5000]


@pytest.mark.parametrize(("tcs", "message"), [
    ([control_pb2.TimeControl()] * 3, "seat_time_controls has 3 entries for a 4-player game"),
    ([control_pb2.TimeControl(), control_pb2.TimeControl(deadline_ms=0)] + [control_pb2.TimeControl()] * 2,
     r"seat_time_controls\[1\].deadline_ms is 0"),
])
def test_bad_seat_time_controls_are_refused_naming_the_field(tcs, message):
    async def main():
        async with Referee() as ref:
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await ref.create(control_pb2.GamePolicy(), tcs)
            return e.value

    err = run(main())
    assert err.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert re.search(message, err.details()), err.details()
