"""The table store's Pub/Sub notices, heard on a thread of their own.

Two notices hurry what the table path would otherwise leave to a timer:

* a commit that queued a hand's settlement tells the store's ``outbox_channel``: the relay
  settles the hand at once instead of at its next pass;
* an acknowledged settlement tells its ``settled_channel``: the process playing the table starts
  the next hand at once, if everyone pressed start meanwhile, instead of at its start timer.

A notice is only ever a shortcut. One sent while the listener reconnects is gone, and what it
would have hurried still happens, later (the relay's next pass, the table's start timer).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from concurrent import futures
from typing import Any

log = logging.getLogger(__name__)

WAIT_SECONDS = 0.25
"""How long one wait for a notice lasts before the listener looks whether it should stop."""
RETRY_SECONDS = 1.0
"""How long a listener whose Redis connection failed waits before subscribing again."""
GATHER_SECONDS = 0.05
"""How long a relay woken by a hand's end waits for the hands that end meanwhile: they are
settled in the same pass, one ledger transaction (a pass per hand cost the ledger's process
~40 % more CPU per action at 20 busy tables), at the price of settling that much later."""


class NoticeListener:
    """Calls ``heard`` with the text of each notice on ``channel`` (a table id, then what the
    channel adds on the lines after), on a daemon thread, until ``stop`` is set; a failed
    subscription is made again after :data:`RETRY_SECONDS`."""

    def __init__(self, store: Any, channel: str, heard: Callable[[str], None], name: str,
                 stop: threading.Event | None = None) -> None:
        self._store = store
        self._channel = channel
        self._heard = heard
        self._stop = stop or threading.Event()
        self.subscribed = threading.Event()
        """Set once the listener hears its channel (a notice sent before is not heard)."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> NoticeListener:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=WAIT_SECONDS * 2)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                subscription = self._store.notices(self._channel)
            except Exception as error:  # noqa: BLE001 - Redis away: try again in a while
                log.warning("cannot hear %s: %r; trying again", self._channel, error)
                self._stop.wait(RETRY_SECONDS)
                continue
            try:
                self._hear(subscription)
            except Exception as error:  # noqa: BLE001 - the connection dropped: subscribe again
                log.warning("stopped hearing %s: %r; subscribing again", self._channel, error)
                self._stop.wait(RETRY_SECONDS)
            finally:
                self.subscribed.clear()
                with contextlib.suppress(Exception):  # closing a broken connection
                    subscription.close()

    def _hear(self, subscription: Any) -> None:
        self.subscribed.set()
        while not self._stop.is_set():
            message = subscription.get_message(timeout=WAIT_SECONDS)
            if message is None or message.get("type") != "message":
                continue
            data = message["data"]
            notice = data.decode() if isinstance(data, bytes) else str(data)
            try:
                self._heard(notice)
            except Exception:  # one table's failure must not deafen the listener
                log.exception("handling the notice %r failed", notice)


class HandStarter:
    """Starts tables' next hands off the listener's thread (a start places its holds with the
    ledger: a round trip or two), each table at most once at a time."""

    def __init__(self, start: Callable[[str], None], workers: int = 4) -> None:
        self._start = start
        self._pool = futures.ThreadPoolExecutor(workers, thread_name_prefix="hand-starts")
        self._queued: set[str] = set()
        self._lock = threading.Lock()

    def start_soon(self, table_id: str) -> None:
        with self._lock:
            if table_id in self._queued:
                return  # its start is on the way: it reads the table as it is then
            self._queued.add(table_id)
        self._pool.submit(self._started, table_id)

    def _started(self, table_id: str) -> None:
        with self._lock:
            self._queued.discard(table_id)
        self._start(table_id)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class Coalesced:
    """Runs ``act`` on a thread of its own :data:`GATHER_SECONDS` after a :meth:`wake`; the wakes
    that come meanwhile, or while it runs, make one run more, not one each."""

    def __init__(self, act: Callable[[], None], name: str, stop: threading.Event | None = None,
                 gather_seconds: float = GATHER_SECONDS) -> None:
        self._act = act
        self._gather_seconds = gather_seconds
        self._woken = threading.Event()
        self._stop = stop or threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._woken.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self._woken.wait(WAIT_SECONDS):
                continue
            self._stop.wait(self._gather_seconds)
            self._woken.clear()
            try:
                self._act()
            except Exception:  # the next wake tries again; the relay's schedule is the safety net
                log.exception("%s failed", self._thread.name)


class NoticedTables:
    """The tables named by notices heard since the last :meth:`take`, and a wait for the next.

    A relay woken by the notices of the commits that queued settlements reads those tables'
    outboxes alone; at least every ``sweep_seconds`` it is told to look at every table instead
    (:meth:`take` answers ``None``), for notices lost and entries left pending.

    >>> times = iter([0.0, 0.1, 0.6])
    >>> noticed = NoticedTables(sweep_seconds=0.5, clock=lambda: next(times))
    >>> noticed.heard("t1"); noticed.heard("t2"); noticed.heard("t1")
    >>> sorted(noticed.take()), noticed.take()
    (['t1', 't2'], None)
    """

    def __init__(self, sweep_seconds: float, clock: Callable[[], float]) -> None:
        self._sweep_seconds = sweep_seconds
        self._clock = clock
        self._next_sweep = clock() + sweep_seconds
        self._tables: set[str] = set()
        self._lock = threading.Lock()
        self.woken = threading.Event()
        """Set by each notice; the waiter clears it before it takes."""

    def heard(self, table_id: str) -> None:
        with self._lock:
            self._tables.add(table_id)
        self.woken.set()

    def take(self) -> set[str] | None:
        """The tables heard of since the last take, or ``None`` when every table is to be looked at."""
        with self._lock:
            tables, self._tables = self._tables, set()
        now = self._clock()
        if not tables or now >= self._next_sweep:
            self._next_sweep = now + self._sweep_seconds
            return None
        return tables
