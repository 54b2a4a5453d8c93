"""Grants and transfers: changes of coins outside hands, each made once per idempotency key.

A grant is one entry under its key; a transfer is two, under ``<key>/debit`` and
``<key>/credit``. Asking again with the same key and the same change returns what was done;
the same key for another change is an :class:`IdempotencyConflict`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.engine import Connection

from paiju.wallet.errors import IdempotencyConflict
from paiju.wallet.ledger import entries_with_key_prefix, lock_accounts, post, require_available
from paiju.wallet.model import Entry, Reason


def apply_grant(conn: Connection, account: int, amount: int, key: str, at: datetime) -> Entry:
    """Give ``account`` ``amount`` new coins, once for ``key``."""
    existing = entries_with_key_prefix(conn, key)
    if existing:
        done = existing[0]
        if len(existing) == 1 and (done.account, done.amount, done.reason) == (
            account,
            amount,
            Reason.GRANT,
        ):
            return done
        raise IdempotencyConflict(key)
    lock_accounts(conn, [account])
    post(conn, account=account, amount=amount, reason=Reason.GRANT, key=key, at=at)
    return entries_with_key_prefix(conn, key)[0]


def apply_transfer(
    conn: Connection, source: int, target: int, amount: int, key: str, at: datetime, detail: str | None = None
) -> tuple[Entry, Entry]:
    """Move ``amount`` coins from ``source`` (out of its available coins) to ``target``, once
    for ``key``; the debit and credit entries (both carrying ``detail``, e.g. why an operator
    adjusted an account)."""
    wanted = [(source, -amount, Reason.TRANSFER), (target, amount, Reason.TRANSFER)]
    existing = entries_with_key_prefix(conn, key)
    if existing:
        if [(entry.account, entry.amount, entry.reason) for entry in existing] == wanted:
            return existing[0], existing[1]
        raise IdempotencyConflict(key)
    balances = lock_accounts(conn, [source, target])
    require_available(conn, source, balances[source], amount)
    post(conn, account=source, amount=-amount, reason=Reason.TRANSFER, key=f"{key}/debit", at=at, detail=detail)
    post(conn, account=target, amount=amount, reason=Reason.TRANSFER, key=f"{key}/credit", at=at, detail=detail)
    debit, credit = entries_with_key_prefix(conn, key)
    return debit, credit
