from pepper_proto.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StrategyFallback(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STRATEGY_FALLBACK_UNSPECIFIED: _ClassVar[StrategyFallback]
    STRATEGY_FALLBACK_RAISED: _ClassVar[StrategyFallback]
    STRATEGY_FALLBACK_ILLEGAL: _ClassVar[StrategyFallback]
    STRATEGY_FALLBACK_TIMEOUT: _ClassVar[StrategyFallback]

class NoticeCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NOTICE_CODE_UNSPECIFIED: _ClassVar[NoticeCode]
    NOTICE_CODE_ILLEGAL_ACTION: _ClassVar[NoticeCode]
    NOTICE_CODE_MALFORMED_ANSWER: _ClassVar[NoticeCode]
    NOTICE_CODE_UNKNOWN_REQUEST: _ClassVar[NoticeCode]
    NOTICE_CODE_STALE_REQUEST: _ClassVar[NoticeCode]
    NOTICE_CODE_TIMEOUT: _ClassVar[NoticeCode]
    NOTICE_CODE_WRONG_GAME: _ClassVar[NoticeCode]
    NOTICE_CODE_CANCELLED: _ClassVar[NoticeCode]
    NOTICE_CODE_DRAINING: _ClassVar[NoticeCode]
    NOTICE_CODE_RATE_LIMITED: _ClassVar[NoticeCode]
STRATEGY_FALLBACK_UNSPECIFIED: StrategyFallback
STRATEGY_FALLBACK_RAISED: StrategyFallback
STRATEGY_FALLBACK_ILLEGAL: StrategyFallback
STRATEGY_FALLBACK_TIMEOUT: StrategyFallback
NOTICE_CODE_UNSPECIFIED: NoticeCode
NOTICE_CODE_ILLEGAL_ACTION: NoticeCode
NOTICE_CODE_MALFORMED_ANSWER: NoticeCode
NOTICE_CODE_UNKNOWN_REQUEST: NoticeCode
NOTICE_CODE_STALE_REQUEST: NoticeCode
NOTICE_CODE_TIMEOUT: NoticeCode
NOTICE_CODE_WRONG_GAME: NoticeCode
NOTICE_CODE_CANCELLED: NoticeCode
NOTICE_CODE_DRAINING: NoticeCode
NOTICE_CODE_RATE_LIMITED: NoticeCode

class ConnectRequest(_message.Message):
    __slots__ = ("hello", "answers")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    answers: AnswerBatch
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., answers: _Optional[_Union[AnswerBatch, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("bot_name", "protocol_version", "token", "max_batch", "live_events")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_FIELD_NUMBER: _ClassVar[int]
    LIVE_EVENTS_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    protocol_version: str
    token: str
    max_batch: int
    live_events: bool
    def __init__(self, bot_name: _Optional[str] = ..., protocol_version: _Optional[str] = ..., token: _Optional[str] = ..., max_batch: _Optional[int] = ..., live_events: _Optional[bool] = ...) -> None: ...

class AnswerBatch(_message.Message):
    __slots__ = ("answers",)
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    answers: _containers.RepeatedCompositeFieldContainer[Answer]
    def __init__(self, answers: _Optional[_Iterable[_Union[Answer, _Mapping]]] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("request_id", "action", "action_index", "game_id", "fallback", "fallback_detail")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ACTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_DETAIL_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    action: str
    action_index: int
    game_id: str
    fallback: StrategyFallback
    fallback_detail: str
    def __init__(self, request_id: _Optional[int] = ..., action: _Optional[str] = ..., action_index: _Optional[int] = ..., game_id: _Optional[str] = ..., fallback: _Optional[_Union[StrategyFallback, str]] = ..., fallback_detail: _Optional[str] = ...) -> None: ...

class ConnectResponse(_message.Message):
    __slots__ = ("welcome", "batch")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    batch: Batch
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., batch: _Optional[_Union[Batch, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("protocol_version", "connection_id", "max_batch")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONNECTION_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_FIELD_NUMBER: _ClassVar[int]
    protocol_version: str
    connection_id: str
    max_batch: int
    def __init__(self, protocol_version: _Optional[str] = ..., connection_id: _Optional[str] = ..., max_batch: _Optional[int] = ...) -> None: ...

class Batch(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[BatchItem]
    def __init__(self, items: _Optional[_Iterable[_Union[BatchItem, _Mapping]]] = ...) -> None: ...

class BatchItem(_message.Message):
    __slots__ = ("game_start", "event", "request", "game_end", "notice")
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    game_start: GameStart
    event: _game_pb2.GameEvent
    request: DecisionRequest
    game_end: GameEnd
    notice: Notice
    def __init__(self, game_start: _Optional[_Union[GameStart, _Mapping]] = ..., event: _Optional[_Union[_game_pb2.GameEvent, _Mapping]] = ..., request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ..., notice: _Optional[_Union[Notice, _Mapping]] = ...) -> None: ...

class TableSeat(_message.Message):
    __slots__ = ("seat", "bot_name", "team")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot_name: str
    team: int
    def __init__(self, seat: _Optional[int] = ..., bot_name: _Optional[str] = ..., team: _Optional[int] = ...) -> None: ...

class RulesetInfo(_message.Message):
    __slots__ = ("name", "family", "target_score", "deal_cap", "hand_size", "params_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    DEAL_CAP_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    PARAMS_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    family: str
    target_score: int
    deal_cap: int
    hand_size: int
    params_json: str
    def __init__(self, name: _Optional[str] = ..., family: _Optional[str] = ..., target_score: _Optional[int] = ..., deal_cap: _Optional[int] = ..., hand_size: _Optional[int] = ..., params_json: _Optional[str] = ...) -> None: ...

class GameStart(_message.Message):
    __slots__ = ("game_id", "seat", "ruleset", "players", "table", "deadline_ms", "time_bank_ms")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    ruleset: RulesetInfo
    players: int
    table: _containers.RepeatedCompositeFieldContainer[TableSeat]
    deadline_ms: int
    time_bank_ms: int
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., ruleset: _Optional[_Union[RulesetInfo, _Mapping]] = ..., players: _Optional[int] = ..., table: _Optional[_Iterable[_Union[TableSeat, _Mapping]]] = ..., deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("game_id", "request_id", "seat", "kind", "view", "legal_actions", "deadline_ms", "time_bank_ms")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    request_id: int
    seat: int
    kind: _game_pb2.DecisionKind
    view: _game_pb2.SeatView
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    deadline_ms: int
    time_bank_ms: int
    def __init__(self, game_id: _Optional[str] = ..., request_id: _Optional[int] = ..., seat: _Optional[int] = ..., kind: _Optional[_Union[_game_pb2.DecisionKind, str]] = ..., view: _Optional[_Union[_game_pb2.SeatView, _Mapping]] = ..., legal_actions: _Optional[_Iterable[str]] = ..., deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class GameEnd(_message.Message):
    __slots__ = ("game_id", "seat", "status", "outcome", "reason", "seat_status")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEAT_STATUS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    status: _game_pb2.GameStatus
    outcome: _game_pb2.Outcome
    reason: str
    seat_status: _game_pb2.SeatStatus
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., status: _Optional[_Union[_game_pb2.GameStatus, str]] = ..., outcome: _Optional[_Union[_game_pb2.Outcome, _Mapping]] = ..., reason: _Optional[str] = ..., seat_status: _Optional[_Union[_game_pb2.SeatStatus, str]] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("code", "request_id", "game_id", "message", "fallback_action")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_ACTION_FIELD_NUMBER: _ClassVar[int]
    code: NoticeCode
    request_id: int
    game_id: str
    message: str
    fallback_action: str
    def __init__(self, code: _Optional[_Union[NoticeCode, str]] = ..., request_id: _Optional[int] = ..., game_id: _Optional[str] = ..., message: _Optional[str] = ..., fallback_action: _Optional[str] = ...) -> None: ...
