"""The stream hub: one reader per process hands each table's events to its watchers."""

from __future__ import annotations

import queue
import threading
from typing import Any, Self

import pytest

from paiju.table import fanout
from paiju.table.fanout import EVENTS_LOST, StreamHub
from paiju.table.store import TableChange
from tests.patience import PATIENCE_SECONDS, wait_until
from tests.table.conftest import Backend

WAIT_SECONDS = PATIENCE_SECONDS


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
    gated = Gated(store)
    hub = StreamHub(gated)
    subscription = hub.subscribe("t1", "a")
    try:
        assert gated.waiting.wait(WAIT_SECONDS)  # the reader is held at its first read...
        version = 1
        for n in range(10):  # ...while the table moves on past its stream's length
            version = store.commit("t1", version, b"s", events=[(None, "bet", str(n).encode())])
        gated.go_on.set()
        assert next_batch(subscription, 1) == [EVENTS_LOST]
        retained = store.read_many({"t1": "0-0"})["t1"]
        assert [e.payload for e in next_batch(subscription, len(retained))] == [e.payload for e in retained]
        assert retained[-1].payload == b"9"
        # Caught up, nothing more is lost.
        store.commit("t1", version, b"s", events=[(None, "bet", b"10")])
        assert [e.payload for e in next_batch(subscription, 1)] == [b"10"]
    finally:
        gated.go_on.set()
        hub.stop()


class Recording:
    """A store that remembers which tables each of the hub's reads named."""

    def __init__(self, store) -> None:  # type: ignore[no-untyped-def]
        self.store, self.reads = store, []

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self.store, name)

    def read_with_marks(self, cursors, **options):  # type: ignore[no-untyped-def]
        self.reads.append(sorted(cursors))
        return self.store.read_with_marks(cursors, **options)


class Gated(Recording):
    """A store whose reads wait until the test lets them go on (``waiting`` says one does)."""

    def __init__(self, store) -> None:  # type: ignore[no-untyped-def]
        super().__init__(store)
        self.waiting, self.go_on = threading.Event(), threading.Event()

    def read_with_marks(self, cursors, **options):  # type: ignore[no-untyped-def]
        self.waiting.set()
        self.go_on.wait(WAIT_SECONDS)
        return super().read_with_marks(cursors, **options)


class Deaf(Recording):
    """A store whose commit notices never reach the hub (as when it was not listening)."""

    def commit_notices(self):  # type: ignore[no-untyped-def]
        notices = self.store.client.pubsub(ignore_subscribe_messages=True)
        notices.subscribe(f"{self.store.prefix}:nobody-publishes-here")
        return notices


def test_a_commit_is_read_from_its_own_table_not_from_every_watched_one(backend: Backend) -> None:
    # The hub used to wait in one read over every watched stream: 30 watched tables, 30 keys
    # read for each event anywhere.
    store = backend.store()
    tables = [f"t{n}" for n in range(30)]
    for table_id in tables:
        store.create(table_id, b"s")
    recording = Recording(store)
    hub = StreamHub(recording)
    subscriptions = [hub.subscribe(table_id, "a") for table_id in tables]
    try:
        # A sweep over them all (the hub sweeps as it starts, then now and then).
        wait_until("a sweep over every watched table", lambda: sorted(tables) in recording.reads)
        recording.reads.clear()
        store.commit("t7", 1, b"s", events=[(None, "bet", b"1")])
        assert [e.payload for e in next_batch(subscriptions[7], 1)] == [b"1"]
        assert ["t7"] in recording.reads
        assert all(read in (["t7"], sorted(tables)) for read in recording.reads), recording.reads
        assert all(s.events.empty() for s in subscriptions)
    finally:
        hub.stop()


