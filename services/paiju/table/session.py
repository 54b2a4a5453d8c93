"""A watch session of one table, without any transport: the rules of a ``Watch`` (or ``Play``)
stream as domain values.

Who may watch (a seated player, or an operator for the public view); subscribing before reading
so nothing falls between a snapshot or backlog and the live events; resuming after an event id
(the backlog, or a fresh snapshot when the events after it were trimmed); which events a seat
may see and the id of each one's hand; the views a stream that follows views gets; leaving out
the player's own moves (their reply carried them); and the player's presence while it is open.

What a session yields is a list of :data:`StreamItem`; what goes wrong is a domain error
(:class:`~paiju.table.commits.TableNotFound`, :class:`NotAllowed`, :class:`BadEventId`). How
items are cut into messages, held back for a moment, and when the stream waits, is the
transport's (:mod:`paiju.table.service`).
"""

from __future__ import annotations

import queue
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paiju.table.commits import Outcome
from paiju.table.fanout import EVENTS_LOST, LeftOut, StreamHub, Subscription
from paiju.table.fanout import after as is_after
from paiju.table.hand_ids import HandIds
from paiju.table.ports import Presence
from paiju.table.record import TableRecord
from paiju.table.store import EventsTrimmed, Snapshot
from paiju.table.tables import Tables
from paiju.table.views import CommitOutput, SeenEvent, TableAfterEvents, TableViews, View, view_key

BACKLOG_LIMIT = 10_000
"""The most events a resumed stream reads to catch up (a table keeps far fewer)."""


class NotAllowed(PermissionError):
    """The caller neither sits at the table nor is an operator, so it may not watch it."""

    def __init__(self, table_id: str) -> None:
        super().__init__(f"you do not sit at table {table_id}")
        self.table_id = table_id


class BadEventId(ValueError):
    """The event id a stream resumes after is not an event id."""


@dataclass(frozen=True, slots=True)
class StartOver:
    """The table as it is now, the stream's first item when it resumes from nothing, and what
    replaces the events it can no longer be sent (trimmed before it read them)."""

    view: View


@dataclass(frozen=True, slots=True)
class FollowedView:
    """A view for a stream that follows views: what the seat may do changed. The events before
    it in the stream go with it."""

    view: View


@dataclass(frozen=True, slots=True)
class VisibleEvents:
    """Events the stream's seat may see, oldest first, each with its hand's id."""

    events: list[SeenEvent]


StreamItem = StartOver | FollowedView | VisibleEvents


def viewer_of(tables: Tables, table_id: str, account: str, operator: bool) -> tuple[str | None, Snapshot, TableRecord]:
    """Whose view ``account`` gets of the table (None: the public view, for an operator who has
    no seat there), and the table as read for that check. Raises TableNotFound, NotAllowed."""
    snapshot, record = tables.load(table_id)
    if record.seat_of(account) is not None:
        return account, snapshot, record
    if operator:
        return None, snapshot, record
    raise NotAllowed(table_id)


def hand_commits_to(tables: Tables, hub: StreamHub) -> None:
    """Have every commit of ``tables`` handed out to the hub's watchers from the commit itself."""

    def committed(table_id: str, outcome: Outcome | None) -> None:
        if outcome is None:
            hub.committed(table_id, None, None)
            return
        hub.committed(table_id, outcome.receipt, outcome, None if outcome.actor is None else outcome.actor.account)

    tables.commit_starting.append(hub.committing)
    tables.commit_listeners.append(committed)
    tables.store.hand_commits_to(hub.store.listener_id)  # its notices would only wake the hub


