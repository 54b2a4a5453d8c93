"""What the server's answers mean to a Python client: its refusals as exceptions (PaijuError and
its kinds) and a table stream's messages as plain updates. The calls (:mod:`paiju.client.sdk`,
:mod:`paiju.client.aio`) and the Play stream (:mod:`paiju.client.session`) read them alike.

>>> refusal(grpc.StatusCode.ABORTED, "the table moved on", "stale", 8).current_version
8
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc

from paiju.common.error_details import error_info, status_of
from paiju.common.typed_views import payload_of, view_of
from paiju.common.wire import CURRENT_VERSION_KEY, ERROR_CODE_KEY, trailer
from paiju.proto.v1 import table_pb2


class PaijuError(Exception):
    """A call the server refused: the gRPC status, its reason and the stable error word."""

    def __init__(self, status: grpc.StatusCode, reason: str, error_code: str | None) -> None:
        super().__init__(f"{status.name}: {reason}")
        self.status = status
        self.reason = reason
        self.error_code = error_code


class IllegalMove(PaijuError):
    """The rules do not allow that now; nothing changed."""


class StaleView(PaijuError):
    """The table moved on since the view the move was based on; look again."""

    def __init__(self, status: grpc.StatusCode, reason: str, error_code: str | None, current_version: int) -> None:
        super().__init__(status, reason, error_code)
        self.current_version = current_version


def refusal_of(error: grpc.RpcError) -> PaijuError:
    """The exception for a refused call, read from its status and its ``ErrorInfo`` (the stable
    word, the current version), or, from a server that sends none, its ``paiju-*`` trailers."""
    info = error_info(status_of(error))
    found = {} if info is None else info.metadata
    error_code = info.reason if info is not None and info.reason else trailer(error, ERROR_CODE_KEY)
    current_version = found.get("current_version") or trailer(error, CURRENT_VERSION_KEY)
    return refusal(error.code(), error.details() or "", error_code, int(current_version or 0))  # type: ignore[attr-defined]


def refusal(status: grpc.StatusCode, reason: str, error_code: str | None, current_version: int = 0) -> PaijuError:
    """The exception for a refused call or move: StaleView, IllegalMove, or PaijuError."""
    if status == grpc.StatusCode.ABORTED:
        return StaleView(status, reason, error_code, current_version)
    if status == grpc.StatusCode.FAILED_PRECONDITION:
        return IllegalMove(status, reason, error_code)
    return PaijuError(status, reason, error_code)


@dataclass(frozen=True, slots=True)
class WatchResponse:
    """One item of a table's live stream: a fresh view, or an event the seat may see."""

    view: dict[str, Any] | None = None
    event_id: str | None = None
    event_type: str | None = None
    event: dict[str, Any] | None = None


def updates_of(update: table_pb2.WatchResponse) -> Iterator[WatchResponse]:
    """A stream message's items: its events, then its view (as of after them)."""
    for event in update.events:
        yield WatchResponse(event_id=event.id, event_type=event.type, event=payload_of(event))
    if update.HasField("snapshot"):
        yield WatchResponse(view=view_of(update.snapshot))

