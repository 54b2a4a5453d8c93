"""The stream hub: one reader per process hands each table's events to its watchers."""

from __future__ import annotations

import queue
import threading

import pytest

from paiju.table.fanout import EVENTS_LOST, StreamHub
from tests.table.conftest import Backend

WAIT_SECONDS = 5.0


def next_batch(subscription, count: int) -> list:  # type: ignore[no-untyped-def]
    try:
        return [subscription.events.get(timeout=WAIT_SECONDS) for _ in range(count)]
    except queue.Empty:
        pytest.fail(f"the hub handed out fewer than {count} items")


def test_watchers_get_every_event_of_their_table_in_order_and_are_notified(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    store.create("t2", b"s")
    hub = StreamHub(store)
    notified: list[str] = []
    first, second = hub.subscribe("t1", "a"), hub.subscribe("t1", "b")
    first.notify = lambda: notified.append("a")
    other = hub.subscribe("t2", "c")
    try:
        version = store.commit("t1", 1, b"s", events=[(None, "bet", b"1"), ((0,), "cards", b"AS")])
        store.commit("t1", version, b"s", events=[(None, "bet", b"2")])
        got = [e.payload for e in next_batch(first, 3)]
        assert got == [b"1", b"AS", b"2"]
        assert [e.payload for e in next_batch(second, 3)] == got  # the watcher filters by seat
        assert notified
        assert other.events.empty()
    finally:
        hub.stop()


def test_a_hub_that_fell_behind_a_trim_says_events_were_lost_before_the_batch(backend: Backend) -> None:
    store = backend.store(stream_maxlen=3)
    store.create("t1", b"s")
    hub = StreamHub(store)
    subscription = hub.subscribe("t1", "a")
    hub.stop()  # the reader pauses while the table moves on past its stream's length
    hub._thread.join(timeout=WAIT_SECONDS)  # type: ignore[union-attr]
    version = 1
    for n in range(10):
        version = store.commit("t1", version, b"s", events=[(None, "bet", str(n).encode())])
    hub._stop.clear()
    threading.Thread(target=hub._run, daemon=True).start()
    try:
        assert next_batch(subscription, 1) == [EVENTS_LOST]
        retained = store.read_many({"t1": "0-0"})["t1"]
        assert [e.payload for e in next_batch(subscription, len(retained))] == [e.payload for e in retained]
        assert retained[-1].payload == b"9"
        # Caught up, nothing more is lost.
        store.commit("t1", version, b"s", events=[(None, "bet", b"10")])
        assert [e.payload for e in next_batch(subscription, 1)] == [b"10"]
    finally:
        hub.stop()
