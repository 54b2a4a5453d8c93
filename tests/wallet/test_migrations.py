"""The schema's migration steps, the version table, and the URLs the wallet accepts."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

from paiju.wallet import SchemaError, Wallet
from paiju.wallet.database import normalize_url
from paiju.wallet.migrations import MIGRATIONS, current_version
from paiju.wallet.tables import metadata

from .conftest import FAST_HASHER
from .helpers import execute_raw, players, row_count


def test_migrate_applies_each_step_once(open_wallet: Callable[..., Wallet]) -> None:
    wallet = open_wallet()
    assert current_version(wallet.database) == 0
    assert wallet.migrate() == [step.version for step in MIGRATIONS]
    assert wallet.migrate() == []
    assert current_version(wallet.database) == MIGRATIONS[-1].version
    assert row_count(wallet, "wallet_schema_version") == len(MIGRATIONS)
    assert row_count(wallet, "wallet_accounts") == 1


def test_migrating_again_keeps_the_data(wallet: Wallet) -> None:
    [alice] = players(wallet, 1)
    wallet.migrate()
    assert wallet.balance(alice) == 20_000
    assert row_count(wallet, "wallet_accounts") == 2


def test_the_migrated_database_has_the_tables_the_queries_use(wallet: Wallet) -> None:
    inspector = sa.inspect(wallet.database.engine)
    for table in metadata.sorted_tables:
        columns = {column["name"] for column in inspector.get_columns(table.name)}
        assert columns == set(table.columns.keys()), table.name


def test_a_database_from_a_newer_release_is_refused(wallet: Wallet) -> None:
    execute_raw(
        wallet,
        "INSERT INTO wallet_schema_version (version, name, applied_at)"
        " VALUES (99, 'from the future', CURRENT_TIMESTAMP)",
    )
    with pytest.raises(SchemaError, match=r"versions \[99\]"):
        wallet.migrate()


def test_a_wallet_used_before_migrate_says_so(open_wallet: Callable[..., Wallet]) -> None:
    wallet = open_wallet()
    with pytest.raises(SchemaError, match="run migrate"):
        _ = wallet.house


@pytest.mark.parametrize(
    ("url", "driver"),
    [
        ("postgresql://postgres@127.0.0.1:5432/test", "postgresql+psycopg"),
        ("postgres://postgres@127.0.0.1/test", "postgresql+psycopg"),
        ("postgresql+psycopg://postgres@127.0.0.1/test", "postgresql+psycopg"),
        ("sqlite:///tmp/wallet.db", "sqlite"),
        ("sqlite://", "sqlite"),
    ],
)
def test_urls_are_normalised_to_psycopg(url: str, driver: str) -> None:
    assert normalize_url(url).drivername == driver


@pytest.mark.parametrize(
    "url", ["mysql://root@127.0.0.1/db", "not a url", "postgresql+asyncpg://x/y"]
)
def test_other_databases_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match="SQLite or PostgreSQL|not a database URL"):
        Wallet(url)


def test_an_in_memory_wallet_works_across_threads() -> None:
    wallet = Wallet("sqlite://", password_hasher=FAST_HASHER)
    wallet.migrate()
    with ThreadPoolExecutor(4) as pool:
        accounts = list(pool.map(lambda n: wallet.register(f"p{n}", "password-123"), range(8)))
    assert len(set(accounts)) == 8
    assert wallet.total_coins() == 8 * 20_000
    wallet.close()
