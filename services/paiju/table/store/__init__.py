"""Storage of live tables in Redis: versioned state, per-seat event streams, deadlines, outbox.

``TableStore`` is the whole surface; the table service calls it, the watchdog lists and claims
deadlines through it, the settlement worker drains its outbox. It works the same on Redis,
Redis Cluster (every key of a table shares the ``{table_id}`` hash tag) and fakeredis.
"""

from .errors import (
    DuplicateOutboxKey,
    EventsTrimmed,
    StaleVersion,
    TableExists,
    TableStoreError,
    UnknownTable,
)
from .records import (
    ALL_SEATS,
    CommitReceipt,
    Deadline,
    DueDeadline,
    MemoryUsage,
    OutboxEntry,
    SeatFilter,
    Snapshot,
    StoredEvent,
    TableChange,
    parse_commit_notice,
    parse_settled_notice,
)
from .store import DEFAULT_ACKED_OUTBOX_MEMORY, DEFAULT_STREAM_MAXLEN, TableStore

__all__ = [
    "ALL_SEATS",
    "DEFAULT_ACKED_OUTBOX_MEMORY",
    "DEFAULT_STREAM_MAXLEN",
    "CommitReceipt",
    "Deadline",
    "DueDeadline",
    "DuplicateOutboxKey",
    "EventsTrimmed",
    "MemoryUsage",
    "OutboxEntry",
    "SeatFilter",
    "Snapshot",
    "StaleVersion",
    "StoredEvent",
    "TableChange",
    "TableExists",
    "TableStore",
    "TableStoreError",
    "UnknownTable",
    "parse_commit_notice",
    "parse_settled_notice",
]
