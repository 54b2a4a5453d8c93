"""Event streams: per-seat visibility, resuming from an id, the trim mark, blocking reads."""

from __future__ import annotations

import threading
import time

import fakeredis
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redis.exceptions import ResponseError

from paiju.table.store import (
    ALL_SEATS,
    EventsTrimmed,
    TableStore,
    UnknownTable,
    parse_commit_notice,
)
from paiju.table.store.event_stream import _peeked_last_event_id
from paiju.table.store.records import as_text, parse_stream_id
from tests.patience import PATIENCE_SECONDS, wait_until

from .conftest import Backend

SEATS = range(4)
BLOCK_MS = int(PATIENCE_SECONDS * 1000)
"""A blocking read in these tests ends when its events come, long before this."""


def _deal(store: TableStore) -> None:
    store.create("t1", b"s")
    store.commit(
        "t1",
        1,
        b"s",
        events=[
            (None, "hand_started", b"{}"),
            ((0,), "cards", b"AS KS QS"),
            ((1,), "cards", b"2H 3H 4H"),
            ((), "deck", b"secret order"),
            ((0, 1), "compare", b"0 beats 1"),
            (None, "turn", b"seat 2"),
        ],
    )


def test_each_seat_sees_public_events_and_its_own(store: TableStore) -> None:
    _deal(store)

    def seen(seat: object) -> list[tuple[str, bytes]]:
        return [(e.type, e.payload) for e in store.read_events("t1", seat=seat)]

    assert seen(0) == [
        ("hand_started", b"{}"),
        ("cards", b"AS KS QS"),
        ("compare", b"0 beats 1"),
        ("turn", b"seat 2"),
    ]
    assert seen(1) == [
        ("hand_started", b"{}"),
        ("cards", b"2H 3H 4H"),
        ("compare", b"0 beats 1"),
        ("turn", b"seat 2"),
    ]
    assert seen(2) == [("hand_started", b"{}"), ("turn", b"seat 2")]
    assert seen(None) == seen(2)  # a spectator sees public events only
    assert [e.type for e in store.read_events("t1", seat=ALL_SEATS)] == [
        "hand_started",
        "cards",
        "cards",
        "deck",
        "compare",
        "turn",
    ]
    assert [e.visible_to for e in store.read_events("t1", seat=ALL_SEATS)] == [
        None,
        (0,),
        (1,),
        (),
        (0, 1),
        None,
    ]


def test_a_reader_resumes_from_its_last_id_on_another_replica(backend: Backend) -> None:
    writer = backend.store(stream_maxlen=16)  # keeps all ten
    writer.create("t1", b"s")
    version = 1
    for n in range(10):
        version = writer.commit("t1", version, b"s", events=[(None, "bet", str(n).encode())])
    first = backend.store().read_events("t1", count=4)
    assert [e.payload for e in first] == [b"0", b"1", b"2", b"3"]
    rest = backend.store().read_events("t1", after_id=first[-1].id, count=100)
    assert [e.payload for e in rest] == [str(n).encode() for n in range(4, 10)]
    assert backend.store().read_events("t1", after_id=rest[-1].id) == []


def test_hidden_events_do_not_stop_a_reader_short(store: TableStore) -> None:
    store.create("t1", b"s")
    hidden = [((3,), "cards", b"x")] * 7
    store.commit("t1", 1, b"s", events=[*hidden, (None, "turn", b"seat 0")])
    seen = store.read_events("t1", seat=0, count=3)  # the first two batches are all hidden
    assert [e.type for e in seen] == ["turn"]


def test_resuming_from_a_trimmed_id_asks_for_a_fresh_snapshot(backend: Backend) -> None:
    store = backend.store(stream_maxlen=5)
    store.create("t1", b"s")
    early = []
    version = 1
    for n in range(12):
        version = store.commit("t1", version, b"s", events=[(None, "bet", str(n).encode())])
        if n == 2:
            early = store.read_events("t1")
    for stale_id in ("0-0", early[-1].id):
        with pytest.raises(EventsTrimmed, match="fresh snapshot") as trimmed:
            store.read_events("t1", after_id=stale_id)
        assert trimmed.value.after_id == stale_id
    retained = store.read_events("t1", after_id=trimmed.value.trimmed_through, seat=ALL_SEATS)
    # The newest five commits, and everything after the trim mark: nothing falls in between.
    assert [e.payload for e in retained] == [str(n).encode() for n in range(7, 12)]
    snapshot = store.load("t1")
    assert store.read_events("t1", after_id=snapshot.last_event_id) == []
    assert store.read_events("t1", after_id=retained[0].id) == retained[1:]


