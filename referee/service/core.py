"""The referee core: games, connections, batching and enforcement (no gRPC plumbing).

Everything runs on one asyncio event loop, so there are no locks: a bot's
answers are applied, the game advanced and the next requests queued inside one
synchronous step.

Flow of one decision::

    GameRun.advance()        game waits for seat s -> Pending queued on s's Connection
    Connection.take_batch()  (writer) everything pending goes out in one Batch once
                             the previous Batch is fully answered or expired
    Referee.on_answers()     (reader) answer checked against the request's legal list,
                             applied, game advanced -> next Pending, events queued
    Connection timer         deadline + time bank passed -> timeout fault -> policy

Hidden information: a connection only ever receives ``Game.view(seat)`` and
``Game.events_for(seat)`` for the seats it was given, converted by
:mod:`referee.wire`; spectators get public events only until the game is over.

Speed: the hot path (one request and a few events per decision) writes protobuf
bytes directly with :class:`referee.wire.GameEncoder` (per-deal caches, each
public event encoded once per game step and shared by every connection), which
tests/referee/test_wire_fast.py checks against the reference conversion.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import re
import secrets
import time
import tomllib
from collections import deque
from dataclasses import dataclass, field

from pepper_proto.v1 import bot_pb2, control_pb2, game_pb2

from referee import wire
from referee.rules import BUILTIN_RULESETS, Game, RulesError, get_ruleset, ruleset_from_dict
from referee.rules.game import PUBLIC

from .config import FAULT_KINDS, Policy, ServerConfig

log = logging.getLogger("referee")

MAX_FALLBACK_DETAILS = 10
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_FAULT_ENUM = {"illegal": game_pb2.FAULT_KIND_ILLEGAL, "malformed": game_pb2.FAULT_KIND_MALFORMED,
               "timeout": game_pb2.FAULT_KIND_TIMEOUT, "disconnect": game_pb2.FAULT_KIND_DISCONNECT}
_POLICY_ENUM = {"fallback": game_pb2.FAILURE_POLICY_FALLBACK, "forfeit": game_pb2.FAILURE_POLICY_FORFEIT,
                "abort": game_pb2.FAILURE_POLICY_ABORT}
POLICY_NAME = {v: k for k, v in _POLICY_ENUM.items()}
_NOTICE = {"illegal": bot_pb2.NOTICE_CODE_ILLEGAL_ACTION, "malformed": bot_pb2.NOTICE_CODE_MALFORMED_ANSWER,
           "timeout": bot_pb2.NOTICE_CODE_TIMEOUT}
RUNNING, COMPLETED, FORFEITED, ABORTED = (game_pb2.GAME_STATUS_RUNNING, game_pb2.GAME_STATUS_COMPLETED,
                                          game_pb2.GAME_STATUS_FORFEITED, game_pb2.GAME_STATUS_ABORTED)
S_OK, S_FAULTED, S_DISCONNECTED, S_FORFEITED, S_ABORTED = (
    game_pb2.SEAT_STATUS_OK, game_pb2.SEAT_STATUS_FAULTED, game_pb2.SEAT_STATUS_DISCONNECTED,
    game_pb2.SEAT_STATUS_FORFEITED, game_pb2.SEAT_STATUS_ABORTED)
_STATUS_RANK = {S_OK: 0, S_FAULTED: 1, S_DISCONNECTED: 2, S_FORFEITED: 3, S_ABORTED: 3}


class RequestError(ValueError):
    """A control request that cannot be carried out; ``code`` is a grpc.StatusCode name."""

    def __init__(self, code: str, message: str):
        self.code = code
        super().__init__(message)


# --------------------------------------------------------------------------- state
class Pending:
    """One decision request: created when the game waits for a seat, open until answered or expired.

    A plain class with __slots__: one is made per decision, so it is kept cheap.
    """

    __slots__ = ("rid", "run", "seat", "legal", "item", "deadline_ms", "sent_at", "expires", "cancelled")

    def __init__(self, rid: int, run: GameRun, seat: int, legal: list[int], item: bytes | None, deadline_ms: int):
        self.rid, self.run, self.seat, self.legal, self.item, self.deadline_ms = rid, run, seat, legal, item, deadline_ms
        self.sent_at = 0.0
        self.expires = 0.0         # loop time
        self.cancelled = False

    @property
    def legal_text(self) -> list[str]:
        """The legal actions as sent (only needed for messages, so not kept)."""
        return [wire.ACTIONS_TEXT[a] for a in self.legal]


@dataclass(eq=False)
class SeatRun:
    seat: int
    bot_name: str
    conn: Connection | None
    bank_ms: float
    status: int = S_OK
    auto: bool = False                 # decisions are played by fallback (connection lost, policy fallback)
    faults: dict = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))
    latencies: list = field(default_factory=list)   # ms
    conn_id: str = ""
    fallbacks: int = 0                 # answers the bot's SDK marked as fallbacks (Answer.fallback)
    fallback_details: list = field(default_factory=list)   # the first MAX_FALLBACK_DETAILS, "reason: detail"

    def set_status(self, st: int) -> None:
        if _STATUS_RANK[st] >= _STATUS_RANK[self.status]:
            self.status = st


class Connection:
    """One bot stream: its outbox, the requests in flight and the deadline timer."""

    def __init__(self, referee: Referee, cid: str, bot_name: str, max_batch: int):
        self.referee, self.id, self.bot_name, self.max_batch = referee, cid, bot_name, max_batch
        self.outbox: deque = deque()       # lists of item frames, and Pending requests, in order (see push)
        self.in_flight: dict[int, Pending] = {}
        self.closed_ids: dict[int, str] = {}   # recently resolved request ids -> why (stale answers)
        self.seats: set[tuple[GameRun, int]] = set()
        self.wake = asyncio.Event()
        self.closed = False
        self.close_reason = ""
        self.unknown = 0
        self.stale = 0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    # -- queueing ---------------------------------------------------------
    # The outbox holds, in order, lists of pre-serialized item frames (events,
    # notices, game starts and ends: consecutive ones share one list, so a busy
    # connection does not pay per item) and Pending requests (kept apart: a
    # Batch holds at most max_batch of them, and a withdrawn one is skipped).
    def push(self, frame: bytes) -> None:
        """Queue pre-serialized batch item frames (see :func:`referee.wire.item_frame`; several may be concatenated)."""
        if self.closed:
            return
        out = self.outbox
        if out and type(out[-1]) is list:
            out[-1].append(frame)
        else:
            out.append([frame])
        if not self.in_flight:
            self.wake.set()

    def push_request(self, p: Pending) -> None:
        """Queue a decision request (its frame is ``p.item``)."""
        if self.closed:
            return
        self.outbox.append(p)
        if not self.in_flight:
            self.wake.set()

    def take_batch(self, now: float, loop_now: float) -> bytes | None:
        """A serialized ConnectResponse holding everything pending (at most max_batch requests),
        or None while the last batch is still open."""
        if self.in_flight or not self.outbox:
            return None
        items, n, out, fl, cap = [], 0, self.outbox, self.in_flight, self.max_batch
        soonest = None
        while out:
            p = out[0]
            if type(p) is list:
                items += p
            else:
                if p.cancelled:
                    out.popleft()
                    continue
                if n == cap:
                    break
                n += 1
                p.sent_at = now
                bank = p.run.seats[p.seat].bank_ms
                p.expires = exp = loop_now + (p.deadline_ms + (bank if bank > 0.0 else 0.0)) / 1000.0
                fl[p.rid] = p
                if soonest is None or exp < soonest:
                    soonest = exp
                items.append(p.item)
            out.popleft()
        if soonest is not None:
            self._arm(soonest)
        return wire.batch_response(items) if items else None

    def _arm(self, when: float) -> None:
        if self._timer is not None and self._timer_at <= when:
            return
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer_at = when
        self._timer = loop.call_at(when + 0.001, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self.closed:
            return
        now = asyncio.get_running_loop().time()
        expired = [p for p in self.in_flight.values() if p.expires <= now]
        for p in expired:
            del self.in_flight[p.rid]
            self.remember(p.rid, "expired")
            if not p.cancelled:
                self.referee._guard(p.run, self.referee.on_timeout, p)
        if self.in_flight:
            self._arm(min(p.expires for p in self.in_flight.values()))
        elif self.outbox:
            self.wake.set()

    def final_batch(self) -> bytes | None:
        """After close: what is left to say (notices, events), without requests; then the stream ends."""
        frames = [f for x in self.outbox if type(x) is list for f in x]
        self.outbox.clear()
        return wire.batch_response(frames) if frames else None

    def remember(self, rid: int, why: str) -> None:
        ci = self.closed_ids
        ci[rid] = why
        if len(ci) > 100_000:
            for k in list(itertools.islice(ci, 50_000)):
                del ci[k]

    def notice(self, code: int, rid: int, game_id: str, message: str, fallback: str = "") -> None:
        self.push(wire.item_frame(wire.ITEM_NOTICE, bot_pb2.Notice(
            code=code, request_id=rid, game_id=game_id, message=message, fallback_action=fallback).SerializeToString()))

    def close(self, reason: str) -> None:
        if not self.closed:
            self.closed, self.close_reason = True, reason
            if self._timer is not None:
                self._timer.cancel()
            self.wake.set()


class GameRun:
    """One game being refereed: the engine's Game plus seats, policy, faults and timing."""

    def __init__(self, gid: str, game: Game, seats: list[SeatRun], policy: Policy, seed: int):
        self.id, self.game, self.seats, self.policy, self.seed = gid, game, seats, policy, seed
        self.enc = wire.GameEncoder(game, gid)   # this game's wire bytes, with per-deal caches
        self.cursor = 0                          # next event log index to send to the bots
        self._routes: tuple | None = None
        self.status = RUNNING
        self.reason = ""
        self.started = time.time()
        self.ended: float | None = None
        self.faults: list[control_pb2.Fault] = []
        self.public_faults: list[control_pb2.Fault] = []   # the same, as shown while the game runs (see fault)
        self.pending: Pending | None = None
        self.decisions = 0
        self.watchers: list[asyncio.Queue] = []
        self.spec_cursor = 0
        self.winners: tuple[int, ...] = ()
        self.winning_seats: tuple[int, ...] = ()
        self.done = asyncio.Event()

    @property
    def over(self) -> bool:
        return self.status != RUNNING

    def routes(self) -> tuple[list, list]:
        """(connections that get the public events, connection per seat for its private events).

        A seat played by fallback (``auto``) gets nothing more. (Each seat of a
        game has its own connection, see :meth:`Referee.create_game`.)
        Cached: call :meth:`reroute` whenever a seat's ``auto`` or ``conn`` changes.
        """
        r = self._routes
        if r is None:
            per_seat = [None if sr.auto else sr.conn for sr in self.seats]
            r = self._routes = (list(dict.fromkeys(c for c in per_seat if c is not None)), per_seat)
        return r

    def reroute(self) -> None:
        self._routes = None


