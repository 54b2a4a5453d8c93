"""One watchdog pass: fire the tables' due deadlines, and disconnect the players gone quiet.

A deadline is claimed with a lease, so if a replica dies between the claim and the owner's
commit, the deadline falls due again when the lease runs out and another replica fires it. The
owner checks the deadline's stamp, so a second firing of the same deadline changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Protocol

from paiju.common.metrics import METRICS
from paiju.rpc.failures import is_outage
from paiju.table.store import TableStore
from paiju.watchdog.presence import PresenceBoard

log = logging.getLogger(__name__)
LEASE_MS = 5_000


class TableOwner(Protocol):
    """The service that owns the tables: applies an expired deadline or a disconnection."""

    def expire(self, table_id: str, name: str, stamp: int) -> bool:
        """Apply the deadline; True if it changed the table (False: its state moved on)."""
        ...

    def disconnect(self, table_id: str, account: str, since_ms: int) -> bool: ...


@dataclass
class PassReport:
    fired: int = 0
    stale: int = 0
    failed: int = 0
    disconnected: int = 0
    errors: list[str] = field(default_factory=list)


def fire_due(store: TableStore, owner: TableOwner, now_ms: int, lease_ms: int = LEASE_MS, limit: int = 100) -> PassReport:
    """Fire every deadline due at ``now_ms`` that this replica manages to claim."""
    report = PassReport()
    for due in store.due_deadlines(now_ms, limit):
        if not store.claim_deadline(due.table_id, due.name, due.version_set_for, now_ms, lease_ms=lease_ms):
            continue  # another replica has it
        METRICS.observe_deadline_lag(due.name.split(":")[0], max(0, now_ms - due.due_ms) / 1000)
        try:
            applied = owner.expire(due.table_id, due.name, due.version_set_for)
        except Exception as error:  # the lease brings it back; one table must not stop the rest
            if is_outage(error):  # an outage is one line per deadline, not a traceback each
                log.warning("deadline %s of table %s waits for a backend out of reach (%s); it falls due again",
                            due.name, due.table_id, type(error).__name__)
            else:
                log.exception("deadline %s of table %s failed; it falls due again", due.name, due.table_id)
            report.failed += 1
            report.errors.append(f"{due.table_id}/{due.name}: {error}")
            continue
        if applied:
            report.fired += 1
        else:
            report.stale += 1
            # The owner's state moved on. Claiming again without a lease removes the leased
            # entry, unless a newer deadline of that name replaced it meanwhile.
            store.claim_deadline(due.table_id, due.name, due.version_set_for, now_ms + lease_ms)
    return report


def sweep_presence(
    board: PresenceBoard, owner: TableOwner, now_ms: int, report: PassReport | None = None,
    observed_since_ms: int | None = None,
) -> PassReport:
    """Disconnect every player whose last stream closed, or whose streams have all gone quiet
    over time this sweeper observed (from ``observed_since_ms``)."""
    report = report or PassReport()
    for silence in board.claim_silent(now_ms, observed_since_ms=observed_since_ms):
        try:
            if owner.disconnect(silence.table_id, silence.account, silence.since_ms):
                report.disconnected += 1
                # A stream that beat after the claim finds its player marked back at its next beat.
                board.forget_if_beaten(silence.table_id, silence.account)
        except Exception as error:
            log.exception("disconnecting %s at %s failed", silence.account, silence.table_id)
            report.errors.append(f"{silence.table_id}/{silence.account}: {error}")
            board.put_back(silence)  # try again next pass
    return report
