"""What the table store refuses, each as its own exception so callers can react precisely."""

from __future__ import annotations


class TableStoreError(Exception):
    """Base of every refusal of the table store (bad input raises TypeError/ValueError)."""


class UnknownTable(TableStoreError, LookupError):
    """The table does not exist (never created, or deleted)."""

    def __init__(self, table_id: str) -> None:
        super().__init__(f"table {table_id!r} does not exist")
        self.table_id = table_id


class TableExists(TableStoreError):
    """``create`` was asked for a table id that is already live."""

    def __init__(self, table_id: str, version: int) -> None:
        super().__init__(f"table {table_id!r} already exists (at version {version})")
        self.table_id = table_id
        self.version = version


class StaleVersion(TableStoreError):
    """A commit expected a version that is no longer current; nothing was changed.

    The caller lost a race: reload (``current_version`` says where the table is now) and retry.
    """

    def __init__(self, table_id: str, expected_version: int, current_version: int) -> None:
        super().__init__(
            f"table {table_id!r} is at version {current_version}, "
            f"not the expected {expected_version}: reload and retry"
        )
        self.table_id = table_id
        self.expected_version = expected_version
        self.current_version = current_version


class DuplicateOutboxKey(TableStoreError):
    """A commit tried to queue an outbox key that is pending or was recently acknowledged.

    The whole commit was refused; nothing was changed.
    """

    def __init__(self, table_id: str, key: str) -> None:
        super().__init__(f"outbox key {key!r} of table {table_id!r} was already added")
        self.table_id = table_id
        self.key = key


class EventsTrimmed(TableStoreError):
    """The reader resumes from an event id older than the table's retained stream.

    Events after ``after_id`` were trimmed away, so the reader cannot catch up from the stream:
    it must load a fresh snapshot (``TableStore.load``) and read on from its ``last_event_id``.
    """

    def __init__(self, table_id: str, after_id: str, trimmed_through: str) -> None:
        super().__init__(
            f"events of table {table_id!r} after {after_id} were trimmed "
            f"(through {trimmed_through}): load a fresh snapshot and resume from its last_event_id"
        )
        self.table_id = table_id
        self.after_id = after_id
        self.trimmed_through = trimmed_through