def test_trimming_keeps_the_newest_commits_with_their_ids(backend: Backend) -> None:
    store = backend.store(stream_maxlen=6)  # holds the newest 6 commits' events
    keep = store.stream_maxlen
    store.create("t1", b"s")
    version = 1
    for n in range(keep):
        version = store.commit("t1", version, b"s", events=[(None, "bet", str(n).encode())])
    before = store.read_events("t1", seat=ALL_SEATS)
    assert len(before) == keep, "not trimmed yet"
    version = store.commit("t1", version, b"s", events=[((2,), "cards", b"AS KS QS")])
    after = store.read_events("t1", after_id=before[0].id, seat=ALL_SEATS)
    assert after[:-1] == before[1:]
    assert (after[-1].type, after[-1].visible_to, after[-1].version) == ("cards", (2,), version)
    with pytest.raises(EventsTrimmed) as trimmed:
        store.read_events("t1")
    assert trimmed.value.trimmed_through == before[0].id
    # New events still get ids after the kept ones.
    store.commit("t1", version, b"s", events=[(None, "turn", b"seat 0")])
    assert [e.type for e in store.read_events("t1", after_id=after[-1].id)] == ["turn"]


def test_a_blocked_reader_wakes_for_events_committed_meanwhile(backend: Backend) -> None:
    store = backend.store(stream_maxlen=2)  # holds 2 or 3 events
    store.create("t1", b"s")
    version = store.commit("t1", 1, b"s", events=[(None, "bet", b"0"), (None, "bet", b"1")])
    cursor = store.load("t1").last_event_id
    found: dict[str, list] = {}

    def hub() -> None:
        found.update(backend.store().read_many({"t1": cursor}, block_ms=BLOCK_MS))

    reader = threading.Thread(target=hub)
    reader.start()
    time.sleep(0.2)  # most likely blocked by now; a late reader finds the same events at once
    store.commit("t1", version, b"s", events=[(None, "bet", b"2"), (None, "bet", b"3")])
    reader.join()
    assert [e.payload for e in found["t1"]] == [b"2", b"3"]


