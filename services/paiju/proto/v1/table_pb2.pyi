# ruff: noqa
import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from paiju.proto.v1 import common_pb2 as _common_pb2
from paiju.proto.v1 import events_pb2 as _events_pb2
from paiju.proto.v1 import lobby_pb2 as _lobby_pb2
from paiju.proto.v1 import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetViewRequest(_message.Message):
    __slots__ = ("table_id", "view_format")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FORMAT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    view_format: _views_pb2.ViewFormat
    def __init__(self, table_id: _Optional[str] = ..., view_format: _Optional[_Union[_views_pb2.ViewFormat, str]] = ...) -> None: ...

class GetViewResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: TableView
    def __init__(self, view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class TurnClock(_message.Message):
    __slots__ = ("seat", "due_at", "suspended")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DUE_AT_FIELD_NUMBER: _ClassVar[int]
    SUSPENDED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    due_at: _timestamp_pb2.Timestamp
    suspended: bool
    def __init__(self, seat: _Optional[int] = ..., due_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., suspended: _Optional[bool] = ...) -> None: ...

class TableView(_message.Message):
    __slots__ = ("table_id", "game", "version", "seat", "hand_id", "view_json", "legal_actions", "turn", "last_event_id", "state")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game: str
    version: int
    seat: int
    hand_id: str
    view_json: str
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    turn: TurnClock
    last_event_id: str
    state: _views_pb2.TableViewState
    def __init__(self, table_id: _Optional[str] = ..., game: _Optional[str] = ..., version: _Optional[int] = ..., seat: _Optional[int] = ..., hand_id: _Optional[str] = ..., view_json: _Optional[str] = ..., legal_actions: _Optional[_Iterable[str]] = ..., turn: _Optional[_Union[TurnClock, _Mapping]] = ..., last_event_id: _Optional[str] = ..., state: _Optional[_Union[_views_pb2.TableViewState, _Mapping]] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("table_id", "expected_version", "action", "view_format")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FORMAT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    expected_version: int
    action: str
    view_format: _views_pb2.ViewFormat
    def __init__(self, table_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., action: _Optional[str] = ..., view_format: _Optional[_Union[_views_pb2.ViewFormat, str]] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ("version", "events", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    view: TableView
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class CheckActionRequest(_message.Message):
    __slots__ = ("table_id", "action")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    action: str
    def __init__(self, table_id: _Optional[str] = ..., action: _Optional[str] = ...) -> None: ...

class CheckActionResponse(_message.Message):
    __slots__ = ("legal", "reason", "code")
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    legal: bool
    reason: str
    code: str
    def __init__(self, legal: _Optional[bool] = ..., reason: _Optional[str] = ..., code: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("id", "type", "payload_json", "version", "hand_id", "typed")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    TYPED_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    payload_json: str
    version: int
    hand_id: str
    typed: _events_pb2.TypedEvent
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., payload_json: _Optional[str] = ..., version: _Optional[int] = ..., hand_id: _Optional[str] = ..., typed: _Optional[_Union[_events_pb2.TypedEvent, _Mapping]] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("table_id", "after_event_id", "follow_view", "leave_out_own_acts", "view_format")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    FOLLOW_VIEW_FIELD_NUMBER: _ClassVar[int]
    LEAVE_OUT_OWN_ACTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FORMAT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    after_event_id: str
    follow_view: bool
    leave_out_own_acts: bool
    view_format: _views_pb2.ViewFormat
    def __init__(self, table_id: _Optional[str] = ..., after_event_id: _Optional[str] = ..., follow_view: _Optional[bool] = ..., leave_out_own_acts: _Optional[bool] = ..., view_format: _Optional[_Union[_views_pb2.ViewFormat, str]] = ...) -> None: ...

class WatchResponse(_message.Message):
    __slots__ = ("snapshot", "events")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    snapshot: TableView
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, snapshot: _Optional[_Union[TableView, _Mapping]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("open", "move", "ready")
    OPEN_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    open: WatchRequest
    move: PlayMove
    ready: PlayReady
    def __init__(self, open: _Optional[_Union[WatchRequest, _Mapping]] = ..., move: _Optional[_Union[PlayMove, _Mapping]] = ..., ready: _Optional[_Union[PlayReady, _Mapping]] = ...) -> None: ...

class PlayReady(_message.Message):
    __slots__ = ("move_id",)
    MOVE_ID_FIELD_NUMBER: _ClassVar[int]
    move_id: int
    def __init__(self, move_id: _Optional[int] = ...) -> None: ...

class PlayMove(_message.Message):
    __slots__ = ("move_id", "expected_version", "action")
    MOVE_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    move_id: int
    expected_version: int
    action: str
    def __init__(self, move_id: _Optional[int] = ..., expected_version: _Optional[int] = ..., action: _Optional[str] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("update", "answer")
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    update: WatchResponse
    answer: MoveAnswer
    def __init__(self, update: _Optional[_Union[WatchResponse, _Mapping]] = ..., answer: _Optional[_Union[MoveAnswer, _Mapping]] = ...) -> None: ...

class MoveAnswer(_message.Message):
    __slots__ = ("move_id", "accepted", "refused", "ready")
    MOVE_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    move_id: int
    accepted: ActResponse
    refused: MoveRefusal
    ready: _lobby_pb2.ReadyResponse
    def __init__(self, move_id: _Optional[int] = ..., accepted: _Optional[_Union[ActResponse, _Mapping]] = ..., refused: _Optional[_Union[MoveRefusal, _Mapping]] = ..., ready: _Optional[_Union[_lobby_pb2.ReadyResponse, _Mapping]] = ...) -> None: ...

class MoveRefusal(_message.Message):
    __slots__ = ("code", "message", "error_code", "current_version")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    CURRENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    error_code: str
    current_version: int
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., error_code: _Optional[str] = ..., current_version: _Optional[int] = ...) -> None: ...

class MarkDisconnectedRequest(_message.Message):
    __slots__ = ("table_id", "account_id", "since")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    account_id: str
    since: _timestamp_pb2.Timestamp
    def __init__(self, table_id: _Optional[str] = ..., account_id: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class MarkDisconnectedResponse(_message.Message):
    __slots__ = ("applied", "version")
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    applied: bool
    version: int
    def __init__(self, applied: _Optional[bool] = ..., version: _Optional[int] = ...) -> None: ...