def test_events_whose_commit_notice_was_missed_arrive_with_the_next_sweep(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    hub = StreamHub(Deaf(store))
    subscription = hub.subscribe("t1", "a")
    try:
        store.commit("t1", 1, b"s", events=[(None, "bet", b"1")])
        assert [e.payload for e in next_batch(subscription, 1)] == [b"1"]
    finally:
        hub.stop()


class BrokenOnce(Recording):
    """A store whose first commit-notice subscription breaks at its first read, as a dropped
    connection would; the next one works."""

    def __init__(self, store) -> None:  # type: ignore[no-untyped-def]
        super().__init__(store)
        self.subscriptions = 0

    def commit_notices(self):  # type: ignore[no-untyped-def]
        self.subscriptions += 1
        notices = self.store.commit_notices()
        if self.subscriptions == 1:
            def broken(**_):  # type: ignore[no-untyped-def]
                raise ConnectionError("Connection closed by server.")
            notices.get_message = broken
        return notices


def test_a_hub_whose_notices_break_listens_again_and_misses_nothing(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    broken = BrokenOnce(store)
    hub = StreamHub(broken)
    subscription = hub.subscribe("t1", "a")
    try:
        version = store.commit("t1", 1, b"s", events=[(None, "bet", b"1")])
        assert [e.payload for e in next_batch(subscription, 1)] == [b"1"]
        store.commit("t1", version, b"s", events=[(None, "bet", b"2")])
        assert [e.payload for e in next_batch(subscription, 1)] == [b"2"]
        assert broken.subscriptions == 2
    finally:
        hub.stop()


def test_watchers_that_read_different_states_of_a_table_each_get_their_own(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    hub = StreamHub(store)
    viewer = hub.subscribe("t1", "a", lambda table_id: ("view", table_id))
    lister = hub.subscribe("t1", None, lambda table_id: ("room", table_id))
    try:
        store.commit("t1", 1, b"s", events=[(None, "sat", b"0")])
        assert next_batch(viewer, 2)[1] == ("view", "t1")
        assert next_batch(lister, 2)[1] == ("room", "t1")  # not the viewer's state
    finally:
        hub.stop()


def test_subscribing_to_many_tables_at_once_starts_each_after_what_it_already_holds(backend: Backend) -> None:
    store = backend.store()
    for table_id in ("t1", "t2"):
        store.create(table_id, b"s")
    store.commit("t1", 1, b"s", events=[(None, "old", b"before")])
    hub = StreamHub(store)
    first, second, missing = hub.subscribe_many(["t1", "t2", "t3"], None)
    try:
        store.commit("t1", 2, b"s", events=[(None, "bet", b"1")])
        store.commit("t2", 1, b"s", events=[(None, "bet", b"2")])
        assert [e.payload for e in next_batch(first, 1)] == [b"1"]  # not the event from before
        assert [e.payload for e in next_batch(second, 1)] == [b"2"]
        assert missing.events.empty()
    finally:
        hub.stop()


def test_a_commit_made_here_is_handed_out_from_its_receipt_and_never_read_back(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    gated = Gated(store)
    hub = StreamHub(gated)
    states_read: list[str] = []
    follower = hub.subscribe("t1", "a", read_state=states_read.append,
                             state_of_commit=lambda table_id, commit: ("as committed", table_id, commit))
    try:
        # The hub is held in a read it began before the commit (the race of a notice heard first).
        assert gated.waiting.wait(WAIT_SECONDS)
        receipt = store.commit_change("t1", 1, TableChange(b"s", events=[(None, "bet", b"1"), ((0,), "cards", b"AS")]))
        assert hub.deliver("t1", receipt, "commit 2")
        assert [e.payload for e in next_batch(follower, 2)] == [b"1", b"AS"]
        assert next_batch(follower, 1) == [("as committed", "t1", "commit 2")]
        gated.go_on.set()
        # A commit of another process is read as before; when its events arrive, the held read
        # and the notice of the commit made here have both been dealt with, without handing
        # anything out twice or reading the table's state.
        store.commit("t1", 2, b"s", events=[(None, "bet", b"2")])
        assert [e.payload for e in next_batch(follower, 1)] == [b"2"]
        wait_until("the state after the other process's commit", lambda: states_read == ["t1"])
        assert next_batch(follower, 1) == [None]  # read_state's answer (append returns None)
        assert follower.events.empty() and states_read == ["t1"]
    finally:
        gated.go_on.set()
        hub.stop()


def test_a_commit_made_here_while_the_hub_is_behind_is_left_for_it_to_read_in_order(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"s")
    gated = Gated(store)
    hub = StreamHub(gated)
    subscription = hub.subscribe("t1", "a")
    try:
        assert gated.waiting.wait(WAIT_SECONDS)  # the hub is held at its first read...
        store.commit("t1", 1, b"s", events=[(None, "bet", b"elsewhere")])  # ...as another process commits
        receipt = store.commit_change("t1", 2, TableChange(b"s", events=[(None, "bet", b"here")]))
        assert not hub.deliver("t1", receipt, "commit 3")
        assert subscription.events.empty()
        gated.go_on.set()
        assert [e.payload for e in next_batch(subscription, 2)] == [b"elsewhere", b"here"]
    finally:
        gated.go_on.set()
        hub.stop()


def watched_after_one_sweep(recording: Recording, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A hub watching a new table "t1" of ``recording``'s store, past its first sweep, with no
    further sweep to come: what it reads after this, something made it read."""
    recording.store.create("t1", b"s")
    monkeypatch.setattr(fanout, "SWEEP_SECONDS", 3600.0)
    hub = StreamHub(recording)
    subscription = hub.subscribe("t1", "a")
    wait_until("the hub's first sweep", lambda: ["t1"] in recording.reads)
    return hub, subscription


def test_events_noticed_while_a_commit_here_was_under_way_arrive_when_that_commit_fails(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = backend.store()
    # No notices either: only this process's own word makes the hub read.
    hub, subscription = watched_after_one_sweep(Deaf(store), monkeypatch)
    try:
        hub.committing("t1")
        store.commit("t1", 1, b"s", events=[(None, "bet", b"elsewhere")])
        hub.committed("t1", None, None)  # this process's commit failed: the table is read
        assert [e.payload for e in next_batch(subscription, 1)] == [b"elsewhere"]
    finally:
        hub.stop()


def test_bug_a_commit_of_another_process_noticed_while_one_here_was_under_way_waited_for_the_sweep(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = backend.store()
    hub, subscription = watched_after_one_sweep(Recording(store), monkeypatch)
    try:
        hub.committing("t1")
        here = store.commit_change("t1", 1, TableChange(b"s", events=[(None, "bet", b"here")]))
        elsewhere = store.commit("t1", 2, b"s", events=[(None, "bet", b"elsewhere")])
        last = store.load("t1").last_event_id
        # Both notices heard while the commit here is still under way (the hub's own record of them).
        wait_until("the other commit's notice", lambda: hub._noticed_meanwhile.get("t1") == last)
        hub.committed("t1", here, "commit 2")
        assert elsewhere == 3
        assert [e.payload for e in next_batch(subscription, 2)] == [b"here", b"elsewhere"]
    finally:
        hub.stop()


class _Notices:
    """Commit notices as the store's Pub/Sub gives them: a list, taken one at a time."""

    def __init__(self, *tables: tuple[str, str]) -> None:
        self.waiting = [{"data": f"{table_id}\n{last_id}".encode()} for table_id, last_id in tables]

    def get_message(self, timeout: float) -> dict[str, bytes] | None:
        return self.waiting.pop(0) if self.waiting else None


def test_notices_sooner_than_a_pass_after_the_last_wait_for_it_and_go_together() -> None:
    waits: list[float] = []
    notices = _Notices(("t1", "5-0"), ("t2", "6-0"), ("t1", "7-0"))

    changed = fanout._changed_tables(notices, until=100.015, wait=waits.append, clock=lambda: 100.0)

    assert waits == [pytest.approx(0.015)]  # the rest of the pass, once
    assert changed == {"t1": "7-0", "t2": "6-0"}
    assert notices.waiting == []


def test_a_notice_after_a_quiet_spell_is_taken_at_once_and_no_notice_waits_for_nothing() -> None:
    waits: list[float] = []

    changed = fanout._changed_tables(_Notices(("t1", "5-0")), until=99.0, wait=waits.append, clock=lambda: 100.0)
    assert changed == {"t1": "5-0"} and waits == []

    assert fanout._changed_tables(_Notices(), until=101.0, wait=waits.append, clock=lambda: 100.0) == {}
    assert waits == []


def test_a_watcher_leaving_out_its_own_moves_is_not_woken_by_one_and_takes_it_before_the_next(
    backend: Backend,
) -> None:
    store = backend.store()
    store.create("t1", b"s")
    hub = StreamHub(store)
    woken: list[str] = []
    mover = hub.subscribe("t1", "a", read_state=lambda table_id: None,
                          state_of_commit=lambda table_id, commit: commit, leave_out_own_moves=True)
    mover.notify = lambda: woken.append("a")
    try:
        hub.committing("t1")  # as the table's commits announce themselves: no read hands them out
        own = store.commit_change("t1", 1, TableChange(b"s", events=[(None, "bet", b"mine")]))
        hub.committed("t1", own, "my move", actor="a")
        assert woken == []  # its reply carried the move: nothing to send, so no wake-up
        hub.committing("t1")
        other = store.commit_change("t1", 2, TableChange(b"s", events=[(None, "bet", b"theirs")]))
        hub.committed("t1", other, "their move", actor="b")
        assert woken == ["a"]
        left_out, event, state = mover.take_all()
        assert isinstance(left_out, fanout.LeftOut) and left_out.last_event_id == own.last_event_id
        assert (event.payload, state) == (b"theirs", "their move")
    finally:
        hub.stop()


class _HookedLock:
    """The hub's lock, calling ``hook`` (once) as the test's thread next lets go of it, and
    counting how often the hub's own thread has let go of it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.hook: Any = None
        self.released_by_the_hub = 0
        self._test_thread = threading.current_thread()

    def __enter__(self) -> Self:
        self._lock.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self._lock.release()
        if threading.current_thread() is not self._test_thread:
            self.released_by_the_hub += 1
        elif self.hook is not None:
            hook, self.hook = self.hook, None
            hook()


def test_bug_a_read_handed_out_between_a_commits_end_and_its_delivery_sent_the_player_their_own_move(
    backend: Backend,
) -> None:
    """Found by CI: ``committed`` ended the commit under the lock, let go of it, then delivered
    under it again. A read of the hub's that saw the commit and took the lock in between handed
    the move out as anyone's: the mover, who leaves out their own moves, got it on their stream
    (and a wake-up). Here the hub's read is held until that moment, then let go."""
    store = backend.store()
    store.create("t1", b"s")
    gated = Gated(store)
    hub = StreamHub(gated)
    lock = _HookedLock()
    hub._lock = lock  # type: ignore[assignment]
    woken: list[str] = []
    mover = hub.subscribe("t1", "a", read_state=lambda table_id: None,
                          state_of_commit=lambda table_id, commit: commit, leave_out_own_moves=True)
    mover.notify = lambda: woken.append("a")
    try:
        assert gated.waiting.wait(WAIT_SECONDS)  # the hub's first read, from before the commit
        hub.committing("t1")
        own = store.commit_change("t1", 1, TableChange(b"s", events=[(None, "bet", b"mine")]))

        def let_the_read_in() -> None:
            before = lock.released_by_the_hub
            gated.go_on.set()
            wait_until("the hub's hand-out of its read", lambda: lock.released_by_the_hub > before)

        lock.hook = let_the_read_in
        hub.committed("t1", own, "my move", actor="a")
        assert lock.hook is None  # the read was let in
        assert woken == []
        (left_out,) = mover.take_all()
        assert isinstance(left_out, fanout.LeftOut) and left_out.last_event_id == own.last_event_id
    finally:
        gated.go_on.set()
        hub.stop()


def _held_hub_with_a_mover(backend: Backend):  # type: ignore[no-untyped-def]
    """A hub of table "t1" whose reads wait for the test, watched by "a", who leaves out their
    own moves, and by "b"."""
    store = backend.store()
    store.create("t1", b"s")
    gated = Gated(store)
    hub = StreamHub(gated)
    return store, gated, hub, hub.subscribe("t1", "a", leave_out_own_moves=True), hub.subscribe("t1", "b")


def test_bug_a_read_that_saw_a_commit_still_under_way_here_sent_its_player_their_own_move(backend: Backend) -> None:
    # Found by CI once the hub took notices in passes: its read of a table, begun before a
    # player's Act committed, came back with that move before the Act handed it out, and gave it
    # to the player's stream, which had asked to leave its own moves out.
    store, gated, hub, mover, other = _held_hub_with_a_mover(backend)
    try:
        assert gated.waiting.wait(WAIT_SECONDS)  # the hub is held in a read...
        hub.committing("t1")
        receipt = store.commit_change("t1", 1, TableChange(b"s", events=[(None, "bet", b"mine")]))  # ...as "a" moves
        gated.go_on.set()
        wait_until("the read to come back", lambda: "t1" in hub._noticed_meanwhile)
        assert mover.events.empty() and other.events.empty()  # the read handed nothing out
        hub.committed("t1", receipt, "a's move", actor="a")
        assert [e.payload for e in next_batch(other, 1)] == [b"mine"]
        left_out = next_batch(mover, 1)[0]
        assert isinstance(left_out, fanout.LeftOut) and left_out.last_event_id == receipt.last_event_id
        assert mover.events.empty() and other.events.empty()
    finally:
        gated.go_on.set()
        hub.stop()


def test_an_own_move_that_could_not_be_handed_out_in_order_is_still_left_out_when_read(backend: Backend) -> None:
    store, gated, hub, mover, other = _held_hub_with_a_mover(backend)
    try:
        assert gated.waiting.wait(WAIT_SECONDS)  # the hub is held at a read...
        store.commit("t1", 1, b"s", events=[(None, "bet", b"elsewhere")])  # ...as another process commits
        hub.committing("t1")
        receipt = store.commit_change("t1", 2, TableChange(b"s", events=[(None, "bet", b"mine"), (None, "pot", b"2")]))
        hub.committed("t1", receipt, "a's move", actor="a")  # behind: left for the read
        assert mover.events.empty() and other.events.empty()
        gated.go_on.set()
        assert [e.payload for e in next_batch(other, 3)] == [b"elsewhere", b"mine", b"2"]
        elsewhere, left_out = next_batch(mover, 2)
        assert elsewhere.payload == b"elsewhere"
        assert isinstance(left_out, fanout.LeftOut) and left_out.commit == "a's move"
        assert left_out.last_event_id == receipt.last_event_id
        assert mover.events.empty()
    finally:
        gated.go_on.set()
        hub.stop()
