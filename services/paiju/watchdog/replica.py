"""A watchdog replica: fires due deadlines and sweeps presence on a short interval, forever.

Run as many as you like (``paiju serve watchdog``, or a thread of the all-in-one server): every
deadline and every silence is claimed by one of them, and a replica killed mid-pass leaves its
claimed deadlines to fall due again when their leases run out.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from paiju.table.store import TableStore
from paiju.watchdog.firing import LEASE_MS, PassReport, TableOwner, fire_due, sweep_presence
from paiju.watchdog.presence import PresenceBoard

log = logging.getLogger(__name__)


class Replica:
    def __init__(
        self,
        store: TableStore,
        board: PresenceBoard,
        owner: TableOwner,
        interval: float = 0.2,
        lease_ms: int = LEASE_MS,
        clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self.store = store
        self.board = board
        self.owner = owner
        self.interval = interval
        self.lease_ms = lease_ms
        self.clock_ms = clock_ms
        self.totals = PassReport()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> PassReport:
        now = self.clock_ms()
        report = fire_due(self.store, self.owner, now, self.lease_ms)
        sweep_presence(self.board, self.owner, now, report)
        for name in ("fired", "stale", "failed", "disconnected"):
            setattr(self.totals, name, getattr(self.totals, name) + getattr(report, name))
        return report

    def run_forever(self) -> None:
        while not self._stop.is_set():
            try:
                report = self.run_once()
            except Exception:  # Redis down or the owner unreachable: try again
                log.exception("watchdog pass failed; trying again")
                self._stop.wait(1.0)
                continue
            if not (report.fired or report.stale or report.disconnected):
                self._stop.wait(self.interval)

    def start(self) -> Replica:
        self._thread = threading.Thread(target=self.run_forever, name="watchdog", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
