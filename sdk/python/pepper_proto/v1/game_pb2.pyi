from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_BID: _ClassVar[Phase]
    PHASE_NAME_TRUMP: _ClassVar[Phase]
    PHASE_EXCHANGE: _ClassVar[Phase]
    PHASE_GIVE_CARD: _ClassVar[Phase]
    PHASE_DISCARD: _ClassVar[Phase]
    PHASE_CEDE: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_GAME_OVER: _ClassVar[Phase]

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_BID: _ClassVar[DecisionKind]
    DECISION_KIND_NAME_TRUMP: _ClassVar[DecisionKind]
    DECISION_KIND_EXCHANGE: _ClassVar[DecisionKind]
    DECISION_KIND_GIVE_CARD: _ClassVar[DecisionKind]
    DECISION_KIND_DISCARD: _ClassVar[DecisionKind]
    DECISION_KIND_CEDE: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY: _ClassVar[DecisionKind]

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_KIND_UNSPECIFIED: _ClassVar[EventKind]
    EVENT_KIND_DEAL: _ClassVar[EventKind]
    EVENT_KIND_HAND: _ClassVar[EventKind]
    EVENT_KIND_BID: _ClassVar[EventKind]
    EVENT_KIND_CONTRACT: _ClassVar[EventKind]
    EVENT_KIND_THROWN_IN: _ClassVar[EventKind]
    EVENT_KIND_WIDOW: _ClassVar[EventKind]
    EVENT_KIND_EXCHANGE: _ClassVar[EventKind]
    EVENT_KIND_GIVE: _ClassVar[EventKind]
    EVENT_KIND_GAVE_CARD: _ClassVar[EventKind]
    EVENT_KIND_RECEIVED_CARD: _ClassVar[EventKind]
    EVENT_KIND_DISCARD: _ClassVar[EventKind]
    EVENT_KIND_DISCARDED_CARD: _ClassVar[EventKind]
    EVENT_KIND_CEDE: _ClassVar[EventKind]
    EVENT_KIND_CEDED: _ClassVar[EventKind]
    EVENT_KIND_PLAY: _ClassVar[EventKind]
    EVENT_KIND_TRICK: _ClassVar[EventKind]
    EVENT_KIND_PARTNER_CARD: _ClassVar[EventKind]
    EVENT_KIND_PARTNER: _ClassVar[EventKind]
    EVENT_KIND_DEAL_END: _ClassVar[EventKind]
    EVENT_KIND_GAME_OVER: _ClassVar[EventKind]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_RUNNING: _ClassVar[GameStatus]
    GAME_STATUS_COMPLETED: _ClassVar[GameStatus]
    GAME_STATUS_FORFEITED: _ClassVar[GameStatus]
    GAME_STATUS_ABORTED: _ClassVar[GameStatus]

class SeatStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_STATUS_UNSPECIFIED: _ClassVar[SeatStatus]
    SEAT_STATUS_OK: _ClassVar[SeatStatus]
    SEAT_STATUS_FAULTED: _ClassVar[SeatStatus]
    SEAT_STATUS_DISCONNECTED: _ClassVar[SeatStatus]
    SEAT_STATUS_FORFEITED: _ClassVar[SeatStatus]
    SEAT_STATUS_ABORTED: _ClassVar[SeatStatus]

class FaultKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_KIND_UNSPECIFIED: _ClassVar[FaultKind]
    FAULT_KIND_ILLEGAL: _ClassVar[FaultKind]
    FAULT_KIND_MALFORMED: _ClassVar[FaultKind]
    FAULT_KIND_TIMEOUT: _ClassVar[FaultKind]
    FAULT_KIND_DISCONNECT: _ClassVar[FaultKind]

class FailurePolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAILURE_POLICY_UNSPECIFIED: _ClassVar[FailurePolicy]
    FAILURE_POLICY_FALLBACK: _ClassVar[FailurePolicy]
    FAILURE_POLICY_FORFEIT: _ClassVar[FailurePolicy]
    FAILURE_POLICY_ABORT: _ClassVar[FailurePolicy]
