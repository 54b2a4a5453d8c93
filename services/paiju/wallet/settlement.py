"""Applying a hand's settlement to the ledger, exactly once.

A settlement is a list of lines ``(account, amount, reason)`` that add up to zero, the
house's fee lines included. It is applied in one transaction that first records the hand
(``wallet_hands``, keyed by hand id) and one row per account (``wallet_settlements``, keyed by
``(hand_id, account)``): a second delivery, even one racing the first on another connection,
cannot get past those keys, and finds the applied result instead.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.errors import (
    InsufficientFunds,
    LossExceedsHold,
    SettlementConflict,
    UnbalancedSettlement,
)
from paiju.wallet.holds import hand_holds, release_holds
from paiju.wallet.ledger import lock_accounts, post
from paiju.wallet.model import Line, Reason, Settlement
from paiju.wallet.tables import entries, hands, settlements


def check_settlement(hand_id: str, lines: Sequence[Line], house: int) -> dict[int, int]:
    """Each account's net for the hand, after checking the rules that need no database.

    >>> check_settlement("h", [Line(1, -100, Reason.STAKE), Line(2, 95, Reason.POT),
    ...     Line(9, 5, Reason.FEE)], house=9)
    {1: -100, 2: 95, 9: 5}
    """
    for line in lines:
        if line.reason is Reason.FEE and (line.account != house or line.amount < 0):
            raise ValueError(
                f"a fee line pays the house (account {house}) a positive amount, got {line}"
            )
    total = sum(line.amount for line in lines)
    if total != 0:
        raise UnbalancedSettlement(hand_id, total)
    nets: dict[int, int] = defaultdict(int)
    for line in lines:
        nets[line.account] += line.amount
    return dict(nets)


def applied_settlement(conn: Connection, hand_id: str) -> Settlement | None:
    """The settlement already applied for ``hand_id``, if any, its lines in their order."""
    game = conn.execute(
        sa.select(hands.c.game).where(hands.c.hand_id == hand_id)
    ).scalar_one_or_none()
    if game is None:
        return None
    rows = conn.execute(
        sa.select(entries.c.account_id, entries.c.amount, entries.c.reason, entries.c.detail)
        .where(entries.c.hand_id == hand_id)
        .order_by(entries.c.id)
    ).all()
    lines = tuple(
        Line(row.account_id, row.amount, Reason(row.reason), row.detail or "") for row in rows
    )
    return Settlement(hand_id, game, lines, replayed=True)


def same_settlement(applied: Settlement, game: str, lines: Sequence[Line]) -> bool:
    """Whether a delivery of ``game``/``lines`` is the one already applied (order aside)."""
    return applied.game == game and Counter(applied.lines) == Counter(lines)


def apply_settlement(
    conn: Connection,
    hand_id: str,
    game: str,
    lines: tuple[Line, ...],
    house: int,
    at: datetime,
) -> Settlement:
    """Apply ``lines`` for ``hand_id`` or return what an earlier delivery applied.

    Raises :class:`SettlementConflict` if the earlier delivery had other lines. A concurrent
    delivery makes the insert of the hand fail with ``IntegrityError``: the caller retries and
    then finds the applied result.
    """
    nets = check_settlement(hand_id, lines, house)
    applied = applied_settlement(conn, hand_id)
    if applied is not None:
        if not same_settlement(applied, game, lines):
            raise SettlementConflict(hand_id)
        return applied
    conn.execute(hands.insert().values(hand_id=hand_id, game=game, settled_at=at))
    balances = lock_accounts(conn, nets)
    held = hand_holds(conn, hand_id)
    for account, net in sorted(nets.items()):
        if account != house and -net > held.get(account, 0):
            raise LossExceedsHold(hand_id, account, -net, held.get(account, 0))
        if balances[account] + net < 0:
            raise InsufficientFunds(account, -net, balances[account])
    release_holds(conn, hand_id)
    conn.execute(
        settlements.insert(),
        [{"hand_id": hand_id, "account_id": account, "net": net} for account, net in nets.items()],
    )
    line_numbers: dict[int, int] = defaultdict(int)
    for line in lines:
        line_numbers[line.account] += 1
        post(
            conn,
            account=line.account,
            amount=line.amount,
            reason=line.reason,
            key=f"hand:{hand_id}/{line.account}/{line_numbers[line.account]}",
            at=at,
            hand_id=hand_id,
            game=game,
            detail=line.detail,
        )
    return Settlement(hand_id, game, lines, replayed=False)
