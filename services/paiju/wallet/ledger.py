"""The ledger's low level: locking accounts, posting entries, reading entries back.

Every function here runs inside a transaction the caller opened; the caller decides what one
change of coins is. Posting an entry and moving the cached balance always happen together, so
the cached balance equals the sum of the entries after every commit (``check_balances``
verifies it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
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


# The per-hand statements are built once: building one (and its cache key) per call cost more
# CPU than running it. Lists of ids go through expanding parameters.
_LOCK_ACCOUNTS = (
    sa.select(accounts.c.id, accounts.c.balance)
    .where(accounts.c.id.in_(sa.bindparam("ids", expanding=True)))
    .order_by(accounts.c.id)
    .with_for_update()
)
_HELD_BY_ACCOUNT = (
    sa.select(holds.c.account_id, coin_sum(holds.c.amount).label("held"))
    .where(holds.c.account_id.in_(sa.bindparam("ids", expanding=True)))
    .group_by(holds.c.account_id)
)
_MOVE_BALANCE = (
    accounts.update()
    .where(accounts.c.id == sa.bindparam("account"))
    .values(balance=accounts.c.balance + sa.bindparam("delta"))
)
_INSERT_ENTRY = entries.insert()


def lock_accounts(conn: Connection, account_ids: Iterable[int]) -> dict[int, int]:
    """The balances of ``account_ids``, their rows locked until the transaction ends.

    Rows are locked in id order so that two transactions never wait for each other in a
    circle. An id with no account raises :class:`UnknownAccount`.
    """
    wanted = sorted(set(account_ids))
    balances = {row.id: row.balance for row in conn.execute(_LOCK_ACCOUNTS, {"ids": wanted})}
    for account in wanted:
        if account not in balances:
            raise UnknownAccount(account)
    return balances


def held(conn: Connection, account: int) -> int:
    """The coins of ``account`` under open holds."""
    return held_by_account(conn, [account])[account]


def held_by_account(conn: Connection, account_ids: Iterable[int]) -> dict[int, int]:
    """The coins under open holds of each of ``account_ids`` (0 for an account without any),
    in one query."""
    wanted = sorted(set(account_ids))
    found = {row.account_id: row.held for row in conn.execute(_HELD_BY_ACCOUNT, {"ids": wanted})}
    return {account: found.get(account, 0) for account in wanted}


def require_available(conn: Connection, account: int, balance: int, needed: int) -> None:
    """Raise :class:`InsufficientFunds` unless ``account`` has ``needed`` coins beyond its holds."""
    require_all_available(conn, {account: needed}, {account: balance})


def require_all_available(
    conn: Connection, needed: Mapping[int, int], balances: Mapping[int, int],
    held_now: Mapping[int, int] | None = None,
) -> None:
    """Raise :class:`InsufficientFunds` for the first account (by id) of ``needed`` that has
    fewer coins beyond its holds than it needs; ``balances`` are the locked balances, and
    ``held_now`` the coins under holds when the caller has read them since the lock."""
    if held_now is None:
        held_now = held_by_account(conn, needed)
    for account in sorted(needed):
        available = balances[account] - held_now[account]
        if needed[account] > available:
            raise InsufficientFunds(account, needed[account], available)


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


def post_many(conn: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write many entries and move the cached balances by them, one statement for each table.

    ``rows`` are complete ``wallet_entries`` rows, ``balance_after`` included: the caller has
    locked the accounts and counted each line's running balance from the locked balances,
    which is what :func:`post` would have returned line by line.
    """
    if not rows:
        return
    deltas: dict[int, int] = defaultdict(int)
    for row in rows:
        deltas[row["account_id"]] += row["amount"]
    conn.execute(_INSERT_ENTRY, list(rows))
    conn.execute(
        _MOVE_BALANCE,
        [{"account": account, "delta": delta} for account, delta in sorted(deltas.items())],
    )


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
