"""Holds: coins set aside at a hand's start for the most a player can lose in it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.errors import CoinsChanged, HandAlreadySettled, HoldConflict
from paiju.wallet.ledger import held_by_account, lock_accounts, require_all_available
from paiju.wallet.model import Coins, HandHeld, Hold
from paiju.wallet.tables import hands, holds

# Built once, like the ledger's statements (see paiju.wallet.ledger).
_IS_SETTLED = sa.select(hands.c.hand_id).where(hands.c.hand_id == sa.bindparam("hand_id"))
_HOLDS_OF_HANDS = sa.select(holds.c.hand_id, holds.c.account_id, holds.c.amount).where(
    holds.c.hand_id.in_(sa.bindparam("hand_ids", expanding=True))
)
_TAKE_HOLDS = (
    holds.delete()
    .where(holds.c.hand_id.in_(sa.bindparam("hand_ids", expanding=True)))
    .returning(holds.c.hand_id, holds.c.account_id, holds.c.amount)
)
_INSERT_HOLD = holds.insert()
_HANDS_HELD_BEFORE = (
    sa.select(holds.c.hand_id)
    .where(holds.c.created_at < sa.bindparam("cutoff"), holds.c.hand_id > sa.bindparam("after"))
    .group_by(holds.c.hand_id)
    .order_by(holds.c.hand_id)
    .limit(sa.bindparam("limit"))
)


def place_holds(
    conn: Connection, hand_id: str, amounts: dict[int, int], at: datetime,
    expected_available: Mapping[int, int] | None = None,
) -> HandHeld:
    """Hold ``amounts`` (account → coins) for ``hand_id``, all or none.

    Asking again for the same amounts changes nothing; another amount for an account already
    held in this hand is a :class:`HoldConflict`. A hold of 0 coins sets nothing aside and
    leaves no row (a score channel's hand holds nothing).

    ``expected_available`` (some of the accounts → coins): the available coins the caller dealt
    the hand from. Unless each such account has exactly that many before the hand's holds,
    :class:`CoinsChanged` is raised. A repeated call for holds already placed is not checked
    again: the call that placed them was.
    """
    # Lock first: a settlement of this hand that commits meanwhile is then seen below.
    balances = lock_accounts(conn, amounts)
    if is_settled(conn, hand_id):
        raise HandAlreadySettled(hand_id)
    existing = hand_holds(conn, hand_id)
    for account, amount in amounts.items():
        if account in existing and existing[account] != amount:
            raise HoldConflict(hand_id, account, existing[account], amount)
    held_before = held_by_account(conn, amounts)
    if expected_available and not existing:
        for account in sorted(expected_available):
            available = balances[account] - held_before[account]
            if available != expected_available[account]:
                raise CoinsChanged(account, expected_available[account], available)
    new = {account: amount for account, amount in amounts.items() if amount and account not in existing}
    if new:
        require_all_available(conn, new, balances, held_before)
        conn.execute(
            _INSERT_HOLD,
            [
                {"hand_id": hand_id, "account_id": account, "amount": amount, "created_at": at}
                for account, amount in new.items()
            ],
        )
    return HandHeld(
        [Hold(hand_id, account, amount) for account, amount in amounts.items()],
        {account: Coins(balances[account], held_before[account] + new.get(account, 0)) for account in amounts},
    )


def is_settled(conn: Connection, hand_id: str) -> bool:
    """Whether a settlement of ``hand_id`` has been applied."""
    return conn.execute(_IS_SETTLED, {"hand_id": hand_id}).first() is not None


def hand_holds(conn: Connection, hand_id: str) -> dict[int, int]:
    """The open holds of ``hand_id`` by account."""
    return holds_of_hands(conn, [hand_id]).get(hand_id, {})


def holds_of_hands(conn: Connection, hand_ids: Sequence[str]) -> dict[str, dict[int, int]]:
    """The open holds of each of ``hand_ids`` that has any: hand → account → coins."""
    return _by_hand(conn.execute(_HOLDS_OF_HANDS, {"hand_ids": list(hand_ids)}))


def hands_held_before(conn: Connection, cutoff: datetime, limit: int, after: str = "") -> list[str]:
    """Up to ``limit`` hands with a hold placed before ``cutoff``, in id order from the first id
    above ``after`` (pass the last one seen to page on)."""
    return list(conn.execute(_HANDS_HELD_BEFORE, {"cutoff": cutoff, "limit": limit, "after": after}).scalars())


def abandon_hand(conn: Connection, hand_id: str) -> dict[int, int]:
    """Release the holds of a hand that will not be settled; the coins they held, by account."""
    if is_settled(conn, hand_id):
        raise HandAlreadySettled(hand_id)
    return take_holds(conn, [hand_id]).get(hand_id, {})


def take_holds(conn: Connection, hand_ids: Sequence[str]) -> dict[str, dict[int, int]]:
    """Drop the holds of ``hand_ids``; what they held, as :func:`holds_of_hands` says it (one
    statement: a settlement that then refuses the hand rolls the drop back with it)."""
    return _by_hand(conn.execute(_TAKE_HOLDS, {"hand_ids": list(hand_ids)}))


def _by_hand(rows: Iterable[sa.Row[Any]]) -> dict[str, dict[int, int]]:
    found: dict[str, dict[int, int]] = defaultdict(dict)
    for row in rows:
        found[row.hand_id][row.account_id] = row.amount
    return dict(found)
