"""The operators' audit log (migration 6) on SQLite and PostgreSQL: lines are appended and listed
newest first, and the database itself refuses to change or delete one, whatever code asks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from paiju.admin.audit import AuditLog
from paiju.wallet import Wallet


def test_lines_are_listed_newest_first_and_never_changed(wallet: Wallet) -> None:
    log = AuditLog(wallet.database)
    at = datetime(2026, 12, 4, 3, 0, tzinfo=UTC)
    first = log.append(at, "night-shift", "suspend", "42", "chargeback", "done: suspended")
    second = log.append(at, "night-shift", "restore", "42", "x" * 900, "done: restored")
    listed = log.newest(10)
    assert [line.id for line in listed] == [second, first]
    assert (listed[1].operator, listed[1].action, listed[1].target, listed[1].reason, listed[1].at) == (
        "night-shift", "suspend", "42", "chargeback", at)
    assert len(listed[0].reason) == 500, "a reason too long for the column is cut, not refused"
    assert [line.id for line in log.newest(10, before_id=second)] == [first]
    for change in ("UPDATE wallet_audit_log SET result = 'done: nothing'", "DELETE FROM wallet_audit_log"):
        with pytest.raises(sa.exc.DatabaseError, match="only appended to"), wallet.database.write() as conn:
            conn.execute(sa.text(change))
    assert [line.result for line in log.newest(10)] == ["done: restored", "done: suspended"]
