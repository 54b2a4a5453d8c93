"""Holds: coins set aside at a hand's start for the most a player can lose in it."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.errors import HandAlreadySettled, HoldConflict
from paiju.wallet.ledger import lock_accounts, require_available
from paiju.wallet.model import Hold
from paiju.wallet.tables import hands, holds


def place_holds(
    conn: Connection, hand_id: str, amounts: dict[int, int], at: datetime
) -> list[Hold]:
    """Hold ``amounts`` (account → coins) for ``hand_id``, all or none.

    Asking again for the same amounts changes nothing; another amount for an account already
    held in this hand is a :class:`HoldConflict`.
    """
    # Lock first: a settlement of this hand that commits meanwhile is then seen below.
    balances = lock_accounts(conn, amounts)
    if is_settled(conn, hand_id):
        raise HandAlreadySettled(hand_id)
    existing = hand_holds(conn, hand_id)
    for account, amount in amounts.items():
        if account in existing and existing[account] != amount:
            raise HoldConflict(hand_id, account, existing[account], amount)
    new = {account: amount for account, amount in amounts.items() if account not in existing}
    for account, amount in sorted(new.items()):
        require_available(conn, account, balances[account], amount)
    if new:
        conn.execute(
            holds.insert(),
            [
                {"hand_id": hand_id, "account_id": account, "amount": amount, "created_at": at}
                for account, amount in new.items()
            ],
        )
    return [Hold(hand_id, account, amount) for account, amount in amounts.items()]


def is_settled(conn: Connection, hand_id: str) -> bool:
    """Whether a settlement of ``hand_id`` has been applied."""
    found = conn.execute(sa.select(hands.c.hand_id).where(hands.c.hand_id == hand_id)).first()
    return found is not None


def hand_holds(conn: Connection, hand_id: str) -> dict[int, int]:
    """The open holds of ``hand_id`` by account."""
    rows = conn.execute(
        sa.select(holds.c.account_id, holds.c.amount).where(holds.c.hand_id == hand_id)
    ).all()
    return {row.account_id: row.amount for row in rows}


def abandon_hand(conn: Connection, hand_id: str) -> int:
    """Release the holds of a hand that will not be settled; the coins they held."""
    if is_settled(conn, hand_id):
        raise HandAlreadySettled(hand_id)
    return release_holds(conn, hand_id)


def release_holds(conn: Connection, hand_id: str) -> int:
    """Drop the holds of ``hand_id``; the coins they held."""
    released = sum(hand_holds(conn, hand_id).values())
    conn.execute(holds.delete().where(holds.c.hand_id == hand_id))
    return released
