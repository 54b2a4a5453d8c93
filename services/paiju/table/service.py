"""The table service's gRPC face: a thin adapter over the table domain.

It checks requests' fields, calls :class:`~paiju.table.tables.Tables` and the watch session
(:mod:`paiju.table.session`), turns what they give into messages and their errors into statuses
(:mod:`paiju.table.messages`). What is the transport's stays here: how a stream's items are cut
into messages and held back for a moment, how a stream served from an event loop waits to be
woken, and ending streams when the server drains.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from paiju.common.auth import Role
from paiju.games.engine import IllegalAction
from paiju.proto.v1 import common_pb2, table_pb2, table_pb2_grpc
from paiju.rpc.aio_bridge import WAITING
from paiju.rpc.errors import abort, required
from paiju.rpc.interceptor import current_caller
from paiju.table.commits import TableNotFound
from paiju.table.fanout import StreamHub
from paiju.table.messages import TABLE_ERRORS, event_message, refuse, with_view
from paiju.table.play import Readying, Wrap, play
from paiju.table.ports import Presence
from paiju.table.session import (
    FollowedView,
    StartOver,
    VisibleEvents,
    WatchSession,
    hand_commits_to,
    viewer_of,
)
from paiju.table.store.keys import check_table_id
from paiju.table.tables import Tables
from paiju.table.views import CommitOutput, TableViews

MAX_EVENTS_PER_UPDATE = 500
MOST_ACTION_CHARS = 512
"""The longest action text CheckAction judges: the longest real action (a 炒地皮 bury or
throw of a 33-card hand) is far shorter, so longer text is refused before any parsing."""
WATCH_POLL_MS = 5_000
"""How long a stream's thread sleeps between looks at whether the server is draining."""
EVENTS_HOLD_SECONDS = 0.01
"""How long a stream served from the event loop holds events that come without a view for its
player before sending them: what else comes meanwhile (five players pressing start, a hand
starting on the last press) goes in the same message. A view the player acts on is never held.
Each stream message costs the server more than the rest of a move, and nobody sees 10 ms."""

