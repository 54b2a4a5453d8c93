"""A ``Play`` stream's messages as bytes, put together from parts serialised once.

A message on the wire is its fields' encodings one after another, in any order, and a
submessage field that comes twice is merged into one. So:
- the parts every view of a commit shares (the envelope, the turn, the table summary, the last
  hand, the hand's id and seats) are serialised once, found again by their content, and each
  seat's own fields (its seat, its actions, its game view, the timers) appended as bytes;
- an event is serialised once, whatever the number of streams that send it;
- an update or a move's answer is those bytes framed as the ``PlayResponse`` that holds them.

Made as messages instead, each view's shared parts are copied in from their cached messages, and
every message is built then serialised again per stream. The bytes go out as they are: the
bridge's serializer passes a ``bytes`` response through (:mod:`paiju.rpc.aio_bridge`).
``tests/table/test_play_wire.py`` checks that the bytes parse to exactly the messages
:class:`~paiju.table.outgoing.Messages` makes, over random hands of every game.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from paiju.common.typed_views import view_state_fields
from paiju.proto.v1 import table_pb2, views_pb2
from paiju.table.messages import (
    JSON,
    envelope_fields,
    event_message,
    last_hand_message,
    summary_message,
    view_fields,
)
from paiju.table.store import StoredEvent
from paiju.table.views import ActorsReply, View

log = logging.getLogger(__name__)

PARTS_KEPT = 4096
"""Serialised parts kept, of views and of events: a commit's are sent within milliseconds of it."""


def _varint(number: int) -> bytes:
    if number < 0x80:
        return bytes((number,))
    out = bytearray()
    while number >= 0x80:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _tag(message: Any, field: str) -> bytes:
    """The key of a length-delimited field of ``message`` (a submessage or a string)."""
    return _varint(message.DESCRIPTOR.fields_by_name[field].number << 3 | 2)


def _field(tag: bytes, payload: bytes) -> bytes:
    return tag + _varint(len(payload)) + payload


PLAY_UPDATE, PLAY_ANSWER = _tag(table_pb2.PlayResponse, "update"), _tag(table_pb2.PlayResponse, "answer")
WATCH_EVENTS, WATCH_SNAPSHOT = _tag(table_pb2.WatchResponse, "events"), _tag(table_pb2.WatchResponse, "snapshot")
ANSWER_ACCEPTED = _tag(table_pb2.MoveAnswer, "accepted")
ACT_VIEW, ACT_EVENTS = _tag(table_pb2.ActResponse, "view"), _tag(table_pb2.ActResponse, "events")


def view_bytes(table_id: str, view: View, view_format: int = 0) -> bytes:
    """The serialised ``TableView`` of ``view``: the message :func:`~paiju.table.messages.with_view`
    makes, typed unless ``view_format`` asks for JSON (or no message can hold it yet: logged)."""
    if view_format != JSON:
        try:
            return _shared_part(table_id, view) + _own_part(view)
        except (ValueError, TypeError):  # a field no message has yet (tests/common/test_typed_views.py)
            log.exception("a view without its typed message goes as JSON")
    return table_pb2.TableView(**view_fields(table_id, view, JSON)).SerializeToString()


def _shared_part(table_id: str, view: View) -> bytes:
    """What every view of the same table, version and timers has, serialised once (a seat's own
    fields come after it), found again by a key that holds everything it is made of."""
    hand, last_hand = view["hand"], view["last_hand"]
    to_act = None if hand is None else hand["state"].get("to_act")
    key = orjson.dumps((
        table_id, view["version"], view["table"], None if last_hand is None else last_hand["hand_id"],
        view.get("turn_due_ms"), None if hand is None else (hand["hand_id"], hand["number"], hand["seats"], to_act),
    ))
    made = _shared.get(key)
    if made is None:
        made = _made_shared(table_id, view)
        _keep(_shared, key, made)
    return made


_shared: dict[bytes, bytes] = {}


