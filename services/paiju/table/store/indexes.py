"""The global indexes: which tables have deadlines, which have pending outbox entries.

On a single Redis the scripts that change a table's deadlines or outbox (commit, claim,
acknowledgement) write its entries themselves, exact, in the same step. Under Redis Cluster a
table's Lua script may only touch keys of its own slot, so these two sorted sets are updated
*after* each change, from what the script answered or from the table's own keys (the truth):

* ``sync(table_id)`` reads the table's truth (its state key, which holds its deadlines; the
  outbox) in one transaction, writes the index entries it
  implies, then reads the truth again and repeats if it changed meanwhile. Whichever sync writes
  last has therefore written what was true after every change it could have missed, and every
  later change brings its own sync, so concurrent commits cannot leave a stale entry behind.
* ``repair()`` SCANs every per-table key and syncs each table found, plus every table the
  indexes name; it rebuilds indexes that were lost (deleted, or never written because a
  process died between its commit and its sync).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .keys import IndexKeys, TableKeys, table_id_of_key, table_key_pattern
from .records import Deadline, deadlines_of, decode_table_state

log = logging.getLogger(__name__)

SYNC_ATTEMPTS = 8


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """What the indexes should say about one table."""

    earliest_deadline_ms: int | None
    outbox_pending: int


class GlobalIndexes:
    """Keeps ``prefix:index:deadlines`` and ``prefix:index:outbox`` in line with the tables."""

    def __init__(self, client: Any, prefix: str) -> None:
        self._client = client
        self._prefix = prefix
        self.keys = IndexKeys.of(prefix)

    def truth(self, table_id: str) -> IndexEntry:
        """What the table's own keys say, read atomically (one slot, one transaction)."""
        keys = TableKeys.of(self._prefix, table_id)
        pipe = self._client.pipeline(transaction=True)
        pipe.get(keys.state)
        pipe.hgetall(keys.deadlines)
        pipe.hlen(keys.outbox)
        state, hashed, pending = pipe.execute(raise_on_error=False)
        if isinstance(pending, Exception):
            raise pending
        deadlines: tuple[Deadline, ...] = ()
        if isinstance(state, bytes):
            deadlines = decode_table_state(state).deadlines or ()
        if state is not None and not deadlines:
            # A table an older store wrote (its state a hash, or without deadlines): its hash.
            # (redis-py 7.0 answers HGETALL in a cluster's transaction unparsed: a flat list.)
            flat = hashed if isinstance(hashed, list) else [raw for pair in hashed.items() for raw in pair]
            deadlines = deadlines_of([raw.decode() for raw in flat])
        earliest = min((deadline.due_ms for deadline in deadlines), default=None)
        return IndexEntry(earliest_deadline_ms=earliest, outbox_pending=int(pending))

    def _write(self, table_id: str, entry: IndexEntry) -> None:
        # Not a transaction: the two indexes may sit on different cluster nodes.
        pipe = self._client.pipeline(transaction=False)
        if entry.earliest_deadline_ms is None:
            pipe.zrem(self.keys.deadlines, table_id)
        else:
            pipe.zadd(self.keys.deadlines, {table_id: entry.earliest_deadline_ms})
        if entry.outbox_pending == 0:
            pipe.zrem(self.keys.outbox, table_id)
        else:
            pipe.zadd(self.keys.outbox, {table_id: entry.outbox_pending})
        pipe.execute()

    def note(self, table_id: str, entry: IndexEntry) -> None:
        """After a commit under Redis Cluster: the earliest deadline and the pending outbox
        entries the table had once it committed, in one round trip.

        Other commits may have landed since, so the deadline index only ever moves earlier here
        (ZADD LT) and nothing is removed: it may run ahead of the truth but never behind it. A
        table listed too early is put right by ``sync`` when its listing finds nothing due, and a
        deadline is never late.
        """
        pipe = self._client.pipeline(transaction=False)
        if entry.earliest_deadline_ms is not None:
            pipe.zadd(self.keys.deadlines, {table_id: entry.earliest_deadline_ms}, lt=True)
        if entry.outbox_pending:
            # Only listed here; the count (the listing's order) is the sync's to keep exact.
            pipe.zadd(self.keys.outbox, {table_id: entry.outbox_pending}, nx=True)
        if pipe:
            pipe.execute()

    def sync(self, table_id: str) -> IndexEntry:
        """Make the index entries of ``table_id`` match its keys; returns what was written."""
        entry = self.truth(table_id)
        for _ in range(SYNC_ATTEMPTS):
            self._write(table_id, entry)
            again = self.truth(table_id)
            if again == entry:
                return entry
            entry = again
        # Only under a storm of commits on one table; each of them syncs after us, and the
        # repair scan catches anything left: nothing for an operator to do, so not a warning.
        log.info(
            "index sync of table %s kept changing after %d attempts", table_id, SYNC_ATTEMPTS
        )
        return entry

    def stored_table_ids(self) -> Iterator[str]:
        """Every table id that has at least one key, found by SCAN (each id once)."""
        seen: set[str] = set()
        for raw in self._client.scan_iter(match=table_key_pattern(self._prefix), count=500):
            key = raw.decode() if isinstance(raw, bytes) else raw
            table_id = table_id_of_key(self._prefix, key)
            if table_id is not None and table_id not in seen:
                seen.add(table_id)
                yield table_id

    def indexed_table_ids(self) -> set[str]:
        """Every table id the indexes currently name."""
        names: set[str] = set()
        for key in (self.keys.deadlines, self.keys.outbox):
            names.update(raw.decode() for raw, _ in self._client.zscan_iter(key, count=500))
        return names

    def repair(self) -> int:
        """Rebuild both indexes from the per-table keys; returns how many tables were synced.

        Safe to run at any time and on any replica, alongside live traffic.
        """
        tables = set(self.stored_table_ids()) | self.indexed_table_ids()
        for table_id in sorted(tables):
            self.sync(table_id)
        return len(tables)
