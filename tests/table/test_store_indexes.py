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


def test_repair_covers_a_crash_between_commit_and_index_update(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = backend.store()
    store.create("t1", b"s")

    def lost(*_: object) -> None:
        """The process died after the commit reached Redis, before its index note did (on a
        single Redis both go in one write, but a connection can break between them)."""

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


def test_indexes_match_the_tables_after_concurrent_commits(backend: Backend) -> None:
    writers, commits = 6, 25
    setup = backend.store()
    setup.create("busy", b"s")

    def writer(number: int) -> None:
        store = backend.store()
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
    # The index may run ahead of the tables, never behind them: no deadline is ever late …
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
