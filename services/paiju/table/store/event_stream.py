"""The events of a table's store: reading a table's events after a cursor (one table or many
at once, waiting or not), the Pub/Sub notices of commits, and dropping an idle table's events.

A commit writes its events into the table's state key itself (``commit.lua``): a ring of the
newest commits' events after the record, each commit one entry of packed events, each event an
id of its own. So a read of events is a GET of the state key, and a commit writes no other key
for them.
"""

from __future__ import annotations

import time
from typing import Any

from .errors import EventsTrimmed, UnknownTable
from .inputs import check_int
from .parts import StoreParts
from .records import (
    ALL_SEATS,
    EncodedEvent,
    SeatFilter,
    StoredEvent,
    StoredTableState,
    as_text,
    decode_visibility,
    event_ids,
    pack_events,
    parse_stream_id,
    ring_entries,
    unpack_events,
)

MAX_READ_COUNT = 10_000
BLOCKED_READ_PAUSE_SECONDS = 0.01
"""How often a read that waits for events looks again (tests and tools: the servers' readers
wait on commit notices instead)."""


HEADER_PEEK_BYTES = 128
"""How much of a table's stored string a sweep reads to learn its last event id: the header
line (the version, the last event id, the trim mark and four lengths) is under 100 bytes."""


def _peeked_last_event_id(peeked: Any) -> str | None:
    """The last event id in the first bytes of a state key (a GETRANGE reply); ``"0-0"`` for a
    table that does not exist (nothing to read); None when they cannot tell (a hash an older
    store left, or a header longer than the peek): the table is then read whole."""
    if not isinstance(peeked, bytes):
        return None
    if not peeked:
        return "0-0"
    end = peeked.find(b"\n")
    fields = peeked[:end].split(b" ") if end > 0 else []
    return fields[1].decode() if len(fields) > 2 else None


def _may_be_after(last_event_id: str | None, cursor: str) -> bool:
    if last_event_id is None:
        return True
    try:
        return parse_stream_id(last_event_id) > parse_stream_id(cursor)
    except ValueError:  # not a header after all: read it whole, which says what it is
        return True


