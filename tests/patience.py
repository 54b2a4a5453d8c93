"""Waiting in tests without racing the wall clock.

A busy machine may make any step of a test slow; it must never make a test fail. So a test
waits for a condition by polling it under one generous bound (``PATIENCE_SECONDS``), never
sleeps to let something happen, gives RPCs and joins the same bound, and checks durations
on a clock it moves itself (``ManualClock``). Tokens are issued inside the test that uses
them (the root ``conftest.py`` refuses one issued while the suite is still being collected).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

PATIENCE_SECONDS = 60.0
"""How long a test waits for something that normally takes a moment before it calls it lost.

Generous on purpose: it is only ever reached when the thing waited for never comes."""

TIMER_SECONDS = 600
"""A product timer (turn, ready kick, reconnect window) that a test does not wait for is set
this long, so a player slowed down by a busy machine is never timed out."""

START_SECONDS = 2 * PATIENCE_SECONDS
"""How long a process a test starts (a server, a worker) gets to come up: importing grpc,
celery and the rest takes a while on a loaded machine."""

POLL_SECONDS = 0.01


def wait_until(what: str, condition: Callable[[], object], *, seconds: float = PATIENCE_SECONDS,
               explain: Callable[[], str] = lambda: "", poll_seconds: float = POLL_SECONDS) -> None:
    """Poll ``condition`` until it is true; fail naming ``what`` after ``seconds`` without it.

    ``explain`` adds to the failure what helps to understand it (e.g. a server's log). A
    condition that reads several servers may be polled less often (``poll_seconds``), so that
    the polling does not take the CPU from what it waits for.
    """
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {seconds:.0f} s for {what} in vain\n{explain()}".rstrip())
        time.sleep(poll_seconds)


class ManualClock:
    """A clock that stands still until the test (or a servicer) moves it: ``clock()`` is the
    time now, in seconds. Threads may move it at once."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds
