"""The commit core of the table domain: read a table, and change it by one compare-and-set.

Every change is load → change the record → one compare-and-set carrying the new record, the
events (cut per seat), the deadline changes and any settlement for the outbox. A change is
prepared on the table as this process last committed or read it; when another process got in
first, the store refuses the commit and the change is made again on the table as it now is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from paiju.common.metrics import METRICS
from paiju.games.engine import Event, HandState, IllegalAction
from paiju.table.deadline_names import TURN_DEADLINE, DeadlinePlan, named
from paiju.table.in_turn import TableTurns
from paiju.table.record import RecordCodec, TableRecord
from paiju.table.seating import SeatDirectory
from paiju.table.store import (
    CommitReceipt,
    Deadline,
    Snapshot,
    StaleVersion,
    TableChange,
    TableExists,
    TableStore,
)

log = logging.getLogger(__name__)


class LedgerNeeded(Exception):
    """A change made without the ledger (``ask_ledger=False``) found that only the ledger can
    answer it. Nothing was changed: make it again where the ledger may be asked."""


class TableNotFound(LookupError):
    def __init__(self, table_id: str) -> None:
        super().__init__(f"there is no table {table_id!r}")
        self.table_id = table_id


class NotSeated(PermissionError):
    """The caller has no seat here, so it may not act for one."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one committed change produced: the new version, the events it wrote, the record
    as committed, and the turn timer's due time after it (None between hands or without one).
    A change that found nothing to do (a second press of start) is the table as it stands, with
    no events."""

    version: int
    events: list[Event]
    record: TableRecord | None = None
    turn_due_ms: int | None = None
    hand: HandState | None = None
    """The record's hand as committed, already loaded (None when no hand is on, or unknown)."""
    receipt: CommitReceipt | None = None
    """What the store wrote: the events with their stream ids, the deadlines after the commit."""
    actor: ActorsView | None = None
    """For a player's own move (:meth:`Tables.act`): who made it, and the view its reply gave."""


class ActorsView:
    """The player whose move a commit was, and the key (``view_key``) of the view the reply to
    that move carried, once the reply is made: a stream of that player that leaves out its own
    moves goes on from that view instead of building and sending it again."""

    __slots__ = ("account", "view_key")

    def __init__(self, account: str) -> None:
        self.account = account
        self.view_key: tuple[Any, ...] | None = None


def payload(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)



TABLE_EVENTS = frozenset({"sat", "stood", "ready", "disconnected", "reconnected"})
"""Events of the table itself, which belong to no hand even while one is played."""


def hand_of_commit(record: TableRecord, events: list[Event]) -> tuple[int, str]:
    """The number and id of the hand a commit's events (other than :data:`TABLE_EVENTS`)
    belong to: the hand being played, or the one the commit ended; ``(0, "")`` for none."""
    if record.hand is not None:
        return record.hand.number, record.hand.hand_id
    if record.last_hand is not None and any(event.type == "hand_settled" for event in events):
        return record.hands_played, record.last_hand["hand_id"]
    return 0, ""



