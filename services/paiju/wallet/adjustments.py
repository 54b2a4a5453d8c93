"""An operator's adjustment of an account's coins: a transfer with the house, so that the coins
of all accounts together never change (the house pays what a player is given and keeps what is
taken), made once per key and carrying the operator's reason in the entries' detail."""

from __future__ import annotations

from paiju.wallet.model import Entry
from paiju.wallet.payments import apply_transfer
from paiju.wallet.store import Wallet
from paiju.wallet.validation import check_int, check_key

DETAIL_CHARS = 100
"""What the ledger's detail column holds."""


def adjust_coins(wallet: Wallet, account: int, amount: int, key: str, reason: str) -> Entry:
    """Give ``account`` ``amount`` coins from the house (taken back to it when negative), once
    for ``key``; the account's entry. The house, like a player, never goes below zero:
    :class:`~paiju.wallet.errors.InsufficientFunds` names whichever side lacks the coins."""
    check_int(account, "an account id")
    check_int(amount, "an adjustment")
    if amount == 0:
        raise ValueError("an adjustment moves some coins, not 0")
    check_key(key)
    house = wallet.house
    if account == house:
        raise ValueError("the house is not adjusted: it is the other side of every adjustment")
    source, target = (house, account) if amount > 0 else (account, house)
    detail = f"adjustment: {reason}"[:DETAIL_CHARS]
    # The wallet's own way of writing under a unique key (a concurrent repeat finds the first).
    debit, credit = wallet._write_racing_keys(
        lambda conn: apply_transfer(conn, source, target, abs(amount), key, wallet.clock(), detail))
    wallet._announce([account])  # the tables' board of coins hears of it, as of any change
    return credit if amount > 0 else debit
