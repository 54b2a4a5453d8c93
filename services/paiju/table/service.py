"""The table service's gRPC face: a thin layer over :class:`~paiju.table.tables.Tables`."""

from __future__ import annotations

import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import orjson

from paiju.common.auth import Role
from paiju.games.engine import HandState, IllegalAction
from paiju.proto.v1 import common_pb2, table_pb2, table_pb2_grpc
from paiju.rpc.aio_bridge import WAITING
from paiju.rpc.errors import abort, refuse_illegal, required
from paiju.rpc.interceptor import current_caller
from paiju.table.commits import TABLE_EVENTS, NotSeated, Outcome, TableNotFound, hand_of_commit
from paiju.table.deadline_names import READY_KICK_DEADLINE, RECONNECT_PREFIX, TURN_DEADLINE
from paiju.table.fanout import EVENTS_LOST, LeftOut, StreamHub
from paiju.table.fanout import after as is_after
from paiju.table.hand_ids import HandIds
from paiju.table.play import Readying, play
from paiju.table.ports import Presence
from paiju.table.record import TableRecord
from paiju.table.store import EventsTrimmed, Snapshot, StaleVersion
from paiju.table.store.keys import check_table_id
from paiju.table.tables import Tables

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


class TableAfterEvents:
    """A table as read once after a batch of its events, shared by every stream that follows
    views: the record is parsed and the hand loaded once, whatever the number of watchers."""

    __slots__ = ("hand", "record", "snapshot", "turn_due_ms")

    def __init__(self, snapshot: Snapshot, record: TableRecord, turn_due_ms: int | None,
                 hand: HandState | None = None) -> None:
        self.snapshot = snapshot
        self.record = record
        if hand is None and record.hand is not None:
            hand = record.spec.load_hand(record.hand.blob)
        self.hand = hand
        self.turn_due_ms = turn_due_ms

    @classmethod
    def of_commit(cls, table_id: str, outcome: Outcome) -> TableAfterEvents:
        """The table as a commit of this process left it, from the commit itself (no read)."""
        receipt = outcome.receipt
        assert receipt is not None and outcome.record is not None
        snapshot = Snapshot(version=receipt.version, state=b"", last_event_id=receipt.last_event_id)
        return cls(snapshot, outcome.record, outcome.turn_due_ms, outcome.hand)


def view_key(view: dict[str, Any]) -> tuple[Any, ...]:
    """What of a view decides whether a stream that follows views sends it again: what the seat
    may do, the hand, the seat and its readiness (not every chip moved by someone else)."""
    hand, seat = view["hand"], view["seat"]
    ready = None if seat is None else view["table"]["seats"][seat]["ready"]
    last = view["last_hand"]["hand_id"] if view["last_hand"] else None
    if hand is None:
        return None, (), seat, ready, last
    return hand["hand_id"], tuple(hand["state"].get("legal_actions", ())), seat, ready, last


def table_view_message(table_id: str, view: dict[str, Any]) -> table_pb2.TableView:
    """The wire form of a view from :meth:`Tables.view`."""
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


