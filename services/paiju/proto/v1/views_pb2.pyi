# ruff: noqa
from paiju.proto.v1 import chaodipi_pb2 as _chaodipi_pb2
from paiju.proto.v1 import hunzhan_pb2 as _hunzhan_pb2
from paiju.proto.v1 import zhajinhua_pb2 as _zhajinhua_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ViewFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VIEW_FORMAT_UNSPECIFIED: _ClassVar[ViewFormat]
    VIEW_FORMAT_TYPED: _ClassVar[ViewFormat]
    VIEW_FORMAT_JSON: _ClassVar[ViewFormat]
VIEW_FORMAT_UNSPECIFIED: ViewFormat
VIEW_FORMAT_TYPED: ViewFormat
VIEW_FORMAT_JSON: ViewFormat

class TableViewState(_message.Message):
    __slots__ = ("version", "last_event_id", "table", "seat", "hand", "last_hand", "turn_due_ms", "ready_kick", "reconnect_by_ms", "windows_left_out")
    class ReconnectByMsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    TURN_DUE_MS_FIELD_NUMBER: _ClassVar[int]
    READY_KICK_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_BY_MS_FIELD_NUMBER: _ClassVar[int]
    WINDOWS_LEFT_OUT_FIELD_NUMBER: _ClassVar[int]
    version: int
    last_event_id: str
    table: TableSummary
    seat: int
    hand: HandView
    last_hand: LastHand
    turn_due_ms: int
    ready_kick: ReadyKick
    reconnect_by_ms: _containers.ScalarMap[str, int]
    windows_left_out: bool
    def __init__(self, version: _Optional[int] = ..., last_event_id: _Optional[str] = ..., table: _Optional[_Union[TableSummary, _Mapping]] = ..., seat: _Optional[int] = ..., hand: _Optional[_Union[HandView, _Mapping]] = ..., last_hand: _Optional[_Union[LastHand, _Mapping]] = ..., turn_due_ms: _Optional[int] = ..., ready_kick: _Optional[_Union[ReadyKick, _Mapping]] = ..., reconnect_by_ms: _Optional[_Mapping[str, int]] = ..., windows_left_out: _Optional[bool] = ...) -> None: ...

class TableSummary(_message.Message):
    __slots__ = ("table_id", "game", "tier", "state", "seats")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game: str
    tier: str
    state: str
    seats: _containers.RepeatedCompositeFieldContainer[TableSeat]
    def __init__(self, table_id: _Optional[str] = ..., game: _Optional[str] = ..., tier: _Optional[str] = ..., state: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[TableSeat, _Mapping]]] = ...) -> None: ...

class TableSeat(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: SeatedPlayer
    def __init__(self, player: _Optional[_Union[SeatedPlayer, _Mapping]] = ...) -> None: ...

class SeatedPlayer(_message.Message):
    __slots__ = ("account", "name", "ready", "coins", "connected")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    account: str
    name: str
    ready: bool
    coins: int
    connected: bool
    def __init__(self, account: _Optional[str] = ..., name: _Optional[str] = ..., ready: _Optional[bool] = ..., coins: _Optional[int] = ..., connected: _Optional[bool] = ...) -> None: ...

class HandView(_message.Message):
    __slots__ = ("hand_id", "number", "seats", "my_hand_seat", "state")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    MY_HAND_SEAT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    number: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    my_hand_seat: int
    state: GameView
    def __init__(self, hand_id: _Optional[str] = ..., number: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., my_hand_seat: _Optional[int] = ..., state: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class LastHand(_message.Message):
    __slots__ = ("hand_id", "seats", "state")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    seats: _containers.RepeatedScalarFieldContainer[int]
    state: GameView
    def __init__(self, hand_id: _Optional[str] = ..., seats: _Optional[_Iterable[int]] = ..., state: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("zhajinhua", "hunzhan", "chaodipi")
    ZHAJINHUA_FIELD_NUMBER: _ClassVar[int]
    HUNZHAN_FIELD_NUMBER: _ClassVar[int]
    CHAODIPI_FIELD_NUMBER: _ClassVar[int]
    zhajinhua: _zhajinhua_pb2.ZhajinhuaView
    hunzhan: _hunzhan_pb2.HunzhanView
    chaodipi: _chaodipi_pb2.ChaodipiView
    def __init__(self, zhajinhua: _Optional[_Union[_zhajinhua_pb2.ZhajinhuaView, _Mapping]] = ..., hunzhan: _Optional[_Union[_hunzhan_pb2.HunzhanView, _Mapping]] = ..., chaodipi: _Optional[_Union[_chaodipi_pb2.ChaodipiView, _Mapping]] = ...) -> None: ...

class ReadyKick(_message.Message):
    __slots__ = ("seat", "due_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DUE_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    due_ms: int
    def __init__(self, seat: _Optional[int] = ..., due_ms: _Optional[int] = ...) -> None: ...
