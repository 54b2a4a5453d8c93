"""Deadlines: listed when due, claimed by exactly one of many claimers."""

from __future__ import annotations

import threading
from collections import Counter

from paiju.table.store import Deadline, DueDeadline, TableStore
from tests.patience import PATIENCE_SECONDS

from .conftest import Backend, run_together


def test_commit_sets_replaces_and_clears_deadlines(store: TableStore) -> None:
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 2_000, 2), ("ready", 1_000, 2)])
    assert store.deadlines("t1") == [Deadline("ready", 1_000, 2), Deadline("turn", 2_000, 2)]
    store.commit("t1", 2, b"s", deadlines_set=[("turn", 3_000, 3)], deadlines_clear=["ready"])
    assert store.deadlines("t1") == [Deadline("turn", 3_000, 3)]
    assert store.due_deadlines(now_ms=2_999) == []
    assert store.due_deadlines(now_ms=3_000) == [DueDeadline("t1", "turn", 3_000, 3)]


def test_a_deadline_set_outside_a_commit_falls_due_unless_a_commit_clears_it(store: TableStore) -> None:
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 5_000, 2)])
    store.set_deadline("t1", "starting:1-ab", 1_000, 2)
    assert store.load("t1").version == 2, "the version stays"
    assert store.due_deadlines(now_ms=1_000) == [DueDeadline("t1", "starting:1-ab", 1_000, 2)]
    store.commit("t1", 2, b"s", deadlines_clear=["starting:1-ab"])
    assert store.deadlines("t1") == [Deadline("turn", 5_000, 2)]
    assert store.due_deadlines(now_ms=4_999) == []


def test_due_deadlines_come_earliest_first_across_tables_up_to_the_limit(
    store: TableStore,
) -> None:
    for n, due in enumerate([500, 100, 300, 900]):
        store.create(f"t{n}", b"s")
        store.commit(f"t{n}", 1, b"s", deadlines_set=[("turn", due, 2), ("kick", due + 1, 2)])
    due = store.due_deadlines(now_ms=500, limit=3)
    assert [(d.table_id, d.name, d.due_ms) for d in due] == [
        ("t1", "turn", 100),
        ("t1", "kick", 101),
        ("t2", "turn", 300),
    ]
    assert len(store.due_deadlines(now_ms=10_000, limit=100)) == 8


def test_a_claim_needs_the_deadline_due_and_of_the_same_version(store: TableStore) -> None:
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 1_000, 2)])
    assert store.claim_deadline("t1", "turn", 2, now_ms=999) is False  # not due yet
    assert store.claim_deadline("t1", "turn", 1, now_ms=1_000) is False  # set for another version
    assert store.claim_deadline("t1", "ready", 2, now_ms=1_000) is False  # no such deadline
    assert store.claim_deadline("t1", "turn", 2, now_ms=1_000) is True
    assert store.claim_deadline("t1", "turn", 2, now_ms=1_000) is False  # already taken
    assert store.deadlines("t1") == []
    assert store.due_deadlines(now_ms=5_000) == []


def test_a_leased_claim_fires_again_only_after_the_lease(store: TableStore) -> None:
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 1_000, 2)])
    assert store.claim_deadline("t1", "turn", 2, now_ms=1_000, lease_ms=500) is True
    assert store.claim_deadline("t1", "turn", 2, now_ms=1_200, lease_ms=500) is False
    assert store.due_deadlines(now_ms=1_499) == []
    assert store.due_deadlines(now_ms=1_500) == [DueDeadline("t1", "turn", 1_500, 2)]
    # The table's commit for the timeout clears it; then nothing fires again.
    store.commit("t1", 2, b"s", deadlines_clear=["turn"])
    assert store.due_deadlines(now_ms=10_000) == []


def test_concurrent_claimers_take_each_deadline_exactly_once(backend: Backend) -> None:
    setup = backend.store()
    tables = 12
    for n in range(tables):
        setup.create(f"t{n}", b"s")
        setup.commit(
            f"t{n}", 1, b"s", deadlines_set=[("turn", 100 + n, 2), ("reconnect-1", 200 + n, 2)]
        )
    claimers = 6
    barrier = threading.Barrier(claimers)
    claimed: list[tuple[str, str]] = []

    def claimer(_: int) -> None:
        store = backend.store()
        barrier.wait(timeout=PATIENCE_SECONDS)
        while due := store.due_deadlines(now_ms=1_000, limit=5):
            for deadline in due:
                if store.claim_deadline(
                    deadline.table_id, deadline.name, deadline.version_set_for, now_ms=1_000
                ):
                    claimed.append((deadline.table_id, deadline.name))

    run_together(claimer, claimers)
    counts = Counter(claimed)
    assert set(counts.values()) == {1}
    assert set(counts) == {
        (f"t{n}", name) for n in range(tables) for name in ("turn", "reconnect-1")
    }
    assert setup.due_deadlines(now_ms=10_000) == []


