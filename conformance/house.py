"""The checker's own scripted bot (the *house*): it plays the seats that force situations the bot would not choose."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

HOUSE_NAME = "checker-house"


@dataclass
class House:
    """How the house plays one seat of one game.

    ``bid``: "pass" (pass, or the lowest bid when it must bid), "top" (the
    highest bid, which ends single-circuit auctions), "min:K" (the lowest
    number up to K, else pass), or a special bid name ("pepper",
    "double-pepper", "moon-shot"). ``misbehave_at``: answer a malformed action
    at this decision (1-based) of the seat, to end the game early.
    """

    bid: str = "pass"
    trump: str = "S"
    exchange: bool = True
    give: str = "first"
    cede: bool = True
    misbehave_at: int = 0
    n: int = 0

    def choose(self, phase: str, legal: list[str]) -> str | None:
        """The action text; None for a malformed answer."""
        self.n += 1
        if self.misbehave_at and self.n == self.misbehave_at:
            return None
        if phase == "bid":
            return self._bid(legal)
        if phase == "name-trump":
            return f"trump {self.trump}" if f"trump {self.trump}" in legal else legal[0]
        if phase == "exchange":
            return "exchange yes" if self.exchange else "exchange no"
        if phase == "give-card":
            if self.give == "none" and "give none" in legal:
                return "give none"
            return next((a for a in legal if a != "give none"), legal[0])
        if phase == "cede":
            return "cede yes" if self.cede else "cede no"
        return legal[0]   # discard, play

    def _bid(self, legal: list[str]) -> str:
        bids = [a for a in legal if a != "pass"]
        fallback = "pass" if "pass" in legal else legal[0]

        def strain_ok(a: str) -> bool:
            t = a.split()
            return len(t) == 2 or t[2] == self.trump

        if self.bid == "pass":
            return fallback
        if self.bid == "top":
            top = bids[-1].split()[1] if bids else None
            return next((a for a in bids if a.split()[1] == top and strain_ok(a)), bids[-1] if bids else fallback)
        if self.bid.startswith("min:"):
            k = int(self.bid[4:])
            nums = [a for a in bids if a.split()[1].isdigit() and int(a.split()[1]) <= k and strain_ok(a)]
            return nums[0] if nums else fallback
        return next((a for a in bids if a.split()[1] == self.bid and strain_ok(a)), fallback)


class HouseBot:
    """One Connect stream in the checker's process that plays every house seat, by script per (game, seat)."""

    def __init__(self, address: str, token: str):
        self.address, self.token = address, token
        self.scripts: dict[str, dict[int, House]] = {}
        self.task: asyncio.Task | None = None
        self.error: str | None = None

    async def start(self) -> None:
        import grpc
        from pepper_proto.v1 import bot_pb2, bot_pb2_grpc

        from referee.wire import PROTOCOL_VERSION

        self.channel = grpc.aio.insecure_channel(self.address)
        self.call = bot_pb2_grpc.BotServiceStub(self.channel).Connect()
        await self.call.write(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
            bot_name=HOUSE_NAME, protocol_version=PROTOCOL_VERSION, token=self.token, max_batch=256)))
        first = await self.call.read()
        if first.WhichOneof("message") != "welcome":
            raise RuntimeError("the checker's own bot was not welcomed by the referee")
        self.task = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        import grpc
        from pepper_proto.v1 import bot_pb2 as pb

        from referee.rules import Phase

        try:
            while True:
                resp = await self.call.read()
                if resp is grpc.aio.EOF:
                    return
                answers = []
                for it in resp.batch.items:
                    if it.WhichOneof("item") != "request":
                        continue
                    r = it.request
                    h = self.scripts.setdefault(r.game_id, {}).setdefault(r.seat, House())
                    legal = list(r.legal_actions)
                    a = h.choose(str(Phase(r.view.phase)), legal)   # the proto's phase numbers are the engine's
                    answers.append(pb.Answer(request_id=r.request_id, action_index=len(legal) + 5) if a is None
                                   else pb.Answer(request_id=r.request_id, action=a))
                if answers:
                    await self.call.write(pb.ConnectRequest(answers=pb.AnswerBatch(answers=answers)))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - reported in the checker's summary
            self.error = repr(e)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        try:
            self.call.cancel()
        except Exception:  # noqa: BLE001
            pass
        await self.channel.close()