def _keep(cache: dict[Any, bytes], key: Any, value: bytes) -> None:
    """Keep ``value`` in ``cache``, the oldest entry making way past :data:`PARTS_KEPT` (the
    event loop and the streams' threads make views at once: a lost race only makes a part twice)."""
    if len(cache) >= PARTS_KEPT:
        try:
            del cache[next(iter(cache))]
        except (KeyError, RuntimeError, StopIteration):
            pass
    cache[key] = value


def _made_shared(table_id: str, view: View) -> bytes:
    hand, last_hand = view["hand"], view["last_hand"]
    fields = envelope_fields(table_id, view)
    state: dict[str, Any] = {"version": view["version"], "table": summary_message(orjson.dumps(view["table"])),
                             "turn_due_ms": view.get("turn_due_ms")}
    if last_hand is not None:
        state["last_hand"] = last_hand_message(last_hand)
    if hand is not None:
        state["hand"] = {"hand_id": hand["hand_id"], "number": hand["number"], "seats": hand["seats"]}
    shared = {name: fields[name] for name in ("table_id", "game", "version", "hand_id", "turn") if name in fields}
    return table_pb2.TableView(**shared, state=state).SerializeToString()


def _own_part(view: View) -> bytes:
    """A seat's own fields of its view: its seat, actions and game view, and the timers read for
    it (``ready_kick``, ``reconnect_by_ms``), merged into the shared part on the wire."""
    # The summary and last hand go in the shared part: placeholders here, never serialised.
    state = view_state_fields(view, table=_NO_SUMMARY, last_hand=_NO_LAST_HAND)
    own_state: dict[str, Any] = {"last_event_id": state["last_event_id"], "seat": state["seat"],
                                 "ready_kick": state.get("ready_kick"), "reconnect_by_ms": state.get("reconnect_by_ms"),
                                 "windows_left_out": state.get("windows_left_out", False)}
    own: dict[str, Any] = {"seat": view["seat"], "last_event_id": view["last_event_id"], "state": own_state}
    hand = state["hand"]
    if hand is not None:
        own_state["hand"] = {"my_hand_seat": hand.get("my_hand_seat"), "state": hand["state"]}
        own["legal_actions"] = view["hand"]["state"].get("legal_actions", ())
    return table_pb2.TableView(**own).SerializeToString()


_NO_SUMMARY = views_pb2.TableSummary()
_NO_LAST_HAND = views_pb2.LastHand()


def event_bytes(event: StoredEvent, hand_id: str, game: str, view_format: int) -> bytes:
    """An event's ``Event`` message, serialised once for every stream that sends it."""
    key = (event.id, event.version, event.type, event.payload, hand_id, game, view_format)
    made = _events.get(key)
    if made is None:
        made = event_message(event, hand_id, game, view_format).SerializeToString()
        _keep(_events, key, made)
    return made


_events: dict[tuple[Any, ...], bytes] = {}


class PlayWire:
    """A Play stream's updates, and the answer to its move ``move_id``, as bytes
    (an :class:`~paiju.table.outgoing.Outgoing`)."""

    __slots__ = ("move_id",)

    def __init__(self, move_id: int = 0) -> None:
        self.move_id = move_id

    def event(self, event: StoredEvent, hand_id: str, game: str, view_format: int) -> bytes:
        return _field(WATCH_EVENTS, event_bytes(event, hand_id, game, view_format))

    def update(self, events: list[Any], table_id: str = "", view: View | None = None, view_format: int = 0) -> bytes:
        body = b"".join(events)
        if view is not None:
            body += _field(WATCH_SNAPSHOT, view_bytes(table_id, view, view_format))
        return _field(PLAY_UPDATE, body)

    def accepted(self, table_id: str, reply: ActorsReply, view_format: int) -> bytes:
        game = reply.view["table"]["game"]
        act = [table_pb2.ActResponse(version=reply.version).SerializeToString(),
               _field(ACT_VIEW, view_bytes(table_id, reply.view, view_format))]
        act += [_field(ACT_EVENTS, event_bytes(event, hand_id, game, view_format)) for event, hand_id in reply.events]
        answer = table_pb2.MoveAnswer(move_id=self.move_id).SerializeToString() + _field(ANSWER_ACCEPTED, b"".join(act))
        return _field(PLAY_ANSWER, answer)
