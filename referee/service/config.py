"""Server settings: enforcement defaults, limits, credentials, TLS.

The defaults here are the only ones: ``pepper referee serve``'s options read them (the default time
controls are defined in :mod:`referee.wire`, which the arena and the checker can import too).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from referee.wire import DEFAULT_DEADLINE_MS, DEFAULT_TIME_BANK_MS

from .connections import MAX_BATCH_BYTES
from .enforcement import FaultKind, Verdict

UNKNOWN_REQUEST_POLICIES = ("reject", "disconnect")

# The inbound message limit, sized to the protocol: a bot's largest legal message is an AnswerBatch answering a
# full Batch (max_batch requests). One Answer holds at most ~1.2 KB (a request id, an action of at most
# MAX_ACTION_CHARS, a game id of at most 64 characters, a fallback detail the SDKs cut to 200 characters),
# counted as 2 KiB; the control API's largest request (CreateGame with a ruleset file and explicit decks)
# fits in the fixed part. grpc.aio applies grpc.max_receive_message_length to the whole server: the bot and
# control services share it.
ANSWER_BYTES = 2 * 1024
MESSAGE_BASE_BYTES = 64 * 1024


def inbound_limit(max_batch: int) -> int:
    """The largest message accepted from a client when the server has batches of up to ``max_batch`` requests."""
    return MESSAGE_BASE_BYTES + max_batch * ANSWER_BYTES

# Keepalive: the pings the referee accepts from a bot's channel (docs/protocol.md, "Keepalive"). The SDKs
# ping every 30 s (sdk/python/pepper_bot/runner.py KEEPALIVE_TIME_MS, sample_bots/node/lib/client.js
# KEEPALIVE_TIME_MS), also while a bot has no game: the referee accepts pings 20 s apart, with or without a
# call and without data in between, and a client that pings more often gets MAX_PING_STRIKES strikes, then
# GOAWAY "too_many_pings". (gRPC's server default is 5 minutes: it told idle bots to go away.)
MIN_PING_INTERVAL_MS = 20_000
MAX_PING_STRIKES = 2
# The referee's own pings (docs/security.md, "7."): every KEEPALIVE_TIME_MS it pings each connection, and drops one
# that does not answer within KEEPALIVE_TIMEOUT_MS, so that a stopped or vanished bot is gone (and its games get the
# disconnect policy, no new game is seated on it) within 30 s, not the ~15 minutes TCP takes to give up.
KEEPALIVE_TIME_MS = 20_000
KEEPALIVE_TIMEOUT_MS = 10_000


@dataclass(frozen=True)
class Policy:
    """Enforcement for one game: time limits and what each fault kind leads to."""

    # Per decision, counted from when the bot could start on it (docs/protocol.md, "Time"); a seat's own
    # time controls (CreateGameRequest.seat_time_controls) take precedence over these two.
    deadline_ms: int = DEFAULT_DEADLINE_MS
    time_bank_ms: int = DEFAULT_TIME_BANK_MS   # per seat per game, drawn when a decision overruns its deadline
    on_illegal: Verdict = Verdict.FALLBACK     # a listed-legal answer is the only one accepted
    on_malformed: Verdict = Verdict.FALLBACK
    on_timeout: Verdict = Verdict.FALLBACK
    on_disconnect: Verdict = Verdict.FORFEIT   # the bot is gone: its team loses rather than being auto-played
    max_faults: int = 0              # faults a seat may commit in a game before it forfeits (0: no limit)
    play_forced: bool = False        # play a seat's only legal action without asking it

    def __post_init__(self):
        for k in FaultKind:
            v = getattr(self, f"on_{k}")
            if v not in Verdict.__members__.values():
                raise ValueError(f"on_{k}: unknown failure policy {v!r} (allowed: {', '.join(Verdict)})")
            object.__setattr__(self, f"on_{k}", Verdict(v))   # a plain word ("forfeit") becomes the enum
        if self.deadline_ms < 1 or self.time_bank_ms < 0 or self.max_faults < 0:
            raise ValueError("deadline_ms must be >= 1, time_bank_ms and max_faults >= 0")

    def for_fault(self, kind: FaultKind) -> Verdict:
        return getattr(self, f"on_{kind}")

    def with_overrides(self, **kw) -> Policy:
        """This policy with the given fields replaced (None: kept); itself when nothing changes, so that the games
        that take the server's policy share it (a Policy is frozen)."""
        kw = {k: v for k, v in kw.items() if v is not None}
        return replace(self, **kw) if kw else self


