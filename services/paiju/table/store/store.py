"""``TableStore``: live tables in Redis, each changed only by one compare-and-set script.

Keys of table ``t42`` under prefix ``paiju`` (one Redis Cluster slot, thanks to ``{t42}``):

``paiju:{t42}:state``         string: version, last event id, trim mark, meta, state bytes
``paiju:{t42}:events``        stream: one entry per event (version, visibility, type, payload)
``paiju:{t42}:deadlines``     hash: deadline name -> ``due_ms:version_set_for``
``paiju:{t42}:outbox``        hash: outbox key -> payload, while pending
``paiju:{t42}:outbox-acked``  sorted set: the latest acknowledged outbox keys (6-byte hashes)

plus the global indexes ``paiju:index:deadlines`` and ``paiju:index:outbox`` (see
``indexes.py``), which a repair scan can always rebuild from the keys above.
"""

from __future__ import annotations

import time
from typing import Any

from redis.cluster import RedisCluster
from redis.exceptions import ResponseError

from .errors import DuplicateOutboxKey, EventsTrimmed, StaleVersion, TableExists, UnknownTable
from .indexes import GlobalIndexes, IndexEntry
from .inputs import (
    check_bytes,
    check_int,
    check_name,
    encode_deadline,
    encode_deadline_changes,
    encode_events,
    encode_meta,
    encode_outbox,
)
from .keys import TableKeys, check_prefix, check_table_id
from .memory import estimate_key_bytes
from .records import (
    ALL_SEATS,
    TABLE_STATE_HEADER_BYTES,
    CommitReceipt,
    Deadline,
    DueDeadline,
    EncodedEvent,
    MemoryUsage,
    OutboxEntry,
    SeatFilter,
    Snapshot,
    StoredEvent,
    StoredTableState,
    acked_outbox_member,
    decode_deadline,
    decode_table_state,
    decode_visibility,
    event_ids,
    pack_events,
    parse_stream_id,
    parse_table_state_header,
    unpack_events,
)
from .scripts import StoreScripts

# A reader lagging by more than this many commits must re-snapshot. Each stream entry is one
# commit's events (a hand's end, half a dozen, is one entry), and the stream hub reads within
# milliseconds of a commit's notice: a lag of four commits on one table is a starved server.
# The stream is trimmed in batches (see commit.lua): it holds 4 to 8 entries, ~115 bytes for a
# 炸金花 move and ~600 for a hand's end, with the stream's own ~600 bytes. (Kept by events, 16
# of them, the stream cost the same memory and a rewrite of 16 entries every 5 events.)
DEFAULT_STREAM_MAXLEN = 4
DEFAULT_ACKED_OUTBOX_MEMORY = 32
KEYS_REMEMBERED = 100_000
STATES_REMEMBERED = 20_000
"""Tables whose last committed state a store remembers (see :meth:`TableStore.latest_known`)."""
START_CLAIM_MS = 200
"""How long a claim to start a table's next hand on a settlement's notice stands
(:meth:`TableStore.claim_start`): the notice reaches every table server at once, and a table's
next settlement comes later than this."""
MAX_READ_COUNT = 10_000
_UNREAD = object()


def _deadlines(stored: dict[bytes, bytes]) -> list[Deadline]:
    found = [decode_deadline(_text(name), _text(value)) for name, value in stored.items()]
    return sorted(found, key=lambda deadline: (deadline.due_ms, deadline.name))


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


