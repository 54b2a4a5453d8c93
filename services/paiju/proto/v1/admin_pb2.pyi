# ruff: noqa
import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FindPlayerRequest(_message.Message):
    __slots__ = ("username", "account_id")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    username: str
    account_id: str
    def __init__(self, username: _Optional[str] = ..., account_id: _Optional[str] = ...) -> None: ...

class FindPlayerResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: Player
    def __init__(self, player: _Optional[_Union[Player, _Mapping]] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("account_id", "username", "balance", "held", "suspended", "suspension_reason", "table_id")
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    BALANCE_FIELD_NUMBER: _ClassVar[int]
    HELD_FIELD_NUMBER: _ClassVar[int]
    SUSPENDED_FIELD_NUMBER: _ClassVar[int]
    SUSPENSION_REASON_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    username: str
    balance: int
    held: int
    suspended: bool
    suspension_reason: str
    table_id: str
    def __init__(self, account_id: _Optional[str] = ..., username: _Optional[str] = ..., balance: _Optional[int] = ..., held: _Optional[int] = ..., suspended: _Optional[bool] = ..., suspension_reason: _Optional[str] = ..., table_id: _Optional[str] = ...) -> None: ...

class SuspendAccountRequest(_message.Message):
    __slots__ = ("account_id", "reason")
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    reason: str
    def __init__(self, account_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class SuspendAccountResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: Player
    def __init__(self, player: _Optional[_Union[Player, _Mapping]] = ...) -> None: ...

class RestoreAccountRequest(_message.Message):
    __slots__ = ("account_id", "reason")
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    reason: str
    def __init__(self, account_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RestoreAccountResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: Player
    def __init__(self, player: _Optional[_Union[Player, _Mapping]] = ...) -> None: ...

class AdjustCoinsRequest(_message.Message):
    __slots__ = ("account_id", "amount", "reason", "request_id")
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    amount: int
    reason: str
    request_id: str
    def __init__(self, account_id: _Optional[str] = ..., amount: _Optional[int] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class AdjustCoinsResponse(_message.Message):
    __slots__ = ("entry_id", "balance_after", "house_balance_after")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    BALANCE_AFTER_FIELD_NUMBER: _ClassVar[int]
    HOUSE_BALANCE_AFTER_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    balance_after: int
    house_balance_after: int
    def __init__(self, entry_id: _Optional[str] = ..., balance_after: _Optional[int] = ..., house_balance_after: _Optional[int] = ...) -> None: ...

class ListOutboxRequest(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    def __init__(self, limit: _Optional[int] = ...) -> None: ...

class OutboxEntry(_message.Message):
    __slots__ = ("table_id", "key", "kind", "hand_id", "payload_json")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    key: str
    kind: str
    hand_id: str
    payload_json: str
    def __init__(self, table_id: _Optional[str] = ..., key: _Optional[str] = ..., kind: _Optional[str] = ..., hand_id: _Optional[str] = ..., payload_json: _Optional[str] = ...) -> None: ...

class ListOutboxResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[OutboxEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[OutboxEntry, _Mapping]]] = ...) -> None: ...

class RetrySettlementRequest(_message.Message):
    __slots__ = ("table_id", "key", "reason")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    key: str
    reason: str
    def __init__(self, table_id: _Optional[str] = ..., key: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RetrySettlementResponse(_message.Message):
    __slots__ = ("outcome", "released")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    outcome: str
    released: int
    def __init__(self, outcome: _Optional[str] = ..., released: _Optional[int] = ...) -> None: ...

class VoidSettlementRequest(_message.Message):
    __slots__ = ("table_id", "key", "reason")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    key: str
    reason: str
    def __init__(self, table_id: _Optional[str] = ..., key: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class VoidSettlementResponse(_message.Message):
    __slots__ = ("outcome", "released")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    outcome: str
    released: int
    def __init__(self, outcome: _Optional[str] = ..., released: _Optional[int] = ...) -> None: ...

class EndTableRequest(_message.Message):
    __slots__ = ("table_id", "reason")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    reason: str
    def __init__(self, table_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class EndTableResponse(_message.Message):
    __slots__ = ("outcome", "nothing_to_end", "voided_hand_id", "abandoned_start_hand_ids", "released", "stood_account_ids", "deadlines_cleared", "outbox_left")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    NOTHING_TO_END_FIELD_NUMBER: _ClassVar[int]
    VOIDED_HAND_ID_FIELD_NUMBER: _ClassVar[int]
    ABANDONED_START_HAND_IDS_FIELD_NUMBER: _ClassVar[int]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    STOOD_ACCOUNT_IDS_FIELD_NUMBER: _ClassVar[int]
    DEADLINES_CLEARED_FIELD_NUMBER: _ClassVar[int]
    OUTBOX_LEFT_FIELD_NUMBER: _ClassVar[int]
    outcome: str
    nothing_to_end: bool
    voided_hand_id: str
    abandoned_start_hand_ids: _containers.RepeatedScalarFieldContainer[str]
    released: int
    stood_account_ids: _containers.RepeatedScalarFieldContainer[str]
    deadlines_cleared: _containers.RepeatedScalarFieldContainer[str]
    outbox_left: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, outcome: _Optional[str] = ..., nothing_to_end: _Optional[bool] = ..., voided_hand_id: _Optional[str] = ..., abandoned_start_hand_ids: _Optional[_Iterable[str]] = ..., released: _Optional[int] = ..., stood_account_ids: _Optional[_Iterable[str]] = ..., deadlines_cleared: _Optional[_Iterable[str]] = ..., outbox_left: _Optional[_Iterable[str]] = ...) -> None: ...

class GetHandRecordRequest(_message.Message):
    __slots__ = ("hand_id",)
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    def __init__(self, hand_id: _Optional[str] = ...) -> None: ...

class GetHandRecordResponse(_message.Message):
    __slots__ = ("record_json",)
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    def __init__(self, record_json: _Optional[str] = ...) -> None: ...

class ListAuditLogRequest(_message.Message):
    __slots__ = ("limit", "before_id")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BEFORE_ID_FIELD_NUMBER: _ClassVar[int]
    limit: int
    before_id: int
    def __init__(self, limit: _Optional[int] = ..., before_id: _Optional[int] = ...) -> None: ...

class AuditEntry(_message.Message):
    __slots__ = ("id", "at", "operator", "action", "target", "reason", "result")
    ID_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    id: int
    at: _timestamp_pb2.Timestamp
    operator: str
    action: str
    target: str
    reason: str
    result: str
    def __init__(self, id: _Optional[int] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., operator: _Optional[str] = ..., action: _Optional[str] = ..., target: _Optional[str] = ..., reason: _Optional[str] = ..., result: _Optional[str] = ...) -> None: ...

class ListAuditLogResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[AuditEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[AuditEntry, _Mapping]]] = ...) -> None: ...
