"""Bytes per table: sanity bounds, not a benchmark.

On the real server the figures are ``MEMORY USAGE``; on fakeredis the store's estimate, which
the last test holds to the real figures.
"""

from __future__ import annotations

import uuid

import pytest
import redis

from paiju.table.store import ALL_SEATS, EventsTrimmed, TableStore
from paiju.table.store.memory import estimate_key_bytes

from .conftest import Backend

SMALL_STATE = bytes(range(200))
KB = 1024


def _small_table(store: TableStore) -> int:
    store.create("t1", SMALL_STATE, {"game": "zhajinhua", "tier": "free-100"})
    return store.commit(
        "t1",
        1,
        SMALL_STATE,
        deadlines_set=[("turn", 1_800_000_000_000, 2), ("reconnect-2", 1_800_000_090_000, 2)],
        outbox=[("hand-1:account-42", b'{"coins": -100, "fee": 0}')],
    )


def _bet(store: TableStore, version: int, times: int) -> int:
    for n in range(times):
        version = store.commit(
            "t1",
            version,
            SMALL_STATE,
            events=[(None, "bet", b'{"seat": 1, "coins": 100, "n": %d}' % n)],
        )
    return version


def test_a_small_table_without_events_takes_well_under_4_kb(store: TableStore) -> None:
    _small_table(store)
    usage = store.memory_usage("t1")
    assert 300 < usage.total_bytes <= 1_536, usage
    assert usage.total_bytes == sum(usage.by_key.values())
    assert set(usage.by_key) == {store.keys("t1").state, store.keys("t1").outbox}, "the deadlines are in the state"


def test_the_stream_cap_bounds_a_busy_table(backend: Backend) -> None:
    store = backend.store(stream_maxlen=32)
    version = _bet(store, _small_table(store), 32)
    at_cap = store.memory_usage("t1").total_bytes
    _bet(store, version, 320)
    after_ten_caps = store.memory_usage("t1").total_bytes
    # Untrimmed, 352 events of ~45 bytes would need 21 KB or more; trimmed, the stream holds
    # 32 to 42 of them.
    assert after_ten_caps <= 6 * KB, after_ten_caps
    assert after_ten_caps - at_cap <= 2 * KB


def test_a_busy_tables_events_cost_the_ring_of_its_newest_commits_and_no_stream(backend: Backend) -> None:
    """A stream would take a 4 KB node up front and free trimmed entries only by the node; the
    events a table keeps are a ring inside its state key, trimmed exactly at every commit."""
    store = backend.store(stream_maxlen=16)
    version = _small_table(store)
    quiet = store.memory_usage("t1").by_key[store.keys("t1").state]
    largest = 0
    for _ in range(60):
        version = _bet(store, version, 1)
        largest = max(largest, store.memory_usage("t1").by_key[store.keys("t1").state])
    assert not backend.new_client().exists(store.keys("t1").events)
    with pytest.raises(EventsTrimmed) as trimmed:
        store.read_events("t1")
    assert len(store.read_events("t1", after_id=trimmed.value.trimmed_through)) == 16
    # 16 entries of ~75 bytes (payload, type, visibility, version, id and their lengths).
    assert largest - quiet <= 1_536, (quiet, largest)


def test_dropping_events_shrinks_an_idle_table_and_sends_laggards_to_a_snapshot(
    backend: Backend,
) -> None:
    store = backend.store(stream_maxlen=64)  # keeps every event of the 20 bets below
    version = _bet(store, _small_table(store), 20)
    behind = store.read_events("t1", count=5)[-1].id
    up_to_date = store.load("t1").last_event_id
    with_events = store.memory_usage("t1").total_bytes
    store.drop_events("t1")
    assert store.memory_usage("t1").total_bytes <= min(1_536, with_events - 1 * KB)
    with pytest.raises(EventsTrimmed):
        store.read_events("t1", after_id=behind)
    assert store.read_events("t1", after_id=up_to_date) == []
    store.commit("t1", version, SMALL_STATE, events=[(None, "hand_started", b"{}")])
    assert [e.type for e in store.read_events("t1", after_id=up_to_date, seat=ALL_SEATS)] == [
        "hand_started"
    ]


def test_the_estimate_stays_close_to_memory_usage(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    store = TableStore(client, prefix=f"paiju-test-{uuid.uuid4().hex[:12]}")
    try:
        _bet(store, _small_table(store), 10)
        usage = store.memory_usage("t1")
        assert usage.exact
        for key, exact in usage.by_key.items():
            assert abs(estimate_key_bytes(client, key) - exact) <= 0.35 * exact, key
    finally:
        client.delete(*store.keys("t1").all())
        client.delete(store.indexes.keys.deadlines, store.indexes.keys.outbox)
