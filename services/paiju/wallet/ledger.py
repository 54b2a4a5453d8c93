"""The ledger's low level: locking accounts, posting entries, reading entries back.

Every function here runs inside a transaction the caller opened; the caller decides what one
change of coins is. Posting an entry and moving the cached balance always happen together, so
the cached balance equals the sum of the entries after every commit (``check_balances``
verifies it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.database import as_utc
from paiju.wallet.errors import InsufficientFunds, UnknownAccount
from paiju.wallet.model import BalanceMismatch, Entry, Reason
from paiju.wallet.tables import accounts, entries, holds


def coin_sum(column: sa.ColumnElement[int]) -> sa.ColumnElement[int]:
    """The sum of a coin column as a 64-bit integer, 0 over no rows.

    PostgreSQL sums ``bigint`` into ``numeric`` (a ``Decimal`` in Python): coins stay ``int``.
    """
    return sa.cast(sa.func.coalesce(sa.func.sum(column), 0), sa.BigInteger)


def lock_accounts(conn: Connection, account_ids: Iterable[int]) -> dict[int, int]:
    """The balances of ``account_ids``, their rows locked until the transaction ends.

    Rows are locked in id order so that two transactions never wait for each other in a
    circle. An id with no account raises :class:`UnknownAccount`.
    """
    wanted = sorted(set(account_ids))
    rows = conn.execute(
        sa.select(accounts.c.id, accounts.c.balance)
        .where(accounts.c.id.in_(wanted))
        .order_by(accounts.c.id)
        .with_for_update()
    ).all()
    balances = {row.id: row.balance for row in rows}
    for account in wanted:
        if account not in balances:
            raise UnknownAccount(account)
    return balances


def held(conn: Connection, account: int) -> int:
    """The coins of ``account`` under open holds."""
    return conn.execute(
        sa.select(coin_sum(holds.c.amount)).where(
            holds.c.account_id == account
        )
    ).scalar_one()


def require_available(conn: Connection, account: int, balance: int, needed: int) -> None:
    """Raise :class:`InsufficientFunds` unless ``account`` has ``needed`` coins beyond its holds."""
    available = balance - held(conn, account)
    if needed > available:
        raise InsufficientFunds(account, needed, available)


def post(
    conn: Connection,
    *,
    account: int,
    amount: int,
    reason: Reason,
    key: str,
    at: datetime,
    hand_id: str | None = None,
    game: str | None = None,
    detail: str | None = None,
) -> int:
    """Move the account's cached balance by ``amount`` and write the entry saying so; the new
    balance.

    The caller has locked the account and checked that the balance stays at or above zero;
    the table's CHECK constraint refuses it otherwise.
    """
    balance_after = conn.execute(
        accounts.update()
        .where(accounts.c.id == account)
        .values(balance=accounts.c.balance + amount)
        .returning(accounts.c.balance)
    ).scalar_one()
    conn.execute(
        entries.insert().values(
            account_id=account,
            amount=amount,
            reason=reason.value,
            idempotency_key=key,
            hand_id=hand_id,
            game=game,
            detail=detail or None,
            balance_after=balance_after,
            created_at=at,
        )
    )
    return int(balance_after)


def entry_from_row(row: Mapping[str, Any] | sa.Row[Any]) -> Entry:
    """An :class:`Entry` from a row of ``wallet_entries``."""
    data = row._mapping if isinstance(row, sa.Row) else row
    return Entry(
        id=data["id"],
        account=data["account_id"],
        amount=data["amount"],
        reason=Reason(data["reason"]),
        idempotency_key=data["idempotency_key"],
        hand_id=data["hand_id"],
        game=data["game"],
        detail=data["detail"],
        balance_after=data["balance_after"],
        created_at=as_utc(data["created_at"]),
    )


def entries_with_key_prefix(conn: Connection, key: str) -> list[Entry]:
    """The entries whose idempotency key is ``key`` or starts with ``key + '/'``, oldest first."""
    rows = conn.execute(
        sa.select(entries)
        .where(
            sa.or_(
                entries.c.idempotency_key == key,
                entries.c.idempotency_key.startswith(key + "/", autoescape=True),
            )
        )
        .order_by(entries.c.id)
    ).all()
    return [entry_from_row(row) for row in rows]


def check_balances(conn: Connection) -> list[BalanceMismatch]:
    """Every account whose cached balance is not the sum of its entries (none, normally)."""
    sums = (
        sa.select(entries.c.account_id, coin_sum(entries.c.amount).label("total"))
        .group_by(entries.c.account_id)
        .subquery()
    )
    ledger = sa.func.coalesce(sums.c.total, 0)
    rows = conn.execute(
        sa.select(accounts.c.id, accounts.c.balance, ledger.label("ledger"))
        .select_from(accounts.outerjoin(sums, sums.c.account_id == accounts.c.id))
        .where(accounts.c.balance != ledger)
        .order_by(accounts.c.id)
    ).all()
    return [BalanceMismatch(row.id, row.balance, row.ledger) for row in rows]
