# ruff: noqa
import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RoomState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROOM_STATE_UNSPECIFIED: _ClassVar[RoomState]
    ROOM_STATE_IDLE: _ClassVar[RoomState]
    ROOM_STATE_WAITING: _ClassVar[RoomState]
    ROOM_STATE_PLAYING: _ClassVar[RoomState]

class DeadlineKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DEADLINE_KIND_UNSPECIFIED: _ClassVar[DeadlineKind]
    DEADLINE_KIND_TURN: _ClassVar[DeadlineKind]
    DEADLINE_KIND_RECONNECT: _ClassVar[DeadlineKind]
    DEADLINE_KIND_READY_KICK: _ClassVar[DeadlineKind]
    DEADLINE_KIND_HAND_START: _ClassVar[DeadlineKind]

class DeadlineOwner(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DEADLINE_OWNER_UNSPECIFIED: _ClassVar[DeadlineOwner]
    DEADLINE_OWNER_TABLE: _ClassVar[DeadlineOwner]
ROOM_STATE_UNSPECIFIED: RoomState
ROOM_STATE_IDLE: RoomState
ROOM_STATE_WAITING: RoomState
ROOM_STATE_PLAYING: RoomState
DEADLINE_KIND_UNSPECIFIED: DeadlineKind
DEADLINE_KIND_TURN: DeadlineKind
DEADLINE_KIND_RECONNECT: DeadlineKind
DEADLINE_KIND_READY_KICK: DeadlineKind
DEADLINE_KIND_HAND_START: DeadlineKind
DEADLINE_OWNER_UNSPECIFIED: DeadlineOwner
DEADLINE_OWNER_TABLE: DeadlineOwner

class Tier(_message.Message):
    __slots__ = ("game", "tier", "title", "min_coins", "stake", "unit", "seat_count", "players_seated")
    GAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MIN_COINS_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    SEAT_COUNT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_SEATED_FIELD_NUMBER: _ClassVar[int]
    game: str
    tier: str
    title: str
    min_coins: int
    stake: int
    unit: str
    seat_count: int
    players_seated: int
    def __init__(self, game: _Optional[str] = ..., tier: _Optional[str] = ..., title: _Optional[str] = ..., min_coins: _Optional[int] = ..., stake: _Optional[int] = ..., unit: _Optional[str] = ..., seat_count: _Optional[int] = ..., players_seated: _Optional[int] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("seat", "account_id", "username", "coins", "ready", "connected")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    account_id: str
    username: str
    coins: int
    ready: bool
    connected: bool
    def __init__(self, seat: _Optional[int] = ..., account_id: _Optional[str] = ..., username: _Optional[str] = ..., coins: _Optional[int] = ..., ready: _Optional[bool] = ..., connected: _Optional[bool] = ...) -> None: ...

class Room(_message.Message):
    __slots__ = ("room_id", "tier", "state", "seats", "table_id", "version")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    tier: Tier
    state: RoomState
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    table_id: str
    version: int
    def __init__(self, room_id: _Optional[str] = ..., tier: _Optional[_Union[Tier, _Mapping]] = ..., state: _Optional[_Union[RoomState, str]] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., table_id: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class Deadline(_message.Message):
    __slots__ = ("deadline_id", "kind", "owner", "target_id", "seat", "account_id", "version", "due_at")
    DEADLINE_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DUE_AT_FIELD_NUMBER: _ClassVar[int]
    deadline_id: str
    kind: DeadlineKind
    owner: DeadlineOwner
    target_id: str
    seat: int
    account_id: str
    version: int
    due_at: _timestamp_pb2.Timestamp
    def __init__(self, deadline_id: _Optional[str] = ..., kind: _Optional[_Union[DeadlineKind, str]] = ..., owner: _Optional[_Union[DeadlineOwner, str]] = ..., target_id: _Optional[str] = ..., seat: _Optional[int] = ..., account_id: _Optional[str] = ..., version: _Optional[int] = ..., due_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExpireDeadlineRequest(_message.Message):
    __slots__ = ("deadline",)
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    deadline: Deadline
    def __init__(self, deadline: _Optional[_Union[Deadline, _Mapping]] = ...) -> None: ...

class ExpireDeadlineResponse(_message.Message):
    __slots__ = ("applied", "detail", "version")
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    applied: bool
    detail: str
    version: int
    def __init__(self, applied: _Optional[bool] = ..., detail: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...