PHASE_UNSPECIFIED: Phase
PHASE_BID: Phase
PHASE_NAME_TRUMP: Phase
PHASE_EXCHANGE: Phase
PHASE_GIVE_CARD: Phase
PHASE_DISCARD: Phase
PHASE_CEDE: Phase
PHASE_PLAY: Phase
PHASE_GAME_OVER: Phase
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_BID: DecisionKind
DECISION_KIND_NAME_TRUMP: DecisionKind
DECISION_KIND_EXCHANGE: DecisionKind
DECISION_KIND_GIVE_CARD: DecisionKind
DECISION_KIND_DISCARD: DecisionKind
DECISION_KIND_CEDE: DecisionKind
DECISION_KIND_PLAY: DecisionKind
EVENT_KIND_UNSPECIFIED: EventKind
EVENT_KIND_DEAL: EventKind
EVENT_KIND_HAND: EventKind
EVENT_KIND_BID: EventKind
EVENT_KIND_CONTRACT: EventKind
EVENT_KIND_THROWN_IN: EventKind
EVENT_KIND_WIDOW: EventKind
EVENT_KIND_EXCHANGE: EventKind
EVENT_KIND_GIVE: EventKind
EVENT_KIND_GAVE_CARD: EventKind
EVENT_KIND_RECEIVED_CARD: EventKind
EVENT_KIND_DISCARD: EventKind
EVENT_KIND_DISCARDED_CARD: EventKind
EVENT_KIND_CEDE: EventKind
EVENT_KIND_CEDED: EventKind
EVENT_KIND_PLAY: EventKind
EVENT_KIND_TRICK: EventKind
EVENT_KIND_PARTNER_CARD: EventKind
EVENT_KIND_PARTNER: EventKind
EVENT_KIND_DEAL_END: EventKind
EVENT_KIND_GAME_OVER: EventKind
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_RUNNING: GameStatus
GAME_STATUS_COMPLETED: GameStatus
GAME_STATUS_FORFEITED: GameStatus
GAME_STATUS_ABORTED: GameStatus
SEAT_STATUS_UNSPECIFIED: SeatStatus
SEAT_STATUS_OK: SeatStatus
SEAT_STATUS_FAULTED: SeatStatus
SEAT_STATUS_DISCONNECTED: SeatStatus
SEAT_STATUS_FORFEITED: SeatStatus
SEAT_STATUS_ABORTED: SeatStatus
FAULT_KIND_UNSPECIFIED: FaultKind
FAULT_KIND_ILLEGAL: FaultKind
FAULT_KIND_MALFORMED: FaultKind
FAULT_KIND_TIMEOUT: FaultKind
FAULT_KIND_DISCONNECT: FaultKind
FAILURE_POLICY_UNSPECIFIED: FailurePolicy
FAILURE_POLICY_FALLBACK: FailurePolicy
FAILURE_POLICY_FORFEIT: FailurePolicy
FAILURE_POLICY_ABORT: FailurePolicy

class Contract(_message.Message):
    __slots__ = ("bidder", "bid", "trump", "alone", "tricks_needed")
    BIDDER_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    ALONE_FIELD_NUMBER: _ClassVar[int]
    TRICKS_NEEDED_FIELD_NUMBER: _ClassVar[int]
    bidder: int
    bid: str
    trump: str
    alone: bool
    tricks_needed: int
    def __init__(self, bidder: _Optional[int] = ..., bid: _Optional[str] = ..., trump: _Optional[str] = ..., alone: _Optional[bool] = ..., tricks_needed: _Optional[int] = ...) -> None: ...

class BidMade(_message.Message):
    __slots__ = ("seat", "action")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: str
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[str] = ...) -> None: ...