class EventStream(StoreParts):
    """:class:`~paiju.table.store.TableStore`'s reading of events (see the module)."""

    commits_channel: str
    _listener_channels: str
    stream_maxlen: int

    def read_events(
        self,
        table_id: str,
        after_id: str = "0-0",
        count: int = 100,
        block_ms: int | None = None,
        seat: SeatFilter = None,
    ) -> list[StoredEvent]:
        """Events after ``after_id`` that ``seat`` may see, oldest first, at most ``count``.

        ``seat``: a seat number sees public events and those naming it; ``None`` is a
        spectator and sees public events only; ``"all"`` sees everything (the server itself).
        Entries hidden from ``seat`` are skipped, so a reader resumes from the last id it
        received (hidden entries are skipped again). ``block_ms`` > 0 waits up to that long for
        a visible event; the result is empty when none came.

        Raises ``EventsTrimmed`` when events after ``after_id`` were trimmed (the reader is
        more than ``stream_maxlen`` commits behind): load a snapshot and resume from its
        ``last_event_id``. Raises ``UnknownTable`` for a table that does not exist.
        """
        keys = self.keys(table_id)
        cursor = parse_stream_id(after_id)
        check_int(count, "count", minimum=1)
        if count > MAX_READ_COUNT:
            raise ValueError(f"count must be at most {MAX_READ_COUNT}, not {count}")
        if block_ms is not None:
            check_int(block_ms, "block_ms", minimum=1)
        if not (seat is None or seat == ALL_SEATS):
            check_int(seat, 'seat (an int, None for a spectator, or "all")')
        give_up_at = None if block_ms is None else time.monotonic() + block_ms / 1000
        while True:
            stored = self._stored_state(keys.state)
            if stored is None:
                raise UnknownTable(table_id)
            events = _events_after(table_id, stored, cursor, self._legacy_entries(keys.events, stored, cursor))
            # An entry holds a whole commit's events: a reader resuming from the last one it
            # was given reads the rest of that entry next time.
            visible = [event for event in events if event.visible(seat)][:count]
            if visible or give_up_at is None or time.monotonic() >= give_up_at:
                return visible
            time.sleep(BLOCKED_READ_PAUSE_SECONDS)

    def read_many(
        self, cursors: dict[str, str], count: int = 100, block_ms: int | None = None
    ) -> dict[str, list[StoredEvent]]:
        """Every event after each table's cursor, for all of them in one round trip (waiting up
        to ``block_ms`` for one when there is none yet).

        For a process that fans one read out to many watchers; it sees every event (the
        watchers filter by seat) and leaves trim checks to them (:meth:`read_with_marks`).
        """
        give_up_at = None if block_ms is None else time.monotonic() + block_ms / 1000
        while True:
            found, _ = self.read_with_marks(cursors, count)
            found = {table_id: events for table_id, events in found.items() if events}
            if found or give_up_at is None or time.monotonic() >= give_up_at:
                return found
            time.sleep(BLOCKED_READ_PAUSE_SECONDS)

    def notices(self, channel: str) -> Any:
        """A Pub/Sub subscription to ``channel`` (:attr:`outbox_channel`, :attr:`settled_channel`):
        ``get_message()`` gives each notice's ``data``, a table id, from now on. Notices are not
        stored: one sent while nobody listened is gone, so a listener is only ever a shortcut."""
        subscription = self._client.pubsub(ignore_subscribe_messages=True)
        subscription.subscribe(channel)
        return subscription

    def commit_notices(self, listener_id: str | None = None) -> Any:
        """A Pub/Sub subscription to the channel of ``listener_id`` (this store's listener by
        default, :attr:`commits_channel`): ``get_message()`` tells of each commit that added
        events to a table it watches (:meth:`watch_commits`), from now on: its ``data`` names
        the table and its last event id (:func:`parse_commit_notice`). Notices are not stored:
        one sent while nobody listened, or while the connection was down, is gone."""
        notices = self._client.pubsub(ignore_subscribe_messages=True)
        notices.subscribe(self.commits_channel if listener_id is None else self._listener_channels + listener_id)
        return notices

    def read_with_marks(
        self, cursors: dict[str, str], count: int = 100, peek_first: bool = False
    ) -> tuple[dict[str, list[StoredEvent]], dict[str, str]]:
        """:meth:`read_many` (without waiting) and each table's trim mark (events up to it may be
        gone), in one round trip: a cursor older than its table's mark means events after it were
        trimmed before they could be read. Tables that do not exist have no mark.

        ``peek_first``: for a read of many tables of which few have anything new (a sweep for
        missed notices): each table's header line first (its last event id), then whole only
        the tables with events after their cursor. Marks then come only for those; the others
        have no events to check them against."""
        if peek_first:
            newer = self._newer_than(cursors)
            return self.read_with_marks(newer, count) if newer else ({}, {})
        if not cursors:
            return {}, {}
        table_ids = list(cursors)
        pipe = self._client.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.get(self.keys(table_id).state)
        found: dict[str, list[StoredEvent]] = {}
        marks: dict[str, str] = {}
        for table_id, raw in zip(table_ids, pipe.execute(raise_on_error=False), strict=True):
            stored = self._stored_state(self.keys(table_id).state, raw)
            if stored is None:
                continue
            marks[table_id] = stored.trim_mark
            cursor = parse_stream_id(cursors[table_id])
            legacy = self._legacy_entries(self.keys(table_id).events, stored, cursor)
            events = _events_after(table_id, stored, cursor, legacy, refuse_trimmed=False)
            if events:
                found[table_id] = events[:count]
        return found, marks

    def _newer_than(self, cursors: dict[str, str]) -> dict[str, str]:
        """The ``cursors`` whose table has an event after them (or may have: a header this
        read cannot place), by a read of each table's first bytes (one round trip)."""
        table_ids = list(cursors)
        pipe = self._client.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.getrange(self.keys(table_id).state, 0, HEADER_PEEK_BYTES - 1)
        newer = {}
        for table_id, peeked in zip(table_ids, pipe.execute(raise_on_error=False), strict=True):
            cursor = cursors[table_id]
            if _may_be_after(_peeked_last_event_id(peeked), cursor):
                newer[table_id] = cursor
        return newer

    def _legacy_entries(self, events_key: str, stored: StoredTableState,
                        cursor: tuple[int, int]) -> list[tuple[str, int, bytes]] | None:
        """The events of a table an older store wrote (no ring in its state: one stream entry
        per event), as ring entries after ``cursor``; None for a table with a ring."""
        if stored.ring is not None:
            return None
        entries = self._client.xrange(events_key, min=f"({cursor[0]}-{cursor[1]}")
        return [(as_text(raw_id), int(fields[b"n"]),
                 pack_events([(as_text(fields[b"v"]), as_text(fields[b"t"]), fields[b"p"], int(fields.get(b"h", 0)))]))
                for raw_id, fields in entries]

    def drop_events(self, table_id: str) -> None:
        """Drop the table's retained events, to shrink an idle table (e.g. between hands).
        Readers that had seen every event read on as before; readers behind get
        ``EventsTrimmed`` and take a fresh snapshot. Raises ``UnknownTable``.
        """
        keys = self.keys(table_id)
        self.forget(table_id)
        if not self._scripts.drop_events(keys=[keys.state, keys.events, keys.deadlines]):
            raise UnknownTable(table_id)


def _events_after(table_id: str, stored: StoredTableState, cursor: tuple[int, int],
                  legacy: list[tuple[str, int, bytes]] | None = None, refuse_trimmed: bool = True) -> list[StoredEvent]:
    """The events of a stored state's ring (or of an older table's stream, ``legacy``) after
    ``cursor``; ``EventsTrimmed`` when some after it are gone (unless ``refuse_trimmed`` is off:
    the caller compares the mark itself)."""
    if refuse_trimmed:
        mark = parse_stream_id(stored.trim_mark)
        if cursor < mark:
            raise EventsTrimmed(table_id, f"{cursor[0]}-{cursor[1]}", stored.trim_mark)
    entries = legacy if legacy is not None else ring_entries(stored.ring or b"")
    return [event for entry_id, version, packed in entries
            if parse_stream_id(entry_id) > cursor
            for event in _entry_events(entry_id, version, packed, cursor)]


def committed_events(version: int, encoded: list[EncodedEvent], last_event_id: str) -> tuple[StoredEvent, ...]:
    """The events a commit wrote, from its arguments (``encode_events``) and its last event id."""
    return tuple(_stored(last_event_id, version, encoded)) if encoded else ()


def _entry_events(entry_id: str, version: int, packed: bytes, after: tuple[int, int]) -> list[StoredEvent]:
    """The events of one commit's entry that come after ``after``."""
    return [event for event in _stored(entry_id, version, unpack_events(packed)) if parse_stream_id(event.id) > after]


def _stored(entry_id: str, version: int, encoded: list[EncodedEvent]) -> list[StoredEvent]:
    """One commit's events as read back: each with the id the entry's last id gives it."""
    return [
        StoredEvent(id=event_id, version=version, visible_to=decode_visibility(visibility), type=kind,
                    payload=payload, hand=hand)
        for event_id, (visibility, kind, payload, hand) in zip(event_ids(entry_id, len(encoded)), encoded, strict=True)
    ]
