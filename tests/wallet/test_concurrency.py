"""Two workers at once, each on its own connection pool, as two processes would be."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from types import SimpleNamespace
from typing import Any

import pytest
import sqlalchemy as sa

from paiju.wallet import DuplicateUsername, InsufficientFunds, Settlement, Wallet
from paiju.wallet.migrations import MIGRATIONS
from tests.patience import PATIENCE_SECONDS

from .helpers import balances, players, row_count


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Run ``calls`` on threads released together; each one's result or raised exception."""
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], Any]) -> Any:
        barrier.wait()
        try:
            return call()
        except Exception as error:  # noqa: BLE001 - the caller inspects it
            return error

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


@pytest.fixture
def two_wallets(open_wallet: Callable[..., Wallet]) -> tuple[Wallet, Wallet]:
    first, second = open_wallet(), open_wallet()
    first.migrate()
    return first, second


def test_concurrent_deliveries_of_a_settlement_apply_it_once(
    two_wallets: tuple[Wallet, Wallet],
) -> None:
    first, second = two_wallets
    alice, bob = players(first, 2)
    for number in range(6):
        hand = f"hand-{number}"
        first.hold_hand(hand, {alice: 1_000, bob: 1_000})
        lines = [(alice, -300, "stake"), (bob, 290, "pot"), (first.house, 10, "fee")]
        results = at_once(
            partial(first.settle, hand, "zhajinhua", lines),
            partial(second.settle, hand, "zhajinhua", lines),
        )
        assert all(isinstance(result, Settlement) for result in results), results
        assert sorted(result.replayed for result in results) == [False, True]
    assert balances(first, [alice, bob, first.house]) == [18_200, 21_740, 60]
    assert row_count(first, "wallet_hands") == 6
    assert row_count(first, "wallet_settlements") == 18
    assert first.check_balances() == []


