"""Which accounts are suspended: the ledger's table (the truth, beside the accounts), and the
tables' copy in Redis (:class:`~paiju.table.suspended.SuspendedAccounts`) kept in step with it."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from paiju.table.suspended import SuspendedAccounts
from paiju.wallet.database import Database
from paiju.wallet.tables import suspensions


class Suspensions:
    """Suspending and restoring accounts, in the ledger and in the tables' copy."""

    def __init__(self, database: Database, board: SuspendedAccounts) -> None:
        self.database = database
        self.board = board

    def reason(self, account: int) -> str | None:
        """Why ``account`` is suspended, or ``None`` when it is not."""
        with self.database.read() as conn:
            return conn.execute(sa.select(suspensions.c.reason).where(suspensions.c.account_id == account)
                                ).scalar_one_or_none()

    def is_suspended(self, account: int) -> bool:
        return self.reason(account) is not None

    def suspend(self, account: int, reason: str, operator: str, at: datetime) -> bool:
        """Suspend ``account``; whether it was not suspended before."""
        with self.database.write() as conn:
            fresh = conn.execute(sa.select(suspensions.c.account_id).where(suspensions.c.account_id == account)
                                 ).first() is None
            if fresh:
                conn.execute(suspensions.insert().values(account_id=account, reason=reason[:500],
                                                         operator=operator[:64], since=at))
        self.board.add(str(account))
        return fresh

    def restore(self, account: int) -> bool:
        """Lift ``account``'s suspension; whether it was suspended."""
        with self.database.write() as conn:
            lifted = conn.execute(suspensions.delete().where(suspensions.c.account_id == account)).rowcount == 1
        self.board.remove(str(account))
        return lifted

    def publish(self) -> None:
        """Fill the tables' copy from the ledger (when the wallet's process starts)."""
        with self.database.read() as conn:
            accounts = conn.execute(sa.select(suspensions.c.account_id)).scalars().all()
        self.board.replace(str(account) for account in accounts)
