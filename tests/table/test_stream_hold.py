"""A stream served from the event loop holds events without a view for a moment, and never for
longer than that: the Watch generator driven step by step, with the loop's wake-ups recorded."""

from __future__ import annotations

from typing import Any

import pytest

from paiju.rpc.aio_bridge import WAITING
from paiju.table import service as table_service
from paiju.table.service import EVENTS_HOLD_SECONDS, TableService
from paiju.table.session import WatchSession
from tests.table.test_tables import seated_table


class LoopContext:
    """What the event-loop server gives a stream: wake-ups it records instead of scheduling."""

    waits_on_loop = True

    def __init__(self) -> None:
        self.wakes_later: list[float] = []

    def is_active(self) -> bool:
        return True

    def wake(self) -> None:
        """A wake-up from the hub: the test steps the stream itself."""

    def wake_later(self, seconds: float) -> None:
        self.wakes_later.append(seconds)


class Monotonic:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def next_update(stream: Any) -> Any:
    """The stream's next step that is not a wait (bounded: a stream holding events waits once)."""
    for _ in range(5):
        step = next(stream)
        if step is not WAITING:
            return step
    pytest.fail("the stream kept waiting")


def test_bug_a_hold_woken_a_hair_before_its_end_waited_for_the_next_event_to_send_it(
    tables: Any, wallet: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # asyncio may run a timer up to its clock's resolution early: the stream then found its hold
    # not yet over, waited with no timer left, and its events went out only with the next event.
    clock = Monotonic()
    monkeypatch.setattr(table_service.time, "monotonic", clock)
    accounts = seated_table(tables, wallet, count=2)
    service = TableService(tables)
    context = LoopContext()
    session = WatchSession.open(tables, service.hub, service.views, "t1", accounts[0])
    stream = service._updates(session, "", context)
    try:
        assert next(stream).HasField("snapshot")
        assert next(stream) is WAITING
        tables.ready("t1", accounts[1])  # an event for this stream, with no view for its player
        assert next(stream) is WAITING  # held...
        assert context.wakes_later == [pytest.approx(EVENTS_HOLD_SECONDS)]
        clock.now += EVENTS_HOLD_SECONDS / 2  # ...and woken before the hold is over
        assert next(stream) is WAITING
        assert context.wakes_later[1:] == [pytest.approx(EVENTS_HOLD_SECONDS / 2)], "woken early: the wake is set again"
        clock.now += EVENTS_HOLD_SECONDS
        update = next_update(stream)
        assert [event.type for event in update.events] == ["ready"]
    finally:
        stream.close()
        session.close()
        service.hub.stop()
