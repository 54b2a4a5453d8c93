# ruff: noqa
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ScoreList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, values: _Optional[_Iterable[int]] = ...) -> None: ...

class NullableString(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: str
    def __init__(self, value: _Optional[str] = ...) -> None: ...

class NullableInt32(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...

class SeatCards(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: str
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[str] = ...) -> None: ...

class SettlementLine(_message.Message):
    __slots__ = ("seat", "amount", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    reason: str
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class SystemStep(_message.Message):
    __slots__ = ("name", "seconds")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    name: str
    seconds: float
    def __init__(self, name: _Optional[str] = ..., seconds: _Optional[float] = ...) -> None: ...

class DealReveal(_message.Message):
    __slots__ = ("seed", "order")
    SEED_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    seed: str
    order: str
    def __init__(self, seed: _Optional[str] = ..., order: _Optional[str] = ...) -> None: ...

class HandReveal(_message.Message):
    __slots__ = ("deals", "hands", "kitty")
    DEALS_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    deals: _containers.RepeatedCompositeFieldContainer[DealReveal]
    hands: _containers.RepeatedScalarFieldContainer[str]
    kitty: str
    def __init__(self, deals: _Optional[_Iterable[_Union[DealReveal, _Mapping]]] = ..., hands: _Optional[_Iterable[str]] = ..., kitty: _Optional[str] = ...) -> None: ...

class SeatEvent(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class DealtEvent(_message.Message):
    __slots__ = ("seat", "count")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    count: int
    def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class CardEvent(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class DealDoneEvent(_message.Message):
    __slots__ = ("declare_window",)
    DECLARE_WINDOW_FIELD_NUMBER: _ClassVar[int]
    declare_window: float
    def __init__(self, declare_window: _Optional[float] = ...) -> None: ...

class RedealEvent(_message.Message):
    __slots__ = ("deal", "commitment")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    deal: int
    commitment: str
    def __init__(self, deal: _Optional[int] = ..., commitment: _Optional[str] = ...) -> None: ...

class TimedOutEvent(_message.Message):
    __slots__ = ("seat", "strikes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    strikes: int
    def __init__(self, seat: _Optional[int] = ..., strikes: _Optional[int] = ...) -> None: ...