class TableService(table_pb2_grpc.TableServicer):
    NON_BLOCKING = frozenset({"GetView", "Act", "CheckAction", "Watch", "Play"})
    """Methods that touch Redis only, never the ledger or another service (a hand's start and
    its holds come from Lobby.Ready and the deadlines), so an event loop may run them itself.
    CheckAction's rule check is bounded (``bench/check_action.py``: well under 2 ms, no
    listing of plays) and its text short (:data:`MOST_ACTION_CHARS`), so it stays on the loop:
    a frontend asks at every click, and a hop to the pool would cost more than the check."""

    def __init__(
        self, tables: Tables, presence: Presence | None = None, draining: threading.Event | None = None,
        hub: StreamHub | None = None, ready: Readying | None = None,
    ) -> None:
        """``presence``: where streams opening and closing are told (the hub's beats keep long
        ones alive: give it a hub made with them). ``ready``: how a ``Play`` stream's press of start is served (``Lobby.Ready``'s
        servicer method; without it such presses are refused UNIMPLEMENTED)."""
        self.tables = tables
        self.ready = ready
        self.presence = presence
        self.draining = draining or threading.Event()
        self.hub = hub or StreamHub(tables.store, None, tables.clock_ms)
        tables.commit_starting.append(self.hub.committing)
        tables.commit_listeners.append(self._hand_out_commit)

    def _hand_out_commit(self, table_id: str, outcome: Outcome | None) -> None:
        if outcome is None:
            self.hub.committed(table_id, None, None)
            return
        self.hub.committed(table_id, outcome.receipt, outcome, None if outcome.actor is None else outcome.actor.account)

    def _viewer(self, table_id: str, context: grpc.ServicerContext) -> tuple[str | None, Snapshot, TableRecord]:
        """The account whose view the caller gets (None for an operator: the public view), and
        the table as read for that check."""
        required(context, table_id, "table_id", check_table_id)
        caller = current_caller()
        try:
            snapshot, record = self.tables.load(table_id)
        except TableNotFound as error:
            abort(context, grpc.StatusCode.NOT_FOUND, str(error))
        if record.seat_of(caller.account_id) is not None:
            return caller.account_id, snapshot, record
        if caller.role is Role.OPERATOR:
            return None, snapshot, record
        abort(context, grpc.StatusCode.PERMISSION_DENIED, f"you do not sit at table {table_id}")

    def _view(
        self, table_id: str, account: str | None, snapshot: Snapshot | None = None, record: TableRecord | None = None,
        version: int | None = None, turn_due_ms: int | None = None, hand: HandState | None = None,
    ) -> dict[str, Any]:
        """The viewer's view as :meth:`Tables.view_of` makes it, with the turn timer's due time;
        the table is read unless given."""
        if record is None:
            snapshot, record = self.tables.load(table_id)
        last_event_id = snapshot.last_event_id if snapshot is not None else ""
        view = self.tables.view_of(version if version is not None else snapshot.version,  # type: ignore[union-attr]
                                   last_event_id, record, account, hand=hand)
        if turn_due_ms is None and record.hand is not None:
            turn_due_ms = self._turn_due_ms(table_id)
        view["turn_due_ms"] = turn_due_ms
        view["ready_kick"], view["reconnect_by_ms"] = self._windows(table_id, record)
        return view

    def _windows(self, table_id: str, record: TableRecord) -> tuple[dict[str, int] | None, dict[str, int]]:
        """The ready kick (the seat that must press start, and by when) and each away seat's
        reconnect window, so a frontend can show them; read only when one can be running."""
        kicked = record.ready_kick_candidate()
        if kicked is None and all(s is None or s.connected for s in record.seats):
            return None, {}
        deadlines = {d.name: d.due_ms for d in self.tables.store.deadlines(table_id)}
        kick_due = deadlines.get(READY_KICK_DEADLINE)
        ready_kick = None if kicked is None or kick_due is None else {"seat": kicked, "due_ms": kick_due}
        away = {name[len(RECONNECT_PREFIX):]: due for name, due in deadlines.items() if name.startswith(RECONNECT_PREFIX)}
        return ready_kick, away

    def _start_over(
        self, table_id: str, account: str | None, after: str, hands: HandIds
    ) -> tuple[table_pb2.TableUpdate, str, tuple[Any, ...]]:
        """A stream's fresh snapshot of the table as it is now, the event id to go on after, and
        the snapshot's key (what a followed view is compared with)."""
        view = self._view(table_id, account)
        hands.learn_view(view)  # the hand's start may be among the events the stream skips
        update = table_pb2.TableUpdate(snapshot=table_view_message(table_id, view))
        return update, view["last_event_id"] or after, view_key(view)

    def _turn_due_ms(self, table_id: str) -> int | None:
        deadline = self.tables.deadline(table_id, TURN_DEADLINE)
        return None if deadline is None else deadline.due_ms

    def _read_after_events(self, table_id: str) -> TableAfterEvents:
        return TableAfterEvents(*self.tables.load_with_turn_due(table_id))

    def GetView(self, request: table_pb2.GetViewRequest, context: grpc.ServicerContext) -> table_pb2.TableView:
        account, snapshot, record = self._viewer(request.table_id, context)
        return table_view_message(request.table_id, self._view(request.table_id, account, snapshot, record))

    def Act(self, request: table_pb2.ActRequest, context: grpc.ServicerContext) -> table_pb2.ActResponse:
        required(context, request.table_id, "table_id", check_table_id)
        required(context, request.action.strip(), "action")
        account = current_caller().account_id
        try:
            outcome = self.tables.act(request.table_id, account, request.expected_version, request.action)
        except TableNotFound as error:
            abort(context, grpc.StatusCode.NOT_FOUND, str(error))
        except NotSeated as error:
            abort(context, grpc.StatusCode.PERMISSION_DENIED, str(error))
        except StaleVersion as error:
            abort(
                context,
                grpc.StatusCode.ABORTED,
                f"what your seat may do changed (the table is at version {error.current_version}): look again and decide",
                error_code="stale_version",
                current_version=error.current_version,
            )
        except IllegalAction as error:
            refuse_illegal(context, error)
        # The view as committed (no second read); its last_event_id is left empty, as the
        # events of the move come back with it.
        seen = self._view(request.table_id, account, record=outcome.record, version=outcome.version,
                          turn_due_ms=outcome.turn_due_ms, hand=outcome.hand)
        if outcome.actor is not None:  # a stream leaving out this move goes on from this view
            outcome.actor.view_key = view_key(seen)
        view = table_view_message(request.table_id, seen)
        # The caller's own events of this move, cut to its seat, come back at once: as the
        # store wrote them (encoded once, with their ids).
        seat = view.seat if view.HasField("seat") else None
        _, hand_id = hand_of_commit(outcome.record, outcome.events)  # type: ignore[arg-type]
        written = outcome.receipt.events if outcome.receipt is not None else ()
        mine = [event_message(e, "" if e.type in TABLE_EVENTS else hand_id) for e in written if e.visible(seat)]
        return table_pb2.ActResponse(version=outcome.version, events=mine, view=view)

    def CheckAction(
        self, request: table_pb2.CheckActionRequest, context: grpc.ServicerContext
    ) -> table_pb2.CheckActionResponse:
        if not request.table_id or not request.action.strip():
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "table_id and action are both needed")
        if len(request.action) > MOST_ACTION_CHARS:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"an action is at most {MOST_ACTION_CHARS} characters")
        try:
            self.tables.check(request.table_id, current_caller().account_id, request.action)
        except TableNotFound as error:
            abort(context, grpc.StatusCode.NOT_FOUND, str(error))
        except NotSeated as error:
            abort(context, grpc.StatusCode.PERMISSION_DENIED, str(error))
        except IllegalAction as error:
            if error.code == "malformed":
                abort(context, grpc.StatusCode.INVALID_ARGUMENT, error.reason, error_code=error.code)
            return table_pb2.CheckActionResponse(legal=False, reason=error.reason)
        return table_pb2.CheckActionResponse(legal=True)

    def Watch(self, request: table_pb2.WatchRequest, context: grpc.ServicerContext) -> Iterator[table_pb2.TableUpdate]:
        """An open stream is a connected player: it beats while open, and opening it brings a
        disconnected player back within the reconnect window. The player stays connected while
        any of their streams lives, on this process or another."""
        return self._watch(request, context)

    def Play(self, requests: Any, context: grpc.ServicerContext) -> Iterator[table_pb2.PlayUpdate]:
        """Watch and Act on one stream (:mod:`paiju.table.play`)."""
        return play(requests, context, watch=self._watch, act=self.Act, ready=self.ready)

    def _watch(
        self, request: table_pb2.WatchRequest, context: grpc.ServicerContext, send_now: Callable[[], bool] = lambda: False,
    ) -> Iterator[table_pb2.TableUpdate]:
        """The Watch stream; ``send_now`` says when to send at once what it holds back for a
        moment (a Play stream's moves wait behind it)."""
        account, _, record = self._viewer(request.table_id, context)
        stream_id = secrets.token_hex(8)
        if account is not None and self.presence is not None:
            self.presence.beat(request.table_id, account, self.tables.clock_ms(), stream_id)
        if account is not None:
            self.tables.reconnect(request.table_id, account)
        try:
            seat = None if account is None else record.seat_of(account)
            yield from self._stream(request, context, account, seat, stream_id, HandIds(record), send_now)
        finally:
            # A draining server leaves presence alone: the player is expected back elsewhere.
            if account is not None and self.presence is not None and not self.draining.is_set():
                self.presence.closed(request.table_id, account, self.tables.clock_ms(), stream_id)

    def _stream(
        self, request: table_pb2.WatchRequest, context: grpc.ServicerContext, account: str | None, seat: int | None,
        stream_id: str,
        hands: HandIds,
        send_now: Callable[[], bool] = lambda: False,
    ) -> Iterator[table_pb2.TableUpdate]:
        table_id = request.table_id
        follow_view = request.follow_view and account is not None
        # First, so nothing falls between the snapshot or backlog and the live events.
        subscription = self.hub.subscribe(table_id, account, self._read_after_events if follow_view else None,
                                          stream_id=stream_id, state_of_commit=TableAfterEvents.of_commit,
                                          leave_out_own_moves=request.leave_out_own_acts and account is not None)
        on_loop = getattr(context, "waits_on_loop", False)
        if on_loop:
            subscription.notify = context.wake  # type: ignore[attr-defined]
        sent_key: tuple[Any, ...] | None = None
        try:
            after = request.after_event_id
            if not after:
                update, after, sent_key = self._start_over(table_id, account, "0-0", hands)
                yield update
            try:
                backlog = self.tables.store.read_events(table_id, after_id=after, seat="all", count=10_000)
            except EventsTrimmed:
                update, after, sent_key = self._start_over(table_id, account, "0-0", hands)
                backlog = []
                yield update
            except ValueError as error:
                abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
            pending = list(backlog)
            if request.after_event_id and not pending and sent_key is None:
                # A resumed stream with nothing to catch up on says at once that it is open: a
                # proxy (the web door) sends a stream's headers only with its first message.
                yield table_pb2.TableUpdate()
            # Events not sent yet: held a moment (EVENTS_HOLD_SECONDS) when no view goes with them.
            events: list[table_pb2.Event] = []
            held_until: float | None = None
            while context.is_active():
                if self.draining.is_set():
                    # Not an escape: the player reconnects through another replica and resumes.
                    abort(context, grpc.StatusCode.UNAVAILABLE,
                          f"this server is shutting down: reconnect and resume after event {after}",
                          error_code="server_draining")
                if not pending and on_loop:
                    pending = subscription.take_all()
                    if not pending:
                        if held_until is not None:
                            left = held_until - time.monotonic()
                            if left <= 0 or send_now():
                                held_until = None
                                if events:
                                    yield table_pb2.TableUpdate(events=events)
                                    events = []
                                continue
                            # Also when woken early: by another wake, or by a timer that the
                            # loop may run up to its clock's resolution ahead of this clock.
                            context.wake_later(left)  # type: ignore[attr-defined]
                        yield WAITING  # served from an event loop: it resumes us when woken
                        continue
                if not pending:
                    try:
                        pending = [subscription.events.get(timeout=WATCH_POLL_MS / 1000)]
                    except queue.Empty:
                        continue
                    pending += subscription.take_all()  # what came with it goes in the same message
                for item in pending:
                    if item is None:
                        break  # woken to look at the draining flag
                    if item is EVENTS_LOST:
                        # The hub fell behind a trim: start again from what the table is now.
                        if events:
                            yield table_pb2.TableUpdate(events=events)
                            events = []
                        update, after, sent_key = self._start_over(table_id, account, after, hands)
                        yield update
                        continue
                    if isinstance(item, LeftOut):
                        # The caller's own move: its reply carried the events and the view.
                        if is_after(item.last_event_id, after):
                            after = item.last_event_id
                            hands.learn_record(item.commit.record)
                            sent_key = item.commit.actor.view_key  # None (not made yet): the next view goes
                        continue
                    if isinstance(item, TableAfterEvents):
                        hands.learn_record(item.record)
                        fresh = self._fresh_view(table_id, account, item, after, sent_key)
                        if fresh is not None:
                            message, sent_key = fresh
                            after = message.last_event_id or after
                            yield table_pb2.TableUpdate(events=events, snapshot=message)
                            events, held_until = [], None
                        continue
                    if not is_after(item.id, after):
                        continue  # already sent from the backlog
                    after = item.id
                    if item.type in ("sat", "stood") and account is not None:
                        # The seat this stream reads for follows the player, who may sit elsewhere.
                        seat = self.tables.load(table_id)[1].seat_of(account)
                    hand_id = hands.of(item)  # every event: a hand's start teaches its id
                    if item.visible(seat):
                        events.append(event_message(item, hand_id))
                        if len(events) >= MAX_EVENTS_PER_UPDATE:  # a long backlog goes in parts
                            yield table_pb2.TableUpdate(events=events)
                            events = []
                pending = []
                if not events:
                    continue
                if not on_loop or EVENTS_HOLD_SECONDS <= 0:
                    yield table_pb2.TableUpdate(events=events)
                    events = []
                elif held_until is None:
                    held_until = time.monotonic() + EVENTS_HOLD_SECONDS  # the wait below sets its wake
                elif time.monotonic() >= held_until:
                    held_until = None
                    yield table_pb2.TableUpdate(events=events)
                    events = []
        finally:
            self.hub.unsubscribe(subscription)

    def _fresh_view(
        self, table_id: str, account: str | None, table: TableAfterEvents, after: str, sent_key: tuple[Any, ...] | None
    ) -> tuple[table_pb2.TableView, tuple[Any, ...]] | None:
        """The view to send a stream that follows views, with its key; None when what the seat
        may do did not change, or the table read is older than what the stream already sent."""
        snapshot = table.snapshot
        if snapshot.last_event_id and is_after(after, snapshot.last_event_id):
            return None
        view = self.tables.view_of(snapshot.version, snapshot.last_event_id, table.record, account, hand=table.hand)
        key = view_key(view)
        if key == sent_key:
            return None
        view["turn_due_ms"] = table.turn_due_ms
        return table_view_message(table_id, view), key


class TableInternalService(table_pb2_grpc.TableInternalServicer):
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
            abort(context, grpc.StatusCode.NOT_FOUND, str(error))
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
            abort(context, grpc.StatusCode.NOT_FOUND, str(error))
        if outcome is None:
            return table_pb2.MarkDisconnectedResponse(applied=False)
        return table_pb2.MarkDisconnectedResponse(applied=True, version=outcome.version)
