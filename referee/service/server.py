"""The gRPC plumbing: the bot and control servicers, auth, health, reflection, TLS, shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
import stat
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from pepper_proto.v1 import bot_pb2, control_pb2, control_pb2_grpc

from referee import wire

from .config import MAX_PING_STRIKES, ServerConfig
from .connections import Connection
from .limits import StreamLimits, peer_host, raise_open_file_limit
from .logs import limit_undecodable
from .referee import Referee, RequestError

log = logging.getLogger("referee")

BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
CONTROL_SERVICE = control_pb2.DESCRIPTOR.services_by_name["ControlService"].full_name


class BotServicer:
    """The Connect stream. On a bot's own Unix socket (``socket``, ``bot``: :class:`BotSockets`) its streams count
    as the peer ``unix:SOCKET`` for the limits, and a Hello may name that bot only; elsewhere the peer is the
    client's address (every client of one Unix socket is the same peer, ``unix:``)."""

    def __init__(self, referee: Referee, limits: StreamLimits, socket: str | None = None, bot: str | None = None):
        self.referee, self.limits, self.socket, self.bot = referee, limits, socket, bot

    async def Connect(self, request_iterator, context: grpc.aio.ServicerContext):
        # Admitted (counted) before its Hello: the limits bound what an unauthenticated client holds open. Until its
        # Hello the stream waits among the ones the limits may close to make room (``closed`` then says why).
        peer = f"unix:{self.socket}" if self.socket else peer_host(context.peer())
        closed: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        refused = self.limits.admit(peer, closed, lambda why: closed.done() or closed.set_result(why))
        if refused:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, refused)
        try:
            await self._connect(context, closed)
        finally:
            self.limits.release(peer, closed)

    async def _hello(self, context: grpc.aio.ServicerContext, closed: asyncio.Future):
        """The stream's first message; or the stream is ended after the Hello timeout, or when the limits close it."""
        timeout_ms = self.referee.config.hello_timeout_ms
        read = asyncio.ensure_future(context.read())
        done, _ = await asyncio.wait((read, closed), timeout=timeout_ms / 1000, return_when=asyncio.FIRST_COMPLETED)
        if read in done:
            self.limits.said_hello(closed)
            return read.result()
        read.cancel()
        if closed in done:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, closed.result())
        await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED,
                            f"no Hello within {timeout_ms} ms of opening the Connect stream: a bot sends its Hello "
                            "first (the referee's limit: `pepper referee serve --hello-timeout-ms`)")

    async def _connect(self, context: grpc.aio.ServicerContext, closed: asyncio.Future):
        ref = self.referee
        first = await self._hello(context, closed)
        if first is grpc.aio.EOF:
            return
        if first.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message on a Connect stream must be a Hello")
        hello = first.hello
        if self.bot is not None and hello.bot_name != self.bot:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                f"this Unix socket is bot {self.bot!r}'s own: a Hello on it may name {self.bot!r} only, "
                                f"not {hello.bot_name!r} (each sandboxed bot reaches the referee through its own socket)")
        if ref.draining:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the server is draining")
        refused = ref.authenticate(hello.bot_name, hello.token, hello.protocol_version)
        if refused:
            await context.abort(getattr(grpc.StatusCode, refused[0]), refused[1])
        conn = ref.connect(hello.bot_name, hello.max_batch, hello.live_events)
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
                    for last in conn.final_batches():
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
                if msg is grpc.aio.EOF or conn.closed:
                    break
                ref.on_message(conn, msg)
                await asyncio.sleep(0)   # one message per connection per turn of the loop: each its share
        except asyncio.CancelledError:
            raise
        except Exception as e:
            reason = f"read failed: {e!r}"
        if not conn.closed:
            ref.disconnect(conn, reason)


def _status(code: str) -> grpc.StatusCode:
    return getattr(grpc.StatusCode, code)


async def _check_enums(request, context) -> None:
    """INVALID_ARGUMENT naming the field when a request's enum holds a value its enum does not define."""
    bad = wire.messages.bad_enum(request)
    if bad:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, bad)


