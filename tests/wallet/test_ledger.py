"""Grants, transfers, the cached balance against the ledger, and the database's own guards."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from paiju.wallet import (
    BalanceMismatch,
    IdempotencyConflict,
    InsufficientFunds,
    Reason,
    UnknownAccount,
    Wallet,
)

from .helpers import execute_raw, players, row_count


def test_a_grant_is_applied_once_per_key(wallet: Wallet) -> None:
    [alice] = players(wallet, 1)
    first = wallet.grant(alice, 500, "grant:daily:1")
    again = wallet.grant(alice, 500, "grant:daily:1")
    assert first == again
    assert (first.amount, first.reason, first.balance_after) == (500, Reason.GRANT, 20_500)
    assert wallet.balance(alice) == 20_500
    assert wallet.grants_total() == 20_500 == wallet.total_coins()


def test_a_key_used_again_for_another_change_is_a_conflict(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    wallet.grant(alice, 500, "promo")
    with pytest.raises(IdempotencyConflict):
        wallet.grant(alice, 600, "promo")
    with pytest.raises(IdempotencyConflict):
        wallet.grant(bob, 500, "promo")
    with pytest.raises(IdempotencyConflict):
        wallet.transfer(alice, bob, 500, "promo")
    with pytest.raises(IdempotencyConflict):
        wallet.grant(alice, 1, f"grant:signup:{alice}")
    assert wallet.balance(alice) == 20_500 and wallet.balance(bob) == 20_000


def test_a_transfer_moves_coins_once_per_key(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    debit, credit = wallet.transfer(alice, bob, 1_500, "gift-1")
    assert (debit.account, debit.amount, debit.reason) == (alice, -1_500, Reason.TRANSFER)
    assert (credit.account, credit.amount, credit.reason) == (bob, 1_500, Reason.TRANSFER)
    assert wallet.transfer(alice, bob, 1_500, "gift-1") == (debit, credit)
    assert (wallet.balance(alice), wallet.balance(bob)) == (18_500, 21_500)
    with pytest.raises(IdempotencyConflict):
        wallet.transfer(alice, bob, 1_000, "gift-1")
    assert wallet.total_coins() == wallet.grants_total()


def test_a_transfer_cannot_spend_held_or_missing_coins(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    wallet.hold("hand-1", alice, 15_000)
    with pytest.raises(InsufficientFunds) as raised:
        wallet.transfer(alice, bob, 5_001, "too-much")
    assert (raised.value.account, raised.value.needed, raised.value.available) == (
        alice,
        5_001,
        5_000,
    )
    wallet.transfer(alice, bob, 5_000, "all-that-is-free")
    assert (wallet.balance(alice), wallet.available(alice)) == (15_000, 0)
    assert row_count(wallet, "wallet_entries") == 4  # two grants, one debit, one credit


@pytest.mark.parametrize(
    ("source", "target", "amount", "key", "error", "message"),
    [
        (1, 1, 10, "k", ValueError, "two different accounts"),
        (1, 2, 0, "k", ValueError, "above zero"),
        (1, 2, -5, "k", ValueError, "above zero"),
        (1, 2, True, "k", TypeError, "whole number"),
        (1, 2, 1.5, "k", TypeError, "whole number"),
        (1, 2, 10, "", ValueError, "idempotency key has 1 to 200"),
        ("1", 2, 10, "k", TypeError, "whole number"),
    ],
)
def test_bad_transfers_are_refused(
    wallet: Wallet,
    source: object,
    target: object,
    amount: object,
    key: object,
    error: type[Exception],
    message: str,
) -> None:
    with pytest.raises(error, match=message):
        wallet.transfer(source, target, amount, key)  # type: ignore[arg-type]


def test_bad_grants_are_refused(wallet: Wallet) -> None:
    [alice] = players(wallet, 1)
    with pytest.raises(ValueError, match="above zero"):
        wallet.grant(alice, 0, "zero")
    with pytest.raises(ValueError, match="above zero"):
        wallet.grant(alice, -10, "negative")
    with pytest.raises(UnknownAccount):
        wallet.grant(alice + 1000, 10, "nobody")
    assert wallet.grants_total() == 20_000


def test_unknown_accounts_are_named(wallet: Wallet) -> None:
    with pytest.raises(UnknownAccount, match="no account 999"):
        wallet.balance(999)
    with pytest.raises(UnknownAccount):
        wallet.available(999)
    with pytest.raises(UnknownAccount):
        wallet.history(999)
    with pytest.raises(UnknownAccount):
        wallet.username(999)
    with pytest.raises(UnknownAccount):
        wallet.transfer(wallet.house, 999, 1, "nowhere")


def test_the_cached_balance_equals_the_sum_of_entries_and_drift_is_caught(
    wallet: Wallet,
) -> None:
    alice, bob = players(wallet, 2)
    wallet.grant(alice, 700, "g")
    wallet.transfer(alice, bob, 300, "t")
    wallet.hold("h", bob, 1_000)
    wallet.settle("h", "zhajinhua", [(bob, -1_000, "stake"), (alice, 990, "pot"),
                                     (wallet.house, 10, "fee")])
    for account in (alice, bob, wallet.house):
        assert wallet.balance(account) == wallet.ledger_balance(account)
        assert wallet.balance(account) == wallet.history(account, limit=1)[0].balance_after
    assert wallet.check_balances() == []

    execute_raw(wallet, "UPDATE wallet_accounts SET balance = balance + 5 WHERE id = :id", id=bob)
    assert wallet.check_balances() == [
        BalanceMismatch(bob, wallet.ledger_balance(bob) + 5, wallet.ledger_balance(bob))
    ]


def test_the_database_refuses_a_negative_cached_balance(wallet: Wallet) -> None:
    [alice] = players(wallet, 1)
    with pytest.raises(sa.exc.IntegrityError):
        execute_raw(wallet, "UPDATE wallet_accounts SET balance = -1 WHERE id = :id", id=alice)
    assert wallet.balance(alice) == 20_000


def test_the_database_refuses_an_unknown_reason_and_a_reused_key(wallet: Wallet) -> None:
    [alice] = players(wallet, 1)
    insert = (
        "INSERT INTO wallet_entries (account_id, amount, reason, idempotency_key,"
        " balance_after, created_at) VALUES (:id, 1, :reason, :key, 0, CURRENT_TIMESTAMP)"
    )
    with pytest.raises(sa.exc.IntegrityError):
        execute_raw(wallet, insert, id=alice, reason="gift", key="raw-1")
    with pytest.raises(sa.exc.IntegrityError):
        execute_raw(wallet, insert, id=alice, reason="grant", key=f"grant:signup:{alice}")
