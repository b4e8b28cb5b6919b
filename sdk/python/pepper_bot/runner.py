"""The connection loop: Hello, batches in, answers out, reconnect, clean exit.

One bot process keeps one Connect stream open. The referee multiplexes every
seat it gives the bot on that stream and sends everything pending as one
Batch; the runner walks the Batch in order (game starts, events, requests,
game ends, notices) and asks the bot for each decision.

Answers go out as they are decided when deciding is slow: the answers decided
so far are sent whenever ``FLUSH_AFTER_S`` (20 ms) has passed since the Batch
began or the last send, and the rest at the end of the Batch. The referee
times a connection's requests one at a time, each from when the bot could
start on it (its previous answer message arrived), and answers sent together
share their time (docs/protocol.md, "Time"): so a fast bot still sends one
message per Batch, and a slow bot's decisions each get the whole deadline.

When the stream drops (the referee restarted, the network failed) the runner
reconnects with exponential backoff (0.1 s doubling to 5 s, with jitter) and
says Hello again; games that were in progress are over for this bot (the
referee applies its disconnect policy), and the bot hears ``on_game_end`` with
status ``"connection-lost"`` for them. A refused Hello (wrong token, unknown
name, incompatible protocol) ends the process with exit code 2, unless the
bot had already been accepted once (the referee may be restarting and not
know the bot yet), in which case it keeps retrying. SIGTERM and SIGINT stop
the bot cleanly (exit code 0). With no connection for ``give_up_after``
seconds the bot gives up (exit code 1).

When the referee drains (the tournament is over, or the server shuts down) it
sends a DRAINING notice (protocol 1.3) before ending the stream: the runner
then plays out the seats it holds, ends the stream itself once it holds none,
logs why and exits 0 instead of reconnecting.

Keepalive: the channel pings the referee every ``KEEPALIVE_TIME_MS`` (30 s),
also while the bot has no game, so that a dead connection is noticed; the
referee accepts pings 20 s apart (referee/service/config.py,
``MIN_PING_INTERVAL_MS``; docs/protocol.md, "Keepalive").

Policy errors: when ``decide()`` raises or returns something that is not one
of the legal actions, the runner answers the first legal action instead (a
*fallback*) and marks the answer as one (``Answer.fallback``, protocol 1.2), so
the game goes on and the referee counts the strategy's failures; a hook (``on_game_start``,
``on_event``, ``on_game_end``) that raises is logged and ignored. Every log
line about a policy error starts with the stable marker
``[policy error N, fallbacks F]`` (the running counts: policy errors of any
kind, and fallbacks), e.g.::

    ERROR pepper.bot: [policy error 1, fallbacks 1] game g1 seat 0: decide() raised KeyError('x'); playing 'pass' instead

The first 10 are logged with their traceback, then one in 100. The summary
logged at exit ends with ``F fallbacks, N policy errors`` (at WARNING when
there were any). The log is for the bot's author; ``pepper bot check`` and the
arena learn of fallbacks from the referee, which counts the marked answers.
"""

from __future__ import annotations

import argparse
import logging
import os
import queue
import random
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import grpc
from pepper_proto import PROTOCOL_VERSION
from pepper_proto.v1 import bot_pb2, bot_pb2_grpc

from .bot import Bot, as_bot
from .convert import event_to_dict, game_end_to_dict, game_start_to_dict, notice_code, request_view

__all__ = ["run_bot", "main", "DEFAULT_REFEREE", "EXIT_OK", "EXIT_GAVE_UP", "EXIT_REFUSED", "KEEPALIVE_TIME_MS"]

log = logging.getLogger("pepper.bot")

DEFAULT_REFEREE = "127.0.0.1:50051"
EXIT_OK, EXIT_GAVE_UP, EXIT_REFUSED = 0, 1, 2

# The referee refused the bot itself: retrying the same Hello cannot help.
_REFUSED = {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.FAILED_PRECONDITION,
            grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNIMPLEMENTED}
_QUIET_NOTICES = {"cancelled", "stale-request"}
_DRAINING = "draining"

# Keepalive pings, agreed with the referee: it accepts pings 20 s apart (referee/service/config.py,
# MIN_PING_INTERVAL_MS; docs/protocol.md, "Keepalive"); pinging more often gets GOAWAY "too_many_pings".
# $PEPPER_KEEPALIVE_MS (or run_bot's keepalive_ms) changes the interval, for tests that scale both sides.
KEEPALIVE_TIME_MS = 30_000
KEEPALIVE_TIMEOUT_MS = 10_000     # no ping ack within this: the connection is dead, reconnect
_MAX_TRACEBACKS = 10
# Answers decided are sent once this long has passed since the Batch began or the last send (see above).
FLUSH_AFTER_S = 0.020

