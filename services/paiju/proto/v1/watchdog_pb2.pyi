# ruff: noqa
import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from paiju.proto.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListDeadlinesRequest(_message.Message):
    __slots__ = ("target_id",)
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    target_id: str
    def __init__(self, target_id: _Optional[str] = ...) -> None: ...

class ListDeadlinesResponse(_message.Message):
    __slots__ = ("deadlines",)
    DEADLINES_FIELD_NUMBER: _ClassVar[int]
    deadlines: _containers.RepeatedCompositeFieldContainer[_common_pb2.Deadline]
    def __init__(self, deadlines: _Optional[_Iterable[_Union[_common_pb2.Deadline, _Mapping]]] = ...) -> None: ...

class Presence(_message.Message):
    __slots__ = ("owner", "target_id", "seat", "account_id", "connected", "since", "reconnect_by")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_BY_FIELD_NUMBER: _ClassVar[int]
    owner: _common_pb2.DeadlineOwner
    target_id: str
    seat: int
    account_id: str
    connected: bool
    since: _timestamp_pb2.Timestamp
    reconnect_by: _timestamp_pb2.Timestamp
    def __init__(self, owner: _Optional[_Union[_common_pb2.DeadlineOwner, str]] = ..., target_id: _Optional[str] = ..., seat: _Optional[int] = ..., account_id: _Optional[str] = ..., connected: _Optional[bool] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reconnect_by: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ReportPresenceRequest(_message.Message):
    __slots__ = ("owner", "target_id", "seat", "account_id", "connected", "version")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    owner: _common_pb2.DeadlineOwner
    target_id: str
    seat: int
    account_id: str
    connected: bool
    version: int
    def __init__(self, owner: _Optional[_Union[_common_pb2.DeadlineOwner, str]] = ..., target_id: _Optional[str] = ..., seat: _Optional[int] = ..., account_id: _Optional[str] = ..., connected: _Optional[bool] = ..., version: _Optional[int] = ...) -> None: ...

class ReportPresenceResponse(_message.Message):
    __slots__ = ("presence", "reconnect_deadline")
    PRESENCE_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    presence: Presence
    reconnect_deadline: _common_pb2.Deadline
    def __init__(self, presence: _Optional[_Union[Presence, _Mapping]] = ..., reconnect_deadline: _Optional[_Union[_common_pb2.Deadline, _Mapping]] = ...) -> None: ...

class GetPresenceRequest(_message.Message):
    __slots__ = ("target_id",)
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    target_id: str
    def __init__(self, target_id: _Optional[str] = ...) -> None: ...

class GetPresenceResponse(_message.Message):
    __slots__ = ("players",)
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    players: _containers.RepeatedCompositeFieldContainer[Presence]
    def __init__(self, players: _Optional[_Iterable[_Union[Presence, _Mapping]]] = ...) -> None: ...
