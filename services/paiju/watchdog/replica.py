"""A watchdog replica: fires due deadlines and sweeps presence on a short interval, forever.

It judges silence only over time it could observe: after an outage of Redis or of itself, it
waits the quiet time again before it calls anyone silent, so an outage never turns into mass
disconnects.

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
OBSERVATION_GAP_MS = 4_000
"""A longer gap between two whole passes is time the replica could not observe. Streams beat
every 2 s and retry a failed beat sooner, so a gap this short cannot make a live stream look
quiet for QUIET_AFTER_MS; after a longer one, silence is counted afresh."""


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
        self._last_pass_ms: int | None = None
        """When the last whole pass began (a failed pass does not count)."""
        self._observed_since_ms: int | None = None
        """Since when this replica has seen the board with no gap longer than OBSERVATION_GAP_MS."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> PassReport:
        now = self.clock_ms()
        if self._last_pass_ms is None or now - self._last_pass_ms > OBSERVATION_GAP_MS:
            # It did not see the board in between (it was down, or Redis was, or it stalled):
            # beats may have been lost then, so silence counts only from now on.
            self._observed_since_ms = now
        report = fire_due(self.store, self.owner, now, self.lease_ms)
        sweep_presence(self.board, self.owner, now, report, observed_since_ms=self._observed_since_ms)
        self._last_pass_ms = now
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
