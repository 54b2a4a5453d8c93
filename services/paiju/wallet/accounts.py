"""Accounts: registering players, checking passwords, finding the house."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.errors import DuplicateUsername, SchemaError, UnknownAccount, WalletError
from paiju.wallet.ledger import post
from paiju.wallet.model import Reason
from paiju.wallet.tables import accounts
from paiju.wallet.validation import username_key, username_skeleton


class WrongPassword(WalletError):
    """A password change was asked with a wrong current password."""

    def __init__(self) -> None:
        super().__init__("the old password is wrong")


class PasswordChangedMeanwhile(WalletError):
    """Another call changed the password between the check of the old one and the change."""

    def __init__(self) -> None:
        super().__init__("the password was changed by another call meanwhile; log in again")


def signup_grant_key(account: int) -> str:
    """The idempotency key of an account's starting grant.

    >>> signup_grant_key(42)
    'grant:signup:42'
    """
    return f"grant:signup:{account}"


def create_account(
    conn: Connection, username: str, password_hash: str, starting_grant: int, at: datetime
) -> int:
    """A new account's id; its starting grant (if any) is posted in the same transaction.

    A name that looks like an existing one (the same :func:`username_skeleton`) is taken."""
    if account_id(conn, username) is not None:
        raise DuplicateUsername(username)
    try:
        result = conn.execute(
            accounts.insert().values(
                username=username,
                username_key=username_key(username),
                username_skeleton=username_skeleton(username),
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


def _named(conn: Connection, username: str, *where: sa.ColumnElement[bool]) -> sa.Row | None:
    """The account called ``username`` in any case, else the one whose name looks like it
    (its skeleton: unique, so there is at most one)."""
    for same in (accounts.c.username_key == username_key(username),
                 accounts.c.username_skeleton == username_skeleton(username)):
        row = conn.execute(sa.select(accounts.c.id, accounts.c.password_hash).where(same, *where)).first()
        if row is not None:
            return row
    return None


def account_id(conn: Connection, username: str) -> int | None:
    """The id of the account called ``username`` or a name that looks like it, if any."""
    row = _named(conn, username)
    return None if row is None else row.id


def password_hash(conn: Connection, username: str) -> tuple[int, str] | None:
    """The id and stored password hash of a player's account (never the house's), found as
    :func:`account_id` finds it."""
    row = _named(conn, username, accounts.c.password_hash.is_not(None))
    return None if row is None else (row.id, row.password_hash)


def stored_password_hash(conn: Connection, account: int) -> str:
    """The stored password hash of a player's account; :class:`UnknownAccount` for no player's."""
    stored = conn.execute(
        sa.select(accounts.c.password_hash).where(accounts.c.id == account, accounts.c.password_hash.is_not(None))
    ).scalar_one_or_none()
    if stored is None:
        raise UnknownAccount(account)
    return stored


def replace_password_hash(conn: Connection, account: int, old: str, new: str,
                          sessions_valid_after_ms: int | None = None) -> bool:
    """Store ``new`` as ``account``'s password hash if it still holds ``old`` (a password changed
    meanwhile is left alone), with the moment before which its sessions no longer count when
    given; whether it was replaced."""
    values: dict[str, object] = {"password_hash": new}
    if sessions_valid_after_ms is not None:
        values["sessions_valid_after_ms"] = sessions_valid_after_ms
    done = conn.execute(accounts.update().where(accounts.c.id == account, accounts.c.password_hash == old)
                        .values(**values))
    return done.rowcount == 1


def session_stamps_after(conn: Connection, after_ms: int) -> list[tuple[int, int]]:
    """``(account, sessions valid after, Unix ms)`` of the accounts whose sessions began again
    after ``after_ms``."""
    found = conn.execute(sa.select(accounts.c.id, accounts.c.sessions_valid_after_ms)
                         .where(accounts.c.sessions_valid_after_ms > after_ms)
                         .order_by(accounts.c.id))
    return [(int(account), int(stamp)) for account, stamp in found]


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
