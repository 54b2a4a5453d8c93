"""Bad input gets a clear error naming what is wrong, never a crash deep inside Redis."""

from __future__ import annotations

from typing import Any

import fakeredis
import pytest

from paiju.table.store import TableStore, UnknownTable


@pytest.fixture
def live(store: TableStore) -> TableStore:
    store.create("t1", b"s")
    return store


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"state": "text"}, TypeError, "state must be bytes"),
        ({"expected_version": "1"}, TypeError, "expected_version must be an int"),
        ({"expected_version": True}, TypeError, "expected_version must be an int"),
        ({"expected_version": 0}, ValueError, "expected_version must be >= 1"),
        ({"events": "oops"}, TypeError, "events must be a list"),
        ({"events": [(None, "bet")]}, TypeError, "tuple of 3"),
        ({"events": [("0", "bet", b"")]}, TypeError, "visible_to must be None"),
        ({"events": [((-1,), "bet", b"")]}, ValueError, "seat in visible_to must be >= 0"),
        ({"events": [(None, "", b"")]}, ValueError, "event type"),
        ({"events": [(None, "bet", "10")]}, TypeError, "event payload must be bytes"),
        ({"deadlines_set": [("turn", 1.5, 2)]}, TypeError, "due_ms must be an int"),
        ({"deadlines_set": [("turn", 1, 2), ("turn", 2, 2)]}, ValueError, "set twice"),
        (
            {"deadlines_set": [("turn", 1, 2)], "deadlines_clear": ["turn"]},
            ValueError,
            "both set and cleared",
        ),
        ({"deadlines_clear": [3]}, TypeError, "deadline name to clear must be a str"),
        ({"outbox": [("k", "payload")]}, TypeError, "outbox payload must be bytes"),
        ({"outbox": [(1, b"x")]}, TypeError, "outbox key must be a str"),
    ],
)
def test_bad_commit_arguments_are_refused_and_change_nothing(
    live: TableStore, change: dict[str, Any], error: type[Exception], message: str
) -> None:
    arguments: dict[str, Any] = {"table_id": "t1", "expected_version": 1, "state": b"new"}
    arguments.update(change)
    with pytest.raises(error, match=message):
        live.commit(**arguments)
    assert live.load("t1").version == 1 and live.load("t1").state == b"s"


@pytest.mark.parametrize("table_id", ["", "a{b}", "a:b", "x" * 65, "名"])
def test_unusable_table_ids_are_refused(store: TableStore, table_id: str) -> None:
    with pytest.raises(ValueError, match="table id"):
        store.create(table_id, b"s")


def test_a_table_id_must_be_a_str(store: TableStore) -> None:
    with pytest.raises(TypeError, match="table id is a str"):
        store.load(42)  # type: ignore[arg-type]


def test_bad_reads_and_claims_are_refused(live: TableStore) -> None:
    with pytest.raises(ValueError, match="not a stream id"):
        live.read_events("t1", after_id="$")
    with pytest.raises(ValueError, match="count must be >= 1"):
        live.read_events("t1", count=0)
    with pytest.raises(ValueError, match="block_ms must be >= 1"):
        live.read_events("t1", block_ms=0)
    with pytest.raises(TypeError, match="seat"):
        live.read_events("t1", seat="spectator")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="now_ms must be an int"):
        live.due_deadlines(now_ms=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lease_ms must be >= 1"):
        live.claim_deadline("t1", "turn", 1, now_ms=5, lease_ms=0)
    with pytest.raises(TypeError, match="meta value"):
        live.create("t2", b"s", {"game": 3})  # type: ignore[dict-item]


def test_unknown_tables_are_named_in_the_error(store: TableStore) -> None:
    with pytest.raises(UnknownTable, match="'nowhere' does not exist"):
        store.meta("nowhere")
    with pytest.raises(UnknownTable, match="'nowhere' does not exist"):
        store.read_events("nowhere")
    with pytest.raises(UnknownTable, match="'nowhere' does not exist"):
        store.drop_events("nowhere")
    assert store.outbox_ack("nowhere", "k") is False
    assert store.claim_deadline("nowhere", "turn", 1, now_ms=5) is False


def test_a_decoding_client_is_refused() -> None:
    client = fakeredis.FakeRedis(decode_responses=True)
    with pytest.raises(ValueError, match="decode_responses=False"):
        TableStore(client)


def test_an_unusable_prefix_is_refused() -> None:
    with pytest.raises(ValueError, match="key prefix"):
        TableStore(fakeredis.FakeRedis(), prefix="a{b}")