# The stable markers of the bot's log (see the module docstring): a policy error line, and the summary.
POLICY_ERROR_MARK = "[policy error {n}, fallbacks {f}]"


class _Stop(BaseException):
    """Raised by the signal handler to unwind the connection loop."""


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def match_action(ret, legal: list[str]) -> int | None:
    """The index in ``legal`` of a policy's answer (text, any case and spacing, or index); None if not legal."""
    if isinstance(ret, bool):
        return None
    if isinstance(ret, int):
        return ret if 0 <= ret < len(legal) else None
    if not isinstance(ret, str):
        return None
    try:
        return legal.index(ret)
    except ValueError:
        pass
    n = _norm(ret)
    for i, a in enumerate(legal):
        if _norm(a) == n:
            return i
    return None


class Runner:
    """Runs one bot until it is stopped, refused, or gives up reconnecting."""

    def __init__(self, bot: Bot, referee: str, token: str, name: str, max_batch: int = 0, *,
                 tls_ca: str | None = None, give_up_after: float | None = 300.0, keepalive_ms: int = KEEPALIVE_TIME_MS):
        self.bot, self.referee, self.token, self.name = bot, referee, token, name
        self.max_batch, self.tls_ca, self.give_up_after = max_batch, tls_ca, give_up_after
        self.keepalive_ms = keepalive_ms
        self.drained = False     # the referee sent DRAINING: no more games; exit once the stream ends
        wants = getattr(bot, "wants_events", None)
        self.wants_events = bool(wants) if wants is not None else type(bot).on_event is not Bot.on_event
        self.seats: dict[str, set[int]] = {}   # game -> seats held on the current connection
        self.stats: Counter = Counter()
        self.stopping = False
        self._wake = threading.Event()
        self._last_progress = time.monotonic()

    # -- the loop ------------------------------------------------------------
    def run(self, install_signal_handlers: bool = True) -> int:
        old = {}
        if install_signal_handlers and threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                old[sig] = signal.signal(sig, self._on_signal)
        try:
            return self._loop()
        except _Stop:
            log.log(logging.WARNING if self.stats["policy-errors"] else logging.INFO, "stopping: %s", self._summary())
            return EXIT_OK
        finally:
            for sig, h in old.items():
                signal.signal(sig, h)

    def _on_signal(self, signum, frame) -> None:
        if self.stopping:
            return
        self.stopping = True
        raise _Stop(signum)

    def _loop(self) -> int:
        backoff = 0.1
        accepted_once = False
        down_since = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            welcomed, code, details = self._session()
            if self.drained:
                log.info("the referee drained; exiting: %s", self._summary())
                return EXIT_OK
            if welcomed:
                accepted_once = True
                backoff = 0.1
                down_since = time.monotonic()
            if code in _REFUSED and not accepted_once:
                log.error("the referee refused the bot: %s: %s", code.name, details)
                return EXIT_REFUSED
            why = f"{code.name}: {details}" if code is not None else details
            if self.give_up_after is not None and time.monotonic() - down_since > self.give_up_after:
                log.error("no connection to %s for %.0f s (%s); giving up. %s", self.referee, self.give_up_after, why,
                          self._summary())
                return EXIT_GAVE_UP
            delay = backoff * random.uniform(0.8, 1.2)
            if welcomed or attempt == 1:
                log.warning("connection to %s lost (%s); reconnecting", self.referee, why)
            else:
                log.info("cannot connect to %s (%s); retrying in %.1f s", self.referee, why, delay)
            self._wake.wait(delay)
            backoff = min(backoff * 2, 5.0)

    def _channel(self) -> grpc.Channel:
        opts = [("grpc.max_receive_message_length", 256 << 20), ("grpc.max_send_message_length", 64 << 20),
                ("grpc.keepalive_time_ms", self.keepalive_ms), ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
                ("grpc.keepalive_permit_without_calls", 1), ("grpc.http2.max_pings_without_data", 0),
                ("grpc.enable_retries", 0)]
        if self.tls_ca:
            creds = grpc.ssl_channel_credentials(root_certificates=Path(self.tls_ca).read_bytes())
            return grpc.secure_channel(self.referee, creds, options=opts)
        return grpc.insecure_channel(self.referee, options=opts)

    def _session(self) -> tuple[bool, grpc.StatusCode | None, str]:
        """One Connect stream, from Hello to its end: (welcomed, status code, details)."""
        out: queue.SimpleQueue = queue.SimpleQueue()
        hello = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
            bot_name=self.name, protocol_version=PROTOCOL_VERSION, token=self.token, max_batch=self.max_batch,
            live_events=bool(getattr(self.bot, "live_events", False))))

        def requests():
            yield hello
            while True:
                m = out.get()
                if m is None:
                    return
                yield m

        welcomed = False
        channel = self._channel()
        try:
            call = bot_pb2_grpc.BotServiceStub(channel).Connect(requests())
            for resp in call:
                which = resp.WhichOneof("message")
                if which == "batch":
                    self._batch(resp.batch, lambda answers: out.put(
                        bot_pb2.ConnectRequest(answers=bot_pb2.AnswerBatch(answers=answers))))
                    if self.drained and not self.seats:
                        out.put(None)   # nothing left to play: end the stream rather than wait for the referee
                elif which == "welcome":
                    welcomed = True
                    w = resp.welcome
                    log.info("connected to %s as %s (connection %s, protocol %s, batches of up to %d)",
                             self.referee, self.name, w.connection_id, w.protocol_version, w.max_batch)
            return welcomed, grpc.StatusCode.OK, "the referee closed the stream"
        except grpc.RpcError as e:
            return welcomed, e.code(), e.details() or ""
        finally:
            out.put(None)
            channel.close()
            self._lost_games()

    # -- one batch -----------------------------------------------------------
    def _batch(self, batch: bot_pb2.Batch, send: Callable[[list[bot_pb2.Answer]], object]) -> None:
        """Handle a Batch's items in order; ``send`` the answers as they are decided (see the module docstring)."""
        answers: list[bot_pb2.Answer] = []
        bot = self.bot
        since = time.monotonic()    # when the Batch began, or the last send
        for it in batch.items:
            kind = it.WhichOneof("item")
            if kind == "request":
                answers.append(self._decide(it.request, since))
                now = time.monotonic()
                if now - since >= FLUSH_AFTER_S:
                    send(answers)
                    answers, since = [], now
            elif kind == "event":
                if self.wants_events:
                    ev = it.event
                    self._hook(bot.on_event, ev.game_id, event_to_dict(ev))
            elif kind == "game_start":
                gs = it.game_start
                self.seats.setdefault(gs.game_id, set()).add(gs.seat)
                self.stats["seats"] += 1
                log.debug("game %s: seat %d (%s, %d players)", gs.game_id, gs.seat, gs.ruleset.name, gs.players)
                self._hook(bot.on_game_start, game_start_to_dict(gs))
            elif kind == "game_end":
                ge = it.game_end
                held = self.seats.get(ge.game_id)
                if held is not None:
                    held.discard(ge.seat)
                    if not held:
                        del self.seats[ge.game_id]
                        self.stats["games"] += 1
                res = game_end_to_dict(ge)
                self.stats["ended-" + res["status"]] += 1
                log.debug("game %s seat %d: %s (%s)", ge.game_id, ge.seat, res["status"], ge.reason)
                self._hook(bot.on_game_end, ge.game_id, res)
            elif kind == "notice":
                self._notice(it.notice)
        if answers:
            send(answers)
        now = time.monotonic()
        if now - self._last_progress > 60:
            self._last_progress = now
            log.info("progress: %s", self._summary())

    def _decide(self, r: bot_pb2.DecisionRequest, since: float) -> bot_pb2.Answer:
        legal = list(r.legal_actions)
        self.stats["decisions"] += 1
        # The referee times this decision from when it got the last answers sent (``since``, give or take the
        # network): the time since then is spent already.
        left = r.deadline_ms - (time.monotonic() - since) * 1000.0
        choice = None
        fallback, detail = bot_pb2.STRATEGY_FALLBACK_UNSPECIFIED, ""
        instead = f"playing {legal[0] if legal else '?'!r} instead"
        try:
            view = request_view(r, max(1, int(left)))
            ret = self.bot.decide(view)
            choice = match_action(ret, legal)
            if choice is None:
                self.stats["fallbacks"] += 1
                fallback, detail = bot_pb2.STRATEGY_FALLBACK_ILLEGAL, f"decide() returned {ret!r}"[:200]
                self._policy_error(f"game {r.game_id} seat {r.seat}: decide() returned {ret!r}, which is not one of "
                                   f"the legal actions {legal}; {instead}", None)
        except _Stop:
            raise
        except Exception as e:  # noqa: BLE001 - a policy bug must not kill the bot
            self.stats["fallbacks"] += 1
            fallback, detail = bot_pb2.STRATEGY_FALLBACK_RAISED, f"decide() raised {e!r}"[:200]
            self._policy_error(f"game {r.game_id} seat {r.seat}: decide() raised {e!r}; {instead}", e)
        # The answer says when it is a fallback (protocol 1.2), so the referee counts the strategy's failures.
        if choice is None:
            if not legal:
                return bot_pb2.Answer(request_id=r.request_id, action_index=0, game_id=r.game_id, fallback=fallback,
                                      fallback_detail=detail)
            choice = 0
        return bot_pb2.Answer(request_id=r.request_id, action=legal[choice], game_id=r.game_id, fallback=fallback,
                              fallback_detail=detail)

    def _policy_error(self, msg: str, exc: BaseException | None) -> None:
        """Log a policy error with the stable marker (count it first; a fallback is counted by the caller)."""
        n = self.stats["policy-errors"] = self.stats["policy-errors"] + 1
        mark = POLICY_ERROR_MARK.format(n=n, f=self.stats["fallbacks"])
        if n <= _MAX_TRACEBACKS:
            log.error("%s %s", mark, msg, exc_info=exc)
            if n == _MAX_TRACEBACKS:
                log.error("further policy errors are logged once per 100")
        elif n % 100 == 0:
            log.error("%s %d policy errors so far; latest: %s", mark, n, msg)

    def _hook(self, fn, *args) -> None:
        try:
            fn(*args)
        except _Stop:
            raise
        except Exception as e:  # noqa: BLE001
            self._policy_error(f"{getattr(fn, '__name__', 'hook')}() raised {e!r}", e)

    def _notice(self, n: bot_pb2.Notice) -> None:
        code = notice_code(n.code)
        self.stats["notice-" + code] += 1
        if code == _DRAINING:
            self.drained = True
            log.info("the referee is draining: %s", n.message or "no reason given")
            return
        level = logging.INFO if code in _QUIET_NOTICES else logging.WARNING
        fb = f" (the referee played {n.fallback_action})" if n.fallback_action else ""
        log.log(level, "referee notice %s for request %d%s: %s%s", code, n.request_id,
                f" in game {n.game_id}" if n.game_id else "", n.message, fb)

    def _lost_games(self) -> None:
        """The stream ended: games still held are over for this bot."""
        lost, self.seats = self.seats, {}
        for gid, seats in lost.items():
            self.stats["games"] += 1
            for seat in sorted(seats):
                self.stats["ended-connection-lost"] += 1
                self._hook(self.bot.on_game_end, gid, {
                    "game_id": gid, "seat": seat, "status": "connection-lost", "outcome": None,
                    "reason": "the connection to the referee was lost", "seat_status": "disconnected"})

    def _summary(self) -> str:
        s = self.stats
        ended = ", ".join(f"{k[6:]} {v}" for k, v in sorted(s.items()) if k.startswith("ended-"))
        return (f"{s['games']} games, {s['seats']} seats ({ended or 'none ended'}), {s['decisions']} decisions, "
                f"{s['fallbacks']} fallbacks, {s['policy-errors']} policy errors")


