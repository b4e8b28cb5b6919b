"""The gRPC plumbing: the bot and control servicers, auth, health, reflection, TLS, shutdown."""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from pepper_proto.v1 import bot_pb2, control_pb2, control_pb2_grpc

from referee import wire

from .config import MAX_PING_STRIKES, ServerConfig
from .connections import Connection
from .referee import Referee, RequestError

log = logging.getLogger("referee")

BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
CONTROL_SERVICE = control_pb2.DESCRIPTOR.services_by_name["ControlService"].full_name


class BotServicer:
    def __init__(self, referee: Referee):
        self.referee = referee

    async def Connect(self, request_iterator, context: grpc.aio.ServicerContext):
        ref = self.referee
        first = await context.read()
        if first is grpc.aio.EOF:
            return
        if first.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message on a Connect stream must be a Hello")
        hello = first.hello
        if ref.draining:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the server is draining")
        refused = ref.authenticate(hello.bot_name, hello.token, hello.protocol_version)
        if refused:
            await context.abort(getattr(grpc.StatusCode, refused[0]), refused[1])
        conn = ref.connect(hello.bot_name, hello.max_batch)
        reason = "stream ended"
        reader = None
        try:
            await context.write(wire.messages.welcome(conn.id, conn.max_batch))
            reader = asyncio.create_task(self._read(conn, context))
            loop = asyncio.get_running_loop()
            while True:
                await conn.wake.wait()
                conn.wake.clear()
                if conn.closed:
                    last = conn.final_batch()
                    if last is not None:
                        await context.write(last)
                    break
                batch = conn.take_batch(loop.time())
                if batch is not None:
                    await context.write(batch)
            reason = conn.close_reason or reason
        except asyncio.CancelledError:
            reason = "stream cancelled (bot gone)"
            raise
        except Exception as e:  # a write failed: the bot is gone
            reason = f"stream failed: {e!r}"
        finally:
            if reader is not None:
                reader.cancel()
            ref.disconnect(conn, conn.close_reason or reason)

    async def _read(self, conn: Connection, context) -> None:
        ref = self.referee
        reason = "the bot closed the stream"
        try:
            while True:
                msg = await context.read()
                if msg is grpc.aio.EOF:
                    break
                if msg.WhichOneof("message") != "answers":
                    conn.notice("malformed_answer", 0, "",
                                "after Hello only AnswerBatch messages are accepted; the message was ignored")
                    continue
                ref.on_answers(conn, msg.answers.answers)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            reason = f"read failed: {e!r}"
        if not conn.closed:
            ref.disconnect(conn, reason)


def _status(code: str) -> grpc.StatusCode:
    return getattr(grpc.StatusCode, code)


class ControlServicer(control_pb2_grpc.ControlServiceServicer):
    def __init__(self, referee: Referee, token: str, health_servicer):
        self.referee, self._want, self.health = referee, f"Bearer {token}".encode(), health_servicer

    async def _auth(self, context) -> None:
        got = ""
        for k, v in context.invocation_metadata() or ():
            if k == "authorization":
                got = v
        if not secrets.compare_digest(got.encode(), self._want):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "the control API needs metadata 'authorization: Bearer <control token>'")

    async def RegisterBot(self, request, context):
        await self._auth(context)
        try:
            token = self.referee.register_bot(request.name, request.token, request.token_sha256)
        except RequestError as e:
            await context.abort(_status(e.code), str(e))
        return control_pb2.RegisterBotResponse(name=request.name, token=token)

    async def ListBots(self, request, context):
        await self._auth(context)
        return control_pb2.ListBotsResponse(bots=self.referee.bots())

    async def CreateGame(self, request, context):
        await self._auth(context)
        try:
            run = self.referee.create_game(request)
        except RequestError as e:
            await context.abort(_status(e.code), str(e))
        return control_pb2.CreateGameResponse(game_id=run.id, seed=run.seed)

    async def _game(self, game_id, context):
        run = self.referee.games.get(game_id)
        if run is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no game {game_id!r}")
        return run

    async def WatchGame(self, request, context):
        await self._auth(context)
        run = await self._game(request.game_id, context)
        q = run.watch()
        seen_public = q is not None
        if q is not None:
            try:
                while True:
                    m = await q.get()
                    if m is None:
                        break
                    await context.write(m)
            finally:
                if q in run.watchers:
                    run.watchers.remove(q)
        for m in run.final_spectator_messages(seen_public):
            await context.write(m)

    async def ListGames(self, request, context):
        await self._auth(context)
        st = wire.messages.game_status_word(request.status)
        return control_pb2.ListGamesResponse(games=[r.result(full=False) for r in self.referee.games.values()
                                                    if not request.status or r.status == st])

    async def GetGame(self, request, context):
        await self._auth(context)
        run = await self._game(request.game_id, context)
        return control_pb2.GetGameResponse(result=run.result())

    async def WaitGame(self, request, context):
        await self._auth(context)
        run = await self._game(request.game_id, context)
        await run.done.wait()
        return control_pb2.WaitGameResponse(result=run.result())

    async def Drain(self, request, context):
        await self._auth(context)
        await self.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.health.set(BOT_SERVICE, health_pb2.HealthCheckResponse.NOT_SERVING)
        finished, aborted = await self.referee.drain(max(0.0, request.timeout_s))
        return control_pb2.DrainResponse(finished=finished, aborted=aborted)


