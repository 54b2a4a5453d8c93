"""A table's server-side changes made by this process, taken one at a time.

Five players pressing start at once reach five pool threads. Each prepares its change from the
state this process remembers and commits with a compare-and-set, so all but one are refused,
answered with the new state and tried again: up to fifteen commits for five changes. Taken in
turn, each prepares from the commit before it, and all five commit at the first try.

The compare-and-set still makes changes correct (against other processes, and against changes
made on the event loop); this only spares refused commits. So a change on the event loop never
waits here, it goes ahead and may be refused as before. A pool thread waits at most
``wait_seconds``, then goes ahead too.

>>> turns = TableTurns()
>>> with turns.turn("t1"):
...     with turns.turn("t1"):  # the same thread again (a listener of the commit): no deadlock
...         "changed"
'changed'
"""

from __future__ import annotations

import asyncio
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

STRIPES = 256
"""Locks shared by all tables (a table's is chosen by a hash of its id): two tables that share
one only take turns with each other."""


class TableTurns:
    def __init__(self, stripes: int = STRIPES, wait_seconds: float = 1.0) -> None:
        self._locks = [threading.RLock() for _ in range(stripes)]
        self._wait_seconds = wait_seconds

    @contextmanager
    def turn(self, table_id: str) -> Iterator[None]:
        lock = self._locks[zlib.crc32(table_id.encode()) % len(self._locks)]
        held = lock.acquire(blocking=False) if _on_event_loop() else lock.acquire(timeout=self._wait_seconds)
        try:
            yield
        finally:
            if held:
                lock.release()


def _on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