# --------------------------------------------------------------------------- referee
class Referee:
    """All games and bot connections of one server."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.tokens: dict[str, str] = dict(config.bot_tokens)
        self.conns: dict[str, list[Connection]] = {}
        self.games: dict[str, GameRun] = {}
        self.running = 0
        self.draining = False
        self._rid = itertools.count(1)
        self._gid = itertools.count(1)
        self._cid = itertools.count(1)
        self._finished_order: deque[str] = deque()
        for name in self.tokens:
            self._check_name(name)

    # -- bots -------------------------------------------------------------
    @staticmethod
    def _check_name(name: str) -> None:
        if not _NAME.match(name or ""):
            raise RequestError("INVALID_ARGUMENT", f"bad bot name {name!r}: 1-64 letters, digits, '-', '_' or '.'")

    def register_bot(self, name: str, token: str = "") -> str:
        self._check_name(name)
        if token and len(token) < 8:
            raise RequestError("INVALID_ARGUMENT", "a bot token must have at least 8 characters")
        self.tokens[name] = token or secrets.token_urlsafe(24)
        return self.tokens[name]

    def authenticate(self, hello: bot_pb2.Hello) -> tuple[str, str] | None:
        """(grpc status code name, message) when the hello is refused, else None."""
        if not wire.protocol_compatible(hello.protocol_version):
            return ("FAILED_PRECONDITION", f"protocol version {hello.protocol_version!r} is not supported: "
                    f"this referee speaks {wire.PROTOCOL_VERSION} (any {wire.PROTOCOL_VERSION.split('.')[0]}.x is accepted)")
        want = self.tokens.get(hello.bot_name)
        if want is None or not secrets.compare_digest(want.encode(), hello.token.encode()):
            return ("UNAUTHENTICATED", f"bot {hello.bot_name!r}: unknown bot name or wrong token")
        return None

    def connect(self, bot_name: str, max_batch: int) -> Connection:
        mb = self.config.default_batch if max_batch == 0 else min(max_batch, self.config.max_batch)
        conn = Connection(self, f"c{next(self._cid)}-{bot_name}", bot_name, mb)
        self.conns.setdefault(bot_name, []).append(conn)
        log.info("bot %s connected as %s (batch %d)", bot_name, conn.id, mb)
        return conn

    def disconnect(self, conn: Connection, reason: str) -> None:
        """The stream ended or failed: every seat it served gets the disconnect policy."""
        if conn in self.conns.get(conn.bot_name, ()):
            self.conns[conn.bot_name].remove(conn)
        conn.close(reason)
        log.info("connection %s closed: %s", conn.id, reason)
        for run, seat in sorted(conn.seats, key=lambda rs: (rs[0].id, rs[1])):
            if run.over:
                continue
            p = run.pending if (run.pending is not None and run.pending.seat == seat and not run.pending.cancelled) else None
            if p is not None:
                p.cancelled = True
                run.pending = None
            self._guard(run, self.fault, run, seat, "disconnect", p, f"connection {conn.id} lost: {reason}")
        conn.seats.clear()
        conn.in_flight.clear()

    def bots(self) -> list[control_pb2.BotInfo]:
        return [control_pb2.BotInfo(name=n, connections=len(self.conns.get(n, ())),
                                    active_seats=sum(len(c.seats) for c in self.conns.get(n, ())))
                for n in sorted(self.tokens)]

    # -- games ------------------------------------------------------------
    def create_game(self, req: control_pb2.CreateGameRequest) -> GameRun:
        if self.draining:
            raise RequestError("UNAVAILABLE", "the server is draining: no new games")
        if self.running >= self.config.max_games:
            raise RequestError("RESOURCE_EXHAUSTED", f"{self.running} games running (limit {self.config.max_games})")
        gid = req.game_id or f"g{next(self._gid)}"
        if not _NAME.match(gid):
            raise RequestError("INVALID_ARGUMENT", f"bad game id {gid!r}: 1-64 letters, digits, '-', '_' or '.'")
        if gid in self.games:
            raise RequestError("ALREADY_EXISTS", f"game {gid!r} exists")
        rs = self._ruleset(req)
        players = req.players or (4 if 4 in rs.player_counts else rs.player_counts[0])
        if players not in rs.player_counts:
            raise RequestError("INVALID_ARGUMENT", f"ruleset {rs.name!r} is played by {', '.join(map(str, rs.player_counts))} players, not {players}")
        if len(req.seats) != players:
            raise RequestError("INVALID_ARGUMENT", f"seats names {len(req.seats)} bots for a {players}-player game")
        seed = req.seed if req.HasField("seed") else secrets.randbits(63)
        try:
            policy = self._policy(req.policy) if req.HasField("policy") else self.config.policy
            game = Game(rs, players, seed=seed, decks=[list(d.cards) for d in req.decks] or None,
                        first_dealer=req.first_dealer if req.HasField("first_dealer") else None)
        except (RulesError, ValueError) as e:
            raise RequestError("INVALID_ARGUMENT", str(e)) from None
        # A connection holds at most one seat of a game: a stream given two seats would receive both
        # hands (a partner's, or an opponent's at a free-for-all table). A bot that takes k seats of a
        # game needs k live connections; each seat goes to the least busy connection not yet used.
        # (--shared-seats lifts this, for trusted self-play and the conformance checker.)
        used: dict[Connection, int] = {}    # seats of this game given to each connection
        shared = self.config.shared_seats
        seats = []
        for s, name in enumerate(req.seats):
            if name not in self.tokens:
                raise RequestError("NOT_FOUND", f"seat {s}: no bot registered as {name!r}")
            live = [c for c in self.conns.get(name, ()) if not c.closed and (shared or c not in used)]
            if not live:
                k, n = list(req.seats).count(name), sum(1 for c in self.conns.get(name, ()) if not c.closed)
                raise RequestError("UNAVAILABLE", f"seat {s}: bot {name!r} has no live connection" if not n else
                                   f"seat {s}: bot {name!r} takes {k} seats of this game but has {n} live connection(s); "
                                   "a connection holds at most one seat of a game (so that it never receives another "
                                   f"seat's cards): connect {k} streams, e.g. run {k} processes of the bot")
            conn = min(live, key=lambda c: len(c.seats) + used.get(c, 0))
            used[conn] = used.get(conn, 0) + 1
            seats.append(SeatRun(s, name, conn, float(policy.time_bank_ms), conn_id=conn.id))
        run = GameRun(gid, game, seats, policy, seed)
        self.games[gid] = run
        self.running += 1
        info = wire.ruleset_info(rs, game.table)
        table = [bot_pb2.TableSeat(seat=s.seat, bot_name=s.bot_name, team=game.table.team_of[s.seat]) for s in seats]
        for sr in seats:
            sr.conn.seats.add((run, sr.seat))
            sr.conn.push(wire.item_frame(wire.ITEM_GAME_START, bot_pb2.GameStart(
                game_id=gid, seat=sr.seat, ruleset=info, players=players, table=table,
                deadline_ms=policy.deadline_ms, time_bank_ms=policy.time_bank_ms).SerializeToString()))
        self.advance(run)
        return run

    def _ruleset(self, req: control_pb2.CreateGameRequest):
        src = req.WhichOneof("ruleset_source")
        try:
            if src is None or src == "ruleset":
                name = req.ruleset or "iowa"
                if name not in BUILTIN_RULESETS:
                    raise RequestError("INVALID_ARGUMENT", f"unknown ruleset {name!r} (built-in: {', '.join(BUILTIN_RULESETS)}; "
                                       "or send ruleset_toml / ruleset_json)")
                return get_ruleset(name)
            if src == "ruleset_toml":
                data = tomllib.loads(req.ruleset_toml)
            else:
                data = json.loads(req.ruleset_json)
                if not isinstance(data, dict):
                    raise RequestError("INVALID_ARGUMENT", "ruleset_json must be a JSON object")
            if "name" not in data and isinstance(data.get("extends"), str):
                data["name"] = f"{data['extends']}-custom"
            return ruleset_from_dict(data, source=f"<{src}>")
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
            raise RequestError("INVALID_ARGUMENT", f"{src}: cannot parse: {e}") from None
        except RulesError as e:
            raise RequestError("INVALID_ARGUMENT", str(e)) from None

    def _policy(self, p: control_pb2.GamePolicy) -> Policy:
        kw = {}
        for k in FAULT_KINDS:
            v = getattr(p, f"on_{k}")
            if v:
                kw[f"on_{k}"] = POLICY_NAME[v]
        for k in ("deadline_ms", "time_bank_ms", "max_faults", "play_forced"):
            if p.HasField(k):
                kw[k] = getattr(p, k)
        return self.config.policy.with_overrides(**kw)

    # -- the game loop ----------------------------------------------------
    def advance(self, run: GameRun) -> None:
        """Send new events, then play on until a connected seat must decide (or the game ends)."""
        g = run.game
        while True:
            self._push_events(run)
            if g.is_over:
                return self._finish(run, COMPLETED, g.outcome.reason)
            seat = g.to_act
            sr = run.seats[seat]
            legal = g.legal_action_ids()
            if sr.auto or (run.policy.play_forced and g.publicly_forced() is not None):
                # Fallback play, or a move every seat can tell is forced, played without a round trip.
                g.apply(legal[0])
                run.decisions += 1
                continue
            rid = next(self._rid)
            deadline = run.policy.deadline_ms
            # Encoded straight from the engine's state (wire.GameEncoder; same bytes as
            # DecisionRequest{view=view_to_proto(g.view(seat))}, see test_wire_fast).
            item = run.enc.request_frame(seat, rid, g.phase, legal, deadline, int(max(0.0, sr.bank_ms)))
            p = Pending(rid, run, seat, list(legal), item, deadline)
            run.pending = p
            sr.conn.push_request(p)
            return

    def _push_events(self, run: GameRun) -> None:
        """Queue the new events each seat may see (``Game.events_for``), in log order per connection.

        A public event is encoded once and sent to every seat's connection; a
        private event is sent, marked with its seat, to the one seat that may see it.
        """
        g = run.game
        log = g.event_log
        start, end = run.cursor, len(log)
        if start == end:
            return
        run.cursor = end
        targets, per_seat = run.routes()
        frame = run.enc.event_frame
        frames: list[tuple[int, bytes]] = []     # (visible_to, item frame), in log order
        private = False
        for i in range(start, end):
            e = log[i]
            vis = e[3]
            if vis == PUBLIC:
                if targets:
                    frames.append((PUBLIC, frame(i, e)))
            elif per_seat[vis] is not None:
                frames.append((vis, frame(i, e, vis)))
                private = True
        if frames:
            # Item frames concatenate (see wire.batch_response): one queue entry per connection and step.
            if not private:
                blob = b"".join([f for _, f in frames])
                for conn in targets:
                    conn.push(blob)
            else:
                for conn in targets:
                    blob = b"".join([f for vis, f in frames if vis == PUBLIC or per_seat[vis] is conn])
                    if blob:
                        conn.push(blob)
        if run.watchers:
            conv = wire.event_to_proto
            evs = g.events_for(PUBLIC, run.spec_cursor)
            run.spec_cursor = g.event_count
            for i, e in evs:
                m = control_pb2.WatchGameResponse(event=conv(run.id, i, e))
                for q in run.watchers:
                    q.put_nowait(m)

    def on_answers(self, conn: Connection, answers) -> None:
        """Apply a bot's answers. Nothing a bot sends can touch a request it was not given."""
        loop_now = asyncio.get_running_loop().time()
        now = time.perf_counter()
        fl = conn.in_flight
        for ans in answers:
            if conn.closed:     # dropped by the unknown-request policy: the rest of the batch is moot
                return
            rid = ans.request_id
            p = fl.get(rid)
            if p is None:
                # A closed id gets its STALE notice once and is then forgotten: a repeat is unknown and counts
                # towards the limit, so repeating one stale id cannot flood the outbox with notices.
                why = conn.closed_ids.pop(rid, None)
                if why is not None:
                    conn.stale += 1
                    conn.notice(bot_pb2.NOTICE_CODE_STALE_REQUEST, rid, "",
                                f"request {rid} is closed ({why}); the answer was ignored")
                else:
                    self._unknown(conn, bot_pb2.NOTICE_CODE_UNKNOWN_REQUEST, rid, "",
                                  f"no open request {rid} on this connection; the answer was ignored")
                continue
            run = p.run
            if ans.game_id and ans.game_id != run.id:
                self._unknown(conn, bot_pb2.NOTICE_CODE_WRONG_GAME, rid, ans.game_id,
                              f"request {rid} belongs to game {run.id!r}, not {ans.game_id!r}; the answer was ignored")
                continue
            del fl[rid]
            conn.remember(rid, "answered")
            if p.cancelled:
                conn.notice(bot_pb2.NOTICE_CODE_CANCELLED, rid, run.id, f"game {run.id} ended; request {rid} was withdrawn")
                continue
            sr = run.seats[p.seat]
            if loop_now > p.expires:   # the timer has not fired yet, but the time is up
                self.on_timeout(p)
                continue
            elapsed_ms = (now - p.sent_at) * 1000.0
            if elapsed_ms > p.deadline_ms:
                sr.bank_ms -= elapsed_ms - p.deadline_ms
            try:
                action = wire.resolve_answer(ans, p.legal)
            except wire.AnswerError as e:
                self._guard(run, self.fault, run, p.seat, e.kind, p, str(e))
                continue
            sr.latencies.append(elapsed_ms)
            if ans.fallback:   # the bot's strategy failed and its SDK answered for it: legal, but counted
                sr.fallbacks += 1
                if len(sr.fallback_details) < MAX_FALLBACK_DETAILS:
                    sr.fallback_details.append(f"{wire.fallback_name(ans.fallback)}: {ans.fallback_detail[:200]}")
            run.pending = None
            self._apply(run, action)
        if not fl and conn.outbox:
            conn.wake.set()

    def _guard(self, run: GameRun, fn, *args) -> None:
        """Run ``fn``; an unexpected error aborts (and records) that one game, never the server or a connection."""
        try:
            fn(*args)
        except Exception as e:
            log.exception("game %s: internal error", run.id)
            self._finish(run, ABORTED, f"internal error: {e!r}")

    def _unknown(self, conn: Connection, code: int, rid: int, game_id: str, msg: str) -> None:
        """Refuse an answer to a request this connection cannot answer (unknown id, or the wrong game),
        and apply the server's unknown-request policy: such answers are refused with a notice, and the
        connection is dropped at once (``disconnect``) or after ``unknown_request_limit`` of them."""
        conn.unknown += 1
        cfg = self.config
        drop = cfg.unknown_request == "disconnect" or (cfg.unknown_request_limit and conn.unknown > cfg.unknown_request_limit)
        if drop:
            limit = "" if cfg.unknown_request == "disconnect" else f", more than the limit of {cfg.unknown_request_limit}"
            msg += f"; connection closed: {conn.unknown} answer(s) to unknown request ids or the wrong game{limit}"
        conn.notice(code, rid, game_id, msg)
        if drop:
            self.disconnect(conn, f"answered unknown request ids or the wrong game ({conn.unknown} times)")

    def _apply(self, run: GameRun, action: int) -> None:
        try:
            run.game.apply(action)
            run.decisions += 1
            self.advance(run)
        except Exception as e:  # an engine or conversion bug must not take the server down
            log.exception("game %s: internal error after %s", run.id, action)
            self._finish(run, ABORTED, f"internal error: {e!r}")

    def on_timeout(self, p: Pending) -> None:
        run = p.run
        if run.over or run.pending is not p:
            return
        sr = run.seats[p.seat]
        sr.bank_ms = 0.0
        self.fault(run, p.seat, "timeout", p, f"no answer within {p.deadline_ms} ms plus the time bank")

    def fault(self, run: GameRun, seat: int, kind: str, p: Pending | None, detail: str) -> None:
        """Record a fault and apply the game's policy for it."""
        if run.over:
            return
        sr = run.seats[seat]
        sr.faults[kind] += 1
        policy = run.policy.for_fault(kind)
        # While the game runs, control clients see the fault without what could show the seat's cards:
        # an illegal or malformed answer's detail lists the legal actions (cards it holds).
        public = detail if kind in ("timeout", "disconnect") else \
            f"{kind} answer (the answer and the legal actions are shown once the game is over)"
        if run.policy.max_faults and sum(sr.faults.values()) > run.policy.max_faults and policy == "fallback":
            more = f" (more than {run.policy.max_faults} faults)"
            policy, detail, public = "forfeit", detail + more, public + more
        g = run.game
        fallback = ""
        if policy == "fallback":
            sr.set_status(S_DISCONNECTED if kind == "disconnect" else S_FAULTED)
            if kind == "disconnect":
                sr.auto = True
                run.reroute()
            if p is not None or (kind == "disconnect" and g.to_act == seat):
                fallback = str(g.legal_actions()[0])
        f = control_pb2.Fault(seat=seat, kind=_FAULT_ENUM[kind], request_id=p.rid if p else 0, deal=g.deal_number,
                              detail=detail, policy=_POLICY_ENUM[policy], fallback_action=fallback)
        run.faults.append(f)
        pf = control_pb2.Fault()
        pf.CopyFrom(f)
        pf.detail = public
        if fallback.startswith(("give ", "discard ")) and fallback != "give none":
            pf.fallback_action = ""    # a card passed or discarded face down
        run.public_faults.append(pf)
        if sr.conn is not None and kind != "disconnect" and p is not None:
            code = _NOTICE[kind]
            sr.conn.notice(code, p.rid, run.id, f"{kind}: {detail}; policy {policy}" + (f": played {fallback}" if fallback else ""),
                           fallback)
        if policy == "fallback":
            if fallback:
                run.pending = None
                if p is not None:
                    p.cancelled = True
                self._apply(run, g.legal_action_ids()[0])
        elif policy == "forfeit":
            sr.set_status(S_FORFEITED)
            self._finish(run, FORFEITED, f"seat {seat} ({sr.bot_name}) forfeited: {kind}", forfeit_seat=seat)
        else:
            sr.set_status(S_ABORTED)
            self._finish(run, ABORTED, f"aborted: seat {seat} ({sr.bot_name}) {kind}")

    def _finish(self, run: GameRun, status: int, reason: str, forfeit_seat: int | None = None) -> None:
        if run.over:
            return
        g = run.game
        run.status, run.reason, run.ended = status, reason, time.time()
        if status == COMPLETED:
            run.winners, run.winning_seats = g.outcome.winners, g.outcome.winning_seats
        elif status == FORFEITED:
            team_of = g.table.team_of
            lost = team_of[forfeit_seat]
            run.winners = tuple(t for t in range(g.table.teams) if t != lost)
            run.winning_seats = tuple(s for s in range(g.players) if team_of[s] != lost)
        if run.pending is not None:
            run.pending.cancelled = True
            run.pending = None
        self._push_events(run)
        outcome = self._outcome_proto(run)
        for sr in run.seats:
            conn = sr.conn
            if conn is not None and not conn.closed:
                conn.seats.discard((run, sr.seat))
                conn.push(wire.item_frame(wire.ITEM_GAME_END, bot_pb2.GameEnd(
                    game_id=run.id, seat=sr.seat, status=status, outcome=outcome, reason=reason,
                    seat_status=sr.status).SerializeToString()))
        self.running -= 1
        for q in run.watchers:
            q.put_nowait(None)
        run.done.set()
        self._finished_order.append(run.id)
        while len(self._finished_order) > self.config.keep_games:
            self.games.pop(self._finished_order.popleft(), None)
        if self.config.record_dir:
            self._write_record(run)

    def _outcome_proto(self, run: GameRun) -> game_pb2.Outcome | None:
        g = run.game
        if run.status == COMPLETED:
            return wire.outcome_to_proto(g.outcome)
        if run.status == FORFEITED:
            return game_pb2.Outcome(winners=run.winners, winning_seats=run.winning_seats, scores=g.scores,
                                    deals=len(g.deals), reason="forfeit", draw=False)
        return None

    def _write_record(self, run: GameRun) -> None:
        from google.protobuf import json_format
        path = os.path.join(self.config.record_dir, f"{run.id}.json")
        try:
            res = json_format.MessageToDict(self.result(run, full=False), preserving_proto_field_name=True)
            res["record"] = run.game.record()
            res.pop("record_json", None)
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                json.dump(res, f)
            os.replace(path + ".tmp", path)
        except OSError as e:
            log.error("cannot write %s: %s", path, e)

    # -- results ----------------------------------------------------------
    def result(self, run: GameRun, full: bool = True) -> control_pb2.GameResult:
        g = run.game
        seats = []
        for sr in run.seats:
            lat = sorted(sr.latencies)
            f = sr.faults
            seats.append(control_pb2.SeatResult(
                seat=sr.seat, bot_name=sr.bot_name, connection_id=sr.conn_id, status=sr.status,
                faults=control_pb2.FaultCounts(**f), decisions=len(lat),
                latency_p50_ms=_pct(lat, 0.5), latency_p99_ms=_pct(lat, 0.99), latency_max_ms=lat[-1] if lat else 0.0,
                time_bank_left_ms=int(max(0.0, sr.bank_ms)), fallbacks=sr.fallbacks,
                fallback_details=sr.fallback_details if run.over else ()))
        end = run.ended or time.time()
        r = control_pb2.GameResult(
            game_id=run.id, status=run.status, ruleset=g.ruleset.name, players=g.players, seats=seats, scores=g.scores,
            winners=run.winners, winning_seats=run.winning_seats,
            draw=run.status == COMPLETED and g.outcome is not None and g.outcome.draw,
            reason=run.reason, deals=len(g.deals), duration_s=end - run.started,
            faults=run.faults if run.over else run.public_faults, decisions=run.decisions)
        # While the game runs, nothing that shows the deal: the seed and the record (seed, explicit decks)
        # rebuild every hand. (CreateGameResponse gives the seed to the game's creator.)
        if run.over:
            r.seed = run.seed
            if full:
                r.record_json = json.dumps(g.record())
                r.full_state_json = json.dumps(g.full_state())
        return r

    def watch(self, run: GameRun) -> asyncio.Queue | None:
        """A queue of spectator messages (None ends it); None if the game is already over."""
        if run.over:
            return None
        q: asyncio.Queue = asyncio.Queue()
        for i, e in run.game.events_for(PUBLIC, 0):
            q.put_nowait(control_pb2.WatchGameResponse(event=wire.event_to_proto(run.id, i, e)))
        if not run.watchers:
            run.spec_cursor = run.game.event_count
        run.watchers.append(q)
        return q

    def final_spectator_messages(self, run: GameRun, seen_public: bool):
        """After the game: the hidden events (or all events), then the result."""
        for i, e in enumerate(run.game.events):
            if e.visible_to != PUBLIC or not seen_public:
                yield control_pb2.WatchGameResponse(event=wire.event_to_proto(run.id, i, e, spectator=True))
        yield control_pb2.WatchGameResponse(result=self.result(run))

    # -- draining ---------------------------------------------------------
    async def drain(self, timeout_s: float) -> tuple[int, int]:
        self.draining = True
        live = [r for r in self.games.values() if not r.over]
        if live and timeout_s > 0:
            try:
                await asyncio.wait_for(asyncio.gather(*(r.done.wait() for r in live)), timeout_s)
            except TimeoutError:
                pass
        aborted = 0
        for r in live:
            if not r.over:
                self._finish(r, ABORTED, "drained: the server shut down before the game finished")
                aborted += 1
        return len(live) - aborted, aborted


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    return xs[min(len(xs) - 1, int(q * len(xs)))]
