"""Game runs: one refereed game, advanced from request to request, its answers applied and faults ruled.

Everything runs on one asyncio event loop, so there are no locks: a bot's
answer is applied, the game advanced and the next request queued inside one
synchronous step.

Flow of one decision::

    GameRun.advance()        game waits for seat s -> Pending queued on s's Connection
    Connection.take_batch()  (writer) everything pending goes out in one Batch once
                             the previous Batch is fully answered or expired
    Referee.on_answers()     (reader) the answers of one message share the bot's time
                             since it could start on the first (Connection.charge)
    GameRun.answer()         time charged (bank drawn), answer checked against the
                             request's legal list, applied, game advanced -> next
                             Pending, events queued
    Connection timer         the oldest open request's deadline + time bank passed
                             -> GameRun.time_out -> fault

Hidden information: a connection only ever receives ``Game.view(seat)`` and
``Game.events_for(seat)`` for the seats it was given, converted by
:mod:`referee.wire`; spectators get public events only until the game is over.

Speed: the hot path (one request and a few events per decision) writes protobuf
bytes directly with :class:`referee.wire.GameEncoder` (per-deal caches, each
public event encoded once per game step and shared by every connection), which
tests/wire/test_wire_fast.py checks against the reference conversion.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import zlib
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from referee import wire
from referee.rules import Game, GameStatus, SeatStatus
from referee.rules.game import PUBLIC
from referee.wire import legal_ids, resolve_answer
from referee.wire.messages import FaultInfo, GameInfo, SeatInfo

from .config import Policy
from .connections import Connection, Pending
from .enforcement import (
    DETAIL_CHARS,
    MAX_ACTION_CHARS,
    FaultKind,
    TimeBank,
    Verdict,
    public_detail,
    public_fallback,
    quote,
    rule,
)

log = logging.getLogger("referee")

MAX_FALLBACK_DETAILS = 10
MAX_FAULTS_LISTED = 500     # faults itemized in a game's result; the seats' fault counts go on counting


@dataclass(eq=False, slots=True)
class SeatRun:
    seat: int
    bot_name: str
    conn: Connection | None
    deadline_ms: int                   # this seat's time per decision (its own, or the game's policy)
    bank: TimeBank
    status: SeatStatus = SeatStatus.OK
    auto: bool = False                 # decisions are played by fallback (connection lost, policy fallback)
    # Faults per kind, made at the first fault (most seats commit none: docs/security.md, "8.").
    faults: dict[FaultKind, int] | None = None
    conn_id: str = ""
    fallbacks: int = 0                 # answers the bot's SDK marked as fallbacks (Answer.fallback)
    fallback_details: list[str] | tuple = ()   # the first MAX_FALLBACK_DETAILS, "reason: detail" (a list once any)

    def info(self, over: bool, latencies: list[float]) -> SeatInfo:
        """``latencies``: the ms the bot spent on each decision it answered (GameRun.times), sorted."""
        lat, f = latencies, self.faults
        return SeatInfo(
            seat=self.seat, bot_name=self.bot_name, connection_id=self.conn_id, status=self.status,
            faults={str(k): f[k] if f else 0 for k in FaultKind}, decisions=len(lat), latency_p50_ms=_pct(lat, 0.5),
            latency_p99_ms=_pct(lat, 0.99), latency_max_ms=lat[-1] if lat else 0.0,
            time_bank_left_ms=self.bank.left_ms, fallbacks=self.fallbacks,
            fallback_details=list(self.fallback_details) if over else [])


class GameRun:
    """One game being refereed: the engine's Game plus seats, policy, faults and timing.

    ``next_rid`` numbers the requests (unique across the server); ``on_finished(run)``
    is told once when the game ends, whatever ended it.

    Its other jobs are small classes of their own: the faults listed in its result (:class:`FaultList`), its
    spectators (:class:`Spectators`) and, once over, its packed result (:class:`FinalResult`).

    Slots, and parts made at their first use (faults, spectators): a game in flight holds little beyond the
    engine's state (docs/security.md, "8.").
    """

    __slots__ = ("id", "game", "seats", "policy", "seed", "next_rid", "on_finished", "enc", "cursor", "_routes", "status",
                 "reason", "started", "ended", "faults", "pending", "decisions", "times", "actors", "_ms", "spectators",
                 "winners", "winning_seats", "_done", "final", "seq", "_play_forced")

    def __init__(self, gid: str, game: Game, seats: list[SeatRun], policy: Policy, seed: int,
                 next_rid: Callable[[], int], on_finished: Callable[[GameRun], None]):
        self.id, self.game, self.seats, self.policy, self.seed = gid, game, seats, policy, seed
        self.next_rid, self.on_finished = next_rid, on_finished
        self.enc = wire.GameEncoder(game, gid)   # this game's wire bytes, with per-deal caches
        self.cursor = 0                          # next event log index to send to the bots
        self._routes: tuple | None = None
        self.status = GameStatus.RUNNING
        self.reason = ""
        self.started = time.time()
        self.ended: float | None = None
        self.faults: FaultList | None = None     # made at the first fault
        self.pending: Pending | None = None
        self.decisions = 0
        # Per action of the record, the ms its seat spent deciding it, or -1 where the referee played it
        # (a forced move, a fallback after a fault, a lost connection's seat), and the seat that acted; and
        # where each listed fault fell. Times and faults go into the record (record_times), for replays that
        # show each decision's time; times and seats give each seat's latencies (SeatRun.info): 5 bytes an
        # action, where a per-seat array of doubles cost 8 more per decision (docs/security.md, "8.").
        self.times = array("f")
        self.actors = bytearray()
        self._ms = -1.0
        self.spectators: Spectators | None = None   # made at the first watch
        self.winners: tuple[int, ...] = ()
        self.winning_seats: tuple[int, ...] = ()
        self._done: asyncio.Event | None = None   # see done
        self.final: FinalResult | None = None    # the result, once over (see _release)
        self.seq = 0                             # its place in the order games were created (Referee.list_games)
        self._play_forced = policy.play_forced   # read at every decision

    @property
    def done(self) -> asyncio.Event:
        """Set once the game is over and its result kept. Made on first use: most games are never waited on
        one by one, and an Event costs ~700 bytes (docs/security.md, "8.")."""
        if self._done is None:
            self._done = asyncio.Event()
            if self.final is not None:
                self._done.set()
        return self._done

    @property
    def over(self) -> bool:
        return self.status is not GameStatus.RUNNING

    def routes(self) -> tuple[list, list]:
        """(connections that get the public events, connection per seat for its private events).

        A seat played by fallback (``auto``) gets nothing more. (Each seat of a
        game has its own connection unless the server shares seats, see Referee.create_game.)
        Cached: call :meth:`reroute` whenever a seat's ``auto`` or ``conn`` changes.
        """
        r = self._routes
        if r is None:
            per_seat = [None if sr.auto else sr.conn for sr in self.seats]
            r = self._routes = (list(dict.fromkeys([c for c in per_seat if c is not None])), per_seat)
        return r

    def reroute(self) -> None:
        self._routes = None

    def guard(self, fn, *args) -> None:
        """Run ``fn``; an unexpected error aborts (and records) this one game, never the server or a connection."""
        try:
            fn(*args)
        except Exception as e:
            log.exception("game %s: internal error", self.id)
            self.finish(GameStatus.ABORTED, f"internal error: {e!r}")

    # -- the game loop ----------------------------------------------------
    def start(self) -> None:
        """Tell every seat the game has begun, then play to the first request."""
        seats = self.seats
        frames = wire.messages.game_start_frames(self.id, self.game, self.game.ruleset, [sr.bot_name for sr in seats],
                                                 [sr.deadline_ms for sr in seats], [sr.bank.left_ms for sr in seats])
        for sr in self.seats:
            sr.conn.seats.add((self, sr.seat))
            sr.conn.push(frames[sr.seat])
        self.advance()

    def advance(self) -> None:
        """Send new events, then play on until a connected seat must decide (or the game ends)."""
        g = self.game
        while True:
            self._push_events()
            if g.is_over:
                return self.finish(GameStatus.COMPLETED, g.outcome.reason)
            seat = g.to_act
            sr = self.seats[seat]
            legal = legal_ids(g)   # in the wire's order: the request lists it, and a fallback takes its first
            if sr.auto or (self._play_forced and g.publicly_forced() is not None):
                # Fallback play, or a move every seat can tell is forced, played without a round trip.
                g.apply(legal[0])
                self.decisions += 1
                self.times.append(-1.0)
                self.actors.append(seat)
                continue
            rid = self.next_rid()
            deadline = sr.deadline_ms
            # Encoded straight from the engine's state (wire.GameEncoder; same bytes as
            # DecisionRequest{view=view_to_proto(g.view(seat))}, see test_wire_fast).
            item = self.enc.request_frame(seat, rid, g.phase, legal, deadline, sr.bank.left_ms)
            p = Pending(rid, self, seat, legal, item, deadline, sr.bank)   # legal: a fresh list
            self.pending = p
            conn = sr.conn
            conn.push_request(p)
            return

    def _push_events(self) -> None:
        """Queue the new events each seat may see (``Game.events_for``), in log order per connection.

        A public event is encoded once and sent to every seat's connection; a
        private event is sent, marked with its seat, to the one seat that may see it.
        """
        g = self.game
        log_ = g.event_log
        start, end = self.cursor, len(log_)
        if start == end:
            return
        self.cursor = end
        targets, per_seat = self.routes()
        if end - start == 1 and log_[start][3] == PUBLIC:
            # The common case (most steps log one public event, a PLAY or a BID): one frame, no lists.
            if targets:
                f = self.enc.event_frame(start, log_[start])
                for conn in targets:
                    conn.push_event(f)
            if self.spectators is not None:
                self.spectators.push(self.id, g)
            return
        enc = self.enc
        frames: list[tuple[int, bytes]] = []     # (visible_to, item frame), in log order
        private = False
        for i in range(start, end):
            e = log_[i]
            vis = e[3]
            if vis == PUBLIC:
                if targets:
                    frames.append((PUBLIC, enc.event_frame(i, e)))
            elif per_seat[vis] is not None:
                frames.append((vis, enc.event_frame(i, e, vis)))
                private = True
        if frames:
            # Item frames concatenate (see wire.batch_response): one queue entry per connection and step.
            if not private:
                blob = b"".join([f for _, f in frames])
                for conn in targets:
                    conn.push_event(blob)
            else:
                for conn in targets:
                    blob = b"".join([f for vis, f in frames if vis == PUBLIC or per_seat[vis] is conn])
                    if blob:
                        conn.push_event(blob)
        if self.spectators is not None:
            self.spectators.push(self.id, g)

    def answer(self, p: Pending, ans, spent_ms: float) -> None:
        """Apply a bot's answer to its open request ``p``; ``spent_ms``: the time charged to it (Connection.charge)."""
        if not p.charge(spent_ms):   # longer than the deadline plus what was left of the bank
            self.time_out(p)
            return
        try:
            if len(ans.action) > MAX_ACTION_CHARS:   # never parsed nor kept whole, whatever its size
                raise wire.AnswerError("malformed", f"the action text has {len(ans.action)} characters, more than any "
                                       f"action ({MAX_ACTION_CHARS} at most): {quote(ans.action, MAX_ACTION_CHARS)!r}")
            action = resolve_answer(ans, p.legal)
        except wire.AnswerError as e:
            self.guard(self.fault, p.seat, FaultKind(e.kind), p, str(e))
            return
        if ans.fallback:   # the bot's strategy failed and its SDK answered for it: legal, but counted
            sr = self.seats[p.seat]
            sr.fallbacks += 1
            if len(sr.fallback_details) < MAX_FALLBACK_DETAILS:
                sr.fallback_details = [*sr.fallback_details, f"{wire.fallback_name(ans.fallback)}: {quote(ans.fallback_detail)}"]
        self.pending = None
        self._ms = spent_ms
        self._apply(action)

    def _apply(self, action: int) -> None:
        try:
            g = self.game
            seat = g.to_act
            g.apply(action)
            self.decisions += 1
            self.times.append(self._ms)
            self.actors.append(seat)
            self._ms = -1.0
            self.advance()
        except Exception as e:  # an engine or conversion bug must not take the server down
            log.exception("game %s: internal error after %s", self.id, action)
            self.finish(GameStatus.ABORTED, f"internal error: {e!r}")

    def time_out(self, p: Pending) -> None:
        if self.over or self.pending is not p:
            return
        p.time_out()
        self.fault(p.seat, FaultKind.TIMEOUT, p, f"no answer within {p.deadline_ms} ms plus the time bank")

    def disconnected(self, seat: int, detail: str) -> None:
        """The connection serving ``seat`` is gone."""
        if self.over:
            return
        p = self.pending
        if p is not None and (p.seat != seat or p.cancelled):
            p = None
        if p is not None:
            p.cancelled = True
            self.pending = None
        self.guard(self.fault, seat, FaultKind.DISCONNECT, p, detail)

    # -- enforcement ------------------------------------------------------
    def fault(self, seat: int, kind: FaultKind, p: Pending | None, detail: str) -> None:
        """Record a fault, and apply the ruling the game's policy gives for it (see enforcement.rule)."""
        if self.over:
            return
        sr = self.seats[seat]
        if sr.faults is None:
            sr.faults = dict.fromkeys(FaultKind, 0)
        sr.faults[kind] += 1
        ruling = rule(self.policy, kind, sum(sr.faults.values()))
        verdict = ruling.verdict
        detail = quote(detail, DETAIL_CHARS)
        public = public_detail(kind, detail) + ruling.note
        detail += ruling.note
        g = self.game
        fallback, fallback_id = "", -1
        if verdict is Verdict.FALLBACK:
            sr.status = sr.status.worst(ruling.seat_status)
            if kind is FaultKind.DISCONNECT:
                sr.auto = True
                self.reroute()
            if p is not None or (kind is FaultKind.DISCONNECT and g.to_act == seat):
                fallback_id = wire.legal_ids(g)[0]   # the first action listed (the wire's order)
                fallback = wire.ACTIONS_TEXT[fallback_id]
        rid = p.rid if p else 0
        f = FaultInfo(seat, kind, rid, g.deal_number, detail, verdict, fallback)
        if self.faults is None:
            self.faults = FaultList()
        self.faults.add(f, public, len(g.history))
        if sr.conn is not None and kind is not FaultKind.DISCONNECT and p is not None:
            sr.conn.push(wire.messages.fault_notice_frame(
                kind, p.rid, self.id, f"{kind}: {detail}; policy {verdict}" + (f": played {fallback}" if fallback else ""),
                fallback))
        if verdict is Verdict.FALLBACK:
            if fallback:
                self.pending = None
                if p is not None:
                    p.cancelled = True
                self._apply(fallback_id)
        elif verdict is Verdict.FORFEIT:
            sr.status = sr.status.worst(ruling.seat_status)
            self.finish(GameStatus.FORFEITED, f"seat {seat} ({sr.bot_name}) forfeited: {kind}", forfeit_seat=seat)
        else:
            sr.status = sr.status.worst(ruling.seat_status)
            self.finish(GameStatus.ABORTED, f"aborted: seat {seat} ({sr.bot_name}) {kind}")

    def finish(self, status: GameStatus, reason: str, forfeit_seat: int | None = None) -> None:
        if self.over:
            return
        g = self.game
        self.status, self.reason, self.ended = status, reason, time.time()
        if status is GameStatus.COMPLETED:
            self.winners, self.winning_seats = g.outcome.winners, g.outcome.winning_seats
        elif status is GameStatus.FORFEITED:
            team_of = g.table.team_of
            lost = team_of[forfeit_seat]
            self.winners = tuple(t for t in range(g.table.teams) if t != lost)
            self.winning_seats = tuple(s for s in range(g.players) if team_of[s] != lost)
        if self.pending is not None:
            self.pending.cancelled = True
            self.pending = None
        self._push_events()
        outcome = wire.messages.outcome(status, g, self.winners, self.winning_seats)
        for sr in self.seats:
            conn = sr.conn
            if conn is not None and not conn.closed:
                conn.seats.discard((self, sr.seat))
                conn.push(wire.messages.game_end_frame(self.id, sr.seat, status, outcome, reason, sr.status))
        if self.spectators is not None:
            self.spectators.end()
        self._release()
        if self._done is not None:
            self._done.set()
        self.on_finished(self)

    # -- results ----------------------------------------------------------
    def info(self, full: bool = True) -> GameInfo:
        """The result so far. While the game runs, nothing that shows the deal: faults as shown publicly,
        and no seed or record (the seed and explicit decks rebuild every hand; CreateGameResponse gives
        the seed to the game's creator). ``full``: with the record and the full state, once over."""
        if self.final is not None:
            return self.final.info(full)
        g = self.game
        over = self.over
        end = self.ended or time.time()
        return GameInfo(
            game_id=self.id, status=self.status, ruleset=g.ruleset.name, players=g.players,
            seats=[sr.info(over, lat) for sr, lat in zip(self.seats, self.latencies())], scores=list(g.scores), winners=self.winners,
            winning_seats=self.winning_seats,
            draw=self.status is GameStatus.COMPLETED and g.outcome is not None and g.outcome.draw,
            reason=self.reason, deals=len(g.deals), duration_s=end - self.started,
            faults=self.faults.shown(over) if self.faults is not None else [], decisions=self.decisions,
            seed=self.seed if over else None,
            record_json=json.dumps(self.record()) if over and full else "",
            full_state_json=json.dumps(g.full_state()) if over and full else "")

    def latencies(self) -> list[list[float]]:
        """Per seat, the ms it spent on each decision it answered, sorted."""
        per: list[list[float]] = [[] for _ in self.seats]
        for t, s in zip(self.times, self.actors):
            if t >= 0.0:
                per[s].append(t)
        for lat in per:
            lat.sort()
        return per

    def record(self) -> dict:
        """The engine's record of the game, with what only the referee knows (docs/protocol.md, "The control
        service"): ``decision_ms``, per action, the ms its seat spent on it (null where the referee played it:
        a forced move, a fallback, a lost connection's seat); ``fault_steps``, per listed fault, the index of the
        action it fell on, the seat and the fault kind. A replay ignores both."""
        rec = self.game.record()
        rec["decision_ms"] = _hundredths(self.times)
        rec["fault_steps"] = self.faults.steps() if self.faults is not None else []
        return rec

    def _release(self) -> None:
        """The game is over: keep its final result (strings and small tuples) and let the engine's state, the
        encoder's caches and the per-decision latencies go; the record and the full state are kept compressed."""
        self.final = FinalResult(self.info())
        self.game = self.enc = None     # type: ignore[assignment]  (read through self.final from now on)
        if self.faults is not None:
            self.faults.public = []
        self.times, self.actors = array("f"), bytearray()
        for sr in self.seats:
            sr.conn = None

    def result(self, full: bool = True):
        """The GameResult message (see :meth:`info`)."""
        return wire.messages.game_result(self.info(full))

    def watch(self) -> asyncio.Queue | None:
        """A queue of spectator messages (None ends it); None if the game is already over."""
        if self.over:
            return None
        if self.spectators is None:
            self.spectators = Spectators(self.game.event_count)
        return self.spectators.add(self.id, self.game)

    def unwatch(self, q: asyncio.Queue) -> None:
        """A spectator's stream ended: stop queueing its messages."""
        if self.spectators is not None:
            self.spectators.remove(q)

    def final_spectator_messages(self, seen_public: bool) -> Iterator:
        """After the game: the hidden events (or all events), then the result."""
        game = Game.from_record(json.loads(self.info().record_json), verify=False)   # the engine left at the end
        for i, e in enumerate(game.events):
            if e.visible_to != PUBLIC or not seen_public:
                yield wire.messages.watch_event(self.id, i, e, spectator=True)
        yield wire.messages.watch_result(self.info())