def test_a_blocking_read_waits_for_a_visible_event(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")

    def later() -> None:
        time.sleep(0.15)
        store.commit("t1", 1, b"s", events=[((1,), "cards", b"hidden from seat 0")])
        time.sleep(0.15)
        backend.store().commit("t1", 2, b"s", events=[(None, "turn", b"seat 0")])

    thread = threading.Thread(target=later)
    started = time.monotonic()
    thread.start()
    # Only the visible event ends the read: waiting out the block would return nothing.
    seen = backend.store().read_events("t1", seat=0, block_ms=BLOCK_MS)
    thread.join()
    assert [e.type for e in seen] == ["turn"]
    assert time.monotonic() - started > 0.25


def test_a_blocking_read_gives_up_after_its_time(store: TableStore) -> None:
    store.create("t1", b"s")
    started = time.monotonic()
    assert store.read_events("t1", block_ms=200) == []
    assert 0.15 < time.monotonic() - started < PATIENCE_SECONDS


def test_reading_an_unknown_table_is_refused(store: TableStore) -> None:
    with pytest.raises(UnknownTable):
        store.read_events("nowhere")


visibility = (
    st.none()
    | st.tuples()
    | st.lists(st.sampled_from(SEATS), min_size=1, max_size=4, unique=True).map(tuple)
)


@settings(max_examples=40, deadline=None)
@given(
    batches=st.lists(
        st.lists(st.tuples(visibility, st.binary(max_size=8)), max_size=5), min_size=1, max_size=6
    ),
    count=st.integers(min_value=1, max_value=4),
)
def test_paged_reads_per_seat_equal_the_model(
    batches: list[list[tuple[tuple[int, ...] | None, bytes]]], count: int
) -> None:
    store = TableStore(fakeredis.FakeRedis(server=fakeredis.FakeServer()), prefix="prop", stream_maxlen=64)  # paging, not trimming
    store.create("t1", b"s")
    for version, batch in enumerate(batches, start=1):
        store.commit("t1", version, b"s", events=[(v, "e", p) for v, p in batch])
    written = [(v, p) for batch in batches for v, p in batch]
    for seat in [*SEATS, None]:
        expected = [p for v, p in written if v is None or (seat is not None and seat in v)]
        got: list[bytes] = []
        after = "0-0"
        while page := store.read_events("t1", after_id=after, count=count, seat=seat):
            assert len(page) <= count
            got += [e.payload for e in page]
            after = page[-1].id
        assert got == expected


def test_a_commit_with_events_tells_the_commit_channel_its_table_and_one_without_does_not(
    store: TableStore,
) -> None:
    store.create("t1", b"s")
    store.create("t2", b"s")
    store.watch_commits(["t1", "t2"])
    notices = store.commit_notices()
    try:
        store.commit("t1", 1, b"s", events=[(None, "bet", b"1")])
        store.commit("t2", 1, b"s2")  # state only: no event, nothing to read
        store.commit("t2", 2, b"s3", events=[((0,), "cards", b"AS")])
        heard: list[bytes] = []

        def heard_two() -> bool:
            notice = notices.get_message(timeout=0.5)  # None also for the subscription's own reply
            if notice is not None:
                heard.append(parse_commit_notice(notice["data"]))
            return len(heard) >= 2

        wait_until("two commit notices", heard_two)
        assert heard == [("t1", store.load("t1").last_event_id), ("t2", store.load("t2").last_event_id)]
        assert notices.get_message(timeout=0.3) is None
    finally:
        notices.close()


def test_a_read_with_marks_gives_the_events_and_says_when_a_cursor_fell_behind_a_trim(backend: Backend) -> None:
    store = backend.store(stream_maxlen=3)
    for table_id in ("t1", "t2"):
        store.create(table_id, b"s")
    version = 1
    for n in range(10):
        version = store.commit("t1", version, b"s", events=[(None, "bet", str(n).encode())])
    store.commit("t2", 1, b"s", events=[(None, "bet", b"only")])
    found, marks = store.read_with_marks({"t1": "0-0", "t2": "0-0", "gone": "0-0"})
    assert [e.payload for e in found["t2"]] == [b"only"]
    assert found["t1"][-1].payload == b"9" and len(found["t1"]) < 10  # the oldest were trimmed
    assert set(marks) == {"t1", "t2"}  # a table that does not exist has no mark
    assert parse_stream_id(marks["t1"]) > parse_stream_id("0-0")  # so a reader from 0-0 lost some
    assert parse_stream_id(marks["t1"]) < parse_stream_id(found["t1"][0].id)
    assert store.read_with_marks({}) == ({}, {})


def test_a_read_that_peeks_first_reads_whole_only_the_tables_with_news(backend: Backend) -> None:
    # A sweep for missed notices read every watched table whole each second (a kilobyte or three
    # each); peeking at the headers, it reads whole only the tables with events after the cursor.
    store = backend.store(stream_maxlen=3)
    for table_id in ("quiet", "busy", "trimmed"):
        store.create(table_id, b"s")
    store.commit("quiet", 1, b"s", events=[(None, "bet", b"seen")])
    seen = store.load("quiet").last_event_id
    store.commit("busy", 1, b"s", events=[(None, "bet", b"new")])
    version = 1
    for n in range(6):
        version = store.commit("trimmed", version, b"s", events=[(None, "bet", str(n).encode())])
    cursors = {"quiet": seen, "busy": "0-0", "trimmed": "0-0", "gone": "0-0"}
    gets = []
    real_get = store.client.pipeline

    def counting_pipeline(*args, **kwargs):  # type: ignore[no-untyped-def]
        pipe = real_get(*args, **kwargs)
        get = pipe.get
        pipe.get = lambda key: gets.append(as_text(key)) or get(key)
        return pipe

    store.client.pipeline = counting_pipeline  # type: ignore[method-assign]
    try:
        peeked = store.read_with_marks(cursors, peek_first=True)
    finally:
        del store.client.pipeline
    whole = store.read_with_marks(cursors)
    assert sorted(gets) == sorted(store.keys(table_id).state for table_id in ("busy", "trimmed"))
    assert peeked[0] == whole[0] and set(peeked[0]) == {"busy", "trimmed"}
    assert peeked[1] == {table_id: whole[1][table_id] for table_id in ("busy", "trimmed")}
    assert store.read_with_marks({"quiet": seen}, peek_first=True) == ({}, {})


@pytest.mark.parametrize("peeked, last_event_id", [
    (b"", "0-0"),  # no table: nothing to read
    (b"7 1700000000000-2 0-0 12 1 19 17\n4:game", "1700000000000-2"),
    (b"7 1700000000000-2 0-0 12", None),  # the header goes on past the peek
    (ResponseError("WRONGTYPE"), None),  # a hash an older store left
])
def test_a_peeked_header_gives_the_last_event_id_or_says_it_cannot(peeked: object, last_event_id: str | None) -> None:
    assert _peeked_last_event_id(peeked) == last_event_id


def test_an_event_keeps_the_number_of_the_hand_it_belongs_to(store: TableStore) -> None:
    store.create("t1", b"s")
    store.commit("t1", 1, b"s", events=[(None, "sat", b"{}"), (None, "hand_seats", b"{}", 7), ((0,), "cards", b"AS", 7)])
    assert [(e.type, e.hand) for e in store.read_events("t1", seat="all")] == [("sat", 0), ("hand_seats", 7), ("cards", 7)]


def test_an_event_with_a_negative_hand_number_is_refused_before_anything_is_written(store: TableStore) -> None:
    store.create("t1", b"s")
    with pytest.raises(ValueError):
        store.commit("t1", 1, b"s2", events=[(None, "x", b"{}", -1)])
    assert store.load("t1").state == b"s"


def heard_within(notices: object, seconds: float = 0.5) -> list[tuple[str, str]]:
    """The commit notices a subscription gets until none has come for ``seconds``."""
    heard = []
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < seconds:
        notice = notices.get_message(timeout=0.05)  # type: ignore[attr-defined]
        if notice is not None:
            heard.append(parse_commit_notice(notice["data"]))
            quiet_since = time.monotonic()
    return heard


def test_a_commit_is_told_only_to_the_listeners_watching_its_table_but_the_one_it_is_handed_to(
    backend: Backend,
) -> None:
    # Every commit was told to every process, its own included: ten replicas, ten deliveries of
    # each commit, and the committing one woken for a commit it had handed out already.
    committer, elsewhere, unrelated = backend.store(), backend.store(), backend.store()
    for table_id in ("t1", "t2"):
        committer.create(table_id, b"s")
    committer.hand_commits_to(committer.listener_id)
    committer.watch_commits(["t1", "t2"])
    elsewhere.watch_commits(["t1"])
    unrelated.watch_commits(["t2"])
    listening = [store.commit_notices() for store in (committer, elsewhere, unrelated)]
    try:
        committer.commit("t1", 1, b"s", events=[(None, "bet", b"1")])
        last = committer.load("t1").last_event_id
        heard: list[tuple[str, str]] = []
        wait_until("the watcher elsewhere hears of t1",
                   lambda: heard.extend(heard_within(listening[1], 0.1)) or heard == [("t1", last)])
        assert heard_within(listening[0], 0.3) == []
        assert heard_within(listening[2], 0.3) == []
    finally:
        for notices in listening:
            notices.close()


def test_a_watch_that_ran_out_or_ended_is_not_told(backend: Backend) -> None:
    store, gone, leaving = backend.store(), backend.store(), backend.store()
    store.create("t1", b"s")
    gone.watch_commits(["t1"])
    backend.new_client().zadd(store.keys("t1").watching, {gone.listener_id: 1})  # ran out long ago
    leaving.watch_commits(["t1"])
    leaving.unwatch_commits(["t1"], leaving.listener_id)
    listening = [gone.commit_notices(), leaving.commit_notices()]
    try:
        store.commit("t1", 1, b"s", events=[(None, "bet", b"1")])
        assert heard_within(listening[0], 0.3) == [] and heard_within(listening[1], 0.3) == []
    finally:
        for notices in listening:
            notices.close()
