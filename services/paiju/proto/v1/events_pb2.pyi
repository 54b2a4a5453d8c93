# ruff: noqa
from paiju.proto.v1 import chaodipi_pb2 as _chaodipi_pb2
from paiju.proto.v1 import hand_parts_pb2 as _hand_parts_pb2
from paiju.proto.v1 import hunzhan_pb2 as _hunzhan_pb2
from paiju.proto.v1 import zhajinhua_pb2 as _zhajinhua_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TypedEvent(_message.Message):
    __slots__ = ("table", "zhajinhua", "hunzhan", "chaodipi")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    ZHAJINHUA_FIELD_NUMBER: _ClassVar[int]
    HUNZHAN_FIELD_NUMBER: _ClassVar[int]
    CHAODIPI_FIELD_NUMBER: _ClassVar[int]
    table: TableEvent
    zhajinhua: _zhajinhua_pb2.ZhajinhuaEvent
    hunzhan: _hunzhan_pb2.HunzhanEvent
    chaodipi: _chaodipi_pb2.ChaodipiEvent
    def __init__(self, table: _Optional[_Union[TableEvent, _Mapping]] = ..., zhajinhua: _Optional[_Union[_zhajinhua_pb2.ZhajinhuaEvent, _Mapping]] = ..., hunzhan: _Optional[_Union[_hunzhan_pb2.HunzhanEvent, _Mapping]] = ..., chaodipi: _Optional[_Union[_chaodipi_pb2.ChaodipiEvent, _Mapping]] = ...) -> None: ...

class TableEvent(_message.Message):
    __slots__ = ("sat", "stood", "ready", "hand_seats", "hand_settled", "disconnected", "reconnected", "strike", "escaped", "hand_voided")
    SAT_FIELD_NUMBER: _ClassVar[int]
    STOOD_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    HAND_SEATS_FIELD_NUMBER: _ClassVar[int]
    HAND_SETTLED_FIELD_NUMBER: _ClassVar[int]
    DISCONNECTED_FIELD_NUMBER: _ClassVar[int]
    RECONNECTED_FIELD_NUMBER: _ClassVar[int]
    STRIKE_FIELD_NUMBER: _ClassVar[int]
    ESCAPED_FIELD_NUMBER: _ClassVar[int]
    HAND_VOIDED_FIELD_NUMBER: _ClassVar[int]
    sat: TableSat
    stood: TableStood
    ready: _hand_parts_pb2.SeatEvent
    hand_seats: TableHandSeats
    hand_settled: TableHandSettled
    disconnected: TableDisconnected
    reconnected: _hand_parts_pb2.SeatEvent
    strike: TableStrike
    escaped: _hand_parts_pb2.SeatEvent
    hand_voided: TableHandVoided
    def __init__(self, sat: _Optional[_Union[TableSat, _Mapping]] = ..., stood: _Optional[_Union[TableStood, _Mapping]] = ..., ready: _Optional[_Union[_hand_parts_pb2.SeatEvent, _Mapping]] = ..., hand_seats: _Optional[_Union[TableHandSeats, _Mapping]] = ..., hand_settled: _Optional[_Union[TableHandSettled, _Mapping]] = ..., disconnected: _Optional[_Union[TableDisconnected, _Mapping]] = ..., reconnected: _Optional[_Union[_hand_parts_pb2.SeatEvent, _Mapping]] = ..., strike: _Optional[_Union[TableStrike, _Mapping]] = ..., escaped: _Optional[_Union[_hand_parts_pb2.SeatEvent, _Mapping]] = ..., hand_voided: _Optional[_Union[TableHandVoided, _Mapping]] = ...) -> None: ...

class TableSat(_message.Message):
    __slots__ = ("seat", "account", "name", "coins")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    account: str
    name: str
    coins: int
    def __init__(self, seat: _Optional[int] = ..., account: _Optional[str] = ..., name: _Optional[str] = ..., coins: _Optional[int] = ...) -> None: ...

class TableStood(_message.Message):
    __slots__ = ("seat", "account", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    account: str
    reason: str
    def __init__(self, seat: _Optional[int] = ..., account: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class TableHandSeats(_message.Message):
    __slots__ = ("hand_id", "number", "seats", "accounts")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ACCOUNTS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    number: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    accounts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hand_id: _Optional[str] = ..., number: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., accounts: _Optional[_Iterable[str]] = ...) -> None: ...

class TableHandSettled(_message.Message):
    __slots__ = ("hand_id", "coins")
    class CoinsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    coins: _containers.ScalarMap[str, int]
    def __init__(self, hand_id: _Optional[str] = ..., coins: _Optional[_Mapping[str, int]] = ...) -> None: ...

class TableDisconnected(_message.Message):
    __slots__ = ("seat", "reconnect_by_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_BY_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reconnect_by_ms: int
    def __init__(self, seat: _Optional[int] = ..., reconnect_by_ms: _Optional[int] = ...) -> None: ...

class TableStrike(_message.Message):
    __slots__ = ("seat", "strikes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    strikes: int
    def __init__(self, seat: _Optional[int] = ..., strikes: _Optional[int] = ...) -> None: ...

class TableHandVoided(_message.Message):
    __slots__ = ("hand_id", "reason")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    reason: str
    def __init__(self, hand_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
