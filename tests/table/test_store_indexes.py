"""The global indexes follow the tables, and a repair scan rebuilds them from scratch."""

from __future__ import annotations

import pytest

from paiju.table.store import DueDeadline, OutboxEntry, StaleVersion, TableStore

from .conftest import Backend, run_together


def _populate(store: TableStore) -> None:
    for n in range(5):
        store.create(f"t{n}", b"s")
        store.commit(
            f"t{n}",
            1,
            b"s",
            deadlines_set=[("turn", 100 * n, 2)],
            outbox=[(f"hand-{n}", b"x")] if n % 2 == 0 else [],
        )
    store.create("quiet", b"s")


def _listing(store: TableStore) -> tuple[list[DueDeadline], list[OutboxEntry]]:
    return (
        store.due_deadlines(now_ms=10_000),
        sorted(store.outbox_pending(), key=lambda e: e.table_id),
    )


def test_repair_rebuilds_deleted_indexes(backend: Backend) -> None:
    store = backend.store()
    _populate(store)
    expected = _listing(store)
    assert len(expected[0]) == 5 and len(expected[1]) == 3
    backend.new_client().delete(store.indexes.keys.deadlines, store.indexes.keys.outbox)
    assert _listing(store) == ([], [])
    assert store.repair_indexes() == 6
    assert _listing(store) == expected


def _as_under_a_cluster(store: TableStore) -> TableStore:
    """The store as it works under Redis Cluster, where the indexes live in other slots than a
    table's keys: its scripts cannot write them, a round trip after each change does."""
    store._indexes_reachable_from_scripts = False
    return store


def test_repair_covers_a_crash_between_commit_and_index_update(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _as_under_a_cluster(backend.store())
    store.create("t1", b"s")

    def lost(*_: object) -> None:
        """The process died after the commit reached Redis, before its index note did."""

    monkeypatch.setattr(store.indexes, "note", lost)
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 50, 2)], outbox=[("hand-1", b"x")])
    monkeypatch.undo()
    assert store.load("t1").version == 2  # the commit itself landed
    assert _listing(store) == ([], [])
    store.repair_indexes()
    assert _listing(store) == (
        [DueDeadline("t1", "turn", 50, 2)],
        [OutboxEntry("t1", "hand-1", b"x")],
    )


def test_on_one_redis_a_commit_writes_its_index_entries_itself(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = backend.store()
    store.create("t1", b"s")

    def no_second_write(*_: object) -> None:
        raise AssertionError("a commit on one Redis needs no index note of its own")

    monkeypatch.setattr(store.indexes, "note", no_second_write)
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 50, 2)], outbox=[("hand-1", b"x")])
    assert _listing(store) == ([DueDeadline("t1", "turn", 50, 2)], [OutboxEntry("t1", "hand-1", b"x")])


def _entries(backend: Backend, store: TableStore, table_id: str) -> tuple[float | None, float | None]:
    client = backend.new_client()
    return (client.zscore(store.indexes.keys.deadlines, table_id),
            client.zscore(store.indexes.keys.outbox, table_id))


def test_bug_a_table_whose_last_deadline_a_commit_cleared_stayed_listed_until_a_listing_put_it_right(
    backend: Backend,
) -> None:
    """Every hand's end cleared the table's turn timer, yet the index kept the timer's due time
    (a commit could only move an entry earlier): the watchdog listed the table then, found
    nothing due and read and rewrote its entries, two to three round trips a hand."""
    store = backend.store()
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 5_000, 2), ("start", 9_000, 2)])
    assert _entries(backend, store, "t1") == (5_000, None)
    store.commit("t1", 2, b"s", deadlines_clear=["turn"])
    assert _entries(backend, store, "t1") == (9_000, None)  # later: exact, not only ever earlier
    store.commit("t1", 3, b"s", deadlines_clear=["start"])
    assert _entries(backend, store, "t1") == (None, None)


def test_a_move_that_pushes_the_turn_timer_later_leaves_the_entry_early_until_a_listing_finds_it(
    backend: Backend,
) -> None:
    store = backend.store()
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 5_000, 2)])
    for version in range(2, 5):
        store.commit("t1", version, b"s", deadlines_set=[("turn", 5_000 + version, version + 1)])
    assert _entries(backend, store, "t1") == (5_000, None), "no index write for each move"
    assert store.due_deadlines(now_ms=5_001) == []
    assert _entries(backend, store, "t1") == (5_004, None), "the listing put it right"
    store.commit("t1", 5, b"s", deadlines_set=[("turn", 4_000, 6)])
    assert _entries(backend, store, "t1") == (4_000, None), "earlier: written at once"