class TableService(table_pb2_grpc.TableServiceServicer):
    NON_BLOCKING = frozenset({"GetView", "Act", "CheckAction", "Watch", "Play"})
    """Methods that touch Redis only, never the ledger or another service (a hand's start and
    its holds come from LobbyService.Ready and the deadlines), so an event loop may run them itself.
    CheckAction's rule check is bounded (``bench/check_action.py``: well under 2 ms, no
    listing of plays) and its text short (:data:`MOST_ACTION_CHARS`), so it stays on the loop:
    a frontend asks at every click, and a hop to the pool would cost more than the check."""

    def __init__(
        self, tables: Tables, presence: Presence | None = None, draining: threading.Event | None = None,
        hub: StreamHub | None = None, ready: Readying | None = None,
    ) -> None:
        """``presence``: where streams opening and closing are told (the hub's beats keep long
        ones alive: give it a hub made with them). ``ready``: how a ``Play`` stream's press of start is served (``LobbyService.Ready``'s
        servicer method; without it such presses are refused UNIMPLEMENTED)."""
        self.tables = tables
        self.views = TableViews(tables)
        self.ready = ready
        self.presence = presence
        self.draining = draining or threading.Event()
        self.hub = hub or StreamHub(tables.store, None, tables.clock_ms)
        hand_commits_to(tables, self.hub)

    def GetView(self, request: table_pb2.GetViewRequest, context: grpc.ServicerContext) -> table_pb2.GetViewResponse:
        required(context, request.table_id, "table_id", check_table_id)
        caller = current_caller()
        try:
            account, snapshot, record = viewer_of(self.tables, request.table_id, caller.account_id,
                                                  operator=caller.role is Role.OPERATOR)
        except TABLE_ERRORS as error:
            refuse(context, error)
        view = self.views.now(request.table_id, account, snapshot, record)
        return with_view(lambda fields: table_pb2.GetViewResponse(view=fields), request.table_id, view, request.view_format)

    def Act(self, request: table_pb2.ActRequest, context: grpc.ServicerContext) -> table_pb2.ActResponse:
        return self._act(request, context, table_pb2.ActResponse)

    def _act(self, request: table_pb2.ActRequest, context: grpc.ServicerContext, wrap: Wrap) -> Any:
        """``Act``, its reply made by ``wrap`` from the ``ActResponse``'s fields (a ``Play``
        stream's answer holds them: made in place, not copied in)."""
        required(context, request.table_id, "table_id", check_table_id)
        required(context, request.action.strip(), "action")
        account = current_caller().account_id
        try:
            outcome = self.tables.act(request.table_id, account, request.expected_version, request.action)
        except TABLE_ERRORS as error:
            refuse(context, error)
        # The view as committed (no second read) and the caller's own events of this move, cut
        # to its seat, as the store wrote them (encoded once, with their ids): what a stream
        # leaving out the caller's moves does not send.
        reply = CommitOutput.for_actor(self.views, request.table_id, account, outcome)
        view_format, game = request.view_format, reply.view["table"]["game"]
        events = [event_message(event, hand_id, game, view_format) for event, hand_id in reply.events]
        return with_view(lambda view: wrap(version=reply.version, view=view, events=events),
                         request.table_id, reply.view, view_format)

    def CheckAction(
        self, request: table_pb2.CheckActionRequest, context: grpc.ServicerContext
    ) -> table_pb2.CheckActionResponse:
        if not request.table_id or not request.action.strip():
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "table_id and action are both needed")
        if len(request.action) > MOST_ACTION_CHARS:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"an action is at most {MOST_ACTION_CHARS} characters")
        try:
            self.tables.check(request.table_id, current_caller().account_id, request.action)
        except IllegalAction as error:
            if error.code == "malformed":
                abort(context, grpc.StatusCode.INVALID_ARGUMENT, error.reason, error_code=error.code)
            return table_pb2.CheckActionResponse(legal=False, reason=error.reason, code=error.code)
        except TABLE_ERRORS as error:
            refuse(context, error)
        return table_pb2.CheckActionResponse(legal=True)

    def Watch(self, request: table_pb2.WatchRequest, context: grpc.ServicerContext) -> Iterator[table_pb2.WatchResponse]:
        """An open stream is a connected player: it beats while open, and opening it brings a
        disconnected player back within the reconnect window. The player stays connected while
        any of their streams lives, on this process or another."""
        return self._watch(request, context)

    def Play(self, requests: Any, context: grpc.ServicerContext) -> Iterator[table_pb2.PlayResponse]:
        """Watch and Act on one stream (:mod:`paiju.table.play`)."""
        return play(requests, context, watch=self._watch, act=self._act, ready=self.ready)

    def _watch(
        self, request: table_pb2.WatchRequest, context: grpc.ServicerContext, send_now: Callable[[], bool] = lambda: False,
        wrap: Wrap = table_pb2.WatchResponse,
    ) -> Iterator[Any]:
        """The Watch stream; ``send_now`` says when to send at once what it holds back for a
        moment (a Play stream's moves wait behind it); ``wrap`` makes each update from a
        ``WatchResponse``'s fields (a Play stream's updates hold them)."""
        required(context, request.table_id, "table_id", check_table_id)
        caller = current_caller()
        try:
            session = WatchSession.open(
                self.tables, self.hub, self.views, request.table_id, caller.account_id,
                operator=caller.role is Role.OPERATOR, follow_view=request.follow_view,
                leave_out_own_moves=request.leave_out_own_acts, presence=self.presence)
        except TABLE_ERRORS as error:
            refuse(context, error)
        try:
            yield from self._updates(session, request.after_event_id, context, send_now, request.view_format, wrap)
        finally:
            # A draining server leaves presence alone: the player is expected back elsewhere.
            session.close(keep_presence=self.draining.is_set())

    def _updates(
        self, session: WatchSession, after_event_id: str, context: grpc.ServicerContext,
        send_now: Callable[[], bool] = lambda: False, view_format: int = 0, wrap: Wrap = table_pb2.WatchResponse,
    ) -> Iterator[Any]:
        """The session's items as messages (typed, or JSON as ``view_format`` asks): events
        without a view held a moment on an event loop (:data:`EVENTS_HOLD_SECONDS`), at most
        :data:`MAX_EVENTS_PER_UPDATE` a message."""
        table_id = session.table_id
        on_loop = getattr(context, "waits_on_loop", False)
        try:
            pending = session.start(after_event_id, notify=context.wake if on_loop else None)  # type: ignore[attr-defined]
        except TABLE_ERRORS as error:
            refuse(context, error)
        if after_event_id and not pending:
            # A resumed stream with nothing to catch up on says at once that it is open: a
            # proxy (the web door) sends a stream's headers only with its first message.
            yield wrap()
        # Events not sent yet: held a moment (EVENTS_HOLD_SECONDS) when no view goes with them.
        events: list[table_pb2.Event] = []
        held_until: float | None = None
        while context.is_active():
            if self.draining.is_set():
                # Not an escape: the player reconnects through another replica and resumes.
                abort(context, grpc.StatusCode.UNAVAILABLE,
                      f"this server is shutting down: reconnect and resume after event {session.after}",
                      error_code="server_draining")
            if not pending and on_loop:
                pending = session.take()
                if not pending:
                    if held_until is not None:
                        left = held_until - time.monotonic()
                        if left <= 0 or send_now():
                            held_until = None
                            if events:
                                yield wrap(events=events)
                                events = []
                            continue
                        # Also when woken early: by another wake, or by a timer that the
                        # loop may run up to its clock's resolution ahead of this clock.
                        context.wake_later(left)  # type: ignore[attr-defined]
                    yield WAITING  # served from an event loop: it resumes us when woken
                    continue
            if not pending:
                pending = session.wait(WATCH_POLL_MS / 1000)
                if not pending:
                    continue  # nothing yet, or woken to look at the draining flag
            for item in pending:
                if isinstance(item, VisibleEvents):
                    for event, hand_id in item.events:
                        events.append(event_message(event, hand_id, session.game, view_format))
                        if len(events) >= MAX_EVENTS_PER_UPDATE:  # a long backlog goes in parts
                            yield wrap(events=events)
                            events = []
                elif isinstance(item, FollowedView):
                    yield with_view(lambda view, sent=events: wrap(events=sent, snapshot=view), table_id, item.view, view_format)
                    events, held_until = [], None
                elif isinstance(item, StartOver):
                    if events:
                        yield wrap(events=events)
                        events = []
                    yield with_view(lambda view: wrap(snapshot=view), table_id, item.view, view_format)
            pending = []
            if not events:
                continue
            if not on_loop or EVENTS_HOLD_SECONDS <= 0:
                yield wrap(events=events)
                events = []
            elif held_until is None:
                held_until = time.monotonic() + EVENTS_HOLD_SECONDS  # the wait below sets its wake
            elif time.monotonic() >= held_until:
                held_until = None
                yield wrap(events=events)
                events = []


