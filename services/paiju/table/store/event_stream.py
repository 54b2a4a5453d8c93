"""The event stream of a table's store: reading a table's events after a cursor (one table or
many at once, waiting or not), the Pub/Sub notices of commits, and dropping an idle table's
events. Commits write the stream (``commit.lua``): one entry per commit, its events packed."""

from __future__ import annotations

import time
from typing import Any

from redis.exceptions import ResponseError

from .errors import EventsTrimmed, UnknownTable
from .inputs import check_int
from .keys import TableKeys
from .parts import StoreParts
from .records import (
    ALL_SEATS,
    TABLE_STATE_HEADER_BYTES,
    EncodedEvent,
    SeatFilter,
    StoredEvent,
    as_text,
    decode_visibility,
    event_ids,
    parse_stream_id,
    parse_table_state_header,
    unpack_events,
)

MAX_READ_COUNT = 10_000


class EventStream(StoreParts):
    """:class:`~paiju.table.store.TableStore`'s reading of event streams (see the module)."""

    commits_channel: str
    stream_maxlen: int

    def _trim_mark(self, table_id: str, keys: TableKeys) -> tuple[int, int]:
        try:
            header = self._client.getrange(keys.state, 0, TABLE_STATE_HEADER_BYTES - 1)
        except ResponseError as error:  # a hash an older store wrote
            if not str(error).startswith("WRONGTYPE"):
                raise
            stored = self._stored_state(keys.state, error)
            header = None if stored is None else stored.trim_mark
        else:
            header = parse_table_state_header(header)[2] if header else None
        if header is None:
            raise UnknownTable(table_id)
        return parse_stream_id(header)

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
        more than ``stream_maxlen`` events behind): load a snapshot and resume from its
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

        self._refuse_trimmed(table_id, keys, cursor)
        give_up_at = None if block_ms is None else time.monotonic() + block_ms / 1000
        while True:
            block = None
            if give_up_at is not None:
                block = int((give_up_at - time.monotonic()) * 1000)
                if block <= 0:
                    return []
            reply = self._client.xread(
                {keys.events: f"{cursor[0]}-{cursor[1]}"}, count=count, block=block
            )
            entries = reply[0][1] if reply else []
            events = [event for raw_id, fields in entries for event in _stored_events(raw_id, fields, cursor)]
            # Checked after reading: a trim that removed entries we should have seen happened
            # before the read, so its mark is visible now.
            self._refuse_trimmed(table_id, keys, cursor)
            visible = [event for event in events if event.visible(seat)]
            if visible:
                # An entry holds a whole commit's events: a reader resuming from the last one
                # it was given reads the rest of that entry next time.
                return visible[:count]
            if not entries or (give_up_at is None and len(entries) < count):
                return []
            cursor = parse_stream_id(as_text(entries[-1][0]))

    def read_many(
        self, cursors: dict[str, str], count: int = 100, block_ms: int | None = None
    ) -> dict[str, list[StoredEvent]]:
        """Every event after each table's cursor, for all of them in one (blocking) read.

        For a process that fans one read out to many watchers; it sees every event (the
        watchers filter by seat) and leaves trim checks to them. On a cluster, whose nodes each
        hold some of the tables, a read of several tables cannot wait (``ValueError``).
        """
        if not cursors:
            return {}
        by_key = {self.keys(table_id).events: table_id for table_id in cursors}
        streams = {key: cursors[table_id] for key, table_id in by_key.items()}
        if self._one_redis or len(streams) == 1:
            return _events_by_table(by_key, self._client.xread(streams, count=count, block=block_ms), cursors)
        if block_ms is not None:
            raise ValueError("on a Redis Cluster a read of several tables' events cannot wait")
        pipe = self._client.pipeline(transaction=False)
        reads = self._ask_events(pipe, streams, count)
        return _events_by_table(by_key, _merged_reads(pipe.execute(raise_on_error=False)[:reads]), cursors)

    def notices(self, channel: str) -> Any:
        """A Pub/Sub subscription to ``channel`` (:attr:`outbox_channel`, :attr:`settled_channel`):
        ``get_message()`` gives each notice's ``data``, a table id, from now on. Notices are not
        stored: one sent while nobody listened is gone, so a listener is only ever a shortcut."""
        subscription = self._client.pubsub(ignore_subscribe_messages=True)
        subscription.subscribe(channel)
        return subscription

    def commit_notices(self) -> Any:
        """A Pub/Sub subscription to :attr:`commits_channel`: ``get_message()`` tells of each
        commit that added events, from now on: its ``data`` names the table and its last event
        id (:func:`parse_commit_notice`). Notices are not stored: one sent while nobody
        listened, or while the connection was down, is gone."""
        notices = self._client.pubsub(ignore_subscribe_messages=True)
        notices.subscribe(self.commits_channel)
        return notices

    def read_with_marks(
        self, cursors: dict[str, str], count: int = 100
    ) -> tuple[dict[str, list[StoredEvent]], dict[str, str]]:
        """:meth:`read_many` (without waiting) and each table's trim mark (events up to it may be
        gone), in one round trip: the marks are read after the events, so a cursor older than its
        table's mark means events after it were trimmed before they could be read. Tables that
        do not exist have no mark."""
        if not cursors:
            return {}, {}
        table_ids = list(cursors)
        by_key = {self.keys(table_id).events: table_id for table_id in table_ids}
        pipe = self._client.pipeline(transaction=False)
        reads = self._ask_events(pipe, {key: cursors[table_id] for key, table_id in by_key.items()}, count)
        self._ask_trim_marks(pipe, table_ids)
        replies = pipe.execute(raise_on_error=False)
        return (_events_by_table(by_key, _merged_reads(replies[:reads]), cursors),
                self._trim_marks_of(table_ids, replies[reads:]))

    def _ask_events(self, pipe: Any, streams: dict[str, str], count: int) -> int:
        """Queue the reads of ``streams`` (key: cursor) on ``pipe``; how many replies they make.
        One Redis takes them in one XREAD. A cluster refuses a command whose keys lie in
        different slots, so there each table is an XREAD of its own (the pipeline still sends
        each node its share at once)."""
        if self._one_redis:
            pipe.xread(streams, count=count)
            return 1
        for key, cursor in streams.items():
            pipe.xread({key: cursor}, count=count)
        return len(streams)

    def _ask_trim_marks(self, pipe: Any, table_ids: list[str]) -> None:
        for table_id in table_ids:
            pipe.getrange(self.keys(table_id).state, 0, TABLE_STATE_HEADER_BYTES - 1)

    def _trim_marks_of(self, table_ids: list[str], headers: list[Any]) -> dict[str, str]:
        marks = {}
        for table_id, header in zip(table_ids, headers, strict=True):
            if isinstance(header, ResponseError):  # a hash an older store wrote
                try:
                    marks[table_id] = "{}-{}".format(*self._trim_mark(table_id, self.keys(table_id)))
                except UnknownTable:
                    pass
            elif header:
                marks[table_id] = parse_table_state_header(header)[2]
        return marks

    def drop_events(self, table_id: str) -> None:
        """Drop the table's retained events, to shrink an idle table (e.g. between hands).

        A Redis 7 stream takes at least one preallocated node (4 KB with the default
        ``stream-node-max-bytes``) whatever it holds. Readers that had seen every event read on
        as before; readers behind get ``EventsTrimmed`` and take a fresh snapshot.
        Raises ``UnknownTable``.
        """
        keys = self.keys(table_id)
        self.forget(table_id)
        if not self._scripts.drop_events(keys=[keys.state, keys.events]):
            raise UnknownTable(table_id)

    def _refuse_trimmed(self, table_id: str, keys: TableKeys, cursor: tuple[int, int]) -> None:
        mark = self._trim_mark(table_id, keys)
        if cursor < mark:
            raise EventsTrimmed(table_id, f"{cursor[0]}-{cursor[1]}", f"{mark[0]}-{mark[1]}")


