"""The audit log: every action an operator took, done or refused, with who, what, on what, why,
when and what came of it. This module only appends to it and lists it; the database itself
refuses to change or delete a line (the triggers of migration 6)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from paiju.wallet.database import Database, as_utc
from paiju.wallet.tables import audit_log

TEXT_CHARS = 500
"""The longest reason or result kept (longer ones are cut)."""


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One line of the log."""

    id: int
    at: datetime
    operator: str
    action: str
    target: str
    reason: str
    result: str


class AuditLog:
    """The log in the ledger's database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def append(self, at: datetime, operator: str, action: str, target: str, reason: str, result: str) -> int:
        """Write one line; its id."""
        with self.database.write() as conn:
            done = conn.execute(audit_log.insert().values(
                at=at, operator=operator[:64], action=action, target=target[:200],
                reason=reason[:TEXT_CHARS], result=result[:TEXT_CHARS]))
            return int(done.inserted_primary_key[0])

    def newest(self, limit: int, before_id: int | None = None) -> list[AuditEntry]:
        """Up to ``limit`` lines, newest first; only those older than ``before_id`` when given."""
        query = sa.select(audit_log).order_by(audit_log.c.id.desc()).limit(limit)
        if before_id is not None:
            query = query.where(audit_log.c.id < before_id)
        with self.database.read() as conn:
            rows = conn.execute(query).all()
        return [AuditEntry(row.id, as_utc(row.at), row.operator, row.action, row.target, row.reason, row.result)
                for row in rows]
