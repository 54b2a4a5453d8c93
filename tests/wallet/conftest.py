"""Wallet test set-up: every contract test runs on SQLite (a temp file) and on PostgreSQL.

PostgreSQL tests get a fresh schema each (``wallet_test_<run>_<n>``, found through
``search_path`` in the URL), all dropped when the session ends.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa

from paiju.wallet import PasswordHasher, Wallet

# Tests hash many passwords: a cheap cost keeps them fast (one test checks the real default).
FAST_HASHER = PasswordHasher(n=2**4)


class PostgresSchemas:
    """Hands out fresh schemas in the test database and drops them all at the end."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.prefix = f"wallet_test_{secrets.token_hex(4)}"
        self.counter = itertools.count(1)
        self.created: list[str] = []

    def new_url(self) -> str:
        schema = f"{self.prefix}_{next(self.counter)}"
        with psycopg.connect(self.database_url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        self.created.append(schema)
        url = sa.make_url(self.database_url)
        return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
            hide_password=False
        )

    def drop_all(self) -> None:
        with psycopg.connect(self.database_url, autocommit=True) as conn:
            for schema in self.created:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(scope="session")
def postgres_schemas(database_url: str) -> Iterator[PostgresSchemas]:
    schemas = PostgresSchemas(database_url)
    yield schemas
    schemas.drop_all()


@pytest.fixture(params=["sqlite", "postgresql"])
def wallet_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of an empty database of each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'wallet.db'}"
    schemas: PostgresSchemas = request.getfixturevalue("postgres_schemas")
    return schemas.new_url()


@pytest.fixture
def open_wallet(wallet_url: str) -> Iterator[Callable[..., Wallet]]:
    """Opens wallets (not migrated) on the test's database; all are closed afterwards."""
    opened: list[Wallet] = []

    def open_(**options: object) -> Wallet:
        options.setdefault("password_hasher", FAST_HASHER)
        wallet = Wallet(wallet_url, **options)  # type: ignore[arg-type]
        opened.append(wallet)
        return wallet

    yield open_
    for wallet in opened:
        wallet.close()


@pytest.fixture
def wallet(open_wallet: Callable[..., Wallet]) -> Wallet:
    """A migrated wallet with the default starting grant."""
    opened = open_wallet()
    opened.migrate()
    return opened