class FaultList:
    """The faults of a game's result, at most MAX_FAULTS_LISTED (a result stays bounded however many faults a
    seat commits; the seats' fault counts go on counting): each as the referee rules it (``listed``), as shown
    while the game runs (``public``: no detail that tells a hand), and where it fell (``steps``: action index,
    seat, fault kind; the record's ``fault_steps``)."""

    __slots__ = ("listed", "public", "_steps")

    def __init__(self):
        self.listed: list[FaultInfo] = []
        self.public: list[FaultInfo] = []
        self._steps: list[tuple[int, int, str]] = []

    def add(self, f: FaultInfo, public_detail: str, step: int) -> None:
        """List ``f``, shown with ``public_detail`` while the game runs; ``step``: the actions played before it."""
        if len(self.listed) < MAX_FAULTS_LISTED:
            self.listed.append(f)
            self._steps.append((step, f.seat, f.kind.value))
            self.public.append(f._replace(detail=public_detail, fallback_action=public_fallback(f.fallback_action)))

    def shown(self, over: bool) -> list[FaultInfo]:
        """The faults a result shows: as ruled once the game is over, as shown publicly before."""
        return list(self.listed if over else self.public)

    def steps(self) -> list[list]:
        return [list(s) for s in self._steps]


class Spectators:
    """The queues of a game's spectators (WatchGame): public events as they happen, None at the end."""

    __slots__ = ("queues", "cursor")

    def __init__(self, cursor: int):
        self.queues: list[asyncio.Queue] = []
        self.cursor = cursor   # the next event log index to look at for spectators

    def add(self, game_id: str, game: Game) -> asyncio.Queue:
        """A new spectator's queue, holding the public events so far."""
        q: asyncio.Queue = asyncio.Queue()
        for i, e in game.events_for(PUBLIC, 0):
            q.put_nowait(wire.messages.watch_event(game_id, i, e))
        if not self.queues:
            self.cursor = game.event_count
        self.queues.append(q)
        return q

    def remove(self, q: asyncio.Queue) -> None:
        if q in self.queues:
            self.queues.remove(q)

    def push(self, game_id: str, game: Game) -> None:
        """Queue the new public events for every spectator (none left: add catches up)."""
        if not self.queues:
            return
        evs = game.events_for(PUBLIC, self.cursor)
        self.cursor = game.event_count
        for i, e in evs:
            m = wire.messages.watch_event(game_id, i, e)
            for q in self.queues:
                q.put_nowait(m)

    def end(self) -> None:
        for q in self.queues:
            q.put_nowait(None)


