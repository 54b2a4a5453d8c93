"""The table's domain values on the wire: views and events as protobuf messages, and the table
domain's errors as the statuses its contract documents.

A view or event goes out typed (``TableView.state``, ``Event.typed``; :mod:`paiju.common.typed_views`)
unless the caller asked for JSON (``VIEW_FORMAT_JSON``: ``view_json``, ``payload_json``). An
event's typed message is made once whatever the number of streams that send it (a small cache by
its stored payload); a view is each viewer's own, but its table summary and last hand, the same
for every viewer, are made once.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import grpc
import orjson

from paiju.common.typed_views import (
    UntypedEvent,
    last_hand_fields,
    made_typed,
    summary_fields,
    view_state_fields,
)
from paiju.games.engine import IllegalAction
from paiju.proto.v1 import table_pb2, views_pb2
from paiju.rpc.errors import abort, refuse_illegal
from paiju.table.commits import NotSeated, TableNotFound
from paiju.table.session import BadEventId, NotAllowed
from paiju.table.store import StaleVersion

TABLE_ERRORS = (TableNotFound, NotSeated, NotAllowed, BadEventId, StaleVersion, IllegalAction)
"""The domain's refusals :func:`refuse` answers; anything else is unexpected."""

JSON = views_pb2.VIEW_FORMAT_JSON
SUMMARIES_KEPT = 1024
LAST_HANDS_KEPT = 1024
"""Messages kept for the views that carry them again (a table's summary, its last hand): about
one per busy table."""
_last_hands: dict[str, views_pb2.LastHand] = {}
_last_hands_lock = threading.Lock()
TYPED_EVENTS_KEPT = 4096
"""Typed events kept for the streams that send them after the first (a commit's events go to
every watcher of its table within milliseconds; a backlog resent after a drop is rare)."""

log = logging.getLogger(__name__)
Made = TypeVar("Made")


def table_view_message(table_id: str, view: dict[str, Any], view_format: int = 0) -> table_pb2.TableView:
    """The wire form of a view from :meth:`Tables.view` (or :mod:`paiju.table.views`), typed
    unless ``view_format`` asks for JSON."""
    return with_view(lambda fields: table_pb2.TableView(**fields), table_id, view, view_format)


def with_view(make: Callable[[dict[str, Any]], Made], table_id: str, view: dict[str, Any], view_format: int = 0) -> Made:
    """``make(fields)``, ``fields`` being the ``TableView`` of ``view`` as the fields of a
    message, for ``make`` to build the message that carries the view in one call: a message
    made apart and then put in another is copied, each level again (a typed view ~2.4 µs a copy,
    and a move's answer on a Play stream is three levels deep). A view no message can hold yet
    (a field the protos lack) goes as JSON, logged."""
    if view_format != JSON:
        try:
            return make(view_fields(table_id, view))
        except (ValueError, TypeError):  # a field no message has yet (tests/common/test_typed_views.py)
            log.exception("a view without its typed message goes as JSON")
    return make(view_fields(table_id, view, JSON))


def view_fields(table_id: str, view: dict[str, Any], view_format: int = 0) -> dict[str, Any]:
    """The fields of the ``TableView`` of ``view``: its state typed (``state``), or as JSON
    (``view_json``) when ``view_format`` asks for it."""
    hand = view["hand"]
    fields: dict[str, Any] = {
        "table_id": table_id, "game": view["table"]["game"], "version": view["version"],
        "hand_id": "" if hand is None else hand["hand_id"], "last_event_id": view["last_event_id"],
        "seat": view["seat"]}
    if view_format == JSON:
        fields["view_json"] = orjson.dumps(view, option=orjson.OPT_NON_STR_KEYS).decode()
    else:
        last_hand = view["last_hand"]
        fields["state"] = view_state_fields(view, _summary(orjson.dumps(view["table"])),
                                            None if last_hand is None else _last_hand(last_hand))
    if hand is not None:
        state = hand["state"]
        fields["legal_actions"] = state.get("legal_actions", ())
        to_act = state.get("to_act")
        if to_act is not None:
            turn = fields["turn"] = {"seat": hand["seats"][to_act]}
            due = view.get("turn_due_ms")
            if due:
                # As fields: Timestamp.FromMilliseconds is pure Python, ~3 % of the loop's time.
                seconds, milliseconds = divmod(due, 1000)
                turn["due_at"] = {"seconds": seconds, "nanos": milliseconds * 1_000_000}
    return fields


@functools.lru_cache(maxsize=SUMMARIES_KEPT)
def _summary(table: bytes) -> views_pb2.TableSummary:
    """A table's summary, the same in every view of a commit (and of the commits that change no
    seat): made once, found again by its JSON (which costs a tenth of making the message)."""
    return views_pb2.TableSummary(**summary_fields(orjson.loads(table)))


def _last_hand(last_hand: dict[str, Any]) -> views_pb2.LastHand:
    """The hand last played: its public end view never changes once it is played, and every view
    carries it until the next hand starts, so its message is made once per hand (by its id)."""
    hand_id = last_hand["hand_id"]
    message = _last_hands.get(hand_id)
    if message is None:
        message = views_pb2.LastHand(**last_hand_fields(last_hand))
        with _last_hands_lock:  # streams' threads and the event loop make views at once
            while len(_last_hands) >= LAST_HANDS_KEPT:
                del _last_hands[next(iter(_last_hands))]  # the oldest hand first
            _last_hands[hand_id] = message
    return message


def event_message(event: Any, hand_id: str = "", game: str = "", view_format: int = 0) -> table_pb2.Event:
    """The wire form of a stored event of a table of ``game``, typed unless ``view_format`` asks
    for JSON (or no message has the event yet: then as JSON, logged). A typed one is shared by
    every stream that sends it: never change it (a message holding it takes a copy)."""
    if view_format == JSON:
        return table_pb2.Event(id=event.id, type=event.type, version=event.version, hand_id=hand_id,
                               payload_json=event.payload.decode())
    return _typed_event(game, hand_id, event.id, event.version, event.type, event.payload)


@functools.lru_cache(maxsize=TYPED_EVENTS_KEPT)
def _typed_event(game: str, hand_id: str, event_id: str, version: int, event_type: str, payload: bytes) -> table_pb2.Event:
    """Everything an event message holds is in the key, so a message made for one stream is the
    message for any other."""
    try:
        # Made in one call: a typed event made apart and copied in costs a copy per event.
        return made_typed(lambda typed: table_pb2.Event(id=event_id, type=event_type, version=version,
                                                        hand_id=hand_id, typed=typed),
                          game, event_type, orjson.loads(payload))
    except UntypedEvent:
        log.exception("an event without its typed message goes as JSON")
        return table_pb2.Event(id=event_id, type=event_type, version=version, hand_id=hand_id,
                               payload_json=payload.decode())


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
