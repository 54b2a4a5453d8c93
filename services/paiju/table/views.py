"""The views a player gets of a table, and the one place that shows a commit to everyone.

A view is :meth:`Tables.view_of <paiju.table.commits.TableCommits.view_of>` with the table's
timers. It is asked for (``GetView``), sent when a stream starts over, sent again to a stream
that follows views when what the seat may do changed, and carried by the reply to a player's
own move. The last two come from one commit: :class:`CommitOutput` builds both from its
:class:`~paiju.table.commits.Outcome`, so the actor and its watchers never see it differently.

No transport here: the gRPC servicer turns these dicts into messages (:mod:`paiju.table.messages`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from paiju.games.engine import HandState
from paiju.table.commits import Outcome, TableCommits
from paiju.table.deadline_names import READY_KICK_DEADLINE, RECONNECT_PREFIX, TURN_DEADLINE
from paiju.table.hand_ids import HandIds
from paiju.table.record import TableRecord
from paiju.table.store import Snapshot, StoredEvent
from paiju.table.tables import Tables

View = dict[str, Any]
"""A view as :meth:`TableCommits.view_of` makes it, with ``turn_due_ms`` (and, unless it is a
followed view, ``ready_kick`` and ``reconnect_by_ms``)."""


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
        assert outcome.record is not None
        # A commit that wrote nothing (no receipt) has no event to go on after.
        last_event_id = "" if receipt is None else receipt.last_event_id
        snapshot = Snapshot(version=outcome.version, state=b"", last_event_id=last_event_id)
        return cls(snapshot, outcome.record, outcome.turn_due_ms, outcome.hand)

    def view(self, account: str | None) -> View:
        """``account``'s view of this table (None: a spectator's), with the turn's due time as
        known: what a stream that follows views is sent."""
        snapshot = self.snapshot
        view = TableCommits.view_of(snapshot.version, snapshot.last_event_id, self.record, account, hand=self.hand)
        view["turn_due_ms"] = self.turn_due_ms
        return view


def view_key(view: View) -> tuple[Any, ...]:
    """What of a view decides whether a stream that follows views sends it again: what the seat
    may do, the hand, the seat and its readiness (not every chip moved by someone else)."""
    hand, seat = view["hand"], view["seat"]
    ready = None if seat is None else view["table"]["seats"][seat]["ready"]
    last = view["last_hand"]["hand_id"] if view["last_hand"] else None
    if hand is None:
        return None, (), seat, ready, last
    return hand["hand_id"], tuple(hand["state"].get("legal_actions", ())), seat, ready, last


class TableViews:
    """Views with every timer a frontend shows: the turn's due time, the ready kick and each away
    seat's reconnect window (read only when one can be running)."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    def now(self, table_id: str, account: str | None, snapshot: Snapshot | None = None,
            record: TableRecord | None = None) -> View:
        """``account``'s view of the table as it is now (read unless ``snapshot`` and ``record``
        are given). Raises TableNotFound."""
        if snapshot is None or record is None:
            snapshot, record = self.tables.load(table_id)
        return self.timed(table_id, TableAfterEvents(snapshot, record, None), account)

    def timed(self, table_id: str, table: TableAfterEvents, account: str | None) -> View:
        """``table``'s view for ``account`` with its timers; the turn's due time is read when the
        table does not know it."""
        view = table.view(account)
        if view["turn_due_ms"] is None and table.record.hand is not None:
            deadline = self.tables.deadline(table_id, TURN_DEADLINE)
            view["turn_due_ms"] = None if deadline is None else deadline.due_ms
        view["ready_kick"], view["reconnect_by_ms"] = self._windows(table_id, table.record)
        return view

    def after_events(self, table_id: str) -> TableAfterEvents:
        """The table read after a batch of its events, for the streams that follow views (the
        hub reads once per batch for every watcher giving this same reader)."""
        return TableAfterEvents(*self.tables.load_with_turn_due(table_id))

    def _windows(self, table_id: str, record: TableRecord) -> tuple[dict[str, int] | None, dict[str, int]]:
        """The ready kick (the seat that must press start, and by when) and each away seat's
        reconnect window."""
        kicked = record.ready_kick_candidate()
        if kicked is None and all(s is None or s.connected for s in record.seats):
            return None, {}
        deadlines = {d.name: d.due_ms for d in self.tables.store.deadlines(table_id)}
        kick_due = deadlines.get(READY_KICK_DEADLINE)
        ready_kick = None if kicked is None or kick_due is None else {"seat": kicked, "due_ms": kick_due}
        away = {name[len(RECONNECT_PREFIX):]: due for name, due in deadlines.items() if name.startswith(RECONNECT_PREFIX)}
        return ready_kick, away


SeenEvent = tuple[StoredEvent, str]
"""An event a seat may see, with the id of the hand it belongs to (empty for none)."""


@dataclass(frozen=True, slots=True)
class ActorsReply:
    """What the player whose move a commit was gets back at once: the version, their view as
    committed and the move's events cut to their seat."""

    version: int
    view: View
    events: list[SeenEvent]


class CommitOutput:
    """One commit as shown to the player whose move it was and to every stream that follows its
    table: both start from the same :class:`TableAfterEvents` of the commit and the same view of
    it, and both name events' hands by :class:`~paiju.table.hand_ids.HandIds`."""

    @staticmethod
    def for_watchers(table_id: str, outcome: Outcome) -> TableAfterEvents:
        """The state each stream that follows views is handed after the commit (no read); one
        function for every stream, so the hub builds it once per commit."""
        return TableAfterEvents.of_commit(table_id, outcome)

    @staticmethod
    def for_actor(views: TableViews, table_id: str, account: str, outcome: Outcome) -> ActorsReply:
        """The reply to ``account``'s own move. Its view's ``last_event_id`` is left empty, as the
        move's events come with it; its key is kept on the outcome, so that a stream of the
        player leaving out its own moves goes on from this view instead of sending it again."""
        assert outcome.record is not None
        view = views.timed(table_id, CommitOutput.for_watchers(table_id, outcome), account)
        view["last_event_id"] = ""
        if outcome.actor is not None:
            outcome.actor.view_key = view_key(view)
        return ActorsReply(outcome.version, view, seen_by(view["seat"], outcome.receipt.events if outcome.receipt else (),
                                                          HandIds(outcome.record)))


def seen_by(seat: int | None, events: Iterable[StoredEvent], hands: HandIds) -> list[SeenEvent]:
    """The ``events`` ``seat`` may see (None: a spectator), each with its hand's id; every event
    teaches ``hands`` (a hand's start names the hand), seen or not."""
    seen = []
    for event in events:
        hand_id = hands.of(event)
        if event.visible(seat):
            seen.append((event, hand_id))
    return seen