class TableCommits:
    """Reading tables and committing changes to them (see the module's docstring).

    Needs from :class:`~paiju.table.tables.Tables`: ``store``, ``records``, ``directory``,
    ``clock_ms``, ``commit_starting``, ``commit_listeners`` and ``_turns``."""

    store: TableStore
    records: RecordCodec
    directory: SeatDirectory
    clock_ms: Callable[[], int]
    commit_starting: list[Callable[[str], None]]
    commit_listeners: list[Callable[[str, Outcome | None], None]]
    _turns: TableTurns

    def load(self, table_id: str) -> tuple[Snapshot, TableRecord]:
        snapshot = self.store.load(table_id)
        if snapshot is None:
            raise TableNotFound(table_id)
        return snapshot, self.records.decode(table_id, snapshot.state)

    def _load_for_change(self, table_id: str, newer_than: int = 0) -> tuple[Snapshot, TableRecord]:
        """The table as this process last committed or read it (no round trip), to change it:
        when another process got in first, the commit's compare-and-set refuses and the caller
        reloads. ``newer_than``: a version the caller knows exists (a player's view), so what
        is remembered is too old if not past it."""
        snapshot = self.store.latest_known(table_id)
        if snapshot is not None and snapshot.version < newer_than:
            snapshot = self.store.load(table_id)
        if snapshot is None:
            raise TableNotFound(table_id)
        return snapshot, self.records.decode(table_id, snapshot.state)

    def open(self, table_id: str, game: str, tier: str, rules: dict[str, Any] | None = None) -> TableRecord:
        """Create the table if it does not exist yet; its record either way."""
        record = TableRecord.open(table_id, game, tier, rules)
        if self.store.load(table_id) is None:
            try:
                self.store.create(table_id, record.to_bytes(), meta={"game": game, "tier": tier})
            except TableExists:
                pass  # another replica created it first
        return self.load(table_id)[1]

    def deadline(self, table_id: str, name: str) -> Deadline | None:
        """The table's pending deadline called ``name`` (e.g. the turn timer), if any."""
        return named(self.store.deadlines(table_id), name)

    def load_with_turn_due(self, table_id: str) -> tuple[Snapshot, TableRecord, int | None]:
        """:meth:`load`, and when the turn now being played runs out (``None`` between hands or
        without a timer), in one round trip."""
        snapshot, deadlines = self.store.load_with_deadlines(table_id)
        if snapshot is None:
            raise TableNotFound(table_id)
        record = self.records.decode(table_id, snapshot.state)
        turn = named(deadlines, TURN_DEADLINE)
        return snapshot, record, None if record.hand is None or turn is None else turn.due_ms

    def view(self, table_id: str, account: str | None) -> dict[str, Any]:
        """What ``account`` (``None``: a spectator) may see of the table and its hand."""
        snapshot, record = self.load(table_id)
        return self.view_of(snapshot.version, snapshot.last_event_id, record, account)

    @staticmethod
    def view_of(
        version: int, last_event_id: str, record: TableRecord, account: str | None, hand: HandState | None = None
    ) -> dict[str, Any]:
        """The view of a record already in hand (no reading); ``hand``, the record's hand
        already loaded, spares loading it again."""
        seat = None if account is None else record.seat_of(account)
        view: dict[str, Any] = {
            "version": version,
            "last_event_id": last_event_id,
            "table": record.summary(),
            "seat": seat,
            "hand": None,
            # Until the next hand starts, as the contract says: the record keeps it longer (it
            # names the hand its settlement belongs to), and every view of the next hand carried
            # the whole previous hand's end for nobody to show.
            "last_hand": record.last_hand if record.hand is None else None,
        }
        if record.hand is not None:
            if hand is None:
                hand = record.spec.load_hand(record.hand.blob)
            hand_seat = None if seat is None else record.hand.hand_seat(seat)
            view["hand"] = {
                "hand_id": record.hand.hand_id,
                "number": record.hand.number,
                "seats": record.hand.seats,
                "my_hand_seat": hand_seat,
                "state": hand.view(hand_seat),
            }
        return view

    def _commit(
        self,
        table_id: str,
        version: int,
        record: TableRecord,
        events: list[Event],
        plan: DeadlinePlan | None = None,
        outbox: list[tuple[str, bytes]] = (),  # type: ignore[assignment]
        hand: HandState | None = None,
        actor: str | None = None,
        counts_outbox: bool = False,
    ) -> Outcome:
        plan = plan or DeadlinePlan()
        hand_number, _ = hand_of_commit(record, events)
        stored = [(event.visible_to, event.type, payload(event.data), 0 if event.type in TABLE_EVENTS else hand_number)
                  for event in events]
        for starting in self.commit_starting:
            starting(table_id)
        try:
            receipt = self.store.commit_change(table_id, version, TableChange(
                self.records.encode(table_id, record), stored, plan.set, plan.clear, outbox, counts_outbox))
        except BaseException:
            self._tell_listeners(table_id, None)
            raise
        for event in events:
            if event.type == "stood":
                self.directory.release(event.data["account"], table_id)
        turn = named(list(receipt.deadlines), TURN_DEADLINE)
        turn_due = None if record.hand is None or turn is None else turn.due_ms
        outcome = Outcome(receipt.version, events, record, turn_due, hand if record.hand is not None else None, receipt,
                          None if actor is None else ActorsView(actor))
        self._tell_listeners(table_id, outcome)
        return outcome

    def _tell_listeners(self, table_id: str, outcome: Outcome | None) -> None:
        for listener in self.commit_listeners:
            try:
                listener(table_id, outcome)
            except Exception:  # the commit stands; its watchers get it from Redis instead
                log.exception("table %s: telling of a commit failed", table_id)

    def _retrying(self, table_id: str, change: Callable[[int, TableRecord], Outcome | None]) -> Outcome | None:
        """Apply a server-side change, reloading and retrying when another writer got in first.

        The change is judged on the table as this process last committed or read it. A commit
        made on an outdated state is refused by its compare-and-set; but a change that finds
        nothing to do (a deadline whose stamp moved on, a start not due) or refuses (not
        seated) commits nothing, and so nothing would catch that another process moved the
        table on meanwhile. Such an answer stands only once judged on the table as it is: read
        (one round trip), or as a refused commit answered it."""
        with self._turns.turn(table_id):  # see in_turn: no refused commits between our own changes
            return self._retrying_in_turn(table_id, change)

    def _retrying_in_turn(self, table_id: str, change: Callable[[int, TableRecord], Outcome | None]) -> Outcome | None:
        snapshot, record = self._load_for_change(table_id)
        as_it_is = False
        for _ in range(20):
            try:
                outcome = change(snapshot.version, record)
            except StaleVersion:
                METRICS.cas_retried("table")
            except (IllegalAction, NotSeated):
                if as_it_is or not self._moved_on(table_id, snapshot.version):
                    raise
            else:
                if outcome is not None or as_it_is or not self._moved_on(table_id, snapshot.version):
                    return outcome
            snapshot, record = self._load_for_change(table_id)  # what the refusal or the read left
            as_it_is = True
        raise RuntimeError(f"table {table_id}: too much contention, gave up after 20 tries")

    def _moved_on(self, table_id: str, version: int) -> bool:
        """Whether the table is past ``version`` now (read, and remembered for the next change)."""
        snapshot = self.store.load(table_id)
        return snapshot is not None and snapshot.version != version
