"""Fire the tables' due deadlines: claim each one once, then apply it to its table.

Until the watchdog service takes this over, the all-in-one server runs :func:`fire_due` in a
background thread. A deadline is claimed with a lease, so if this process dies between the claim
and the table's commit, the deadline falls due again and another replica fires it.
"""

from __future__ import annotations

import logging

from paiju.table.tables import Tables

log = logging.getLogger(__name__)
LEASE_MS = 5_000


def fire_due(tables: Tables, now_ms: int, limit: int = 100) -> int:
    """Apply every deadline due at ``now_ms`` (up to ``limit``); how many changed a table."""
    applied = 0
    for due in tables.store.due_deadlines(now_ms, limit):
        if not tables.store.claim_deadline(due.table_id, due.name, due.version_set_for, now_ms, lease_ms=LEASE_MS):
            continue  # another replica has it
        try:
            outcome = tables.expire(due.table_id, due.name, due.version_set_for)
        except Exception:
            log.exception("deadline %s of table %s failed; it falls due again", due.name, due.table_id)
            continue
        if outcome is None:
            # Stale: the table moved on. Claiming the lease again, without a new lease, removes
            # it (unless a newer deadline of that name replaced it meanwhile).
            tables.store.claim_deadline(due.table_id, due.name, due.version_set_for, now_ms + LEASE_MS)
        else:
            applied += 1
    return applied