def test_a_claim_moves_the_table_s_index_entry_to_what_is_left(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 50, 2), ("kick", 900, 2)])
    assert store.claim_deadline("t1", "turn", 2, now_ms=100, lease_ms=5_000)
    assert _entries(backend, store, "t1") == (900, None)  # the lease (5,100) is later than the kick
    assert store.claim_deadline("t1", "kick", 2, now_ms=1_000)
    assert _entries(backend, store, "t1") == (5_100, None)
    assert not store.claim_deadline("t1", "turn", 2, now_ms=1_000)  # leased: not due again yet
    assert store.claim_deadline("t1", "turn", 2, now_ms=5_100)
    assert _entries(backend, store, "t1") == (None, None)


def test_under_a_cluster_the_indexes_follow_commits_and_claims_a_round_trip_later(backend: Backend) -> None:
    store = _as_under_a_cluster(backend.store())
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 50, 2)], outbox=[("hand-1", b"x")])
    assert _entries(backend, store, "t1") == (50, 1)
    assert store.claim_deadline("t1", "turn", 2, now_ms=100)
    assert store.outbox_ack("t1", "hand-1")
    assert _entries(backend, store, "t1") == (None, None)


def test_repair_drops_entries_of_tables_that_are_gone(backend: Backend) -> None:
    store = backend.store()
    _populate(store)
    client = backend.new_client()
    client.zadd(store.indexes.keys.deadlines, {"ghost": 1})
    client.zadd(store.indexes.keys.outbox, {"ghost": 1})
    store.repair_indexes()
    assert client.zscore(store.indexes.keys.deadlines, "ghost") is None
    assert client.zscore(store.indexes.keys.outbox, "ghost") is None


def test_a_stale_index_entry_heals_when_listed(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 5_000, 2)])
    client = backend.new_client()
    client.zadd(store.indexes.keys.deadlines, {"t1": 10})  # as if an older sync landed last
    assert store.due_deadlines(now_ms=100) == []
    assert client.zscore(store.indexes.keys.deadlines, "t1") == 5_000


@pytest.mark.parametrize("cluster", [False, True], ids=["one Redis", "as under a cluster"])
def test_indexes_match_the_tables_after_concurrent_commits(backend: Backend, cluster: bool) -> None:
    writers, commits = 6, 25
    setup = backend.store()
    setup.create("busy", b"s")

    def writer(number: int) -> None:
        store = _as_under_a_cluster(backend.store()) if cluster else backend.store()
        done = 0
        while done < commits:
            version = store.load("busy").version
            due = 1_000 + (version * 37 + number) % 500
            change = (
                {"deadlines_clear": ["turn"]}
                if version % 3 == 0
                else {"deadlines_set": [("turn", due, version + 1)]}
            )
            try:
                store.commit("busy", version, b"s", **change)
            except StaleVersion:
                continue
            done += 1

    run_together(writer, writers)
    truth = setup.indexes.truth("busy")
    client = backend.new_client()
    score = client.zscore(setup.indexes.keys.deadlines, "busy")
    # The index may run ahead of the tables (a commit that pushes the turn timer later leaves
    # the entry early; under a cluster a note lands after its commit), never behind them: no
    # deadline is ever late …
    if truth.earliest_deadline_ms is not None:
        assert score is not None and int(score) <= truth.earliest_deadline_ms
    # … and listing puts right whatever ran ahead.
    setup.due_deadlines(now_ms=10**12)
    healed = client.zscore(setup.indexes.keys.deadlines, "busy")
    if truth.earliest_deadline_ms is None:
        assert healed is None
    else:
        assert healed is not None and int(healed) <= truth.earliest_deadline_ms


def test_a_sync_overtaken_by_a_newer_commit_still_leaves_the_newest_entry(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, other_replica = backend.store(), backend.store()
    store.create("t1", b"s")
    read_truth = store.indexes.truth
    reads = 0

    def truth_then_overtaken(table_id: str):  # type: ignore[no-untyped-def]
        nonlocal reads
        seen = read_truth(table_id)
        reads += 1
        if reads == 1:
            # Another replica commits and updates the index between our read and our write.
            other_replica.commit("t1", 2, b"s", deadlines_set=[("turn", 900, 3)])
        return seen

    store.commit("t1", 1, b"s", deadlines_set=[("turn", 100, 2)])
    monkeypatch.setattr(store.indexes, "truth", truth_then_overtaken)
    store.indexes.sync("t1")
    assert backend.new_client().zscore(store.indexes.keys.deadlines, "t1") == 900