def committed_events(version: int, encoded: list[EncodedEvent], last_event_id: str) -> tuple[StoredEvent, ...]:
    """The events a commit wrote, from its arguments (``encode_events``) and its last event id."""
    if not encoded:
        return ()
    return tuple(
        StoredEvent(id=event_id, version=version, visible_to=decode_visibility(visibility), type=kind,
                    payload=payload, hand=hand)
        for event_id, (visibility, kind, payload, hand) in zip(event_ids(last_event_id, len(encoded)), encoded,
                                                                strict=True)
    )


def _stored_events(raw_id: bytes, fields: dict[bytes, bytes], after: tuple[int, int] = (0, 0)) -> list[StoredEvent]:
    """The events of one stream entry that come after ``after``: the entry of a commit holds
    its events packed (field ``e``); an entry written before commits were packed, one event."""
    entry_id = as_text(raw_id)
    version = int(fields[b"n"])
    packed = fields.get(b"e")
    if packed is None:
        return [StoredEvent(
            id=entry_id,
            version=version,
            visible_to=decode_visibility(as_text(fields[b"v"])),
            type=as_text(fields[b"t"]),
            payload=fields[b"p"],
            hand=int(fields.get(b"h", 0)),  # written before events had hand numbers: none
        )]
    encoded = unpack_events(packed)
    return [
        StoredEvent(id=event_id, version=version, visible_to=decode_visibility(visibility), type=kind,
                    payload=payload, hand=hand)
        for event_id, (visibility, kind, payload, hand) in zip(event_ids(entry_id, len(encoded)), encoded, strict=True)
        if parse_stream_id(event_id) > after
    ]


def _merged_reads(replies: list[Any]) -> list[Any]:
    """The XREAD replies of one pipeline as one reply (a failed read raises its error)."""
    merged: list[Any] = []
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
        merged.extend(reply or [])
    return merged


def _events_by_table(by_key: dict[str, str], reply: Any, cursors: dict[str, str]) -> dict[str, list[StoredEvent]]:
    """An XREAD reply as each table's events after its cursor (``by_key``: stream key to table
    id): an entry read from a cursor inside it gives only the events after the cursor."""
    found = {}
    for raw_key, entries in reply or []:
        table_id = by_key[as_text(raw_key)]
        after = parse_stream_id(cursors[table_id])
        found[table_id] = [event for raw_id, fields in entries for event in _stored_events(raw_id, fields, after)]
    return found
