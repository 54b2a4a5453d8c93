"""Accounts: registering players, checking passwords, finding the house."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.errors import DuplicateUsername, SchemaError, UnknownAccount
from paiju.wallet.ledger import post
from paiju.wallet.model import Reason
from paiju.wallet.tables import accounts
from paiju.wallet.validation import username_key


def signup_grant_key(account: int) -> str:
    """The idempotency key of an account's starting grant.

    >>> signup_grant_key(42)
    'grant:signup:42'
    """
    return f"grant:signup:{account}"


def create_account(
    conn: Connection, username: str, password_hash: str, starting_grant: int, at: datetime
) -> int:
    """A new account's id; its starting grant (if any) is posted in the same transaction."""
    if account_id(conn, username) is not None:
        raise DuplicateUsername(username)
    try:
        result = conn.execute(
            accounts.insert().values(
                username=username,
                username_key=username_key(username),
                password_hash=password_hash,
                is_house=False,
                balance=0,
                created_at=at,
            )
        )
    except sa.exc.IntegrityError as error:
        # Another transaction took the name between our look-up and our insert.
        raise DuplicateUsername(username) from error
    account = int(result.inserted_primary_key[0])
    if starting_grant:
        post(
            conn,
            account=account,
            amount=starting_grant,
            reason=Reason.GRANT,
            key=signup_grant_key(account),
            at=at,
        )
    return account


def account_id(conn: Connection, username: str) -> int | None:
    """The id of the account called ``username`` (in any case), if there is one."""
    return conn.execute(
        sa.select(accounts.c.id).where(accounts.c.username_key == username_key(username))
    ).scalar_one_or_none()


def password_hash(conn: Connection, username: str) -> tuple[int, str] | None:
    """The id and stored password hash of a player's account (never the house's)."""
    row = conn.execute(
        sa.select(accounts.c.id, accounts.c.password_hash).where(
            accounts.c.username_key == username_key(username),
            accounts.c.password_hash.is_not(None),
        )
    ).first()
    return None if row is None else (row.id, row.password_hash)


def username_of(conn: Connection, account: int) -> str:
    """The username of ``account``."""
    name = conn.execute(
        sa.select(accounts.c.username).where(accounts.c.id == account)
    ).scalar_one_or_none()
    if name is None:
        raise UnknownAccount(account)
    return name


def house_id(conn: Connection) -> int:
    """The house account's id (created by the migrations)."""
    try:
        house = conn.execute(
            sa.select(accounts.c.id).where(accounts.c.is_house.is_(True))
        ).scalar_one_or_none()
    except sa.exc.DatabaseError as error:
        raise SchemaError("the wallet's tables are missing: run migrate() first") from error
    if house is None:
        raise SchemaError("the house account is missing: run migrate() first")
    return house
