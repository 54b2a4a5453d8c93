# ruff: noqa
from paiju.proto.v1 import hand_parts_pb2 as _hand_parts_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HunzhanView(_message.Message):
    __slots__ = ("game", "seat", "phase", "first_receiver", "deal", "dealt", "commitment", "declarations", "declaration", "trump", "no_trump", "declarer", "to_act", "turn_number", "pending_system_step", "trick", "previous_trick", "last_trick_winner", "players", "legal_actions", "result", "reveal")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    FIRST_RECEIVER_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    DECLARATION_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    NO_TRUMP_FIELD_NUMBER: _ClassVar[int]
    DECLARER_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    TURN_NUMBER_FIELD_NUMBER: _ClassVar[int]
    PENDING_SYSTEM_STEP_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_TRICK_FIELD_NUMBER: _ClassVar[int]
    LAST_TRICK_WINNER_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    phase: str
    first_receiver: int
    deal: int
    dealt: int
    commitment: str
    declarations: _containers.RepeatedCompositeFieldContainer[_hand_parts_pb2.SeatCards]
    declaration: _hand_parts_pb2.SeatCards
    trump: str
    no_trump: bool
    declarer: int
    to_act: int
    turn_number: int
    pending_system_step: _hand_parts_pb2.SystemStep
    trick: _containers.RepeatedCompositeFieldContainer[_hand_parts_pb2.SeatCards]
    previous_trick: _containers.RepeatedCompositeFieldContainer[_hand_parts_pb2.SeatCards]
    last_trick_winner: int
    players: _containers.RepeatedCompositeFieldContainer[HunzhanPlayer]
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    result: HunzhanResult
    reveal: _hand_parts_pb2.HandReveal
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., phase: _Optional[str] = ..., first_receiver: _Optional[int] = ..., deal: _Optional[int] = ..., dealt: _Optional[int] = ..., commitment: _Optional[str] = ..., declarations: _Optional[_Iterable[_Union[_hand_parts_pb2.SeatCards, _Mapping]]] = ..., declaration: _Optional[_Union[_hand_parts_pb2.SeatCards, _Mapping]] = ..., trump: _Optional[str] = ..., no_trump: _Optional[bool] = ..., declarer: _Optional[int] = ..., to_act: _Optional[int] = ..., turn_number: _Optional[int] = ..., pending_system_step: _Optional[_Union[_hand_parts_pb2.SystemStep, _Mapping]] = ..., trick: _Optional[_Iterable[_Union[_hand_parts_pb2.SeatCards, _Mapping]]] = ..., previous_trick: _Optional[_Iterable[_Union[_hand_parts_pb2.SeatCards, _Mapping]]] = ..., last_trick_winner: _Optional[int] = ..., players: _Optional[_Iterable[_Union[HunzhanPlayer, _Mapping]]] = ..., legal_actions: _Optional[_Iterable[str]] = ..., result: _Optional[_Union[HunzhanResult, _Mapping]] = ..., reveal: _Optional[_Union[_hand_parts_pb2.HandReveal, _Mapping]] = ...) -> None: ...

class HunzhanPlayer(_message.Message):
    __slots__ = ("seat", "cards", "card_count", "points", "point_cards", "tricks_won", "strikes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    CARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    POINT_CARDS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: str
    card_count: int
    points: int
    point_cards: str
    tricks_won: int
    strikes: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[str] = ..., card_count: _Optional[int] = ..., points: _Optional[int] = ..., point_cards: _Optional[str] = ..., tricks_won: _Optional[int] = ..., strikes: _Optional[int] = ...) -> None: ...

class HunzhanResult(_message.Message):
    __slots__ = ("coins", "lines", "fee", "scores", "winners", "details")
    COINS_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    coins: _containers.RepeatedScalarFieldContainer[int]
    lines: _containers.RepeatedCompositeFieldContainer[_hand_parts_pb2.SettlementLine]
    fee: int
    scores: _hand_parts_pb2.ScoreList
    winners: _containers.RepeatedScalarFieldContainer[int]
    details: HunzhanResultDetails
    def __init__(self, coins: _Optional[_Iterable[int]] = ..., lines: _Optional[_Iterable[_Union[_hand_parts_pb2.SettlementLine, _Mapping]]] = ..., fee: _Optional[int] = ..., scores: _Optional[_Union[_hand_parts_pb2.ScoreList, _Mapping]] = ..., winners: _Optional[_Iterable[int]] = ..., details: _Optional[_Union[HunzhanResultDetails, _Mapping]] = ...) -> None: ...

class HunzhanResultDetails(_message.Message):
    __slots__ = ("how", "escaper", "points", "results", "fees", "leftover", "trump", "declarer", "next_first_receiver")
    HOW_FIELD_NUMBER: _ClassVar[int]
    ESCAPER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    FEES_FIELD_NUMBER: _ClassVar[int]
    LEFTOVER_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    DECLARER_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIRST_RECEIVER_FIELD_NUMBER: _ClassVar[int]
    how: str
    escaper: int
    points: _containers.RepeatedScalarFieldContainer[int]
    results: _containers.RepeatedScalarFieldContainer[int]
    fees: _containers.RepeatedScalarFieldContainer[int]
    leftover: int
    trump: str
    declarer: int
    next_first_receiver: int
    def __init__(self, how: _Optional[str] = ..., escaper: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ..., results: _Optional[_Iterable[int]] = ..., fees: _Optional[_Iterable[int]] = ..., leftover: _Optional[int] = ..., trump: _Optional[str] = ..., declarer: _Optional[int] = ..., next_first_receiver: _Optional[int] = ...) -> None: ...

