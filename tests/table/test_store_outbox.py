"""The settlement outbox: each key queued once, listed until acknowledged."""

from __future__ import annotations

import pytest

from paiju.table.store import DuplicateOutboxKey, OutboxEntry, StaleVersion, TableStore
from paiju.table.store.records import acked_outbox_member, parse_settled_notice
from tests.patience import wait_until

from .conftest import Backend


def test_pending_entries_are_listed_until_acknowledged(store: TableStore) -> None:
    store.create("a", b"s")
    store.create("b", b"s")
    store.commit("a", 1, b"s", outbox=[("hand-1:alice", b"+10"), ("hand-1:bob", b"-10")])
    store.commit("b", 1, b"s", outbox=[("hand-7:carol", b"+5")])
    assert sorted(store.outbox_pending(), key=lambda e: (e.table_id, e.key)) == [
        OutboxEntry("a", "hand-1:alice", b"+10"),
        OutboxEntry("a", "hand-1:bob", b"-10"),
        OutboxEntry("b", "hand-7:carol", b"+5"),
    ]
    assert len(store.outbox_pending(limit=2)) == 2
    assert store.outbox_ack("a", "hand-1:alice") is True
    assert store.outbox_ack("a", "hand-1:alice") is False  # a repeated delivery changes nothing
    assert store.outbox_ack("b", "hand-7:carol") is True
    assert store.outbox_pending() == [OutboxEntry("a", "hand-1:bob", b"-10")]


def test_a_key_is_never_added_twice(store: TableStore) -> None:
    store.create("t1", b"s")
    with pytest.raises(DuplicateOutboxKey):
        store.commit("t1", 1, b"s", outbox=[("hand-1", b"x"), ("hand-1", b"y")])
    version = store.commit("t1", 1, b"s", outbox=[("hand-1", b"x")])
    with pytest.raises(DuplicateOutboxKey):  # while pending
        store.commit("t1", version, b"s", outbox=[("hand-1", b"x")])
    store.outbox_ack("t1", "hand-1")
    with pytest.raises(DuplicateOutboxKey):  # after it was delivered
        store.commit("t1", version, b"s", outbox=[("hand-1", b"x")])
    assert store.outbox_pending() == []
    assert store.load("t1").version == version


def test_only_the_latest_acknowledged_keys_are_remembered(backend: Backend) -> None:
    store = backend.store(acked_outbox_memory=3)
    store.create("t1", b"s")
    version = 1
    for hand in range(5):
        version = store.commit("t1", version, b"s", outbox=[(f"hand-{hand}", b"x")])
        store.outbox_ack("t1", f"hand-{hand}")
    acked = backend.new_client().zrange(store.keys("t1").outbox_acked, 0, -1)
    assert acked == [acked_outbox_member(f"hand-{hand}") for hand in (2, 3, 4)]
    with pytest.raises(DuplicateOutboxKey):
        store.commit("t1", version, b"s", outbox=[("hand-4", b"x")])
    # Forgotten: hand-1 may be queued again.
    store.commit("t1", version, b"s", outbox=[("hand-1", b"x")])