class TableStore:
    """The storage of live tables on one Redis (or Redis Cluster, or fakeredis) client.

    ``redis_client`` must return bytes (``decode_responses=False``, the default): game states
    and payloads are opaque bytes. ``stream_maxlen`` caps each table's event stream, in
    commits; ``acked_outbox_memory`` is how many acknowledged outbox keys a table remembers to
    refuse them a second time.

    Each commit's events are one entry of the stream (one XADD), each event with an id of its
    own. The stream keeps at least the newest ``stream_maxlen`` entries; it grows to twice that
    before it is trimmed back, so that trimming (a rewrite of the stream, which frees the
    memory of what it drops) costs about one XADD per commit, not one per retained entry.

    >>> import fakeredis
    >>> store = TableStore(fakeredis.FakeRedis(server=fakeredis.FakeServer()), prefix="doc")
    >>> store.create("t1", b"dealt")
    1
    >>> store.commit("t1", 1, b"bet", events=[(None, "bet", b"10"), ((0,), "cards", b"AS")])
    2
    >>> [e.type for e in store.read_events("t1", seat=1)]
    ['bet']
    >>> store.load("t1").state
    b'bet'
    """

    def __init__(
        self,
        redis_client: Any,
        prefix: str = "paiju",
        *,
        stream_maxlen: int = DEFAULT_STREAM_MAXLEN,
        acked_outbox_memory: int = DEFAULT_ACKED_OUTBOX_MEMORY,
    ) -> None:
        pool = getattr(redis_client, "connection_pool", None)
        kwargs = getattr(pool, "connection_kwargs", {}) or {}
        if kwargs.get("decode_responses") or getattr(redis_client, "decode_responses", False):
            raise ValueError(
                "TableStore needs a client with decode_responses=False (states are bytes)"
            )
        self._client = redis_client
        self.prefix = check_prefix(prefix)
        self._keys: dict[str, TableKeys] = {}
        self.stream_maxlen = check_int(stream_maxlen, "stream_maxlen", minimum=1)
        self.stream_trimmed_above = 2 * self.stream_maxlen
        self.acked_outbox_memory = check_int(acked_outbox_memory, "acked_outbox_memory", minimum=1)
        self._scripts = StoreScripts.register(redis_client)
        self.indexes = GlobalIndexes(redis_client, self.prefix)
        self._known: dict[str, Snapshot] = {}
        self._deadlines_known: dict[str, tuple[int, set[str]]] = {}
        """Each table's deadline names after this store's last commit of it, with that version."""
        self._outbox_known: dict[str, frozenset[str]] = {}
        """Each table's outbox keys as this store last saw them, at the version it remembers
        (see :meth:`outbox_keys_known`)."""
        # On one Redis, the scripts that commit, claim a deadline or acknowledge a settlement
        # keep the table's global index entries themselves. A cluster keeps the global indexes
        # in other slots (other nodes): there each is a round trip of its own.
        self._one_redis = not isinstance(redis_client, RedisCluster)
        self._indexes_reachable_from_scripts = self._one_redis
        self.commits_channel = f"{self.prefix}:commits"
        """The Pub/Sub channel told the id of each table whose commit added events."""
        self.outbox_channel = f"{self.prefix}:outbox"
        """The Pub/Sub channel told the id of each table whose commit queued outbox entries (a
        hand's settlement, the release of its holds): the relay's wake-up."""
        self.settled_channel = f"{self.prefix}:settled"
        """The Pub/Sub channel told the id of each table one of whose outbox entries was
        acknowledged: its next hand may start now."""

    @property
    def client(self) -> Any:
        """The Redis client the store writes through (for keys that live beside the tables)."""
        return self._client

    def keys(self, table_id: str) -> TableKeys:
        """The Redis keys of ``table_id`` (validated)."""
        # Asked for on every read of every table (the stream hub: every watched table on each
        # pass), so each table's keys are made once.
        keys = self._keys.get(table_id)
        if keys is None:
            if len(self._keys) >= KEYS_REMEMBERED:
                self._keys.clear()
            keys = self._keys[table_id] = TableKeys.of(self.prefix, check_table_id(table_id))
        return keys

    # --- state -------------------------------------------------------------------------

    def create(self, table_id: str, state: bytes, meta: dict[str, str] | None = None) -> int:
        """Create a table holding ``state``; returns its first version, 1.

        Raises ``TableExists`` if the table is live.
        """
        keys = self.keys(table_id)
        args = [check_bytes(state, "state"), encode_meta(meta)]
        self.forget(table_id)
        reply = self._scripts.create(keys=keys.all(), args=args)
        if reply[0] == b"exists":
            raise TableExists(table_id, int(reply[1]))
        return int(reply[1])

    def load(self, table_id: str) -> Snapshot | None:
        """The table's current version, state and last event id, read at once; None if none."""
        stored = self._stored_state(self.keys(table_id).state)
        snapshot = None if stored is None else _snapshot(stored)
        self._remember(table_id, snapshot)
        return snapshot

    def latest_known(self, table_id: str) -> Snapshot | None:
        """The state this store last committed or read for the table, without a round trip when
        it has one; else :meth:`load`.

        It may be behind when another process committed since: use it only to prepare a
        commit, whose compare-and-set then fails with ``StaleVersion`` and leaves the table as it
        now is remembered, so the writer tries again on that. For what a player is shown, use
        :meth:`load`.
        """
        known = self._known.get(table_id)
        return known if known is not None else self.load(table_id)

    def remembers(self, table_id: str) -> bool:
        """Whether this store remembers the table's state (it committed or read it lately)."""
        return table_id in self._known

    def claim_start(self, table_id: str, hold_ms: int = START_CLAIM_MS) -> bool:
        """Whether this caller is the first within ``hold_ms`` to ask (one round trip): of the
        table servers that hear one settlement's notice, only the claimant starts the next hand.
        Each used to start it, and all but one dealt and held for nothing."""
        claim = f"{self.prefix}:{{{table_id}}}:start-claim"  # the table's slot, outside its keys
        return bool(self._client.set(claim, b"1", nx=True, px=check_int(hold_ms, "hold_ms", minimum=1)))

    def forget(self, table_id: str) -> None:
        """Drop what :meth:`latest_known` remembers of the table (the next call reads it)."""
        self._known.pop(table_id, None)
        self._outbox_known.pop(table_id, None)
        self._deadlines_known.pop(table_id, None)

    def _remember(self, table_id: str, snapshot: Snapshot | None) -> None:
        if snapshot is None:
            self._known.pop(table_id, None)
            return
        known = self._known.get(table_id)
        if known is not None and known.version > snapshot.version:
            return  # a read that raced a newer commit of ours: keep the newer
        if known is None or known.version != snapshot.version:
            self._outbox_known.pop(table_id, None)  # a commit this store did not see may have queued some
        if len(self._known) >= STATES_REMEMBERED and known is None:
            self._known.clear()
            self._outbox_known.clear()
            self._deadlines_known.clear()
        self._known[table_id] = snapshot

    def load_many(self, table_ids: list[str]) -> dict[str, Snapshot]:
        """Many tables at once (one pipeline); tables that do not exist are left out."""
        keys = [self.keys(table_id).state for table_id in table_ids]
        pipe = self._client.pipeline(transaction=False)
        for key in keys:
            pipe.get(key)
        found = {}
        for table_id, key, raw in zip(table_ids, keys, pipe.execute(raise_on_error=False), strict=True):
            stored = self._stored_state(key, raw)
            if stored is not None:
                found[table_id] = _snapshot(stored)
        return found

    def meta(self, table_id: str) -> dict[str, str]:
        """The meta given to ``create``. Raises ``UnknownTable``."""
        stored = self._stored_state(self.keys(table_id).state)
        if stored is None:
            raise UnknownTable(table_id)
        return stored.meta

    def _stored_state(self, key: str, raw: Any = _UNREAD) -> StoredTableState | None:
        """What the state key holds (``raw``: its GET reply when read already), or None.

        A table last written by an older store holds a hash instead (fields ``v``, ``s``,
        ``e``, ``x``, ``m:<name>``) until its next commit rewrites it: read that as it is.
        """
        if raw is _UNREAD:
            try:
                raw = self._client.get(key)
            except ResponseError as error:
                raw = error
        if isinstance(raw, ResponseError):
            if not str(raw).startswith("WRONGTYPE"):
                raise raw
            fields = {_text(name): value for name, value in self._client.hgetall(key).items()}
            if not fields:
                return None
            return StoredTableState(
                version=int(fields["v"]),
                last_event_id=_text(fields["e"]),
                trim_mark=_text(fields["x"]),
                meta={name[2:]: _text(value) for name, value in fields.items() if name.startswith("m:")},
                state=fields["s"],
            )
        return None if raw is None else decode_table_state(raw)

    def commit(
        self,
        table_id: str,
        expected_version: int,
        state: bytes,
        events: Any = (),
        deadlines_set: Any = (),
        deadlines_clear: Any = (),
        outbox: Any = (),
    ) -> int:
        """Replace the state at ``expected_version`` and apply everything else; all or nothing.

        ``events``: ``(visible_to, type, payload)`` with ``visible_to`` None (public) or a tuple
        of seats, and optionally a fourth item: the number of the hand the event belongs to
        (:attr:`StoredEvent.hand`). ``deadlines_set``: ``(name, due_ms, version_set_for)``, replacing a deadline
        of the same name. ``deadlines_clear``: names. ``outbox``: ``(key, payload)``.

        Returns the new version. Raises ``StaleVersion`` (with the current version) if the
        table moved on, ``DuplicateOutboxKey`` if an outbox key was already added,
        ``UnknownTable`` if there is no such table; in each case nothing changed.
        """
        return self.commit_receipt(
            table_id, expected_version, state, events, deadlines_set, deadlines_clear, outbox
        ).version

    def commit_receipt(
        self,
        table_id: str,
        expected_version: int,
        state: bytes,
        events: Any = (),
        deadlines_set: Any = (),
        deadlines_clear: Any = (),
        outbox: Any = (),
    ) -> CommitReceipt:
        """:meth:`commit`, answering with what it wrote: the new version and each event with
        its stream id (one round trip on a single Redis, the global indexes' note with it)."""
        keys = self.keys(table_id)
        check_int(expected_version, "expected_version", minimum=1)
        outbox_args, repeated = encode_outbox(outbox)
        if repeated is not None:
            raise DuplicateOutboxKey(table_id, repeated)
        encoded_events = encode_events(events)
        deadlines_clear = self._worth_clearing(table_id, expected_version, deadlines_clear)
        args: list[bytes | str | int] = [
            str(expected_version),
            check_bytes(state, "state"),
            self.stream_maxlen,
            self.stream_trimmed_above,
            len(encoded_events),
            pack_events(encoded_events),
            *encode_deadline_changes(deadlines_set, deadlines_clear),
            *outbox_args,
            self.commits_channel,
            table_id,
            self.outbox_channel,
        ]
        reply = self._run_commit(table_id, keys, args)
        status = reply[0]
        if status == b"stale":
            current = Snapshot(version=int(reply[1]), state=reply[3], last_event_id=_text(reply[2]))
            self._remember(table_id, current)
            raise StaleVersion(table_id, expected_version, current.version)
        if status != b"ok":
            self.forget(table_id)
            if status == b"missing":
                raise UnknownTable(table_id)
            raise DuplicateOutboxKey(table_id, _text(reply[1]))
        version, last_event_id = int(reply[1]), _text(reply[2])
        # What this store knew of the outbox holds only if it was known at the version committed on.
        known = self._known.get(table_id)
        before = self._outbox_known.get(table_id) if known is not None and known.version == expected_version else None
        self._remember(table_id, Snapshot(version=version, state=state, last_event_id=last_event_id))
        pending = int(reply[4])  # -1: the commit queued nothing, and the outbox is as it was
        self._note_outbox(table_id, None if before is None else before | set(outbox_args[1::3]),
                          len(before) if pending < 0 and before is not None else pending)
        fields = int(reply[6])
        deadlines = reply[7:7 + fields]
        self._deadlines_known[table_id] = (version, {_text(name) for name in deadlines[::2]})
        return CommitReceipt(
            version=version,
            previous_event_id=_text(reply[5]),
            last_event_id=last_event_id,
            events=_committed_events(version, encoded_events, last_event_id),
            deadlines=tuple(_deadlines(dict(zip(deadlines[::2], deadlines[1::2], strict=True)))),
        )

    def _worth_clearing(self, table_id: str, expected_version: int, names: Any) -> Any:
        """The deadlines of ``names`` that may exist: a commit on the version this store last
        committed knows the deadlines it left (only this process's own marks are added outside a
        commit, and a claim only takes one away), so it need not ask Redis to clear the others."""
        known = self._deadlines_known.get(table_id)
        if known is None or known[0] != expected_version or isinstance(names, str):
            return names
        return [name for name in names if name in known[1]]

    def _run_commit(self, table_id: str, keys: TableKeys, args: list[Any]) -> Any:
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the indexes exact
            index = self.indexes.keys
            return self._scripts.commit(keys=[*keys.all(), index.deadlines, index.outbox], args=args)
        reply = self._scripts.commit(keys=keys.all(), args=args)
        if reply[0] == b"ok":
            # A cluster: the indexes live in other slots. The reply says what they must hold.
            self.indexes.note(table_id, IndexEntry(None if reply[3] is None else int(reply[3]), max(0, int(reply[4]))))
        return reply

    def delete(self, table_id: str) -> bool:
        """Remove the table's state, events and deadlines; True if it existed.

        Pending outbox entries stay (money still owed) until acknowledged.
        """
        keys = self.keys(table_id)
        existed = self._scripts.delete(keys=keys.all())
        self.forget(table_id)
        self.indexes.sync(table_id)
        return bool(existed)

    # --- events ------------------------------------------------------------------------

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
            cursor = parse_stream_id(_text(entries[-1][0]))

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

    # --- deadlines ---------------------------------------------------------------------

    def deadlines(self, table_id: str) -> list[Deadline]:
        """The table's deadlines, earliest first."""
        return _deadlines(self._client.hgetall(self.keys(table_id).deadlines))

    def load_with_deadlines(self, table_id: str) -> tuple[Snapshot | None, list[Deadline]]:
        """:meth:`load` and :meth:`deadlines` in one round trip."""
        keys = self.keys(table_id)
        pipe = self._client.pipeline(transaction=False)
        pipe.get(keys.state)
        pipe.hgetall(keys.deadlines)
        raw, deadlines = pipe.execute(raise_on_error=False)
        stored = self._stored_state(keys.state, raw)
        if isinstance(deadlines, Exception):
            raise deadlines
        return (None if stored is None else _snapshot(stored)), _deadlines(deadlines)

    def due_deadlines(self, now_ms: int, limit: int = 100) -> list[DueDeadline]:
        """Deadlines of any table due at ``now_ms``, earliest first, at most ``limit``.

        Listing claims nothing: call ``claim_deadline`` for each before acting on it.
        """
        check_int(now_ms, "now_ms")
        check_int(limit, "limit", minimum=1)
        tables = self._client.zrangebyscore(
            self.indexes.keys.deadlines, "-inf", now_ms, start=0, num=limit
        )
        table_ids = [_text(raw) for raw in tables]
        pipe = self._client.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.hgetall(TableKeys.of(self.prefix, table_id).deadlines)
        found: list[DueDeadline] = []
        for table_id, stored in zip(table_ids, pipe.execute(), strict=True):
            due = [
                DueDeadline(table_id, d.name, d.due_ms, d.version_set_for)
                for d in (decode_deadline(_text(n), _text(v)) for n, v in stored.items())
                if d.due_ms <= now_ms
            ]
            if not due:
                # The index was behind (a claim or commit whose sync has not landed, or a
                # crash): put it right so the next call does not list this table again.
                self.indexes.sync(table_id)
            found += due
        found.sort(key=lambda d: (d.due_ms, d.table_id, d.name))
        return found[:limit]

    def set_deadline(self, table_id: str, name: str, due_ms: int, version_set_for: int) -> None:
        """Set (or replace) one deadline without a commit: the table's version, state and events
        stay as they are. For a mark that guards a change still to come, which that change's
        commit clears by name (``deadlines_clear``); if it never commits, the mark falls due."""
        keys = self.keys(table_id)
        value = encode_deadline(check_int(due_ms, "due_ms"), check_int(version_set_for, "version_set_for", minimum=1))
        script_keys, args = [keys.deadlines], [check_name(name, "a deadline name"), value]
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the index too
            script_keys.append(self.indexes.keys.deadlines)
            args.append(table_id)
        self._scripts.set_deadline(keys=script_keys, args=args)
        known = self._deadlines_known.get(table_id)
        if known is not None:
            known[1].add(name)
        if not self._indexes_reachable_from_scripts:
            self.indexes.sync(table_id)

    def claim_deadline(
        self,
        table_id: str,
        name: str,
        version_set_for: int,
        now_ms: int,
        lease_ms: int | None = None,
    ) -> bool:
        """Claim a due deadline; True for exactly one of any number of concurrent claimers.

        False if it is gone, not yet due at ``now_ms``, or was replaced (another
        ``version_set_for``). Without ``lease_ms`` the claimed deadline is removed (at most
        once). With ``lease_ms`` it stays, due again at ``now_ms + lease_ms``, so it fires again
        if the claimer dies before the table's commit clears it (at least once).
        """
        keys = self.keys(table_id)
        name = check_name(name, "a deadline name")
        check_int(version_set_for, "version_set_for", minimum=1)
        check_int(now_ms, "now_ms")
        leased = ""
        if lease_ms is not None:
            leased = encode_deadline(
                now_ms + check_int(lease_ms, "lease_ms", minimum=1), version_set_for
            )
        script_keys, args = [keys.deadlines], [name, str(version_set_for), now_ms, leased]
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the index too
            script_keys.append(self.indexes.keys.deadlines)
            args.append(table_id)
        claimed = self._scripts.claim_deadline(keys=script_keys, args=args)
        if claimed and not self._indexes_reachable_from_scripts:
            self.indexes.sync(table_id)
        return bool(claimed)

    # --- outbox ------------------------------------------------------------------------

    def outbox_pending(self, limit: int = 100) -> list[OutboxEntry]:
        """Pending outbox entries of any table (deleted ones included), at most ``limit``."""
        check_int(limit, "limit", minimum=1)
        table_ids = [
            _text(raw) for raw in self._client.zrange(self.indexes.keys.outbox, 0, limit - 1)
        ]
        pipe = self._client.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.hgetall(TableKeys.of(self.prefix, table_id).outbox)
        found: list[OutboxEntry] = []
        for table_id, stored in zip(table_ids, pipe.execute(), strict=True):
            if not stored:
                self.indexes.sync(table_id)
            found += [
                OutboxEntry(table_id, _text(key), payload)
                for key, payload in sorted(stored.items())
            ]
        return found[:limit]

    def outbox_keys(self, table_id: str) -> list[str]:
        """The keys of one table's pending outbox entries."""
        keys = sorted(_text(key) for key in self._client.hkeys(self.keys(table_id).outbox))
        self._note_outbox(table_id, frozenset(keys), len(keys))
        return keys

    def _note_outbox(self, table_id: str, keys: Any, count: int) -> None:
        """Remember ``keys`` as the table's outbox, when Redis's ``count`` of it agrees."""
        if keys is not None and len(keys) == count:
            self._outbox_known[table_id] = frozenset(_text(key) for key in keys)
        else:
            self._outbox_known.pop(table_id, None)

    def outbox_keys_known(self, table_id: str) -> list[str]:
        """:meth:`outbox_keys`, without a round trip when this store knows them.

        It knows them from a read, and then from its own commits (what each adds, checked
        against the count the commit script answers) and acknowledgements (likewise).

        Only a commit adds to an outbox: one made elsewhere moves the version on, which forgets
        what this store knew as soon as it sees the new version (a read, or its own next commit
        refused). So an answer from here may lack keys only until this process's next commit on
        the table, which is refused: use it only to decide a change that is committed on the
        version it was decided on. It may also still list a key that another process acknowledged
        since; that only makes a change wait for a settlement already made, as a read just
        before the acknowledgement would have.
        """
        known = self._outbox_known.get(table_id)
        if known is not None:
            return sorted(known)
        return self.outbox_keys(table_id)

    def outbox_ack(self, table_id: str, key: str) -> bool:
        """Acknowledge a delivered outbox entry; True if it was pending (a repeat is False)."""
        keys = self.keys(table_id)
        script_keys = [keys.state, keys.outbox, keys.outbox_acked]
        args = [check_name(key, "an outbox key"), acked_outbox_member(key), self.acked_outbox_memory, table_id,
                self.settled_channel]
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the outbox index too
            script_keys.append(self.indexes.keys.outbox)
        acked, left = self._scripts.ack_outbox(keys=script_keys, args=args)
        known = self._outbox_known.get(table_id)
        self._note_outbox(table_id, None if known is None else known - {key}, int(left))
        if acked and not self._indexes_reachable_from_scripts:
            self.indexes.sync(table_id)
        return bool(acked)

    def repair_indexes(self) -> int:
        """Rebuild the global deadline and outbox indexes by scanning every table's keys."""
        return self.indexes.repair()

    # --- footprint ---------------------------------------------------------------------

    def memory_usage(self, table_id: str) -> MemoryUsage:
        """Bytes the table's keys use: ``MEMORY USAGE`` where Redis has it, else an estimate."""
        by_key: dict[str, int] = {}
        exact = True
        for key in self.keys(table_id).all():
            if not self._client.exists(key):
                continue
            used: int | None = None
            if exact:
                try:
                    used = self._client.memory_usage(key, samples=0)
                except ResponseError as error:
                    if "unknown command" not in str(error).lower():
                        raise
                    exact = False
            by_key[key] = used if used is not None else estimate_key_bytes(self._client, key)
        return MemoryUsage(total_bytes=sum(by_key.values()), exact=exact, by_key=by_key)


def _snapshot(stored: StoredTableState) -> Snapshot:
    return Snapshot(version=stored.version, state=stored.state, last_event_id=stored.last_event_id)


def _committed_events(version: int, encoded: list[EncodedEvent], last_event_id: str) -> tuple[StoredEvent, ...]:
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
    entry_id = _text(raw_id)
    version = int(fields[b"n"])
    packed = fields.get(b"e")
    if packed is None:
        return [StoredEvent(
            id=entry_id,
            version=version,
            visible_to=decode_visibility(_text(fields[b"v"])),
            type=_text(fields[b"t"]),
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
        table_id = by_key[_text(raw_key)]
        after = parse_stream_id(cursors[table_id])
        found[table_id] = [event for raw_id, fields in entries for event in _stored_events(raw_id, fields, after)]
    return found
