"""Creating, loading and committing table state: the compare-and-set contract."""

from __future__ import annotations

import threading

import pytest

from paiju.table.store import (
    ALL_SEATS,
    DuplicateOutboxKey,
    EventsTrimmed,
    Snapshot,
    StaleVersion,
    TableChange,
    TableExists,
    TableStore,
    UnknownTable,
)
from tests.patience import PATIENCE_SECONDS

from .conftest import Backend, run_together


def test_create_then_load_gives_version_one_and_the_state(store: TableStore) -> None:
    assert store.create("t1", b"\x00state\xff", {"game": "zhajinhua", "tier": "free"}) == 1
    snapshot = store.load("t1")
    assert snapshot is not None
    assert snapshot.version == 1
    assert snapshot.state == b"\x00state\xff"
    assert snapshot.last_event_id == "0-0"
    assert store.meta("t1") == {"game": "zhajinhua", "tier": "free"}
    assert store.load("t2") is None


def test_creating_a_live_table_again_is_refused_and_keeps_it(store: TableStore) -> None:
    store.create("t1", b"first")
    store.commit("t1", 1, b"second")
    with pytest.raises(TableExists) as refused:
        store.create("t1", b"intruder")
    assert refused.value.version == 2
    assert store.load("t1").state == b"second"


def test_commit_moves_version_state_and_last_event_id(store: TableStore) -> None:
    store.create("t1", b"v1")
    assert store.commit("t1", 1, b"v2", events=[(None, "bet", b"10")]) == 2
    assert store.commit("t1", 2, b"v3") == 3
    snapshot = store.load("t1")
    events = store.read_events("t1", seat=ALL_SEATS)
    assert (snapshot.version, snapshot.state) == (3, b"v3")
    assert [event.version for event in events] == [2]
    assert snapshot.last_event_id == events[-1].id


def _everything(backend: Backend, store: TableStore, table_id: str) -> tuple[object, ...]:
    keys = store.keys(table_id)
    client = backend.new_client()
    return (
        store.load(table_id),
        store.read_events(table_id, seat=ALL_SEATS),
        client.hgetall(keys.deadlines),
        client.hgetall(keys.outbox),
        client.zrange(keys.outbox_acked, 0, -1),
        client.zrange(store.indexes.keys.deadlines, 0, -1, withscores=True),
        client.zrange(store.indexes.keys.outbox, 0, -1, withscores=True),
    )


def test_a_stale_commit_changes_nothing(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"v1")
    store.commit(
        "t1",
        1,
        b"v2",
        events=[(None, "deal", b"")],
        deadlines_set=[("turn", 1_000, 2), ("ready", 2_000, 2)],
        outbox=[("hand-1", b"settle")],
    )
    before = _everything(backend, store, "t1")
    with pytest.raises(StaleVersion) as stale:
        store.commit(
            "t1",
            1,
            b"lost race",
            events=[(None, "bet", b"1"), ((0,), "cards", b"AS")],
            deadlines_set=[("turn", 5_000, 2)],
            deadlines_clear=["ready"],
            outbox=[("hand-2", b"settle")],
        )
    assert (stale.value.expected_version, stale.value.current_version) == (1, 2)
    assert _everything(backend, store, "t1") == before


def test_a_duplicate_outbox_key_refuses_the_whole_commit(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"v1")
    store.commit("t1", 1, b"v2", outbox=[("hand-1", b"settle")])
    before = _everything(backend, store, "t1")
    with pytest.raises(DuplicateOutboxKey) as duplicate:
        store.commit(
            "t1",
            2,
            b"v3",
            events=[(None, "bet", b"1")],
            deadlines_set=[("turn", 9, 3)],
            outbox=[("hand-1", b"again")],
        )
    assert duplicate.value.key == "hand-1"
    assert _everything(backend, store, "t1") == before


def test_commit_to_an_unknown_or_deleted_table_is_refused(store: TableStore) -> None:
    with pytest.raises(UnknownTable):
        store.commit("nowhere", 1, b"state")
    store.create("t1", b"v1")
    assert store.delete("t1") is True
    with pytest.raises(UnknownTable):
        store.commit("t1", 1, b"late writer")
    assert store.load("t1") is None
    assert store.delete("t1") is False


@pytest.mark.parametrize("threads", [8])
def test_racing_writers_win_exactly_once_per_version(backend: Backend, threads: int) -> None:
    rounds = 15
    setup = backend.store(stream_maxlen=64)  # the test reads the whole log
    setup.create("race", b"0")
    barrier = threading.Barrier(threads)
    wins: dict[int, list[int]] = {writer: [] for writer in range(threads)}
    stale_seen: list[int] = []

    def writer(number: int) -> None:
        store = backend.store(stream_maxlen=64)  # its own connection pool, as a separate replica would have
        for _ in range(rounds):
            barrier.wait(timeout=PATIENCE_SECONDS)
            snapshot = store.load("race")
            barrier.wait(timeout=PATIENCE_SECONDS)  # everyone holds the same version before anyone commits
            payload = f"{number}@{snapshot.version}".encode()
            try:
                store.commit("race", snapshot.version, payload, events=[(None, "won", payload)])
            except StaleVersion as stale:
                stale_seen.append(stale.current_version)
            else:
                wins[number].append(snapshot.version)

    run_together(writer, threads)

    won_versions = sorted(v for versions in wins.values() for v in versions)
    assert won_versions == list(range(1, rounds + 1))  # one winner per round, each version once
    assert len(stale_seen) == rounds * (threads - 1)
    final = setup.load("race")
    assert final.version == rounds + 1
    events = setup.read_events("race", seat=ALL_SEATS, count=1000)
    assert [event.version for event in events] == list(range(2, rounds + 2))
    winners_by_version = {v: n for n, versions in wins.items() for v in versions}
    assert [event.payload for event in events] == [
        f"{winners_by_version[v]}@{v}".encode() for v in range(1, rounds + 1)
    ]
    assert final.state == events[-1].payload


