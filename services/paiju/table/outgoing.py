"""What a table's streams and moves send, made from the session's items: as messages for
``Watch`` and ``Act``, or as bytes for a ``Play`` stream (:mod:`paiju.table.play_wire`).

:class:`Outgoing` is the seam: the servicer walks a watch session's items and a move's outcome
once, and asks it for an event, an update and a move's answer; what comes back is what goes on
the wire (a message, or its bytes, which the bridge's serializer passes through).
"""

from __future__ import annotations

from typing import Any, Protocol

from paiju.proto.v1 import table_pb2
from paiju.table.messages import event_message, with_view
from paiju.table.store import StoredEvent
from paiju.table.views import ActorsReply, View


class Outgoing(Protocol):
    """How a stream's events and views, and a move's answer, are put on the wire."""

    def event(self, event: StoredEvent, hand_id: str, game: str, view_format: int) -> Any:
        """One event of an update (given to :meth:`update` in a list)."""

    def update(self, events: list[Any], table_id: str = "", view: View | None = None, view_format: int = 0) -> Any:
        """A stream's update: ``events`` (made by :meth:`event`), then ``view`` if given."""

    def accepted(self, table_id: str, reply: ActorsReply, view_format: int) -> Any:
        """The answer to the caller's own move."""


class Messages:
    """``Watch``'s updates and ``Act``'s answer, as messages."""

    def event(self, event: StoredEvent, hand_id: str, game: str, view_format: int) -> table_pb2.Event:
        return event_message(event, hand_id, game, view_format)

    def update(self, events: list[Any], table_id: str = "", view: View | None = None,
               view_format: int = 0) -> table_pb2.WatchResponse:
        if view is None:
            return table_pb2.WatchResponse(events=events)
        return with_view(lambda fields: table_pb2.WatchResponse(events=events, snapshot=fields), table_id, view, view_format)

    def accepted(self, table_id: str, reply: ActorsReply, view_format: int) -> table_pb2.ActResponse:
        game = reply.view["table"]["game"]
        events = [event_message(event, hand_id, game, view_format) for event, hand_id in reply.events]
        return with_view(lambda fields: table_pb2.ActResponse(version=reply.version, view=fields, events=events),
                         table_id, reply.view, view_format)


MESSAGES = Messages()
