"""Pooled PostgreSQL connections: checked before use only after sitting idle, replaced when dead."""

from __future__ import annotations

import psycopg
import pytest
import sqlalchemy as sa

from paiju.wallet.database import Database
from tests.wallet.conftest import PostgresSchemas


@pytest.fixture
def postgres_url(postgres_schemas: PostgresSchemas) -> str:
    return postgres_schemas.new_url()


def _counting_pings(database: Database) -> list[object]:
    """The connections ``database``'s pool pings from now on, in order."""
    pinged: list[object] = []
    dialect = database.engine.dialect
    original = dialect.do_ping

    def counted(dbapi_connection: object) -> bool:
        pinged.append(dbapi_connection)
        return original(dbapi_connection)

    dialect.do_ping = counted  # type: ignore[method-assign]
    return pinged


def _backend_pid(database: Database) -> int:
    with database.read() as conn:
        return conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()


def _terminate(database_url: str, pid: int) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (pid,))


def test_a_connection_used_a_moment_ago_is_not_pinged_again(postgres_url: str) -> None:
    database = Database(postgres_url, ping_after_idle_seconds=3600)
    pings = _counting_pings(database)
    try:
        first = _backend_pid(database)
        assert len(pings) == 1  # a new connection is checked once
        assert _backend_pid(database) == first
        assert _backend_pid(database) == first
        assert len(pings) == 1
    finally:
        database.dispose()


def test_a_dead_connection_idle_past_the_bound_is_replaced_before_use(
    postgres_url: str, database_url: str
) -> None:
    database = Database(postgres_url, ping_after_idle_seconds=0)
    pings = _counting_pings(database)
    try:
        first = _backend_pid(database)
        _terminate(database_url, first)
        second = _backend_pid(database)  # the ping found it dead: no error reaches the caller
        assert second != first
        assert len(pings) >= 2
    finally:
        database.dispose()


def test_a_connection_killed_while_in_recent_use_fails_once_then_the_pool_recovers(
    postgres_url: str, database_url: str
) -> None:
    # The price of not pinging busy connections, and its bound: one failed transaction, which
    # the wallet answers ``ledger_unavailable`` and its callers retry.
    database = Database(postgres_url, ping_after_idle_seconds=3600)
    try:
        first = _backend_pid(database)
        _terminate(database_url, first)
        with pytest.raises(sa.exc.OperationalError):
            _backend_pid(database)
        assert _backend_pid(database) != first
    finally:
        database.dispose()