def test_meta_holds_any_text(store: TableStore) -> None:
    meta = {"game": "炸金花", "note": "a:b\n7:x", "empty": ""}
    store.create("t1", b"\n0 0-0 0-0 0\n", meta)
    assert store.meta("t1") == meta
    assert store.load("t1").state == b"\n0 0-0 0-0 0\n"
    assert store.commit("t1", 1, b"s2", events=[(None, "bet", b"1")]) == 2
    assert store.meta("t1") == meta


def _legacy_table(backend: Backend, store: TableStore) -> str:
    """A table as an older store left it: its state key a hash, one event written."""
    client = backend.new_client()
    event_id = client.xadd(store.keys("t1").events, {"n": 2, "v": "*", "t": "bet", "p": b"10"}).decode()
    client.hset(store.keys("t1").state, mapping={
        "v": 2, "s": b"old state", "e": event_id, "x": "0-0", "m:game": "zhajinhua", "m:tier": "free",
    })
    return event_id


def test_a_table_an_older_store_wrote_reads_as_before(backend: Backend) -> None:
    store = backend.store()
    event_id = _legacy_table(backend, store)
    assert store.load("t1") == Snapshot(version=2, state=b"old state", last_event_id=event_id)
    assert store.load_many(["t1", "t2"]) == {"t1": store.load("t1")}
    assert store.meta("t1") == {"game": "zhajinhua", "tier": "free"}
    assert [e.payload for e in store.read_events("t1")] == [b"10"]
    with pytest.raises(TableExists, match="version 2"):
        store.create("t1", b"new")


def test_the_next_commit_rewrites_an_older_tables_state_key(backend: Backend) -> None:
    store = backend.store()
    event_id = _legacy_table(backend, store)
    with pytest.raises(StaleVersion):
        store.commit("t1", 1, b"late")
    assert store.commit("t1", 2, b"new state", events=[(None, "bet", b"20")]) == 3
    assert backend.new_client().type(store.keys("t1").state) == b"string"
    snapshot = store.load("t1")
    assert (snapshot.version, snapshot.state) == (3, b"new state")
    assert [e.payload for e in store.read_events("t1", after_id=event_id)] == [b"20"]
    assert store.meta("t1") == {"game": "zhajinhua", "tier": "free"}


def test_dropping_an_older_tables_events_keeps_readers_honest(backend: Backend) -> None:
    store = backend.store()
    event_id = _legacy_table(backend, store)
    store.drop_events("t1")
    with pytest.raises(EventsTrimmed):
        store.read_events("t1", after_id="0-0")
    assert store.read_events("t1", after_id=event_id) == []
    assert store.delete("t1") is True
    assert store.load("t1") is None


def test_latest_known_is_the_last_commit_here_until_a_refused_commit_shows_it_is_behind(backend: Backend) -> None:
    store = backend.store()
    elsewhere = TableStore(store.client, prefix=store.prefix)
    store.create("t1", b"v1")
    store.commit("t1", 1, b"v2")
    assert store.latest_known("t1") == store.load("t1")
    elsewhere.commit("t1", 2, b"v3")  # another process moves the table on
    assert store.latest_known("t1").state == b"v2"  # not read again: still what was committed here
    with pytest.raises(StaleVersion):
        store.commit("t1", 2, b"v3 from here")
    assert (store.latest_known("t1").version, store.latest_known("t1").state) == (3, b"v3")


def test_a_commit_change_answers_each_event_with_its_id_and_the_deadlines_after_it(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"v1")
    first = store.commit_change("t1", 1, TableChange(b"v2", events=[(None, "bet", b"1")], deadlines_set=[("turn", 500, 2)]))
    second = store.commit_change("t1", 2, TableChange(b"v3", events=[(None, "bet", b"2", 1), ((1,), "cards", b"AS")],
                                  deadlines_set=[("start", 100, 3)]))
    read = store.read_events("t1", seat=ALL_SEATS)
    assert [e.id for e in read] == [e.id for e in first.events + second.events]
    assert list(second.events) == read[1:]  # ids, versions, visibility, types, payloads and hand numbers
    assert second.previous_event_id == first.last_event_id == read[0].id
    assert second.last_event_id == read[-1].id == store.load("t1").last_event_id
    assert [(d.name, d.due_ms) for d in second.deadlines] == [("start", 100), ("turn", 500)]