class ControlServicer(control_pb2_grpc.ControlServiceServicer):
    def __init__(self, referee: Referee, token: str, health_servicer, sockets: BotSockets):
        self.referee, self._want, self.health, self.sockets = referee, f"Bearer {token}".encode(), health_servicer, sockets

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
            token = self.referee.register_bot(request.name, request.token, request.token_sha256,
                                              request.max_connections)
            path = await self.sockets.bind(request.name) if request.own_socket else ""
        except RequestError as e:
            await context.abort(_status(e.code), str(e))
        return control_pb2.RegisterBotResponse(name=request.name, token=token, unix_socket=path)

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
            await context.abort(grpc.StatusCode.NOT_FOUND, self.referee.gone(game_id))
        return run

    async def _result(self, game_id, context):
        """A game's full result: from memory (waiting for its end with ``wait``), else from its record file."""
        run = self.referee.games.get(game_id)
        if run is not None:
            return run
        stored = self.referee.stored_result(game_id)
        if stored is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, self.referee.gone(game_id))
        return stored

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
                run.unwatch(q)
        for m in run.final_spectator_messages(seen_public):
            await context.write(m)

    async def ListGames(self, request, context):
        await self._auth(context)
        await _check_enums(request, context)
        st = wire.messages.game_status_word(request.status) if request.status else None
        try:
            games, token = self.referee.list_games(st, request.page_size, request.page_token)
        except RequestError as e:
            await context.abort(_status(e.code), str(e))
        return control_pb2.ListGamesResponse(games=games, next_page_token=token)

    async def GetGame(self, request, context):
        await self._auth(context)
        run = await self._result(request.game_id, context)
        return control_pb2.GetGameResponse(result=run if isinstance(run, control_pb2.GameResult) else run.result())

    async def WaitGame(self, request, context):
        await self._auth(context)
        run = await self._result(request.game_id, context)
        if isinstance(run, control_pb2.GameResult):   # read from its record file
            return control_pb2.WaitGameResponse(result=run)
        await run.done.wait()
        return control_pb2.WaitGameResponse(result=run.result())

    async def Drain(self, request, context):
        await self._auth(context)
        if not 0 <= request.timeout_s < math.inf:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"timeout_s: {request.timeout_s} is not a number of seconds >= 0 (0: abort at once)")
        await self.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.health.set(BOT_SERVICE, health_pb2.HealthCheckResponse.NOT_SERVING)
        finished, aborted = await self.referee.drain(max(0.0, request.timeout_s))
        return control_pb2.DrainResponse(finished=finished, aborted=aborted)


class BotSockets:
    """The Unix sockets of single bots (``RegisterBotRequest.own_socket``), bound beside the referee's own socket
    (``--unix-socket``: the arena's run directory, mode 0700) as ``bot-N.sock``, mode 0666 (a sandboxed bot runs as
    another user). Each is served by a small grpc.aio server of its own on the referee's event loop (a running
    server takes no new port), with the Connect stream only, the same referee and the same limits: its streams
    count as a peer of their own and may say Hello as their bot only (:class:`BotServicer`)."""

    def __init__(self, referee: Referee, limits: StreamLimits, config: ServerConfig):
        self.referee, self.limits, self.config = referee, limits, config
        self.bound: dict[str, tuple[str, grpc.aio.Server]] = {}   # bot -> (its socket, its server)
        self._lock = asyncio.Lock()

    async def bind(self, bot: str) -> str:
        """The path of ``bot``'s socket, bound and served from now on (the same one when it has one already)."""
        async with self._lock:
            if bot in self.bound:
                return self.bound[bot][0]
            if not self.config.unix_socket:
                raise RequestError("FAILED_PRECONDITION", "RegisterBotRequest.own_socket: this referee has no Unix "
                                   "socket to bind a bot's beside; serve with `pepper referee serve --unix-socket PATH`")
            path = os.path.join(os.path.dirname(os.path.abspath(self.config.unix_socket)), f"bot-{len(self.bound) + 1}.sock")
            try:
                _clear_socket(path)
                server = _grpc_server(self.config)
                _add_bot_service(server, BotServicer(self.referee, self.limits, socket=path, bot=bot))
                if not server.add_insecure_port(f"unix:{path}"):
                    raise OSError(f"cannot bind the Unix socket {path}")
                await server.start()
                os.chmod(path, 0o666)
            except OSError as e:
                raise RequestError("FAILED_PRECONDITION", f"bot {bot!r}'s own socket: {e}") from None
            self.bound[bot] = (path, server)
            log.info("bot %s has its own socket %s", bot, path)
            return path

    async def stop(self, grace_s: float) -> None:
        """Stop every bot socket's server and remove its socket."""
        await asyncio.gather(*(server.stop(grace_s) for _, server in self.bound.values()))
        for path, _ in self.bound.values():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        self.bound.clear()