class WatchSession:
    """One open watch of one table by one caller (see the module's docstring).

    :meth:`open` checks the caller and marks the player present; :meth:`start` subscribes and
    gives the stream's first items; :meth:`take` and :meth:`wait` give what came since;
    :meth:`close` ends it. ``after`` is the last event id the stream has gone past: a stream
    cut off resumes after it."""

    def __init__(
        self, tables: Tables, hub: StreamHub, views: TableViews, table_id: str, account: str | None,
        record: TableRecord, *, follow_view: bool = False, leave_out_own_moves: bool = False,
        presence: Presence | None = None,
    ) -> None:
        self.tables = tables
        self.hub = hub
        self.views = views
        self.table_id = table_id
        self.game = record.game
        """The table's game: its events' typed messages are the game's."""
        self.account = account
        self.seat = None if account is None else record.seat_of(account)
        """The seat whose events the stream gets: it follows the player, who may sit elsewhere."""
        self.follow_view = follow_view and account is not None
        self.leave_out_own_moves = leave_out_own_moves and account is not None
        self.presence = presence
        self.stream_id = secrets.token_hex(8)
        self.after = "0-0"
        self._hands = HandIds(record)
        self._sent_key: tuple[Any, ...] | None = None
        """The key of the last view sent (or that the player's own move's reply carried)."""
        self._subscription: Subscription | None = None
        """The hub's, from :meth:`start` on."""

    @classmethod
    def open(
        cls, tables: Tables, hub: StreamHub, views: TableViews, table_id: str, caller: str, *, operator: bool = False,
        follow_view: bool = False, leave_out_own_moves: bool = False, presence: Presence | None = None,
    ) -> WatchSession:
        """A session of ``caller`` at the table: an open session is a connected player, so it
        beats their presence and brings them back if they were away. Raises TableNotFound,
        NotAllowed."""
        account, _, record = viewer_of(tables, table_id, caller, operator)
        session = cls(tables, hub, views, table_id, account, record, follow_view=follow_view,
                      leave_out_own_moves=leave_out_own_moves, presence=presence)
        if account is not None and presence is not None:
            presence.beat(table_id, account, tables.clock_ms(), session.stream_id)
        if account is not None:
            tables.reconnect(table_id, account)
        return session

    def start(self, after_event_id: str = "", notify: Callable[[], None] | None = None) -> list[StreamItem]:
        """Subscribe (``notify`` is called from the hub's thread when something comes), then the
        stream's first items: a snapshot unless it resumes after an event, and what it missed.
        Raises BadEventId."""
        # First, so nothing falls between the snapshot or backlog and the live events.
        self._subscription = self.hub.subscribe(
            self.table_id, self.account, self.views.after_events if self.follow_view else None,
            stream_id=self.stream_id, state_of_commit=CommitOutput.for_watchers,
            leave_out_own_moves=self.leave_out_own_moves)
        self._subscription.notify = notify
        first: list[StreamItem] = []
        if not after_event_id:
            first.append(self._start_over())
        else:
            self.after = after_event_id
        try:
            backlog = self.tables.store.read_events(self.table_id, after_id=self.after, seat="all", count=BACKLOG_LIMIT)
        except EventsTrimmed:
            first.append(self._start_over())
            backlog = []
        except ValueError as error:
            raise BadEventId(str(error)) from error
        return first + self.given(backlog)

    def take(self) -> list[StreamItem]:
        """What came since the last look, without waiting."""
        assert self._subscription is not None, "start the session first"
        return self.given(self._subscription.take_all())

    def wait(self, seconds: float) -> list[StreamItem]:
        """What came since the last look, waiting up to ``seconds`` for something (empty then,
        or when woken to look at something else, such as the server draining)."""
        assert self._subscription is not None, "start the session first"
        try:
            first = self._subscription.events.get(timeout=seconds)
        except queue.Empty:
            return []
        return self.given([first, *self._subscription.take_all()])  # what came with it goes in the same message

    def close(self, keep_presence: bool = False) -> None:
        """End the session: no more events, and the player's stream is gone (``keep_presence``:
        say nothing to presence, as when the server drains and the player is expected back
        through another one)."""
        if self._subscription is not None:
            self.hub.unsubscribe(self._subscription)
        if self.account is not None and self.presence is not None and not keep_presence:
            self.presence.closed(self.table_id, self.account, self.tables.clock_ms(), self.stream_id)

    def given(self, came: list[Any]) -> list[StreamItem]:
        """The stream's items for what the hub (or the backlog) gave: events, states after them,
        the player's own moves left out, a loss of events, or None (a wake-up: what follows it
        is looked at in the next pass)."""
        items: list[StreamItem] = []
        seen: list[SeenEvent] = []
        for item in came:
            if item is None:
                break
            if item is EVENTS_LOST:
                # The hub fell behind a trim: start again from what the table is now.
                if seen:
                    items.append(VisibleEvents(seen))
                    seen = []
                items.append(self._start_over())
            elif isinstance(item, LeftOut):
                # The caller's own move: its reply carried the events and the view.
                if is_after(item.last_event_id, self.after):
                    self.after = item.last_event_id
                    self._hands.learn_record(item.commit.record)
                    self._sent_key = item.commit.actor.view_key  # None (not made yet): the next view goes
            elif isinstance(item, TableAfterEvents):
                self._hands.learn_record(item.record)
                view = self._fresh_view(item)
                if view is not None:
                    if seen:
                        items.append(VisibleEvents(seen))
                        seen = []
                    items.append(FollowedView(view))  # the events before it go with it
            elif is_after(item.id, self.after):  # else already sent from the backlog
                self._event(item, seen)
        if seen:
            items.append(VisibleEvents(seen))
        return items

    def _event(self, event: Any, seen: list[SeenEvent]) -> None:
        self.after = event.id
        if event.type in ("sat", "stood") and self.account is not None:
            self.seat = self.tables.load(self.table_id)[1].seat_of(self.account)
        hand_id = self._hands.of(event)  # every event: a hand's start teaches its id
        if event.visible(self.seat):
            seen.append((event, hand_id))

    def _start_over(self) -> StartOver:
        """The table as it is now; the stream goes on after its last event."""
        view = self.views.now(self.table_id, self.account)
        self._hands.learn_view(view)  # the hand's start may be among the events the stream skips
        self.after = view["last_event_id"] or self.after
        self._sent_key = view_key(view)
        return StartOver(view)

    def _fresh_view(self, table: TableAfterEvents) -> View | None:
        """The view to send a stream that follows views; None when what the seat may do did not
        change, or the table read is older than what the stream already sent."""
        snapshot = table.snapshot
        if snapshot.last_event_id and is_after(self.after, snapshot.last_event_id):
            return None
        view = table.view(self.account)
        key = view_key(view)
        if key == self._sent_key:
            return None
        self._sent_key = key
        self.after = snapshot.last_event_id or self.after
        return view

