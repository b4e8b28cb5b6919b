"""The Referee: the bots it knows, their connections, and creating, finding and draining games."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import re
import secrets
import tomllib
from collections import deque

from referee import wire
from referee.rules import BUILTIN_RULESETS, Game, RulesError, Ruleset, get_ruleset, ruleset_from_dict
from referee.rules.status import GameStatus
from referee.wire.messages import GameRequest

from . import secret
from .config import ServerConfig
from .connections import IDLE_BURST, IDLE_PENALTY_S, IDLE_RATE, Connection, IdleBudget, Pending
from .enforcement import TimeBank
from .games import GameRun, SeatRun, apply_answers
from .records import RecordWriter, read_record_file

log = logging.getLogger("referee")

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
PAGE_SIZE = 100                  # ListGames: games per page when the client asks for 0
MAX_PAGE_SIZE = 1_000
PAGE_BYTES = 2 * 1024 * 1024     # ListGames: a page stays under this (and under any client's default 4 MiB limit)


class RequestError(ValueError):
    """A control request that cannot be carried out; ``code`` is a grpc.StatusCode name."""

    def __init__(self, code: str, message: str):
        self.code = code
        super().__init__(message)


class Referee:
    """All games and bot connections of one server."""

    def __init__(self, config: ServerConfig):
        self.config = config
        # Bot name -> its token's SHA-256 (secret.digest): a token is compared, never kept.
        self.tokens: dict[str, bytes] = {name: secret.digest(tok) for name, tok in config.bot_tokens.items()}
        self.max_connections: dict[str, int] = {}   # bot -> the most Connect streams it may hold (absent: no limit)
        self.conns: dict[str, list[Connection]] = {}
        self.idle_budgets: dict[str, IdleBudget] = {}   # bot name -> its budget of messages with no work
        self.games: dict[str, GameRun] = {}
        self.running = 0
        self.draining = False
        self._rid = itertools.count(1)
        self._gid = itertools.count(1)
        self._cid = itertools.count(1)
        self._seq = itertools.count(1)
        self._finished_order: deque[str] = deque()
        self.records = RecordWriter(config.record_dir) if config.record_dir else None
        for name in self.tokens:
            self._check_name(name)

    # -- bots -------------------------------------------------------------
    @staticmethod
    def _check_name(name: str) -> None:
        if not _NAME.match(name or ""):
            raise RequestError("INVALID_ARGUMENT", f"bad bot name {name!r}: 1-64 letters, digits, '-', '_' or '.'")

    def register_bot(self, name: str, token: str = "", token_sha256: bytes = b"", max_connections: int = 0) -> str:
        """Register ``name`` with ``token``, or the token whose SHA-256 is ``token_sha256``, or a new token, and at
        most ``max_connections`` Connect streams at once (0: no limit); returns the token ("" when only its digest
        was given)."""
        self._check_name(name)
        if max_connections:
            self.max_connections[name] = max_connections
        else:
            self.max_connections.pop(name, None)
        if token and token_sha256:
            raise RequestError("INVALID_ARGUMENT", "give a bot's token or its token_sha256, not both")
        if token_sha256:
            if len(token_sha256) != 32:
                raise RequestError("INVALID_ARGUMENT", f"token_sha256 must be a SHA-256 digest of 32 bytes, "
                                   f"got {len(token_sha256)} bytes")
            self.tokens[name] = bytes(token_sha256)
            return ""
        if token and len(token) < 8:
            raise RequestError("INVALID_ARGUMENT", "a bot token must have at least 8 characters")
        token = token or secrets.token_urlsafe(24)
        self.tokens[name] = secret.digest(token)
        return token

    def authenticate(self, bot_name: str, token: str, protocol_version: str) -> tuple[str, str] | None:
        """(grpc status code name, message) when a Hello is refused, else None."""
        if not wire.protocol_compatible(protocol_version):
            return ("FAILED_PRECONDITION", f"protocol version {protocol_version!r} is not supported: "
                    f"this referee speaks {wire.PROTOCOL_VERSION} (any {wire.PROTOCOL_VERSION.split('.')[0]}.x is accepted)")
        want = self.tokens.get(bot_name)
        if want is None or not secrets.compare_digest(want, secret.digest(token)):
            return ("UNAUTHENTICATED", f"bot {bot_name!r}: unknown bot name or wrong token")
        cap = self.max_connections.get(bot_name, 0)
        if cap and len(self.conns.get(bot_name, ())) >= cap:
            # Its own processes hold every connection it was registered for: this is a second holder of its token
            # (or a process restarting before its old stream closed, which its SDK's reconnection then gets past).
            return ("RESOURCE_EXHAUSTED", f"bot {bot_name!r} already has {cap} connection(s), the most it was "
                    "registered for (RegisterBotRequest.max_connections): one per process the arena started for it")
        idle = self.idle_budgets.get(bot_name)
        wait = idle.barred_until - asyncio.get_running_loop().time() if idle is not None else 0.0
        if wait > 0:
            return ("RESOURCE_EXHAUSTED", f"bot {bot_name!r} was dropped for sending too many messages carrying no "
                    f"answer; it may connect again in {wait:.1f} s (docs/security.md, \"1.\")")
        return None

    def connect(self, bot_name: str, max_batch: int, live_events: bool = False) -> Connection:
        """A new connection of ``bot_name`` (its Hello asked for ``max_batch`` requests a Batch at most, 0: the
        default, and for ``live_events``: see referee.service.connections)."""
        mb = self.config.default_batch if max_batch == 0 else min(max_batch, self.config.max_batch)
        idle = self.idle_budgets.get(bot_name)
        if idle is None:
            idle = self.idle_budgets[bot_name] = IdleBudget(asyncio.get_running_loop().time())
        conn = Connection(f"c{next(self._cid)}-{bot_name}", bot_name, mb, _expired, idle, self.config.max_batch_bytes,
                          live_events)
        self.conns.setdefault(bot_name, []).append(conn)
        log.info("bot %s connected as %s (batch %d%s)", bot_name, conn.id, mb, ", live events" if live_events else "")
        return conn

    def disconnect(self, conn: Connection, reason: str) -> None:
        """The stream ended or failed: every seat it served gets the disconnect policy."""
        if conn in self.conns.get(conn.bot_name, ()):
            self.conns[conn.bot_name].remove(conn)
        conn.close(reason)
        log.info("connection %s closed: %s", conn.id, reason)
        for run, seat in sorted(conn.seats, key=lambda rs: (rs[0].id, rs[1])):
            run.disconnected(seat, f"connection {conn.id} lost: {reason}")
        conn.seats.clear()
        conn.in_flight.clear()

    def bots(self) -> list:
        now = asyncio.get_running_loop().time()
        out = []
        for n in sorted(self.tokens):
            conns = self.conns.get(n, ())
            out.append(wire.messages.bot_info(n, len(conns), sum(len(c.seats) for c in conns),
                                              sum(1 for c in conns if self._suspect(c, now))))
        return out

    # -- answers ----------------------------------------------------------
    def on_message(self, conn: Connection, msg) -> None:
        """Apply a ConnectRequest that came after Hello: only an AnswerBatch carries anything."""
        if msg.WhichOneof("message") != "answers":
            conn.notice("malformed_answer", 0, "", "after Hello only AnswerBatch messages are accepted; the message was ignored")
            self._idle(conn)
            return
        self.on_answers(conn, msg.answers.answers)

    def on_answers(self, conn: Connection, answers) -> None:
        """Apply a bot's answer message. Nothing a bot sends can touch a request it was not given.

        The answers to open requests share the time since the bot could start on the first of them
        (Connection.charge); answers to unknown, closed or other games' requests are refused and do not count.
        A message that applies no answer spends a token of the bot's idle budget (see _idle).
        """
        now = asyncio.get_running_loop().time()
        if conn.in_flight:
            conn.expire(now)    # what the timer would have done by now (it may run after this message)
        taken = conn.take_answers(answers, self._refuse)
        if taken is None:       # dropped by the unknown-request policy: the rest of the message is moot
            return
        if not taken:
            self._idle(conn)
            if conn.closed:
                return
        else:
            apply_answers(conn, taken, conn.charge(now, len(taken) // 2))
        conn.rearm()

    def _refuse(self, conn: Connection, rid: int, ans, p: Pending | None) -> None:
        """An answer that answers no open request of ``conn`` (``p`` None), or names another game than its
        request ``p``'s: refused with a notice (Connection.take_answers)."""
        if p is None:
            # A closed id gets its STALE notice once and is then forgotten: a repeat is unknown and counts
            # towards the limit, so repeating one stale id cannot flood the outbox with notices.
            why = conn.closed_ids.pop(rid)
            if why is not None:
                conn.stale += 1
                conn.notice("stale_request", rid, "", f"request {rid} is closed ({why.word}); the answer was ignored")
            else:
                self._unknown(conn, "unknown_request", rid, "",
                              f"no open request {rid} on this connection; the answer was ignored")
            return
        named = wire.messages.quote(ans.game_id)    # a bot's bytes, echoed: bounded (docs/security.md, "3.")
        self._unknown(conn, "wrong_game", rid, named,
                      f"request {rid} belongs to game {p.run.id!r}, not {named!r}; the answer was ignored")

    def _idle(self, conn: Connection) -> None:
        """A message that carried no work: spend a token of the bot's budget, and drop the connection when
        there is none left (docs/security.md, "1."): its seats get the disconnect policy."""
        if conn.idle.take(asyncio.get_running_loop().time()):
            return
        conn.notice("rate_limited", 0, "", f"more than {IDLE_BURST} messages carrying no answer at once, or "
                    f"{IDLE_RATE:g} a second on average (empty AnswerBatches, or answers to no open request); "
                    f"connection closed; the bot may connect again in {IDLE_PENALTY_S:g} s")
        self.disconnect(conn, "too many messages carrying no answer")

    def _unknown(self, conn: Connection, code: str, rid: int, game_id: str, msg: str) -> None:
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

    # -- games ------------------------------------------------------------
    def create_game(self, message) -> GameRun:
        """Create and start a game from a CreateGameRequest; RequestError says what is wrong with it."""
        if self.draining:
            raise RequestError("UNAVAILABLE", "the server is draining: no new games")
        if self.running >= self.config.max_games:
            raise RequestError("RESOURCE_EXHAUSTED", f"{self.running} games running (limit {self.config.max_games})")
        bad = wire.messages.bad_enum(message)
        if bad:
            raise RequestError("INVALID_ARGUMENT", bad)
        req = wire.messages.game_request(message)
        gid = req.game_id or f"g{next(self._gid)}"
        if not _NAME.match(gid):
            raise RequestError("INVALID_ARGUMENT", f"bad game id {gid!r}: 1-64 letters, digits, '-', '_' or '.'")
        if gid in self.games:
            raise RequestError("ALREADY_EXISTS", f"game {gid!r} exists")
        rs = self._ruleset(req)
        players = req.players or rs.default_players
        if players not in rs.player_counts:
            raise RequestError("INVALID_ARGUMENT", f"ruleset {rs.name!r} is played by {', '.join(map(str, rs.player_counts))} players, not {players}")
        if len(req.seats) != players:
            raise RequestError("INVALID_ARGUMENT", f"seats names {len(req.seats)} bots for a {players}-player game")
        times = req.seat_time_controls
        if times and len(times) != players:
            raise RequestError("INVALID_ARGUMENT", f"seat_time_controls has {len(times)} entries for a {players}-player "
                               "game: give one TimeControl per seat, in seat order, or none (every seat gets the game's)")
        for s, tc in enumerate(times):
            if tc.deadline_ms == 0:
                raise RequestError("INVALID_ARGUMENT", f"seat_time_controls[{s}].deadline_ms is 0: a deadline must be "
                                   "at least 1 ms (leave it unset for the game's)")
        seed = req.seed if req.seed is not None else secrets.randbits(63)
        try:
            policy = self.config.policy.with_overrides(**req.policy)
        except ValueError as e:
            raise RequestError("INVALID_ARGUMENT", f"policy: {e}") from None
        try:
            game = Game(rs, players, seed=seed, decks=req.decks, first_dealer=req.first_dealer)
        except (RulesError, ValueError) as e:
            raise RequestError("INVALID_ARGUMENT", str(e)) from None
        # A connection holds at most one seat of a game: a stream given two seats would receive both
        # hands (a partner's, or an opponent's at a free-for-all table). A bot that takes k seats of a
        # game needs k live connections; each seat goes to the least busy connection not yet used.
        # (--shared-seats lifts this, for trusted self-play and the conformance checker.)
        used: dict[Connection, int] = {}    # seats of this game given to each connection
        shared = self.config.shared_seats
        seats = []
        now = asyncio.get_running_loop().time()
        for s, name in enumerate(req.seats):
            if name not in self.tokens:
                raise RequestError("NOT_FOUND", f"seat {s}: no bot registered as {name!r}")
            live = [c for c in self.conns.get(name, ()) if not c.closed and (shared or c not in used)]
            # A connection whose last request timed out and that has answered nothing since is suspect (a stopped
            # or stuck process, which the keepalive drops only after keepalive_time_ms + keepalive_timeout_ms):
            # new games go to the bot's other connections, or wait until it answers or that window has passed.
            awake = [c for c in live if not self._suspect(c, now)]
            if live and not awake:
                raise RequestError("UNAVAILABLE", f"seat {s}: bot {name!r} has not answered since a request timed "
                                   "out on each of the connections this game could use (a stopped or stuck process); "
                                   "new games wait until it answers or its connection is dropped")
            live = awake
            if not live:
                k, n = req.seats.count(name), sum(1 for c in self.conns.get(name, ()) if not c.closed)
                raise RequestError("UNAVAILABLE", f"seat {s}: bot {name!r} has no live connection" if not n else
                                   f"seat {s}: bot {name!r} takes {k} seats of this game but has {n} live connection(s); "
                                   "a connection holds at most one seat of a game (so that it never receives another "
                                   f"seat's cards): connect {k} streams, e.g. run {k} processes of the bot")
            conn = min(live, key=lambda c: len(c.seats) + used.get(c, 0))
            used[conn] = used.get(conn, 0) + 1
            tc = times[s] if times else None
            deadline = tc.deadline_ms if tc and tc.deadline_ms is not None else policy.deadline_ms
            bank = tc.time_bank_ms if tc and tc.time_bank_ms is not None else policy.time_bank_ms
            seats.append(SeatRun(s, name, conn, deadline, TimeBank(bank), conn_id=conn.id))
        run = GameRun(gid, game, seats, policy, seed, self._rid.__next__, self._finished)
        run.seq = next(self._seq)
        self.games[gid] = run
        self.running += 1
        run.start()
        return run

    def _suspect(self, conn: Connection, now: float) -> bool:
        """Whether ``conn`` timed out and has answered nothing since, within the keepalive's window (after it, a
        connection still open has answered the referee's pings: its process is alive)."""
        window = (self.config.keepalive_time_ms + self.config.keepalive_timeout_ms) / 1000
        return conn.timed_out_at > 0 and now - conn.timed_out_at < window

    def _ruleset(self, req: GameRequest) -> Ruleset:
        src = req.ruleset_source
        try:
            if src == "ruleset":
                name = req.ruleset_text or "iowa"
                if name not in BUILTIN_RULESETS:
                    raise RequestError("INVALID_ARGUMENT", f"unknown ruleset {name!r} (built-in: {', '.join(BUILTIN_RULESETS)}; "
                                       "or send ruleset_toml / ruleset_json)")
                return get_ruleset(name)
            if src == "ruleset_toml":
                data = tomllib.loads(req.ruleset_text)
            else:
                data = json.loads(req.ruleset_text)
                if not isinstance(data, dict):
                    raise RequestError("INVALID_ARGUMENT", "ruleset_json must be a JSON object")
            if "name" not in data and isinstance(data.get("extends"), str):
                data["name"] = f"{data['extends']}-custom"
            return ruleset_from_dict(data, source=f"<{src}>")
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
            raise RequestError("INVALID_ARGUMENT", f"{src}: cannot parse: {e}") from None
        except RulesError as e:
            raise RequestError("INVALID_ARGUMENT", str(e)) from None

    def _finished(self, run: GameRun) -> None:
        """A game ended: forget the oldest finished games beyond ``keep_games``; queue its record file."""
        self.running -= 1
        self._finished_order.append(run.id)
        while len(self._finished_order) > self.config.keep_games:
            self.games.pop(self._finished_order.popleft(), None)
        if self.records is not None:
            info = run.info()   # final: a finished game no longer changes
            self.records.submit(run.id, lambda: wire.messages.record_file(
                info._replace(record_json="", full_state_json=""), json.loads(info.record_json)))

    # -- results ----------------------------------------------------------
    def list_games(self, status: str | None, page_size: int, page_token: str) -> tuple[list, str]:
        """One page of the games in memory, oldest first: (GameResults without records, the next page's token or "").

        A page holds at most ``page_size`` games (0: PAGE_SIZE; at most MAX_PAGE_SIZE) and stays under PAGE_BYTES,
        so that no list can exceed a send limit. The token is the position of the page's last game in the order
        games were created (``GameRun.seq``): stable while older finished games leave memory.
        """
        after = 0
        if page_token:
            if not page_token.isdigit():
                raise RequestError("INVALID_ARGUMENT", f"page_token {page_token[:80]!r} is not one this referee gave: "
                                   "pass a previous ListGamesResponse.next_page_token, or nothing for the first page")
            after = int(page_token)
        size = min(page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        page, used, last = [], 0, 0
        for run in self.games.values():
            if run.seq <= after or (status is not None and run.status != status):
                continue
            if len(page) == size:
                return page, str(last)
            res = run.result(full=False)
            used += res.ByteSize()
            if page and used > PAGE_BYTES:
                return page, str(last)
            page.append(res)
            last = run.seq
        return page, ""

    def stored_result(self, game_id: str):
        """The full GameResult of a finished game no longer in memory, read from its record file; None without one."""
        if not self.config.record_dir or not _NAME.match(game_id):
            return None
        data = read_record_file(self.config.record_dir, game_id)
        if data is None:
            return None
        record = data.pop("record")
        res = wire.messages.result_from_dict(data)
        res.record_json = json.dumps(record)
        res.full_state_json = json.dumps(Game.from_record(record, verify=False).full_state())
        return res

    def gone(self, game_id: str) -> str:
        """Why there is no game ``game_id`` to show: NOT_FOUND's message."""
        where = (f"nor a record file in --record-dir {self.config.record_dir}" if self.config.record_dir else
                 "and without --record-dir older results are not kept on disk")
        return (f"no game {game_id!r}: it never existed, or it finished and left memory (the referee keeps the last "
                f"{self.config.keep_games} finished games, --keep-finished), {where}")

    # -- draining ---------------------------------------------------------
    async def drain(self, timeout_s: float) -> tuple[int, int]:
        """Start no new game; give the running ones ``timeout_s`` to finish and abort the rest; then end every bot
        stream. Each bot hears a DRAINING notice first, so that it exits rather than reconnecting to a referee
        that has nothing more for it (the tournament is over). Returns (finished, aborted)."""
        self.draining = True
        for conn in self._live_connections():
            conn.notice("draining", 0, "", "the tournament is over or the server is shutting down: no new game will "
                        "start; the stream ends once this connection's games are over")
        live = [r for r in self.games.values() if not r.over]
        if live and timeout_s > 0:
            try:
                await asyncio.wait_for(asyncio.gather(*(r.done.wait() for r in live)), timeout_s)
            except TimeoutError:
                pass
        aborted = 0
        for r in live:
            if not r.over:
                r.finish(GameStatus.ABORTED, "drained: the server shut down before the game finished")
                aborted += 1
        for conn in self._live_connections():
            conn.close("the referee drained")   # its stream sends what is queued (GameEnds, notices), then ends
        return len(live) - aborted, aborted

    def _live_connections(self) -> list[Connection]:
        return [c for conns in self.conns.values() for c in conns if not c.closed]

    async def close(self) -> None:
        """Write the record files still queued (off the loop), then stop the writer."""
        if self.records is not None:
            await asyncio.to_thread(self.records.close)


def _expired(p: Pending) -> None:
    """A request's time ran out (its connection's timer)."""
    p.run.guard(p.run.time_out, p)
