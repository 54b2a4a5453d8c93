"""``TableStore``: live tables in Redis, each changed only by one compare-and-set script.

Keys of table ``t42`` under prefix ``paiju`` (one Redis Cluster slot, thanks to ``{t42}``):

``paiju:{t42}:state``         string: version, last event id, trim mark, meta, the deadlines
                              (name -> ``due_ms:version_set_for``), the ring of the newest
                              commits' events, state bytes
``paiju:{t42}:events``        stream: the events as an older store wrote them (gone at the next commit)
``paiju:{t42}:deadlines``     hash: the deadlines as an older store wrote them (likewise)
``paiju:{t42}:outbox``        hash: outbox key -> payload, while pending
``paiju:{t42}:outbox-acked``  sorted set: the latest acknowledged outbox keys (6-byte hashes)

plus the global indexes ``paiju:index:deadlines`` and ``paiju:index:outbox`` (see
``indexes.py``), which a repair scan can always rebuild from the keys above.

This module holds the state and its compare-and-set (the one commit that writes all of a
table's keys at once); the reading of each other key is a part of its own: ``event_stream.py``,
``deadline_store.py`` and ``outbox_store.py``.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from redis.cluster import RedisCluster
from redis.exceptions import ResponseError

from .deadline_store import DeadlineStore
from .errors import DuplicateOutboxKey, StaleVersion, TableExists, UnknownTable
from .event_stream import EventStream, committed_events
from .images import NextImage, StoredImage, image_of, next_image
from .indexes import GlobalIndexes, IndexEntry
from .inputs import (
    check_bytes,
    check_int,
    encode_deadline_changes,
    encode_events,
    encode_meta,
    encode_outbox,
)
from .keys import TableKeys, check_prefix, check_table_id
from .memory import estimate_key_bytes
from .outbox_store import OutboxStore
from .records import (
    CommitReceipt,
    MemoryUsage,
    Snapshot,
    StoredTableState,
    TableChange,
    as_text,
    deadlines_of,
    decode_table_state,
    pack_events,
    snapshot_of,
)
from .scripts import StoreScripts

# A reader lagging by more than this many commits must re-snapshot. Each commit's events are
# one entry of the ring in the table's state key (a hand's end, half a dozen events, is one
# entry), and the stream hub reads within milliseconds of a commit's notice. The ring is rewritten
# with the state by every commit, so it is trimmed to exactly this many entries each time: ~115
# bytes for a 炸金花 move, ~600 for a hand's end.
DEFAULT_STREAM_MAXLEN = 8
DEFAULT_ACKED_OUTBOX_MEMORY = 32
KEYS_REMEMBERED = 100_000
STATES_REMEMBERED = 20_000
"""Tables whose last committed state a store remembers (see :meth:`TableStore.latest_known`)."""
WATCH_MS = 30_000
"""How long a listener's watch of a table stands (:meth:`TableStore.watch_commits`): a watcher
renews it well before, and the watch of a process that died runs out on its own."""
START_CLAIM_MS = 200
"""How long a claim to start a table's next hand on a settlement's notice stands
(:meth:`TableStore.claim_start`): the notice reaches every table server at once, and a table's
next settlement comes later than this."""
_UNREAD = object()






class TableStore(EventStream, DeadlineStore, OutboxStore):
    """The storage of live tables on one Redis (or Redis Cluster, or fakeredis) client.

    ``redis_client`` must return bytes (``decode_responses=False``, the default): game states
    and payloads are opaque bytes. ``stream_maxlen`` is how many commits' events a table
    keeps for readers that resume; ``acked_outbox_memory`` is how many acknowledged outbox keys
    a table remembers to refuse them a second time.

    Each commit's events are one entry of the ring in the table's state key, each event with an
    id of its own (see ``event_stream.py``).

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
        self.acked_outbox_memory = check_int(acked_outbox_memory, "acked_outbox_memory", minimum=1)
        self._scripts = StoreScripts.register(redis_client)
        self.indexes = GlobalIndexes(redis_client, self.prefix)
        self._known: dict[str, Snapshot] = {}
        self._images: dict[str, StoredImage] = {}
        self._outbox_known: dict[str, frozenset[str]] = {}
        """Each table's outbox keys as this store last saw them, at the version it remembers
        (see :meth:`outbox_keys_known`)."""
        # On one Redis, the scripts that commit, claim a deadline or acknowledge a settlement
        # keep the table's global index entries themselves. A cluster keeps the global indexes
        # in other slots (other nodes): there each is a round trip of its own.
        self._one_redis = not isinstance(redis_client, RedisCluster)
        self._indexes_reachable_from_scripts = self._one_redis
        self.listener_id = uuid.uuid4().hex[:12]
        """This store's listener of commit notices (:meth:`commit_notices`, :meth:`watch_commits`)."""
        self._listener_channels = f"{self.prefix}:commits:"
        self.commits_channel = self._listener_channels + self.listener_id
        """The Pub/Sub channel told the id and last event id of each table this store watches
        (:meth:`watch_commits`) when a commit adds events to it."""
        self._not_told = ""
        """The listener the commits of this store are not told to (:meth:`hand_commits_to`)."""
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
        key = self.keys(table_id).state
        raw = self._state_reply(key)
        image = image_of(raw) if isinstance(raw, bytes) else None
        if image is not None:
            snapshot: Snapshot | None = Snapshot(image.version, image.state, image.last_event_id)
        else:
            stored = self._stored_state(key, raw)
            snapshot = None if stored is None else snapshot_of(stored)
        self._remember(table_id, snapshot, image)
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
        self._images.pop(table_id, None)
        self._outbox_known.pop(table_id, None)

    def _remember(self, table_id: str, snapshot: Snapshot | None, image: StoredImage | None = None) -> None:
        """Remember ``snapshot`` of the table (``image``: its stored string, where known)."""
        if snapshot is None:
            self._known.pop(table_id, None)
            self._images.pop(table_id, None)
            return
        known = self._known.get(table_id)
        if known is not None and known.version > snapshot.version:
            return  # a read that raced a newer commit of ours: keep the newer
        if known is None or known.version != snapshot.version:
            self._outbox_known.pop(table_id, None)  # a commit this store did not see may have queued some
        if len(self._known) >= STATES_REMEMBERED and known is None:
            self._known.clear()
            self._images.clear()
            self._outbox_known.clear()
        self._known[table_id] = snapshot
        if image is None:
            self._images.pop(table_id, None)
        else:
            self._images[table_id] = image

    def hand_commits_to(self, listener_id: str) -> None:
        """Tell commits of this store to every listener but ``listener_id``, which this process
        hands them to itself (a stream hub that delivers its own process's commits)."""
        self._not_told = listener_id

    def watch_commits(self, table_ids: list[str], listener_id: str | None = None, watch_ms: int = WATCH_MS,
                      pipe: Any = None) -> None:
        """Have ``listener_id`` (this store's listener by default) told of the tables' commits for
        ``watch_ms`` from now, on its channel (:meth:`commit_notices`); a watch renewed before it
        runs out goes on. Into ``pipe`` when given, else in a round trip of its own."""
        listener = listener_id or self.listener_id
        until = int(time.time() * 1000) + check_int(watch_ms, "watch_ms", minimum=1)
        sending = pipe if pipe is not None else self._client.pipeline(transaction=False)
        for table_id in table_ids:
            key = self.keys(table_id).watching
            sending.zadd(key, {listener: until})
            sending.pexpire(key, watch_ms)
        if pipe is None and table_ids:
            sending.execute()

    def unwatch_commits(self, table_ids: list[str], listener_id: str) -> None:
        """End ``listener_id``'s watches of the tables at once (else they run out on their own)."""
        pipe = self._client.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.zrem(self.keys(table_id).watching, listener_id)
        if table_ids:
            pipe.execute()

    def load_many(self, table_ids: list[str], watching: bool = False) -> dict[str, Snapshot]:
        """Many tables at once (one pipeline); tables that do not exist are left out.
        ``watching``: this store's listener watches them from before they are read
        (:meth:`watch_commits`), so no commit after the read goes untold."""
        keys = [self.keys(table_id).state for table_id in table_ids]
        pipe = self._client.pipeline(transaction=False)
        if watching:
            self.watch_commits(table_ids, pipe=pipe)
        for key in keys:
            pipe.get(key)
        found = {}
        replies = pipe.execute(raise_on_error=False)
        for table_id, key, raw in zip(table_ids, keys, replies[len(replies) - len(keys):], strict=True):
            stored = self._stored_state(key, raw)
            if stored is not None:
                found[table_id] = snapshot_of(stored)
        return found

    def meta(self, table_id: str) -> dict[str, str]:
        """The meta given to ``create``. Raises ``UnknownTable``."""
        stored = self._stored_state(self.keys(table_id).state)
        if stored is None:
            raise UnknownTable(table_id)
        return stored.meta

    def _state_reply(self, key: str) -> Any:
        """The GET reply of a state key: its string, None, or the error a hash (an older store's
        form) answers."""
        try:
            return self._client.get(key)
        except ResponseError as error:
            return error

    def _stored_state(self, key: str, raw: Any = _UNREAD) -> StoredTableState | None:
        """What the state key holds (``raw``: its GET reply when read already), or None.

        A table last written by an older store holds a hash instead (fields ``v``, ``s``,
        ``e``, ``x``, ``m:<name>``) until its next commit rewrites it: read that as it is.
        """
        if raw is _UNREAD:
            raw = self._state_reply(key)
        if isinstance(raw, ResponseError):
            if not str(raw).startswith("WRONGTYPE"):
                raise raw
            fields = {as_text(name): value for name, value in self._client.hgetall(key).items()}
            if not fields:
                return None
            return StoredTableState(
                version=int(fields["v"]),
                last_event_id=as_text(fields["e"]),
                trim_mark=as_text(fields["x"]),
                meta={name[2:]: as_text(value) for name, value in fields.items() if name.startswith("m:")},
                state=fields["s"],
                ring=None,  # its events are in its stream
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
        return self.commit_change(
            table_id, expected_version, TableChange(state, events, deadlines_set, deadlines_clear, outbox)
        ).version

    def commit_change(self, table_id: str, expected_version: int, change: TableChange) -> CommitReceipt:
        """:meth:`commit` of ``change``, answering with what it wrote: the new version and each
        event with its id (one round trip on a single Redis, the global indexes' note with it)."""
        state, events, outbox = change.state, change.events, change.outbox
        deadlines_set, deadlines_clear = change.deadlines_set, change.deadlines_clear
        keys = self.keys(table_id)
        check_int(expected_version, "expected_version", minimum=1)
        outbox_args, repeated = encode_outbox(outbox)
        if repeated is not None:
            raise DuplicateOutboxKey(table_id, repeated)
        encoded_events = encode_events(events)
        deadline_args = encode_deadline_changes(deadlines_set, deadlines_clear)
        state = check_bytes(state, "state")
        image = self._images.get(table_id)
        known = self._known.get(table_id)
        if image is None and known is not None and known.version == expected_version:
            # Known, but not whole (it was in an older store's form): read it whole once.
            self.load(table_id)
            image = self._images.get(table_id)
        if image is not None and image.version == expected_version:
            receipt = self._commit_known(table_id, keys, image, state, encoded_events, deadline_args, outbox_args,
                                         change.counts_outbox)
            if receipt is not None:
                return receipt
        args: list[bytes | str | int] = [
            str(expected_version),
            state,
            self.stream_maxlen,
            len(encoded_events),
            pack_events(encoded_events),
            *deadline_args,
            *outbox_args,
            self._listener_channels,
            table_id,
            self.outbox_channel,
            self._not_told,
            int(time.time() * 1000),
        ]
        reply = self._run_commit(table_id, keys, args)
        status = reply[0]
        if status == b"stale":
            current = Snapshot(version=int(reply[1]), state=reply[3], last_event_id=as_text(reply[2]))
            self._remember(table_id, current, image_of(reply[4]) if len(reply) > 4 and reply[4] else None)
            raise StaleVersion(table_id, expected_version, current.version)
        if status != b"ok":
            self.forget(table_id)
            if status == b"missing":
                raise UnknownTable(table_id)
            raise DuplicateOutboxKey(table_id, as_text(reply[1]))
        version, last_event_id = int(reply[1]), as_text(reply[2])
        # The table may have been in an older store's form, rewritten now: its next change reads it.
        self._committed(table_id, expected_version, Snapshot(version, state, last_event_id), None, outbox_args,
                        int(reply[4]))
        fields = int(reply[6])
        return CommitReceipt(
            version=version,
            previous_event_id=as_text(reply[5]),
            last_event_id=last_event_id,
            events=committed_events(version, encoded_events, last_event_id),
            deadlines=deadlines_of([as_text(field) for field in reply[7:7 + fields]]),
        )

    def _commit_known(self, table_id: str, keys: TableKeys, image: StoredImage, state: bytes, encoded_events: list[Any],
                      deadline_args: list[str], outbox_args: list[Any], counts_outbox: bool) -> CommitReceipt | None:
        """The commit as the new stored string whole, made here from the one this store knows
        (``images.py``); None when the table is in an older store's form (``commit.lua`` then)."""
        sets = int(deadline_args[0])
        deadlines_set, deadlines_clear = deadline_args[1:1 + 2 * sets], deadline_args[2 + 2 * sets:]
        expected_version = image.version
        for _ in range(3):  # a claim or mark by another process since: once more on the table as it is
            after = next_image(image, state, encoded_events, deadlines_set, deadlines_clear, self.stream_maxlen)
            reply = self._run_commit_known(table_id, keys, image, after, outbox_args, bool(encoded_events), counts_outbox)
            status = reply[0]
            if status == b"ok":
                self._committed(table_id, expected_version, Snapshot(after.image.version, state,
                                after.image.last_event_id), after.image, outbox_args, int(reply[1]), int(reply[2]))
                return CommitReceipt(
                    version=after.image.version,
                    previous_event_id=image.last_event_id,
                    last_event_id=after.image.last_event_id,
                    events=committed_events(after.image.version, encoded_events, after.image.last_event_id),
                    deadlines=after.deadlines,
                )
            if status == b"duplicate":
                self.forget(table_id)
                raise DuplicateOutboxKey(table_id, as_text(reply[1]))
            if status == b"legacy":
                return None  # commit.lua rewrites a table in an older form
            if reply[1] is None:
                self.forget(table_id)
                raise UnknownTable(table_id)
            found = image_of(reply[1])
            if found is None:
                return None
            self._remember(table_id, Snapshot(found.version, found.state, found.last_event_id), found)
            if found.version != expected_version:
                raise StaleVersion(table_id, expected_version, found.version)
            image = found
        return None

    def _run_commit_known(self, table_id: str, keys: TableKeys, image: StoredImage, after: NextImage,
                          outbox_args: list[Any], with_events: bool, counts_outbox: bool) -> Any:
        notice = f"{table_id}\n{after.image.last_event_id}" if with_events else ""
        args = [image.prefix, after.image.stored, after.index_entry, *outbox_args, self.outbox_channel, table_id,
                self._listener_channels, notice, self._not_told, int(time.time() * 1000), "1" if counts_outbox else ""]
        if self._indexes_reachable_from_scripts:
            index = self.indexes.keys
            return self._scripts.commit_known(keys=[*keys.all(), keys.watching, index.deadlines, index.outbox],
                                              args=args)
        reply = self._scripts.commit_known(keys=[*keys.all(), keys.watching], args=args)
        if reply[0] == b"ok":  # a cluster: see _run_commit
            earliest = after.index_entry
            self.indexes.note(table_id, IndexEntry(int(earliest) if earliest not in ("", "-") else None,
                                                   max(0, int(reply[1]))))
        return reply

    def _committed(self, table_id: str, expected_version: int, snapshot: Snapshot, image: StoredImage | None,
                   outbox_args: list[Any], pending: int, held: int = -1) -> None:
        """Remember a commit's outcome, and what it tells of the table's outbox (``pending``: its
        entries after the commit, -1 when the commit queued none and left it as it was;
        ``held``: its entries after the commit whatever this one queued, -1 when not counted).

        A ``held`` of nought tells that every entry known here was acknowledged, by whichever
        process, so a press of start that follows knows the last settlement landed without a
        read; a ``held`` short of what is known forgets it (the next question reads)."""
        # What this store knew of the outbox holds only if it was known at the version committed on.
        known = self._known.get(table_id)
        before = self._outbox_known.get(table_id) if known is not None and known.version == expected_version else None
        self._remember(table_id, snapshot, image)
        keys = None if before is None else before | set(outbox_args[1::3])
        count = len(before) if pending < 0 and before is not None else pending
        if held >= 0:
            keys, count = (frozenset(), 0) if held == 0 else (keys, held)
        self._note_outbox(table_id, keys, count)

    def _run_commit(self, table_id: str, keys: TableKeys, args: list[Any]) -> Any:
        if self._indexes_reachable_from_scripts:  # one Redis: the script keeps the indexes exact
            index = self.indexes.keys
            return self._scripts.commit(keys=[*keys.all(), keys.watching, index.deadlines, index.outbox], args=args)
        reply = self._scripts.commit(keys=[*keys.all(), keys.watching], args=args)
        if reply[0] == b"ok":
            # A cluster: the indexes live in other slots. The reply says what they must hold
            # (the earliest deadline -1 when the commit left it as it was).
            earliest = None if reply[3] is None or int(reply[3]) < 0 else int(reply[3])
            self.indexes.note(table_id, IndexEntry(earliest, max(0, int(reply[4]))))
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