def test_a_delivery_racing_an_uncommitted_one_waits_and_finds_it_applied(
    two_wallets: tuple[Wallet, Wallet],
) -> None:
    """The first worker is stopped inside its transaction, after recording the hand, until
    the second one is blocked by it; the second then sees the hand applied, never twice."""
    first, second = two_wallets
    alice, bob = players(first, 2)
    first.hold_hand("hand-1", {alice: 1_000, bob: 1_000})
    lines = [(alice, -500, "stake"), (bob, 500, "pot")]
    first_is_inside = threading.Event()
    integrity_errors: list[str] = []

    @sa.event.listens_for(first.database.engine, "before_cursor_execute")
    def pause_inside(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.startswith("INSERT INTO wallet_settlements"):
            first_is_inside.set()
            wait_until_blocked(first)

    @sa.event.listens_for(second.database.engine, "handle_error")
    def count_conflicts(context: Any) -> None:
        if isinstance(context.sqlalchemy_exception, sa.exc.IntegrityError):
            integrity_errors.append(str(context.original_exception))

    def second_delivery() -> Settlement:
        assert first_is_inside.wait(PATIENCE_SECONDS)
        return second.settle("hand-1", "zhajinhua", lines)

    with ThreadPoolExecutor(2) as pool:
        applied = pool.submit(first.settle, "hand-1", "zhajinhua", lines)
        replayed = pool.submit(second_delivery)
        assert not applied.result(PATIENCE_SECONDS).replayed
        assert replayed.result(PATIENCE_SECONDS).replayed
    assert balances(first, [alice, bob]) == [19_500, 20_500]
    # The second transaction waited on the hand's key, then skipped the hand the first one had
    # recorded and read its settlement back: no duplicate-key error, no retry of the transaction.
    assert integrity_errors == []


def wait_until_blocked(wallet: Wallet, statement: str = "INSERT INTO wallet_hands%") -> None:
    """Return once another connection waits for a lock in ``statement`` (a LIKE pattern;
    PostgreSQL), or after a moment."""
    if not wallet.database.is_postgres:
        time.sleep(0.3)  # SQLite: the other writer is waiting in BEGIN IMMEDIATE by then
        return
    # Autocommit: within one transaction PostgreSQL shows the same activity snapshot each time.
    watcher = sa.create_engine(wallet.database.url, isolation_level="AUTOCOMMIT")
    try:
        with watcher.connect() as conn:
            deadline = time.monotonic() + PATIENCE_SECONDS
            while time.monotonic() < deadline:
                waiting = conn.execute(
                    sa.text(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                        " AND query LIKE :statement"
                    ), {"statement": statement}
                ).scalar_one()
                if waiting:
                    return
                time.sleep(0.01)
    finally:
        watcher.dispose()
    raise AssertionError(f"no connection waited for a lock in {statement!r}")


def test_concurrent_holds_cannot_promise_the_same_coins_twice(
    two_wallets: tuple[Wallet, Wallet],
) -> None:
    first, second = two_wallets
    accounts = players(first, 4)
    for account in accounts:
        results = at_once(
            partial(first.hold, "hand-a", account, 12_000),
            partial(second.hold, "hand-b", account, 12_000),
        )
        assert sum(isinstance(result, InsufficientFunds) for result in results) == 1, results
        assert first.available(account) == 8_000


def test_concurrent_registrations_of_one_name_make_one_account(
    two_wallets: tuple[Wallet, Wallet],
) -> None:
    first, second = two_wallets
    for number in range(4):
        name = f"twin{number}"
        results = at_once(
            partial(first.register, name, "password-123"),
            partial(second.register, name.upper(), "password-456"),
        )
        assert sum(isinstance(result, DuplicateUsername) for result in results) == 1, results
        assert sum(isinstance(result, int) for result in results) == 1
    assert first.total_coins() == 4 * 20_000


def test_concurrent_grants_with_one_key_grant_once(two_wallets: tuple[Wallet, Wallet]) -> None:
    first, second = two_wallets
    [alice] = players(first, 1)
    for number in range(4):
        key = f"daily:{number}"
        results = at_once(
            partial(first.grant, alice, 100, key),
            partial(second.grant, alice, 100, key),
        )
        assert results[0] == results[1]
    assert first.balance(alice) == 20_400


def test_two_processes_migrating_at_once_migrate_once(
    open_wallet: Callable[..., Wallet],
) -> None:
    first, second = open_wallet(), open_wallet()
    results = at_once(first.migrate, second.migrate)
    assert all(isinstance(result, list) for result in results), results
    every_step = [migration.version for migration in MIGRATIONS]
    assert sorted(results, key=len) == [[], every_step], results
    assert row_count(first, "wallet_schema_version") == len(every_step)
    assert row_count(first, "wallet_accounts") == 1


def test_bug_a_hand_s_records_going_in_by_seat_deadlocked_with_a_hold_of_the_same_players(
        wallet: Wallet) -> None:
    # A hold locks its players' accounts in the order of their ids. A hand's records went in by
    # seat, each row locking its account's key as it went: a record of seats (high, low) beside
    # a hold of (low, high) waited in a circle, and PostgreSQL ended one of them ("deadlock
    # detected": the ledger answered the next hand's holds "unavailable").
    if not wallet.database.is_postgres:
        pytest.skip("SQLite has one writer at a time: nothing to wait for in a circle")
    low, high = players(wallet, 2)
    order = SimpleNamespace(hand_id="t1-1", game="zhajinhua", table_id="t1", ended_ms=None,
                            record={"accounts": [str(high), str(low)]}, lines=[(high, 10, "pot"), (low, -10, "stake")])
    holding = sa.create_engine(wallet.database.url)
    try:
        with holding.connect() as conn, conn.begin():
            lock = sa.text("SELECT id FROM wallet_accounts WHERE id = :id FOR UPDATE")
            conn.execute(lock, {"id": low})  # a hold's first account
            with ThreadPoolExecutor(1) as pool:
                keeping = pool.submit(wallet.keep_hand_records, [order])
                wait_until_blocked(wallet, "INSERT INTO wallet_hand_players%")
                conn.execute(lock, {"id": high})  # its second: waited on the record, which waited on it
                conn.commit()
                assert keeping.result(timeout=PATIENCE_SECONDS) == 1
    finally:
        holding.dispose()
    assert [hand.hand_id for hand in wallet.hands_of(low)] == ["t1-1"]