class TableInternalService(table_pb2_grpc.TableInternalServiceServicer):
    """What the watchdog calls: expired deadlines and players gone quiet."""

    NON_BLOCKING = frozenset({"MarkDisconnected"})
    """ExpireDeadline may start a hand, which holds coins in the ledger."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    def ExpireDeadline(self, request, context):  # type: ignore[no-untyped-def]
        deadline = request.deadline
        if deadline.owner not in (common_pb2.DEADLINE_OWNER_TABLE, common_pb2.DEADLINE_OWNER_UNSPECIFIED):
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "that deadline is not the table's")
        if not deadline.deadline_id:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a deadline names its table and itself")
        required(context, deadline.target_id, "target_id", check_table_id)
        try:
            outcome = self.tables.expire(deadline.target_id, deadline.deadline_id, deadline.version)
        except TableNotFound as error:
            refuse(context, error)
        except IllegalAction as error:  # e.g. a delayed start whose coins could not be held
            abort(context, grpc.StatusCode.FAILED_PRECONDITION, error.reason, error_code=error.code)
        if outcome is None:
            return common_pb2.ExpireDeadlineResponse(applied=False, detail="stale: the table moved on")
        return common_pb2.ExpireDeadlineResponse(applied=True, version=outcome.version)

    def MarkDisconnected(self, request, context):  # type: ignore[no-untyped-def]
        required(context, request.table_id, "table_id", check_table_id)
        required(context, request.account_id, "account_id")
        try:
            outcome = self.tables.disconnect(request.table_id, request.account_id, request.since.ToMilliseconds())
        except TableNotFound as error:
            refuse(context, error)
        if outcome is None:
            return table_pb2.MarkDisconnectedResponse(applied=False)
        return table_pb2.MarkDisconnectedResponse(applied=True, version=outcome.version)