class CardPlay(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "plays", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    plays: _containers.RepeatedCompositeFieldContainer[CardPlay]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[CardPlay, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class PrivateCards(_message.Message):
    __slots__ = ("widow", "gave", "received", "discards")
    WIDOW_FIELD_NUMBER: _ClassVar[int]
    GAVE_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    widow: _containers.RepeatedScalarFieldContainer[str]
    gave: _containers.RepeatedScalarFieldContainer[str]
    received: _containers.RepeatedScalarFieldContainer[str]
    discards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, widow: _Optional[_Iterable[str]] = ..., gave: _Optional[_Iterable[str]] = ..., received: _Optional[_Iterable[str]] = ..., discards: _Optional[_Iterable[str]] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("ruleset", "players", "seat", "team_of", "deal", "dealer", "phase", "to_act", "hand", "bids", "contract", "partner_card", "partner", "sitting_out", "leader", "trick", "tricks", "tricks_won", "scores", "private_cards", "family", "target_score")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_OF_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    PARTNER_CARD_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    SITTING_OUT_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_CARDS_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    players: int
    seat: int
    team_of: _containers.RepeatedScalarFieldContainer[int]
    deal: int
    dealer: int
    phase: Phase
    to_act: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    bids: _containers.RepeatedCompositeFieldContainer[BidMade]
    contract: Contract
    partner_card: str
    partner: int
    sitting_out: _containers.RepeatedScalarFieldContainer[int]
    leader: int
    trick: _containers.RepeatedCompositeFieldContainer[CardPlay]
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    private_cards: PrivateCards
    family: str
    target_score: int
    def __init__(self, ruleset: _Optional[str] = ..., players: _Optional[int] = ..., seat: _Optional[int] = ..., team_of: _Optional[_Iterable[int]] = ..., deal: _Optional[int] = ..., dealer: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_act: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., bids: _Optional[_Iterable[_Union[BidMade, _Mapping]]] = ..., contract: _Optional[_Union[Contract, _Mapping]] = ..., partner_card: _Optional[str] = ..., partner: _Optional[int] = ..., sitting_out: _Optional[_Iterable[int]] = ..., leader: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[CardPlay, _Mapping]]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., tricks_won: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., private_cards: _Optional[_Union[PrivateCards, _Mapping]] = ..., family: _Optional[str] = ..., target_score: _Optional[int] = ...) -> None: ...

class DealResult(_message.Message):
    __slots__ = ("number", "dealer", "thrown_in", "ceded", "contract", "partner", "tricks", "points", "scores")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    THROWN_IN_FIELD_NUMBER: _ClassVar[int]
    CEDED_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    number: int
    dealer: int
    thrown_in: bool
    ceded: bool
    contract: Contract
    partner: int
    tricks: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, number: _Optional[int] = ..., dealer: _Optional[int] = ..., thrown_in: _Optional[bool] = ..., ceded: _Optional[bool] = ..., contract: _Optional[_Union[Contract, _Mapping]] = ..., partner: _Optional[int] = ..., tricks: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("winners", "winning_seats", "scores", "deals", "reason", "draw")
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    WINNING_SEATS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    winning_seats: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    deals: int
    reason: str
    draw: bool
    def __init__(self, winners: _Optional[_Iterable[int]] = ..., winning_seats: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., deals: _Optional[int] = ..., reason: _Optional[str] = ..., draw: _Optional[bool] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("game_id", "seat", "index", "kind", "actor", "action", "cards", "bid", "strain", "flag", "deal", "leader", "deal_result", "outcome", "visible_to")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    STRAIN_FIELD_NUMBER: _ClassVar[int]
    FLAG_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    DEAL_RESULT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_TO_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    index: int
    kind: EventKind
    actor: int
    action: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    bid: str
    strain: str
    flag: bool
    deal: int
    leader: int
    deal_result: DealResult
    outcome: Outcome
    visible_to: int
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., index: _Optional[int] = ..., kind: _Optional[_Union[EventKind, str]] = ..., actor: _Optional[int] = ..., action: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ..., bid: _Optional[str] = ..., strain: _Optional[str] = ..., flag: _Optional[bool] = ..., deal: _Optional[int] = ..., leader: _Optional[int] = ..., deal_result: _Optional[_Union[DealResult, _Mapping]] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., visible_to: _Optional[int] = ...) -> None: ...