def test_a_table_and_its_deadlines_read_together_are_what_they_read_apart(store: TableStore) -> None:
    assert store.load_with_deadlines("t1") == (None, [])
    store.create("t1", b"s")
    store.commit("t1", 1, b"state 2", events=[(None, "bet", b"1")],
                 deadlines_set=[("turn", 2_000, 2), ("ready", 1_000, 2)])
    snapshot, deadlines = store.load_with_deadlines("t1")
    assert snapshot == store.load("t1") and snapshot.state == b"state 2"
    assert deadlines == store.deadlines("t1") and [d.name for d in deadlines] == ["ready", "turn"]


def test_a_commit_keeps_the_deadlines_in_the_state_key_and_no_key_of_their_own(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", deadlines_set=[("turn", 2_000, 2)])
    store.set_deadline("t1", "starting:1-ab", 1_000, 2)
    assert store.claim_deadline("t1", "starting:1-ab", 2, now_ms=1_000, lease_ms=500) is True
    client = backend.new_client()
    assert client.exists(store.keys("t1").deadlines) == 0
    assert client.zscore(store.indexes.keys.deadlines, "t1") == 1_500, "the index holds the earliest"
    assert store.deadlines("t1") == [Deadline("starting:1-ab", 1_500, 2), Deadline("turn", 2_000, 2)]


def _as_an_older_store_left_it(backend: Backend, store: TableStore, table_id: str) -> list[Deadline]:
    """Rewrite a table's state key without its deadlines, and put them in a hash of their own, as
    a store before the deadlines moved into the state left a table; its deadlines."""
    client = backend.new_client()
    keys = store.keys(table_id)
    stored = client.get(keys.state)
    header, _, body = stored.partition(b"\n")
    fields = header.split(b" ")
    meta_length, deadlines_length = int(fields[3]), int(fields[6])
    deadlines = store.deadlines(table_id)
    client.set(keys.state, b" ".join(fields[:6]) + b"\n" + body[:meta_length] + body[meta_length + deadlines_length:])
    client.hset(keys.deadlines, mapping={d.name: f"{d.due_ms}:{d.version_set_for}" for d in deadlines})
    return deadlines


def _older_table(backend: Backend) -> tuple[TableStore, list[Deadline]]:
    store = backend.store()
    store.create("t1", b"s")
    store.commit("t1", 1, b"state 2", events=[(None, "bet", b"1")],
                 deadlines_set=[("turn", 2_000, 2), ("ready", 1_000, 2)])
    return store, _as_an_older_store_left_it(backend, store, "t1")


def test_the_deadlines_of_a_table_an_older_store_wrote_are_read_from_its_hash(backend: Backend) -> None:
    store, deadlines = _older_table(backend)
    assert [d.name for d in deadlines] == ["ready", "turn"]
    assert store.deadlines("t1") == deadlines
    assert store.load_with_deadlines("t1") == (store.load("t1"), deadlines)
    assert store.load("t1").state == b"state 2"
    assert [e.payload for e in store.read_events("t1")] == [b"1"]
    assert store.due_deadlines(now_ms=1_000) == [DueDeadline("t1", "ready", 1_000, 2)]
    assert store.indexes.truth("t1").earliest_deadline_ms == 1_000


def test_the_next_commit_moves_an_older_tables_deadlines_into_its_state(backend: Backend) -> None:
    store, _ = _older_table(backend)
    store.commit("t1", 2, b"state 3", deadlines_set=[("turn", 3_000, 3)])
    client = backend.new_client()
    assert client.exists(store.keys("t1").deadlines) == 0
    assert store.deadlines("t1") == [Deadline("ready", 1_000, 2), Deadline("turn", 3_000, 3)]
    assert client.zscore(store.indexes.keys.deadlines, "t1") == 1_000
    assert [e.payload for e in store.read_events("t1")] == [b"1"], "its events stay"


def test_a_claim_moves_an_older_tables_deadlines_into_its_state(backend: Backend) -> None:
    store, _ = _older_table(backend)
    assert store.claim_deadline("t1", "ready", 2, now_ms=1_000) is True
    assert backend.new_client().exists(store.keys("t1").deadlines) == 0
    assert store.deadlines("t1") == [Deadline("turn", 2_000, 2)]
    assert store.due_deadlines(now_ms=1_999) == []
    assert store.load("t1").version == 2, "a claim is no commit"


def test_a_deadline_of_a_table_that_does_not_exist_is_neither_set_nor_claimed(store: TableStore) -> None:
    store.set_deadline("t1", "starting:1-ab", 1_000, 2)
    assert store.deadlines("t1") == [] and store.due_deadlines(now_ms=1_000) == []
    assert store.claim_deadline("t1", "starting:1-ab", 2, now_ms=1_000) is False
