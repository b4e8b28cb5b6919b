"""The checker's own referee: in this process, on 127.0.0.1, driven through its control API."""

from __future__ import annotations

import json
import secrets
from collections import Counter
from typing import TYPE_CHECKING

from .model import GameSpec

if TYPE_CHECKING:
    from pepper_proto.v1 import control_pb2

# GameSpec.policy values -> the GamePolicy enum numbers (FAILURE_POLICY_*).
_POLICY = {"fallback": 1, "forfeit": 2, "abort": 3}


class PrivateReferee:
    """A referee that plays every seat of a table through the one connection it is given (shared seats).

    Every fault but a lost connection is answered by a fallback so that one
    mistake does not end the game: the checker counts the faults per check.
    """

    def __init__(self, deadline_ms: int, time_bank_ms: int, max_faults: int, unix_socket: str | None = None):
        """``unix_socket``: also listen there, so that a bot in a container (no network) gets a socket of its own
        beside it (:meth:`register` with ``own_socket``)."""
        self.deadline_ms, self.time_bank_ms, self.max_faults = deadline_ms, time_bank_ms, max_faults
        self.unix_socket = unix_socket
        self.address = ""

    async def start(self) -> None:
        import grpc
        from pepper_proto.v1 import control_pb2_grpc

        from referee.service import Policy, ServerConfig, start

        token = secrets.token_urlsafe(24)
        policy = Policy(deadline_ms=self.deadline_ms, time_bank_ms=self.time_bank_ms, on_illegal="fallback",
                        on_malformed="fallback", on_timeout="fallback", on_disconnect="forfeit", max_faults=self.max_faults)
        # Shared seats: the checker drives every seat of a table through the one process under test (and its
        # own house bot), which is what it means to check; a tournament never shares.
        self.srv = await start(ServerConfig(address="127.0.0.1:0", control_token=token, policy=policy, shared_seats=True,
                                            unix_socket=self.unix_socket))
        self.address = self.srv.address
        self.channel = grpc.aio.insecure_channel(self.address, options=[("grpc.max_receive_message_length", 256 << 20)])
        self.control = control_pb2_grpc.ControlServiceStub(self.channel)
        self.md = [("authorization", f"Bearer {token}")]

    async def register(self, name: str, own_socket: bool = False) -> tuple[str, str]:
        """A fresh token for ``name``, and with ``own_socket`` the path of the Unix socket bound for it alone ("" without)
        (grpc.aio.AioRpcError: refused)."""
        from pepper_proto.v1 import control_pb2

        req = control_pb2.RegisterBotRequest(name=name, own_socket=own_socket)
        answer = await self.control.RegisterBot(req, metadata=self.md)
        return answer.token, answer.unix_socket

    async def connections(self, name: str) -> int:
        from pepper_proto.v1 import control_pb2

        bots = (await self.control.ListBots(control_pb2.ListBotsRequest(), metadata=self.md)).bots
        return next((b.connections for b in bots if b.name == name), 0)

    async def create(self, gs: GameSpec, seats: list[str]) -> str | None:
        """Create one game with these seat names; returns an error text, or None."""
        import grpc
        from pepper_proto.v1 import control_pb2

        req = control_pb2.CreateGameRequest(game_id=gs.game_id, ruleset_json=json.dumps(gs.ruleset), players=gs.players,
                                            seats=seats, seed=gs.seed)
        if gs.first_dealer is not None:
            req.first_dealer = gs.first_dealer
        for d in gs.decks or ():
            req.decks.add(cards=d)
        for k, v in (gs.policy or {}).items():
            setattr(req.policy, k, _POLICY[v])
        try:
            await self.control.CreateGame(req, metadata=self.md)
        except grpc.aio.AioRpcError as e:
            return f"{e.code().name}: {e.details()}"
        return None

    async def games(self) -> list[control_pb2.GameResult]:
        """Every game, without records."""
        from pepper_proto.v1 import control_pb2

        games, token = [], ""
        while True:   # page after page (protocol 1.5)
            page = await self.control.ListGames(control_pb2.ListGamesRequest(page_token=token), metadata=self.md)
            games += page.games
            token = page.next_page_token
            if not token:
                return games

    async def result(self, game_id: str) -> control_pb2.GameResult:
        from pepper_proto.v1 import control_pb2

        return (await self.control.GetGame(control_pb2.GetGameRequest(game_id=game_id), metadata=self.md)).result

    def unknown_answers(self, name: str, counts: Counter) -> None:
        """Raise ``counts[connection]`` to the answers to requests that were not open (the referee counts them per
        connection; best effort: these counters are not part of the control API)."""
        try:
            for c in self.srv.referee.conns.get(name, []):
                counts[c.id] = max(counts[c.id], int(getattr(c, "unknown", 0)))
        except Exception:  # noqa: BLE001
            pass

    async def close(self) -> None:
        if hasattr(self, "channel"):
            await self.channel.close()
        if hasattr(self, "srv"):
            await self.srv.shutdown(drain_s=0, grace_s=0.5)