@dataclass
class RunningServer:
    """A started server: its bound address, the referee, and how to stop it."""

    server: grpc.aio.Server
    referee: Referee
    health: health.aio.HealthServicer
    sockets: BotSockets
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
        await asyncio.gather(self.server.stop(grace_s), self.sockets.stop(grace_s))
        await self.referee.close()
        return res


def _split_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"address must be HOST:PORT (port 0 picks a free one), got {address!r}")
    return host, int(port)


def _clear_socket(path: str) -> None:
    """Remove a socket left at ``path`` by a killed referee (bind fails on it); OSError if something else is there."""
    if os.path.lexists(path):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise OSError(f"{path} exists and is not a socket")
        os.unlink(path)


def _grpc_server(config: ServerConfig) -> grpc.aio.Server:
    """A gRPC server with the referee's options (the main one, and each bot socket's)."""
    return grpc.aio.server(options=[
        ("grpc.max_receive_message_length", config.max_receive_bytes),   # sized to the protocol (config.inbound_limit)
        ("grpc.max_send_message_length", config.max_send_bytes),
        ("grpc.so_reuseport", 0),
        ("grpc.max_concurrent_streams", config.max_streams_per_connection),
        ("grpc.server_handshake_timeout_ms", config.hello_timeout_ms),
        # The ping policy the SDKs keep to (config.py, MIN_PING_INTERVAL_MS): idle bots stay connected.
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", config.min_ping_interval_ms),
        ("grpc.http2.max_ping_strikes", MAX_PING_STRIKES),
        # The referee's own pings (config.py, KEEPALIVE_TIME_MS): a connection that does not answer one in time is
        # closed, also while it carries no data (an idle bot). gRPC core times a ping out by ping_timeout_ms (its
        # keepalive_timeout_ms alone did not close a stopped bot's connection).
        ("grpc.keepalive_time_ms", config.keepalive_time_ms),
        ("grpc.keepalive_timeout_ms", config.keepalive_timeout_ms),
        ("grpc.http2.ping_timeout_ms", config.keepalive_timeout_ms),
        ("grpc.http2.max_pings_without_data", 0),
    ])


def _add_bot_service(server: grpc.aio.Server, bots: BotServicer) -> None:
    # The bot service is registered by hand (same service and method names as the generated helper) so
    # that the Connect stream can send pre-serialized Batches: see referee.wire.batch_response.
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(BOT_SERVICE, {
        "Connect": grpc.stream_stream_rpc_method_handler(
            bots.Connect, request_deserializer=bot_pb2.ConnectRequest.FromString,
            response_serializer=wire.serialize_response),
    }),))


async def start(config: ServerConfig) -> RunningServer:
    """Build, bind and start the server."""
    host, _ = _split_address(config.address)
    if not config.control_token:
        raise ValueError("a control token is required")
    referee = Referee(config)
    limits = StreamLimits(config.max_bot_connections_per_peer, config.max_bot_connections, raise_open_file_limit(),
                          config.fd_reserve, waiting_total=config.max_waiting_streams,
                          waiting_per_peer=config.max_waiting_streams_per_peer,
                          rate_per_peer=config.new_streams_per_peer_per_s)
    limit_undecodable()
    server = _grpc_server(config)
    hs = health.aio.HealthServicer()
    _add_bot_service(server, BotServicer(referee, limits))
    sockets = BotSockets(referee, limits, config)
    control_pb2_grpc.add_ControlServiceServicer_to_server(ControlServicer(referee, config.control_token, hs, sockets),
                                                          server)
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
    if config.unix_socket:
        _clear_socket(config.unix_socket)
        if not server.add_insecure_port(f"unix:{config.unix_socket}"):
            raise OSError(f"cannot bind the Unix socket {config.unix_socket}")
    await server.start()
    if config.unix_socket:   # a sandboxed bot runs as another user: it needs write permission to connect
        os.chmod(config.unix_socket, 0o666)
    for name in ("", BOT_SERVICE, CONTROL_SERVICE):
        await hs.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("listening on %s:%d%s", host, port, " (TLS)" if config.tls_cert else "")
    return RunningServer(server, referee, hs, sockets, host, port, bool(config.tls_cert))
