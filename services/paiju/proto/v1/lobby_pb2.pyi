# ruff: noqa
from paiju.proto.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListTiersRequest(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: str
    def __init__(self, game: _Optional[str] = ...) -> None: ...

class ListTiersResponse(_message.Message):
    __slots__ = ("tiers",)
    TIERS_FIELD_NUMBER: _ClassVar[int]
    tiers: _containers.RepeatedCompositeFieldContainer[_common_pb2.Tier]
    def __init__(self, tiers: _Optional[_Iterable[_Union[_common_pb2.Tier, _Mapping]]] = ...) -> None: ...

class ListRoomsRequest(_message.Message):
    __slots__ = ("game", "tier")
    GAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    game: str
    tier: str
    def __init__(self, game: _Optional[str] = ..., tier: _Optional[str] = ...) -> None: ...

class ListRoomsResponse(_message.Message):
    __slots__ = ("rooms",)
    ROOMS_FIELD_NUMBER: _ClassVar[int]
    rooms: _containers.RepeatedCompositeFieldContainer[_common_pb2.Room]
    def __init__(self, rooms: _Optional[_Iterable[_Union[_common_pb2.Room, _Mapping]]] = ...) -> None: ...

class WatchRoomsRequest(_message.Message):
    __slots__ = ("game", "tier")
    GAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    game: str
    tier: str
    def __init__(self, game: _Optional[str] = ..., tier: _Optional[str] = ...) -> None: ...

class RoomSnapshot(_message.Message):
    __slots__ = ("rooms",)
    ROOMS_FIELD_NUMBER: _ClassVar[int]
    rooms: _containers.RepeatedCompositeFieldContainer[_common_pb2.Room]
    def __init__(self, rooms: _Optional[_Iterable[_Union[_common_pb2.Room, _Mapping]]] = ...) -> None: ...

class WatchRoomsResponse(_message.Message):
    __slots__ = ("snapshot", "changed")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    snapshot: RoomSnapshot
    changed: _common_pb2.Room
    def __init__(self, snapshot: _Optional[_Union[RoomSnapshot, _Mapping]] = ..., changed: _Optional[_Union[_common_pb2.Room, _Mapping]] = ...) -> None: ...

class SitRequest(_message.Message):
    __slots__ = ("room_id", "seat")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    seat: int
    def __init__(self, room_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class SitResponse(_message.Message):
    __slots__ = ("room", "seat")
    ROOM_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    room: _common_pb2.Room
    seat: int
    def __init__(self, room: _Optional[_Union[_common_pb2.Room, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...

class StandRequest(_message.Message):
    __slots__ = ("room_id", "accept_escape")
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_ESCAPE_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    accept_escape: bool
    def __init__(self, room_id: _Optional[str] = ..., accept_escape: _Optional[bool] = ...) -> None: ...

class StandResponse(_message.Message):
    __slots__ = ("room", "escaped")
    ROOM_FIELD_NUMBER: _ClassVar[int]
    ESCAPED_FIELD_NUMBER: _ClassVar[int]
    room: _common_pb2.Room
    escaped: bool
    def __init__(self, room: _Optional[_Union[_common_pb2.Room, _Mapping]] = ..., escaped: _Optional[bool] = ...) -> None: ...

class ReadyRequest(_message.Message):
    __slots__ = ("room_id",)
    ROOM_ID_FIELD_NUMBER: _ClassVar[int]
    room_id: str
    def __init__(self, room_id: _Optional[str] = ...) -> None: ...

class ReadyResponse(_message.Message):
    __slots__ = ("room", "hand_started", "hand_id")
    ROOM_FIELD_NUMBER: _ClassVar[int]
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    room: _common_pb2.Room
    hand_started: bool
    hand_id: str
    def __init__(self, room: _Optional[_Union[_common_pb2.Room, _Mapping]] = ..., hand_started: _Optional[bool] = ..., hand_id: _Optional[str] = ...) -> None: ...

class QuickMatchRequest(_message.Message):
    __slots__ = ("game", "tier")
    GAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    game: str
    tier: str
    def __init__(self, game: _Optional[str] = ..., tier: _Optional[str] = ...) -> None: ...

class QuickMatchResponse(_message.Message):
    __slots__ = ("room", "seat")
    ROOM_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    room: _common_pb2.Room
    seat: int
    def __init__(self, room: _Optional[_Union[_common_pb2.Room, _Mapping]] = ..., seat: _Optional[int] = ...) -> None: ...
