from pepper_proto.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "token", "token_sha256", "max_connections", "own_socket")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_SHA256_FIELD_NUMBER: _ClassVar[int]
    MAX_CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    OWN_SOCKET_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    token_sha256: bytes
    max_connections: int
    own_socket: bool
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ..., token_sha256: _Optional[bytes] = ..., max_connections: _Optional[int] = ..., own_socket: _Optional[bool] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("name", "token", "unix_socket")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    UNIX_SOCKET_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    unix_socket: str
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ..., unix_socket: _Optional[str] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BotInfo(_message.Message):
    __slots__ = ("name", "connections", "active_seats", "suspect_connections")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SEATS_FIELD_NUMBER: _ClassVar[int]
    SUSPECT_CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    connections: int
    active_seats: int
    suspect_connections: int
    def __init__(self, name: _Optional[str] = ..., connections: _Optional[int] = ..., active_seats: _Optional[int] = ..., suspect_connections: _Optional[int] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[BotInfo]
    def __init__(self, bots: _Optional[_Iterable[_Union[BotInfo, _Mapping]]] = ...) -> None: ...

class Deck(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class GamePolicy(_message.Message):
    __slots__ = ("deadline_ms", "time_bank_ms", "on_illegal", "on_malformed", "on_timeout", "on_disconnect", "max_faults", "play_forced")
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    ON_ILLEGAL_FIELD_NUMBER: _ClassVar[int]
    ON_MALFORMED_FIELD_NUMBER: _ClassVar[int]
    ON_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    ON_DISCONNECT_FIELD_NUMBER: _ClassVar[int]
    MAX_FAULTS_FIELD_NUMBER: _ClassVar[int]
    PLAY_FORCED_FIELD_NUMBER: _ClassVar[int]
    deadline_ms: int
    time_bank_ms: int
    on_illegal: _game_pb2.FailurePolicy
    on_malformed: _game_pb2.FailurePolicy
    on_timeout: _game_pb2.FailurePolicy
    on_disconnect: _game_pb2.FailurePolicy
    max_faults: int
    play_forced: bool
    def __init__(self, deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., on_illegal: _Optional[_Union[_game_pb2.FailurePolicy, str]] = ..., on_malformed: _Optional[_Union[_game_pb2.FailurePolicy, str]] = ..., on_timeout: _Optional[_Union[_game_pb2.FailurePolicy, str]] = ..., on_disconnect: _Optional[_Union[_game_pb2.FailurePolicy, str]] = ..., max_faults: _Optional[int] = ..., play_forced: _Optional[bool] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ("game_id", "ruleset", "ruleset_toml", "ruleset_json", "players", "seats", "seed", "decks", "first_dealer", "policy", "seat_time_controls")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    RULESET_TOML_FIELD_NUMBER: _ClassVar[int]
    RULESET_JSON_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    DECKS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    SEAT_TIME_CONTROLS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    ruleset: str
    ruleset_toml: str
    ruleset_json: str
    players: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    decks: _containers.RepeatedCompositeFieldContainer[Deck]
    first_dealer: int
    policy: GamePolicy
    seat_time_controls: _containers.RepeatedCompositeFieldContainer[TimeControl]
    def __init__(self, game_id: _Optional[str] = ..., ruleset: _Optional[str] = ..., ruleset_toml: _Optional[str] = ..., ruleset_json: _Optional[str] = ..., players: _Optional[int] = ..., seats: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ..., decks: _Optional[_Iterable[_Union[Deck, _Mapping]]] = ..., first_dealer: _Optional[int] = ..., policy: _Optional[_Union[GamePolicy, _Mapping]] = ..., seat_time_controls: _Optional[_Iterable[_Union[TimeControl, _Mapping]]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("deadline_ms", "time_bank_ms")
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    deadline_ms: int
    time_bank_ms: int
    def __init__(self, deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game_id", "seed")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seed: int
    def __init__(self, game_id: _Optional[str] = ..., seed: _Optional[int] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class WatchGameResponse(_message.Message):
    __slots__ = ("event", "result")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    event: _game_pb2.GameEvent
    result: GameResult
    def __init__(self, event: _Optional[_Union[_game_pb2.GameEvent, _Mapping]] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("status", "page_size", "page_token")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    status: _game_pb2.GameStatus
    page_size: int
    page_token: str
    def __init__(self, status: _Optional[_Union[_game_pb2.GameStatus, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameResult]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[GameResult, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: GameResult
    def __init__(self, result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...

class WaitGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class WaitGameResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: GameResult
    def __init__(self, result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...

class FaultCounts(_message.Message):
    __slots__ = ("illegal", "malformed", "timeout", "disconnect")
    ILLEGAL_FIELD_NUMBER: _ClassVar[int]
    MALFORMED_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    DISCONNECT_FIELD_NUMBER: _ClassVar[int]
    illegal: int
    malformed: int
    timeout: int
    disconnect: int
    def __init__(self, illegal: _Optional[int] = ..., malformed: _Optional[int] = ..., timeout: _Optional[int] = ..., disconnect: _Optional[int] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("seat", "kind", "request_id", "deal", "detail", "policy", "fallback_action")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_ACTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: _game_pb2.FaultKind
    request_id: int
    deal: int
    detail: str
    policy: _game_pb2.FailurePolicy
    fallback_action: str
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[_game_pb2.FaultKind, str]] = ..., request_id: _Optional[int] = ..., deal: _Optional[int] = ..., detail: _Optional[str] = ..., policy: _Optional[_Union[_game_pb2.FailurePolicy, str]] = ..., fallback_action: _Optional[str] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "bot_name", "connection_id", "status", "faults", "decisions", "latency_p50_ms", "latency_p99_ms", "latency_max_ms", "time_bank_left_ms", "fallbacks", "fallback_details")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    CONNECTION_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_P50_MS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_P99_MS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MAX_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    FALLBACKS_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_DETAILS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot_name: str
    connection_id: str
    status: _game_pb2.SeatStatus
    faults: FaultCounts
    decisions: int
    latency_p50_ms: float
    latency_p99_ms: float
    latency_max_ms: float
    time_bank_left_ms: int
    fallbacks: int
    fallback_details: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., bot_name: _Optional[str] = ..., connection_id: _Optional[str] = ..., status: _Optional[_Union[_game_pb2.SeatStatus, str]] = ..., faults: _Optional[_Union[FaultCounts, _Mapping]] = ..., decisions: _Optional[int] = ..., latency_p50_ms: _Optional[float] = ..., latency_p99_ms: _Optional[float] = ..., latency_max_ms: _Optional[float] = ..., time_bank_left_ms: _Optional[int] = ..., fallbacks: _Optional[int] = ..., fallback_details: _Optional[_Iterable[str]] = ...) -> None: ...

class GameResult(_message.Message):
    __slots__ = ("game_id", "status", "ruleset", "players", "seats", "scores", "winners", "winning_seats", "draw", "reason", "deals", "duration_s", "faults", "decisions", "record_json", "full_state_json", "seed")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    WINNING_SEATS_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    DURATION_S_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    FULL_STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    status: _game_pb2.GameStatus
    ruleset: str
    players: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatResult]
    scores: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    winning_seats: _containers.RepeatedScalarFieldContainer[int]
    draw: bool
    reason: str
    deals: int
    duration_s: float
    faults: _containers.RepeatedCompositeFieldContainer[Fault]
    decisions: int
    record_json: str
    full_state_json: str
    seed: int
    def __init__(self, game_id: _Optional[str] = ..., status: _Optional[_Union[_game_pb2.GameStatus, str]] = ..., ruleset: _Optional[str] = ..., players: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., winning_seats: _Optional[_Iterable[int]] = ..., draw: _Optional[bool] = ..., reason: _Optional[str] = ..., deals: _Optional[int] = ..., duration_s: _Optional[float] = ..., faults: _Optional[_Iterable[_Union[Fault, _Mapping]]] = ..., decisions: _Optional[int] = ..., record_json: _Optional[str] = ..., full_state_json: _Optional[str] = ..., seed: _Optional[int] = ...) -> None: ...

class DrainRequest(_message.Message):
    __slots__ = ("timeout_s",)
    TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    timeout_s: float
    def __init__(self, timeout_s: _Optional[float] = ...) -> None: ...

class DrainResponse(_message.Message):
    __slots__ = ("finished", "aborted")
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    finished: int
    aborted: int
    def __init__(self, finished: _Optional[int] = ..., aborted: _Optional[int] = ...) -> None: ...
