# ruff: noqa
import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from paiju.proto.v1 import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EntryReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENTRY_REASON_UNSPECIFIED: _ClassVar[EntryReason]
    ENTRY_REASON_HAND_SETTLEMENT: _ClassVar[EntryReason]
    ENTRY_REASON_FEE: _ClassVar[EntryReason]
    ENTRY_REASON_BONUS: _ClassVar[EntryReason]
    ENTRY_REASON_ESCAPE_PENALTY: _ClassVar[EntryReason]
    ENTRY_REASON_GRANT: _ClassVar[EntryReason]
    ENTRY_REASON_TRANSFER: _ClassVar[EntryReason]
ENTRY_REASON_UNSPECIFIED: EntryReason
ENTRY_REASON_HAND_SETTLEMENT: EntryReason
ENTRY_REASON_FEE: EntryReason
ENTRY_REASON_BONUS: EntryReason
ENTRY_REASON_ESCAPE_PENALTY: EntryReason
ENTRY_REASON_GRANT: EntryReason
ENTRY_REASON_TRANSFER: EntryReason

class RegisterRequest(_message.Message):
    __slots__ = ("username", "password")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    username: str
    password: str
    def __init__(self, username: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class LoginRequest(_message.Message):
    __slots__ = ("username", "password")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    username: str
    password: str
    def __init__(self, username: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class ChangePasswordRequest(_message.Message):
    __slots__ = ("old_password", "new_password")
    OLD_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    NEW_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    old_password: str
    new_password: str
    def __init__(self, old_password: _Optional[str] = ..., new_password: _Optional[str] = ...) -> None: ...

class RefreshSessionRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ("token", "account_id", "username", "expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    account_id: str
    username: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., account_id: _Optional[str] = ..., username: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class LoginResponse(_message.Message):
    __slots__ = ("token", "account_id", "username", "expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    account_id: str
    username: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., account_id: _Optional[str] = ..., username: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ChangePasswordResponse(_message.Message):
    __slots__ = ("token", "account_id", "username", "expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    account_id: str
    username: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., account_id: _Optional[str] = ..., username: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RefreshSessionResponse(_message.Message):
    __slots__ = ("token", "account_id", "username", "expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    account_id: str
    username: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., account_id: _Optional[str] = ..., username: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetBalanceRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetBalanceResponse(_message.Message):
    __slots__ = ("account_id", "available", "held", "total")
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    HELD_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    available: int
    held: int
    total: int
    def __init__(self, account_id: _Optional[str] = ..., available: _Optional[int] = ..., held: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...

class Balance(_message.Message):
    __slots__ = ("account_id", "available", "held", "total")
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    HELD_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    available: int
    held: int
    total: int
    def __init__(self, account_id: _Optional[str] = ..., available: _Optional[int] = ..., held: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...

class HistoryRequest(_message.Message):
    __slots__ = ("limit", "page_token", "game")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    limit: int
    page_token: str
    game: str
    def __init__(self, limit: _Optional[int] = ..., page_token: _Optional[str] = ..., game: _Optional[str] = ...) -> None: ...

class LedgerEntry(_message.Message):
    __slots__ = ("entry_id", "amount", "reason", "detail", "hand_id", "game", "balance_after", "created_at")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    BALANCE_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    amount: int
    reason: EntryReason
    detail: str
    hand_id: str
    game: str
    balance_after: int
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, entry_id: _Optional[str] = ..., amount: _Optional[int] = ..., reason: _Optional[_Union[EntryReason, str]] = ..., detail: _Optional[str] = ..., hand_id: _Optional[str] = ..., game: _Optional[str] = ..., balance_after: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class HistoryResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LedgerEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[LedgerEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class LeaderboardRequest(_message.Message):
    __slots__ = ("game", "limit")
    GAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    game: str
    limit: int
    def __init__(self, game: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class LeaderboardRow(_message.Message):
    __slots__ = ("rank", "account_id", "username", "value")
    RANK_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    rank: int
    account_id: str
    username: str
    value: int
    def __init__(self, rank: _Optional[int] = ..., account_id: _Optional[str] = ..., username: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...

class LeaderboardResponse(_message.Message):
    __slots__ = ("game", "rows", "own")
    GAME_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    OWN_FIELD_NUMBER: _ClassVar[int]
    game: str
    rows: _containers.RepeatedCompositeFieldContainer[LeaderboardRow]
    own: LeaderboardRow
    def __init__(self, game: _Optional[str] = ..., rows: _Optional[_Iterable[_Union[LeaderboardRow, _Mapping]]] = ..., own: _Optional[_Union[LeaderboardRow, _Mapping]] = ...) -> None: ...

class LevelRequest(_message.Message):
    __slots__ = ("game", "account_id")
    GAME_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    game: str
    account_id: str
    def __init__(self, game: _Optional[str] = ..., account_id: _Optional[str] = ...) -> None: ...

class LevelResponse(_message.Message):
    __slots__ = ("game", "account_id", "level", "title", "value", "next_level_at", "max_level")
    GAME_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    NEXT_LEVEL_AT_FIELD_NUMBER: _ClassVar[int]
    MAX_LEVEL_FIELD_NUMBER: _ClassVar[int]
    game: str
    account_id: str
    level: int
    title: str
    value: int
    next_level_at: int
    max_level: int
    def __init__(self, game: _Optional[str] = ..., account_id: _Optional[str] = ..., level: _Optional[int] = ..., title: _Optional[str] = ..., value: _Optional[int] = ..., next_level_at: _Optional[int] = ..., max_level: _Optional[int] = ...) -> None: ...

class Hold(_message.Message):
    __slots__ = ("account_id", "amount", "expected_available")
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    amount: int
    expected_available: int
    def __init__(self, account_id: _Optional[str] = ..., amount: _Optional[int] = ..., expected_available: _Optional[int] = ...) -> None: ...

class HoldForHandRequest(_message.Message):
    __slots__ = ("hand_id", "game", "holds")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    HOLDS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    game: str
    holds: _containers.RepeatedCompositeFieldContainer[Hold]
    def __init__(self, hand_id: _Optional[str] = ..., game: _Optional[str] = ..., holds: _Optional[_Iterable[_Union[Hold, _Mapping]]] = ...) -> None: ...

class HoldForHandResponse(_message.Message):
    __slots__ = ("holds", "balances")
    HOLDS_FIELD_NUMBER: _ClassVar[int]
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    holds: _containers.RepeatedCompositeFieldContainer[Hold]
    balances: _containers.RepeatedCompositeFieldContainer[Balance]
    def __init__(self, holds: _Optional[_Iterable[_Union[Hold, _Mapping]]] = ..., balances: _Optional[_Iterable[_Union[Balance, _Mapping]]] = ...) -> None: ...

class ReleaseHandRequest(_message.Message):
    __slots__ = ("hand_id",)
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    def __init__(self, hand_id: _Optional[str] = ...) -> None: ...

class GetBalancesRequest(_message.Message):
    __slots__ = ("account_ids",)
    ACCOUNT_IDS_FIELD_NUMBER: _ClassVar[int]
    account_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, account_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetBalancesResponse(_message.Message):
    __slots__ = ("balances",)
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    balances: _containers.RepeatedCompositeFieldContainer[Balance]
    def __init__(self, balances: _Optional[_Iterable[_Union[Balance, _Mapping]]] = ...) -> None: ...

class ReleaseHandResponse(_message.Message):
    __slots__ = ("released",)
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    released: int
    def __init__(self, released: _Optional[int] = ...) -> None: ...

class HandsRequest(_message.Message):
    __slots__ = ("limit", "page_token")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    limit: int
    page_token: str
    def __init__(self, limit: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class PlayedHand(_message.Message):
    __slots__ = ("hand_id", "game", "table_id", "ended_at", "seat", "net")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NET_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    game: str
    table_id: str
    ended_at: _timestamp_pb2.Timestamp
    seat: int
    net: int
    def __init__(self, hand_id: _Optional[str] = ..., game: _Optional[str] = ..., table_id: _Optional[str] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., seat: _Optional[int] = ..., net: _Optional[int] = ...) -> None: ...

class HandsResponse(_message.Message):
    __slots__ = ("hands", "next_page_token")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[PlayedHand]
    next_page_token: str
    def __init__(self, hands: _Optional[_Iterable[_Union[PlayedHand, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ReplayHandRequest(_message.Message):
    __slots__ = ("hand_id", "view_format")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FORMAT_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    view_format: _views_pb2.ViewFormat
    def __init__(self, hand_id: _Optional[str] = ..., view_format: _Optional[_Union[_views_pb2.ViewFormat, str]] = ...) -> None: ...

class ReplayStep(_message.Message):
    __slots__ = ("seat", "move", "view_json", "state")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    move: str
    view_json: str
    state: _views_pb2.GameView
    def __init__(self, seat: _Optional[int] = ..., move: _Optional[str] = ..., view_json: _Optional[str] = ..., state: _Optional[_Union[_views_pb2.GameView, _Mapping]] = ...) -> None: ...

class ReplayHandResponse(_message.Message):
    __slots__ = ("hand_id", "game", "seat", "names", "steps")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    game: str
    seat: int
    names: _containers.RepeatedScalarFieldContainer[str]
    steps: _containers.RepeatedCompositeFieldContainer[ReplayStep]
    def __init__(self, hand_id: _Optional[str] = ..., game: _Optional[str] = ..., seat: _Optional[int] = ..., names: _Optional[_Iterable[str]] = ..., steps: _Optional[_Iterable[_Union[ReplayStep, _Mapping]]] = ...) -> None: ...