@dataclass
class ServerConfig:
    """Everything `serve` can be told."""

    address: str = "127.0.0.1:0"
    control_token: str = ""
    bot_tokens: dict[str, str] = field(default_factory=dict)   # bot name -> token
    policy: Policy = field(default_factory=Policy)
    unknown_request: str = "reject"   # answers to unknown request ids or naming the wrong game: reject with a notice,
                                      # or drop the connection at once
    unknown_request_limit: int = 1000  # with "reject": drop a connection that sends more than this many (0: never)
    max_batch: int = 256               # cap on a bot's requested batch size
    default_batch: int = 64            # batch size for a bot that asks for 0
    max_receive_bytes: int = 0         # 0: inbound_limit(max_batch), sized to the protocol
    max_send_bytes: int = 32 * 1024 * 1024   # control answers (a game's result with its record)
    max_batch_bytes: int = MAX_BATCH_BYTES   # one Batch to a bot: what every gRPC client accepts by default
    max_games: int = 100_000           # running games at once
    tls_cert: str | None = None        # PEM file paths; both or neither
    tls_key: str | None = None
    record_dir: str | None = None      # write <game_id>.json per finished game here
    # Also listen on this Unix socket (plaintext, mode 0666: the way into a sandboxed bot's container, which has no
    # network; docs/sandbox.md). Anyone who can reach the path can connect, as with the TCP address.
    unix_socket: str | None = None
    keep_games: int = 5_000            # finished games kept in memory for results (older: their record files)
    shared_seats: bool = False         # let one connection hold several seats of a game (it then gets each one's cards)
    min_ping_interval_ms: int = MIN_PING_INTERVAL_MS   # the shortest ping interval accepted from a bot (see above)
    keepalive_time_ms: int = KEEPALIVE_TIME_MS         # the referee pings every connection this often (see above)
    keepalive_timeout_ms: int = KEEPALIVE_TIMEOUT_MS   # ... and drops one whose ping is not answered within this
    # Connection hygiene (docs/security.md, "6."): what an unauthenticated client can hold open.
    hello_timeout_ms: int = 10_000          # a Connect stream that sends no Hello within this is ended (and a TCP
                                            # connection that has not started HTTP/2 is closed)
    max_streams_per_connection: int = 4096  # concurrent streams on one HTTP/2 connection (grpc.max_concurrent_streams)
    max_bot_connections: int = 4096         # Connect streams at once, in all (also capped by the open-file limit)
    max_bot_connections_per_peer: int = 1024   # Connect streams at once from one IP address
    max_waiting_streams: int = 256          # of those, streams that have not said Hello yet, in all (the oldest is
                                            # closed to make room for a new stream when every slot is taken)
    max_waiting_streams_per_peer: int = 64  # ... and from one IP address
    new_streams_per_peer_per_s: float = 100.0   # new Connect streams a second from one IP address (bursts of twice)
    fd_reserve: int = 128                   # open files kept free of bot connections: control clients, records, logs

    def __post_init__(self):
        if self.unknown_request not in UNKNOWN_REQUEST_POLICIES:
            raise ValueError(f"unknown_request: {self.unknown_request!r} (allowed: {', '.join(UNKNOWN_REQUEST_POLICIES)})")
        if self.unknown_request_limit < 0:
            raise ValueError(f"unknown_request_limit (--unknown-request-limit) must be >= 0 (0: no limit), got {self.unknown_request_limit}")
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("TLS needs both a certificate and a key (--tls-cert and --tls-key)")
        if self.min_ping_interval_ms < 1:
            raise ValueError(f"min_ping_interval_ms (--min-ping-interval-ms) must be >= 1, got {self.min_ping_interval_ms}")
        for name, flag in (("keepalive_time_ms", "--keepalive-time-ms"), ("keepalive_timeout_ms", "--keepalive-timeout-ms"),
                           ("hello_timeout_ms", "--hello-timeout-ms"), ("max_streams_per_connection", "--max-streams-per-connection"),
                           ("max_bot_connections", "--max-bot-connections"),
                           ("max_bot_connections_per_peer", "--max-bot-connections-per-peer"),
                           ("max_waiting_streams", "--max-waiting-streams"),
                           ("max_waiting_streams_per_peer", "--max-waiting-streams-per-peer"),
                           ("new_streams_per_peer_per_s", "--new-streams-per-peer-per-s")):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} ({flag}) must be >= 1, got {getattr(self, name)}")
        if self.fd_reserve < 0:
            raise ValueError(f"fd_reserve (--fd-reserve) must be >= 0, got {self.fd_reserve}")
        if not 1 <= self.default_batch <= self.max_batch:
            raise ValueError("need 1 <= default_batch <= max_batch")
        if self.max_receive_bytes < 0:
            raise ValueError(f"max_receive_bytes (--max-message-bytes) must be >= 0 (0: sized from --max-batch), "
                             f"got {self.max_receive_bytes}")
        if self.max_receive_bytes == 0:
            self.max_receive_bytes = inbound_limit(self.max_batch)
        if not 64 * 1024 <= self.max_batch_bytes <= self.max_send_bytes:
            raise ValueError(f"max_batch_bytes (--max-batch-bytes) must be from 65536 (64 KiB) to the send limit "
                             f"{self.max_send_bytes}, got {self.max_batch_bytes}")
        if self.keep_games < 0:
            raise ValueError(f"keep_games (--keep-finished) must be >= 0, got {self.keep_games}")
