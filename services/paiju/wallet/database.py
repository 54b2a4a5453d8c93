"""One SQL database behind one URL: SQLite (a file, or memory for tests) or PostgreSQL.

The wallet runs the same SQLAlchemy Core statements on both. What differs is set up here:

* PostgreSQL goes through psycopg 3 (a plain ``postgresql://`` URL is rewritten), and a
  transaction locks the account rows it changes with ``SELECT … FOR UPDATE``.
* SQLite has no row locks, so every writing transaction starts with ``BEGIN IMMEDIATE``: writers
  take turns, and a reader never has to upgrade its lock half-way. Foreign keys are switched on
  and a busy writer is waited for rather than failed.

>>> normalize_url("postgresql://postgres@127.0.0.1/test").drivername
'postgresql+psycopg'
>>> normalize_url("sqlite://").drivername
'sqlite'
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.pool import StaticPool

_POSTGRES_DRIVERS = {"postgres", "postgresql", "postgresql+psycopg"}
_SQLITE_DRIVERS = {"sqlite", "sqlite+pysqlite"}
_READ_ONLY = "paiju_wallet_read_only"
BUSY_TIMEOUT_MS = 30_000
PING_AFTER_IDLE_SECONDS = 5.0
"""A pooled PostgreSQL connection idle this long is checked before it is used again."""
_IDLE_SINCE = "paiju_idle_since"


def normalize_url(url: str | URL) -> URL:
    """The URL the engine is built from: PostgreSQL always through psycopg 3.

    Anything but SQLite or PostgreSQL is refused with a ``ValueError``.
    """
    try:
        parsed = sa.make_url(url)
    except sa.exc.ArgumentError as error:
        raise ValueError(f"not a database URL: {url!r}") from error
    if parsed.drivername in _POSTGRES_DRIVERS:
        return parsed.set(drivername="postgresql+psycopg")
    if parsed.drivername in _SQLITE_DRIVERS:
        return parsed
    raise ValueError(
        f"the wallet stores coins in SQLite or PostgreSQL, not {parsed.drivername!r} "
        "(use sqlite:///path or postgresql://user@host/db)"
    )


def in_memory(url: URL) -> bool:
    """Whether ``url`` (normalized) is a SQLite database that lives in one process's memory."""
    return not url.drivername.startswith("postgresql") and url.database in (None, "", ":memory:")


class Database:
    """An engine plus the transactions the wallet runs on it."""

    def __init__(self, url: str | URL, ping_after_idle_seconds: float = PING_AFTER_IDLE_SECONDS,
                 **engine_options: Any) -> None:
        self.url = normalize_url(url)
        self.is_postgres = self.url.drivername.startswith("postgresql")
        self.in_memory = in_memory(self.url)
        options: dict[str, Any] = {"future": True}
        if self.in_memory:
            # One shared connection, or every connection would see its own empty database.
            options["poolclass"] = StaticPool
            options["connect_args"] = {"check_same_thread": False}
        elif not self.is_postgres:
            options["connect_args"] = {"check_same_thread": False}
        options.update(engine_options)
        self.engine: Engine = sa.create_engine(self.url, **options)
        if self.is_postgres and not options.get("pool_pre_ping"):
            _ping_after_idle(self.engine, ping_after_idle_seconds)
        # The shared in-memory connection can run one transaction at a time.
        self._memory_lock = threading.RLock() if self.in_memory else None
        if not self.is_postgres:
            _configure_sqlite(self.engine, file_backed=not self.in_memory)

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A transaction that may change rows; committed when the block ends without error."""
        with self._serialised(), self.engine.connect() as conn, conn.begin():
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A transaction that only reads (on SQLite it does not block writers)."""
        with self._serialised(), self.engine.connect() as conn:
            conn.execution_options(**{_READ_ONLY: True})
            with conn.begin():
                yield conn

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def _serialised(self) -> AbstractContextManager[Any]:
        return self._memory_lock if self._memory_lock is not None else nullcontext()


def _ping_after_idle(engine: Engine, idle_seconds: float) -> None:
    """Check a pooled connection before use only when it has sat idle ``idle_seconds`` or more:
    one that just finished a transaction is alive, and asking again (SQLAlchemy's
    ``pool_pre_ping``) cost every transaction a round trip, 45–100 µs of the ledger's CPU.

    A connection broken while it was in use recently (the server restarted within those
    seconds) fails its next statement instead; SQLAlchemy then discards every connection of
    the pool, and the call is answered ``ledger_unavailable``, which its callers retry.
    """

    @sa.event.listens_for(engine, "checkin")
    def _idle_from_now(_dbapi_connection: Any, record: Any) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()

    @sa.event.listens_for(engine, "checkout")
    def _alive_or_replaced(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.pop(_IDLE_SINCE, None)
        if idle_since is not None and time.monotonic() - idle_since < idle_seconds:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:  # any failure of the ping: the pool connects anew
            raise sa.exc.DisconnectionError(f"a pooled connection failed its ping: {error!r}") from error


def _configure_sqlite(engine: Engine, *, file_backed: bool) -> None:
    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's begin event issue BEGIN itself instead of pysqlite guessing.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if file_backed:
            _switch_to_wal(cursor)
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        read_only = conn.get_execution_options().get(_READ_ONLY, False)
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def _switch_to_wal(cursor: Any) -> None:
    """Turn on write-ahead logging (readers then never wait for a writer).

    Switching a new file needs it to itself for a moment and SQLite does not wait for that
    (no busy handler), so two processes opening a new file at once retry here.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def as_utc(moment: datetime) -> datetime:
    """A timestamp read back from either database, as an aware UTC datetime (SQLite returns
    naive ones)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