class FinalResult:
    """A finished game's result, kept small: the GameInfo without its record and full state, and those two
    compressed (most results are read without them: ListGames, WaitGame)."""

    __slots__ = ("_info", "_packed")

    def __init__(self, info: GameInfo):
        # The two JSON texts joined by a newline (json.dumps writes none): no JSON of JSON to encode and parse again.
        self._packed = zlib.compress(f"{info.record_json}\n{info.full_state_json}".encode(), 1)
        self._info = info._replace(record_json="", full_state_json="")

    def info(self, full: bool = True) -> GameInfo:
        """The result; ``full``: with the record and the full state."""
        if not full:
            return self._info
        record_json, full_state_json = zlib.decompress(self._packed).decode().split("\n", 1)
        return self._info._replace(record_json=record_json, full_state_json=full_state_json)


def apply_answers(conn: Connection, taken: list, spent_ms: float) -> None:
    """Apply the answers of one message (Connection.take_answers: ``[p, answer, ...]``), each charged
    ``spent_ms`` (Connection.charge); a request withdrawn meanwhile (its game ended) gets a notice instead."""
    for i in range(0, len(taken), 2):
        p = taken[i]
        if p.cancelled:
            conn.notice("cancelled", p.rid, p.run.id, f"game {p.run.id} ended; request {p.rid} was withdrawn")
        else:
            p.run.answer(p, taken[i + 1], spent_ms)


def _hundredths(times) -> list:
    """Each time (ms, float32) rounded to hundredths, None for a negative one (an action the referee played).

    Equal to ``round(t, 2)``, at a quarter of its cost (it goes through decimal strings): a float32 times 100 is
    exact in a double, ``round`` of it is the correctly rounded (half-even) int of hundredths, and the division
    gives the double nearest to it, which is what ``round(t, 2)`` returns (test_service_record checks both)."""
    return [None if t < 0 else round(t * 100) / 100 for t in times]


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    return xs[min(len(xs) - 1, int(q * len(xs)))]