# -- entry points --------------------------------------------------------------
def setup_logging(level: str | int | None = None) -> None:
    """Log to stderr (unless the application configured logging already)."""
    level = level or os.environ.get("PEPPER_LOG_LEVEL") or "INFO"
    if isinstance(level, str):
        level = level.upper()
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log.setLevel(level)


def run_bot(bot, referee: str | None = None, token: str | None = None, name: str | None = None, max_batch: int = 0, *,
            tls_ca: str | None = None, log_level: str | None = None, give_up_after: float | None = 300.0,
            install_signal_handlers: bool = True, keepalive_ms: int | None = None) -> int:
    """Connect ``bot`` to a referee and play until stopped. Returns the exit code (0 stopped, 1 gave up, 2 refused).

    ``bot``: a :class:`Bot` (or a policy object / class with ``decide``).
    ``referee`` (HOST:PORT), ``token`` and ``name`` default to the environment
    variables ``PEPPER_REFEREE``, ``PEPPER_TOKEN`` and ``PEPPER_BOT_NAME``
    (then 127.0.0.1:50051 and the bot's ``name``). ``max_batch``: the most
    requests per Batch the bot asks for (0: the referee's default).
    ``keepalive_ms``: the keepalive ping interval (default ``$PEPPER_KEEPALIVE_MS``, then
    :data:`KEEPALIVE_TIME_MS`); the referee tells a bot that pings more often than it allows to go away.
    """
    setup_logging(log_level)
    bot = as_bot(bot)
    referee = referee or os.environ.get("PEPPER_REFEREE") or DEFAULT_REFEREE
    try:
        launched = launch_token()
    except (OSError, ValueError) as e:
        log.error("cannot read the token from $PEPPER_TOKEN_FD: %s", e)
        return EXIT_REFUSED
    token = token if token is not None else launched
    name = name or os.environ.get("PEPPER_BOT_NAME") or bot.name or type(bot).__name__.lower()
    tls_ca = tls_ca or os.environ.get("PEPPER_TLS_CA") or None
    if not token:
        log.error("no token: pass --token, set PEPPER_TOKEN, or give it on the pipe PEPPER_TOKEN_FD names (the token "
                  "the bot was registered with)")
        return EXIT_REFUSED
    if not max_batch and os.environ.get("PEPPER_MAX_BATCH"):   # the launch contract's setting (docs/protocol.md)
        env = os.environ["PEPPER_MAX_BATCH"]
        if not env.isdigit():
            log.error("PEPPER_MAX_BATCH must be a whole number of requests, got %r", env)
            return EXIT_REFUSED
        max_batch = int(env)
    if max_batch < 0:
        log.error("max_batch must be >= 0")
        return EXIT_REFUSED
    if keepalive_ms is None:
        env = os.environ.get("PEPPER_KEEPALIVE_MS") or str(KEEPALIVE_TIME_MS)
        if not env.isdigit():
            log.error("PEPPER_KEEPALIVE_MS must be a whole number of milliseconds, got %r", env)
            return EXIT_REFUSED
        keepalive_ms = int(env)
    if keepalive_ms < 1:
        log.error("keepalive_ms must be >= 1, got %d", keepalive_ms)
        return EXIT_REFUSED
    log.info("bot %s (%s) connecting to %s", name, type(getattr(bot, "policy", bot)).__name__, referee)
    return Runner(bot, referee, token, name, max_batch, tls_ca=tls_ca, give_up_after=give_up_after,
                  keepalive_ms=keepalive_ms).run(install_signal_handlers)


