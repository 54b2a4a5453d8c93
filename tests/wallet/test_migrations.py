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


# --- a deployment: one Job migrates, every process waits for it -------------------------------


class _Clock:
    """Time that passes only when the waiter sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_a_process_told_to_wait_takes_the_schema_once_it_is_migrated(open_wallet: Callable[..., Wallet]) -> None:
    from paiju.wallet.migrations import latest_version, wait_for_schema

    wallet = open_wallet()
    clock = _Clock()
    migrated_at = 3.0

    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        if clock.now >= migrated_at and current_version(wallet.database) == 0:
            wallet.migrate()  # the Job, meanwhile

    assert wait_for_schema(wallet.database, 60, clock=clock, sleep=sleep) == latest_version()
    assert migrated_at <= clock.now < 60


def test_a_process_told_to_wait_gives_up_with_the_reason_and_never_migrates(open_wallet: Callable[..., Wallet]) -> None:
    from paiju.wallet.migrations import wait_for_schema

    wallet = open_wallet()
    clock = _Clock()
    with pytest.raises(SchemaError, match="run `paiju migrate`"):
        wait_for_schema(wallet.database, 30, clock=clock, sleep=clock.sleep)
    assert clock.now >= 30
    assert current_version(wallet.database) == 0


def test_a_schema_newer_than_the_release_is_refused_at_once(open_wallet: Callable[..., Wallet]) -> None:
    from paiju.wallet.migrations import Migration, wait_for_schema

    wallet = open_wallet()
    newer = (*MIGRATIONS, Migration(MIGRATIONS[-1].version + 1, "a later release's step", lambda conn: None))
    from paiju.wallet.migrations import migrate

    migrate(wallet.database, newer)
    clock = _Clock()
    with pytest.raises(SchemaError, match="newer than this release"):
        wait_for_schema(wallet.database, 30, clock=clock, sleep=clock.sleep)
    assert clock.now == 0


def test_paiju_migrate_brings_the_database_to_the_release_and_says_so(tmp_path, monkeypatch, capsys) -> None:
    from paiju.cli import main
    from paiju.wallet.database import Database
    from paiju.wallet.migrations import latest_version

    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    monkeypatch.setenv("DATABASE_URL", url)
    assert main(["migrate"]) == 0
    assert "to " + str(latest_version()) in capsys.readouterr().out
    assert main(["migrate"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    database = Database(url)
    try:
        assert current_version(database) == latest_version()
    finally:
        database.dispose()