def test_keys_remembered_before_hashes_still_refuse_a_second_queueing(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    # What an older store left: the acknowledged key itself.
    backend.new_client().zadd(store.keys("t1").outbox_acked, {"hand-1": 1})
    with pytest.raises(DuplicateOutboxKey):
        store.commit("t1", 1, b"s", outbox=[("hand-1", b"x")])
    assert store.commit("t1", 1, b"s", outbox=[("hand-2", b"x")]) == 2
    assert store.outbox_ack("t1", "hand-2") is True
    with pytest.raises(DuplicateOutboxKey):
        store.commit("t1", 2, b"s", outbox=[("hand-2", b"x")])


def test_a_long_lived_tables_acknowledged_keys_stay_small(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    version = 1
    for hand in range(100):
        key = f"settle:zhajinhua-free-05-{hand}-0a1b2c3d"
        version = store.commit("t1", version, b"s", outbox=[(key, b"x")])
        store.outbox_ack("t1", key)
    # 64 remembered keys; as themselves they would take ~3.1 KB.
    assert store.memory_usage("t1").by_key[store.keys("t1").outbox_acked] <= 960


def test_pending_entries_outlive_a_deleted_table(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    store.commit(
        "t1",
        1,
        b"s",
        events=[(None, "end", b"")],
        deadlines_set=[("turn", 5, 2)],
        outbox=[("hand-1", b"owed")],
    )
    assert store.delete("t1") is True
    assert store.outbox_pending() == [OutboxEntry("t1", "hand-1", b"owed")]
    assert store.due_deadlines(now_ms=10) == []
    assert store.outbox_ack("t1", "hand-1") is True
    assert backend.keys() == []  # nothing of the table is left, indexes included


def _unread(store: TableStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on ``store`` must answer its outbox keys without reading them."""
    def read(*_: object) -> None:
        raise AssertionError("the outbox was read")

    monkeypatch.setattr(store._client, "hkeys", read)


def test_outbox_keys_known_follow_own_commits_and_acknowledgements_without_a_read(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    store = backend.store()
    store.create("t1", b"s")
    store.load("t1")  # the version it is known at
    assert store.outbox_keys("t1") == []  # one read; from here on it is known
    version = store.commit("t1", 1, b"s", outbox=[("hand-1:a", b"+1"), ("hand-1:b", b"-1")])
    _unread(store, monkeypatch)
    assert store.outbox_keys_known("t1") == ["hand-1:a", "hand-1:b"]
    store.commit("t1", version, b"s", outbox=[("hand-2:a", b"+1")])
    assert store.outbox_keys_known("t1") == ["hand-1:a", "hand-1:b", "hand-2:a"]
    for key, left in (("hand-1:a", ["hand-1:b", "hand-2:a"]), ("hand-1:b", ["hand-2:a"]), ("hand-2:a", [])):
        assert store.outbox_ack("t1", key) is True
        assert store.outbox_keys_known("t1") == left


def test_outbox_keys_known_never_miss_a_settlement_another_process_queued(backend: Backend) -> None:
    here, there = backend.store(), backend.store()
    here.create("t1", b"s")
    assert here.outbox_keys("t1") == []
    there.commit("t1", 1, b"s", outbox=[("hand-1", b"x")])
    # Still "empty" here, but only for a change decided on version 1, whose commit is refused.
    with pytest.raises(StaleVersion):
        here.commit("t1", 1, b"s")
    assert here.outbox_keys_known("t1") == ["hand-1"]


def test_an_acknowledgement_elsewhere_is_learnt_at_the_next_read(backend: Backend) -> None:
    here, there = backend.store(), backend.store()
    here.create("t1", b"s")
    here.load("t1")
    here.outbox_keys("t1")
    here.commit("t1", 1, b"s", outbox=[("hand-1", b"x")])
    there.outbox_ack("t1", "hand-1")
    # Still owed as far as this process knows (a start then waits for a settlement already made,
    # as it would have on a read just before the acknowledgement) …
    assert here.outbox_keys_known("t1") == ["hand-1"]
    # … until it reads, or acknowledges a key of the table itself.
    assert here.outbox_keys("t1") == [] and here.outbox_keys_known("t1") == []


def test_outbox_keys_known_at_another_version_are_not_carried_into_a_commit(backend: Backend) -> None:
    here, there = backend.store(), backend.store()
    here.create("t1", b"s")
    here.load("t1")
    assert here.outbox_keys("t1") == []
    here.commit("t1", 1, b"s", outbox=[("hand-1", b"x")])  # version 2: hand-1 owed, as known here
    there.outbox_ack("t1", "hand-1")
    there.commit("t1", 2, b"s", outbox=[("hand-2", b"x")])  # version 3: hand-2 owed
    # `here` commits on version 3 without having read it (its caller knew the version). What it
    # knew at version 2 plus its own key has as many keys as Redis, but not the same ones.
    here.commit("t1", 3, b"s", outbox=[("hand-3", b"x")])
    assert here.outbox_keys_known("t1") == ["hand-2", "hand-3"]


def _heard(subscription, count: int) -> list[str]:  # type: ignore[no-untyped-def]
    """The table ids of the next ``count`` notices, and then none more."""
    heard: list[str] = []

    def enough() -> bool:
        notice = subscription.get_message(timeout=0.5)  # None also for the subscription's own reply
        if notice is not None:
            heard.append(notice["data"].decode())
        return len(heard) >= count

    wait_until(f"{count} notices", enough)
    assert subscription.get_message(timeout=0.3) is None
    return heard


def test_a_commit_that_queues_entries_tells_the_outbox_channel_and_one_that_does_not_stays_quiet(
    store: TableStore,
) -> None:
    store.create("t1", b"s")
    store.create("t2", b"s")
    notices = store.notices(store.outbox_channel)
    try:
        store.commit("t1", 1, b"s", events=[(None, "bet", b"1")])  # no entry: the relay has nothing to do
        store.commit("t2", 1, b"s", outbox=[("hand-1:alice", b"+10"), ("hand-1:bob", b"-10")])
        assert _heard(notices, 1) == ["t2"]
    finally:
        notices.close()


def test_an_acknowledgement_tells_the_settled_channel_once(store: TableStore) -> None:
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", outbox=[("hand-1:alice", b"+10"), ("hand-1:bob", b"-10")])
    notices = store.notices(store.settled_channel)
    try:
        store.outbox_ack("t1", "hand-1:alice")
        store.outbox_ack("t1", "hand-1:alice")  # a repeated delivery: nothing new to tell
        store.outbox_ack("t1", "hand-1:bob")
        assert [parse_settled_notice(notice) for notice in _heard(notices, 2)] == [
            ("t1", "hand-1:alice"), ("t1", "hand-1:bob")]
    finally:
        notices.close()


def test_an_acknowledgement_heard_from_elsewhere_is_known_without_reading_the_outbox(backend: Backend) -> None:
    # The table server used to read the outbox once more at each start after a settlement, to
    # confirm what the relay's notice had just told it.
    table_server, relay = backend.store(), backend.store()
    table_server.create("t1", b"s")
    table_server.load("t1")
    assert table_server.outbox_keys("t1") == []  # known from here on, through its own commits
    table_server.commit("t1", 1, b"s", outbox=[("settle:1", b"+10"), ("release:1", b"0")])
    relay.outbox_ack("t1", "settle:1")
    table_server.note_acknowledged("t1", "settle:1")
    table_server._client = None  # any read from here would fail
    assert table_server.outbox_keys_known("t1") == ["release:1"]