@dataclass
class RunningServer:
    """A started server: its bound address, the referee, and how to stop it."""

    server: grpc.aio.Server
    referee: Referee
    health: health.aio.HealthServicer
    host: str
    port: int
    tls: bool

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def shutdown(self, drain_s: float = 10.0, grace_s: float = 2.0) -> tuple[int, int]:
        """Graceful stop: no new games, running games finish (or are aborted and recorded at the timeout), and every
        bot is told the referee is draining before its stream ends."""
        await self.health.enter_graceful_shutdown()
        res = await self.referee.drain(drain_s)
        await asyncio.sleep(0.05)   # let the streams send their last Batch (GameEnds, the DRAINING notice)
        await self.server.stop(grace_s)
        await self.referee.close()
        return res


def _split_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"address must be HOST:PORT (port 0 picks a free one), got {address!r}")
    return host, int(port)


async def start(config: ServerConfig) -> RunningServer:
    """Build, bind and start the server."""
    host, _ = _split_address(config.address)
    if not config.control_token:
        raise ValueError("a control token is required")
    referee = Referee(config)
    server = grpc.aio.server(options=[
        ("grpc.max_receive_message_length", config.max_receive_bytes),
        ("grpc.max_send_message_length", config.max_send_bytes),
        ("grpc.so_reuseport", 0),
        # The ping policy the SDKs keep to (config.py, MIN_PING_INTERVAL_MS): idle bots stay connected.
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", config.min_ping_interval_ms),
        ("grpc.http2.max_ping_strikes", MAX_PING_STRIKES),
    ])
    hs = health.aio.HealthServicer()
    # The bot service is registered by hand (same service and method names as the generated helper) so
    # that the Connect stream can send pre-serialized Batches: see referee.wire.batch_response.
    bots = BotServicer(referee)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(BOT_SERVICE, {
        "Connect": grpc.stream_stream_rpc_method_handler(
            bots.Connect, request_deserializer=bot_pb2.ConnectRequest.FromString,
            response_serializer=wire.serialize_response),
    }),))
    control_pb2_grpc.add_ControlServiceServicer_to_server(ControlServicer(referee, config.control_token, hs), server)
    health_pb2_grpc.add_HealthServicer_to_server(hs, server)
    reflection.enable_server_reflection(
        (BOT_SERVICE, CONTROL_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    if config.tls_cert:
        with open(config.tls_key, "rb") as f:
            key = f.read()
        with open(config.tls_cert, "rb") as f:
            cert = f.read()
        port = server.add_secure_port(config.address, grpc.ssl_server_credentials([(key, cert)]))
    else:
        port = server.add_insecure_port(config.address)
    if not port:
        raise OSError(f"cannot bind {config.address}")
    await server.start()
    for name in ("", BOT_SERVICE, CONTROL_SERVICE):
        await hs.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("listening on %s:%d%s", host, port, " (TLS)" if config.tls_cert else "")
    return RunningServer(server, referee, hs, host, port, bool(config.tls_cert))