class HunzhanEvent(_message.Message):
    __slots__ = ("hand_started", "dealt", "card", "deal_done", "declared", "redeal", "declaring_closed", "turn", "played", "trick_won", "timed_out", "escaped", "hand_over", "reveal")
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    DEAL_DONE_FIELD_NUMBER: _ClassVar[int]
    DECLARED_FIELD_NUMBER: _ClassVar[int]
    REDEAL_FIELD_NUMBER: _ClassVar[int]
    DECLARING_CLOSED_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    TRICK_WON_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    ESCAPED_FIELD_NUMBER: _ClassVar[int]
    HAND_OVER_FIELD_NUMBER: _ClassVar[int]
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    hand_started: HunzhanHandStarted
    dealt: _hand_parts_pb2.DealtEvent
    card: _hand_parts_pb2.CardEvent
    deal_done: _hand_parts_pb2.DealDoneEvent
    declared: HunzhanDeclared
    redeal: _hand_parts_pb2.RedealEvent
    declaring_closed: HunzhanDeclaringClosed
    turn: HunzhanTurn
    played: _hand_parts_pb2.SeatCards
    trick_won: HunzhanTrickWon
    timed_out: _hand_parts_pb2.TimedOutEvent
    escaped: HunzhanEscaped
    hand_over: HunzhanHandOver
    reveal: _hand_parts_pb2.HandReveal
    def __init__(self, hand_started: _Optional[_Union[HunzhanHandStarted, _Mapping]] = ..., dealt: _Optional[_Union[_hand_parts_pb2.DealtEvent, _Mapping]] = ..., card: _Optional[_Union[_hand_parts_pb2.CardEvent, _Mapping]] = ..., deal_done: _Optional[_Union[_hand_parts_pb2.DealDoneEvent, _Mapping]] = ..., declared: _Optional[_Union[HunzhanDeclared, _Mapping]] = ..., redeal: _Optional[_Union[_hand_parts_pb2.RedealEvent, _Mapping]] = ..., declaring_closed: _Optional[_Union[HunzhanDeclaringClosed, _Mapping]] = ..., turn: _Optional[_Union[HunzhanTurn, _Mapping]] = ..., played: _Optional[_Union[_hand_parts_pb2.SeatCards, _Mapping]] = ..., trick_won: _Optional[_Union[HunzhanTrickWon, _Mapping]] = ..., timed_out: _Optional[_Union[_hand_parts_pb2.TimedOutEvent, _Mapping]] = ..., escaped: _Optional[_Union[HunzhanEscaped, _Mapping]] = ..., hand_over: _Optional[_Union[HunzhanHandOver, _Mapping]] = ..., reveal: _Optional[_Union[_hand_parts_pb2.HandReveal, _Mapping]] = ...) -> None: ...

class HunzhanHandStarted(_message.Message):
    __slots__ = ("first_receiver", "coins", "commitment", "deal")
    FIRST_RECEIVER_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    first_receiver: int
    coins: _containers.RepeatedScalarFieldContainer[int]
    commitment: str
    deal: int
    def __init__(self, first_receiver: _Optional[int] = ..., coins: _Optional[_Iterable[int]] = ..., commitment: _Optional[str] = ..., deal: _Optional[int] = ...) -> None: ...

class HunzhanDeclared(_message.Message):
    __slots__ = ("seat", "cards", "trump")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: str
    trump: str
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[str] = ..., trump: _Optional[str] = ...) -> None: ...

class HunzhanDeclaringClosed(_message.Message):
    __slots__ = ("declarer", "trump")
    DECLARER_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    declarer: int
    trump: str
    def __init__(self, declarer: _Optional[int] = ..., trump: _Optional[str] = ...) -> None: ...

class HunzhanTurn(_message.Message):
    __slots__ = ("seat", "leader")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    leader: bool
    def __init__(self, seat: _Optional[int] = ..., leader: _Optional[bool] = ...) -> None: ...

class HunzhanTrickWon(_message.Message):
    __slots__ = ("seat", "points", "total")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    points: int
    total: int
    def __init__(self, seat: _Optional[int] = ..., points: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...

class HunzhanEscaped(_message.Message):
    __slots__ = ("seat", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: str
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class HunzhanHandOver(_message.Message):
    __slots__ = ("how", "points", "results", "coins", "fees", "escaper")
    HOW_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    FEES_FIELD_NUMBER: _ClassVar[int]
    ESCAPER_FIELD_NUMBER: _ClassVar[int]
    how: str
    points: _containers.RepeatedScalarFieldContainer[int]
    results: _containers.RepeatedScalarFieldContainer[int]
    coins: _containers.RepeatedScalarFieldContainer[int]
    fees: _containers.RepeatedScalarFieldContainer[int]
    escaper: int
    def __init__(self, how: _Optional[str] = ..., points: _Optional[_Iterable[int]] = ..., results: _Optional[_Iterable[int]] = ..., coins: _Optional[_Iterable[int]] = ..., fees: _Optional[_Iterable[int]] = ..., escaper: _Optional[int] = ...) -> None: ...
