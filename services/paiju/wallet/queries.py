"""Read-only questions to the ledger: balances, history, totals, leaderboards."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.errors import UnknownAccount
from paiju.wallet.ledger import coin_sum, entry_from_row, held
from paiju.wallet.model import Coins, Entry, LeaderboardRow, Reason
from paiju.wallet.tables import accounts, entries, holds


def balance(conn: Connection, account: int) -> int:
    """The coins of ``account`` (its cached balance, kept equal to the sum of its entries)."""
    coins = conn.execute(
        sa.select(accounts.c.balance).where(accounts.c.id == account)
    ).scalar_one_or_none()
    if coins is None:
        raise UnknownAccount(account)
    return coins


# Accounts' balances and what their holds set aside, in one statement for any number of
# accounts (the subquery runs per account, through the holds' index by account).
_COINS = sa.select(
    accounts.c.id,
    accounts.c.balance,
    sa.select(coin_sum(holds.c.amount)).where(holds.c.account_id == accounts.c.id).scalar_subquery(),
).where(accounts.c.id.in_(sa.bindparam("ids", expanding=True)))


def available(conn: Connection, account: int) -> int:
    """The coins of ``account`` not under a hold."""
    return coins_many(conn, [account])[account].available


def available_many(conn: Connection, account_ids: Sequence[int]) -> dict[int, int]:
    """The coins of each of ``account_ids`` not under a hold, in one query; an id with no
    account raises :class:`UnknownAccount`."""
    return {account: coins.available for account, coins in coins_many(conn, account_ids).items()}


def coins_many(conn: Connection, account_ids: Sequence[int]) -> dict[int, Coins]:
    """The balance and held coins of each of ``account_ids``, in one query; an id with no
    account raises :class:`UnknownAccount`."""
    wanted = sorted(set(account_ids))
    found = {account: Coins(total, held) for account, total, held in conn.execute(_COINS, {"ids": wanted})}
    for account in wanted:
        if account not in found:
            raise UnknownAccount(account)
    return found


def held_coins(conn: Connection, account: int) -> int:
    """The coins of ``account`` under open holds."""
    balance(conn, account)
    return held(conn, account)


def ledger_balance(conn: Connection, account: int) -> int:
    """The sum of the entries of ``account``, computed from the ledger itself."""
    balance(conn, account)
    return conn.execute(
        sa.select(coin_sum(entries.c.amount)).where(
            entries.c.account_id == account
        )
    ).scalar_one()


def history(
    conn: Connection, account: int, limit: int, before: int | None, game: str | None
) -> list[Entry]:
    """Up to ``limit`` entries of ``account``, newest first, older than entry ``before``, of
    ``game`` only when given."""
    balance(conn, account)
    query = sa.select(entries).where(entries.c.account_id == account)
    if before is not None:
        query = query.where(entries.c.id < before)
    if game is not None:
        query = query.where(entries.c.game == game)
    rows = conn.execute(query.order_by(entries.c.id.desc()).limit(limit)).all()
    return [entry_from_row(row) for row in rows]


def total_coins(conn: Connection) -> int:
    """The coins of every account together, the house included."""
    return conn.execute(sa.select(coin_sum(accounts.c.balance))).scalar_one()


def grants_total(conn: Connection) -> int:
    """The coins ever granted: the only way coins enter the ledger."""
    return conn.execute(
        sa.select(coin_sum(entries.c.amount)).where(
            entries.c.reason == Reason.GRANT.value
        )
    ).scalar_one()


def top(conn: Connection, game: str, n: int) -> list[LeaderboardRow]:
    """The ``n`` players who won the most coins net in ``game``, best first (ties by id)."""
    net = coin_sum(entries.c.amount).label("net")
    rows = conn.execute(
        sa.select(accounts.c.id, accounts.c.username, net)
        .select_from(entries.join(accounts, accounts.c.id == entries.c.account_id))
        .where(entries.c.game == game, accounts.c.is_house.is_(False))
        .group_by(accounts.c.id, accounts.c.username)
        .order_by(net.desc(), accounts.c.id)
        .limit(n)
    ).all()
    return [LeaderboardRow(row.id, row.username, row.net) for row in rows]
