"""The table's domain values on the wire: views and events as protobuf messages, and the table
domain's errors as the statuses its contract documents."""

from __future__ import annotations

from typing import Any, NoReturn

import grpc
import orjson

from paiju.games.engine import IllegalAction
from paiju.proto.v1 import table_pb2
from paiju.rpc.errors import abort, refuse_illegal
from paiju.table.commits import NotSeated, TableNotFound
from paiju.table.session import BadEventId, NotAllowed
from paiju.table.store import StaleVersion

TABLE_ERRORS = (TableNotFound, NotSeated, NotAllowed, BadEventId, StaleVersion, IllegalAction)
"""The domain's refusals :func:`refuse` answers; anything else is unexpected."""


def table_view_message(table_id: str, view: dict[str, Any]) -> table_pb2.TableView:
    """The wire form of a view from :meth:`Tables.view` (or :mod:`paiju.table.views`)."""
    hand = view["hand"]
    message = table_pb2.TableView(
        table_id=table_id,
        game=view["table"]["game"],
        version=view["version"],
        hand_id="" if hand is None else hand["hand_id"],
        view_json=orjson.dumps(view, option=orjson.OPT_NON_STR_KEYS).decode(),
        last_event_id=view["last_event_id"],
    )
    if view["seat"] is not None:
        message.seat = view["seat"]
    if hand is not None:
        state = hand["state"]
        message.legal_actions.extend(state.get("legal_actions", []))
        if state.get("to_act") is not None:
            message.turn.seat = hand["seats"][state["to_act"]]
            due = view.get("turn_due_ms")
            if due:
                # Set directly: Timestamp.FromMilliseconds is pure Python, ~3 % of the loop's time.
                seconds, milliseconds = divmod(due, 1000)
                message.turn.due_at.seconds = seconds
                message.turn.due_at.nanos = milliseconds * 1_000_000
    return message


def event_message(event: Any, hand_id: str = "") -> table_pb2.Event:
    return table_pb2.Event(
        id=event.id,
        type=event.type,
        payload_json=event.payload.decode(),
        version=event.version,
        hand_id=hand_id,
    )


def refuse(context: grpc.ServicerContext, error: Exception) -> NoReturn:
    """End the call for one of :data:`TABLE_ERRORS` with its status (re-raise anything else)."""
    if isinstance(error, TableNotFound):
        abort(context, grpc.StatusCode.NOT_FOUND, str(error))
    if isinstance(error, (NotSeated, NotAllowed)):
        abort(context, grpc.StatusCode.PERMISSION_DENIED, str(error))
    if isinstance(error, BadEventId):
        abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
    if isinstance(error, StaleVersion):
        abort(
            context,
            grpc.StatusCode.ABORTED,
            f"what your seat may do changed (the table is at version {error.current_version}): look again and decide",
            error_code="stale_version",
            current_version=error.current_version,
        )
    if isinstance(error, IllegalAction):
        refuse_illegal(context, error)
    raise error