_launched: list[str] = []


def launch_token() -> str:
    """The token the bot was launched with: read to its end from the pipe whose descriptor ``$PEPPER_TOKEN_FD``
    names (how the arena hands it over: a pipe is read once, where the environment stays readable in /proc by any
    process of the same user), else ``$PEPPER_TOKEN``. Both variables are then dropped from this process's
    environment, so that the programs it starts do not inherit them; later calls return the same token."""
    if not _launched:
        fd, token = os.environ.pop("PEPPER_TOKEN_FD", ""), os.environ.pop("PEPPER_TOKEN", "")
        if fd:
            with os.fdopen(int(fd), "rb") as pipe:
                token = pipe.read().decode().strip()
        _launched.append(token)
    return _launched[0]


def add_connection_args(ap: argparse.ArgumentParser) -> None:
    """The flags every launched bot understands (environment variables are the defaults)."""
    ap.add_argument("--referee", default=None, help="HOST:PORT of the referee (default: $PEPPER_REFEREE or 127.0.0.1:50051)")
    ap.add_argument("--token", default=None, help="the bot's token (default: read from the pipe $PEPPER_TOKEN_FD "
                    "names, else $PEPPER_TOKEN)")
    ap.add_argument("--name", default=None, help="the bot's registered name (default: $PEPPER_BOT_NAME)")
    ap.add_argument("--max-batch", type=int, default=0,
                    help="most decision requests per batch (default: $PEPPER_MAX_BATCH, else 0: the referee's default)")
    ap.add_argument("--tls-ca", default=None, help="PEM CA certificate: connect with TLS (default: $PEPPER_TLS_CA)")
    ap.add_argument("--log-level", default=None, help="debug, info, warning or error (default: $PEPPER_LOG_LEVEL or info)")
    ap.add_argument("--give-up-after", type=float, default=300.0, help="seconds without a connection before exiting")


def main(bot, argv: list[str] | None = None) -> None:
    """Run ``bot`` with the standard flags (``--referee``, ``--token``, ``--name``...) and exit.

    For a bot file: ``if __name__ == "__main__": main(MyBot())``.
    """
    ap = argparse.ArgumentParser(description=f"Run the Pepper bot {getattr(bot, 'name', None) or bot!r}.")
    add_connection_args(ap)
    a = ap.parse_args(argv)
    sys.exit(run_bot(bot, a.referee, a.token, a.name, a.max_batch, tls_ca=a.tls_ca, log_level=a.log_level,
                     give_up_after=a.give_up_after))
