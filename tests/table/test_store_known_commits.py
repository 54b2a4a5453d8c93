"""A commit that sends the table's new stored string whole (``images.py``, ``commit_known.lua``)
writes exactly what the commit made in Lua writes, and falls back on the table as it is whenever
another writer got in first."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from paiju.table.store import TableChange, TableStore
from paiju.table.store.errors import DuplicateOutboxKey, StaleVersion, UnknownTable
from paiju.table.store.images import image_of

from .conftest import Backend


class ScriptCalls:
    """Counts the calls of each of a store's scripts."""

    def __init__(self, store: TableStore) -> None:
        self.counts: dict[str, int] = {}
        scripts = store._scripts
        for name in ("commit", "commit_known"):
            self._wrap(scripts, name)

    def _wrap(self, scripts: Any, name: str) -> None:
        script = getattr(scripts, name)
        original = script.__call__

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.counts[name] = self.counts.get(name, 0) + 1
            return original(*args, **kwargs)

        object.__setattr__(scripts, name, counted)


_TABLE_NUMBERS = itertools.count()


def stored(backend: Backend, store: TableStore, table_id: str) -> bytes:
    return backend.new_client().get(store.keys(table_id).state)


def a_change(rng: random.Random, version: int, number: int) -> dict[str, Any]:
    """A commit like the table's: a move's events and turn timer, now and then a hand's end."""
    events = [(None if rng.random() < 0.7 else (rng.randrange(5),), rng.choice(["bet", "call", "fold"]),
               b"x" * rng.randrange(40), rng.randrange(3)) for _ in range(rng.randrange(4))]
    change: dict[str, Any] = {"events": events}
    names = ["turn", "start", "kick:1"]
    chosen = rng.sample(names, rng.randrange(3))
    change["deadlines_set"] = [(name, 1_000 + rng.randrange(9_000), version) for name in chosen[:1]]
    change["deadlines_clear"] = chosen[1:]
    if rng.random() < 0.15:
        change["outbox"] = [(f"settle:{number}", b"paid")]
    return change


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_known_commit_writes_what_the_lua_commit_writes(backend: Backend, seed: int) -> None:
    rng = random.Random(seed)
    known, lua = backend.store(stream_maxlen=3), backend.store(stream_maxlen=3)
    calls = ScriptCalls(known)
    table = f"t{next(_TABLE_NUMBERS)}"  # the backend's keys outlive each example
    for name, store in (("known", known), ("lua", lua)):
        store.create(f"{table}-{name}", b"dealt", {"game": "zhajinhua"})
    known.load(f"{table}-known")  # as a change does first (latest_known)
    version = 1
    for number in range(25):
        change = a_change(rng, version, number)
        state = b"state-%d" % number
        lua.forget(f"{table}-lua")  # nothing remembered: the commit is made in Lua
        receipts = [store.commit_change(f"{table}-{name}", version, _table_change(state, change))
                    for name, store in (("known", known), ("lua", lua))]
        assert stored(backend, known, f"{table}-known") == stored(backend, lua, f"{table}-lua")
        assert receipts[0] == receipts[1]
        index = backend.new_client().zmscore(known.indexes.keys.deadlines, [f"{table}-known", f"{table}-lua"])
        assert index[0] == index[1]
        version += 1
    assert calls.counts == {"commit_known": 25}


def _table_change(state: bytes, change: dict[str, Any]) -> TableChange:
    return TableChange(state, change["events"], change.get("deadlines_set", ()), change.get("deadlines_clear", ()),
                       change.get("outbox", ()))


def test_a_claim_by_another_process_costs_one_more_try_and_is_kept(backend: Backend) -> None:
    mover, watchdog = backend.store(), backend.store()
    mover.create("t1", b"dealt")
    mover.load("t1")
    mover.commit("t1", 1, b"bet", deadlines_set=[("turn", 1_000, 2), ("kick:0", 5_000, 2)])
    assert watchdog.claim_deadline("t1", "turn", 2, now_ms=2_000)
    calls = ScriptCalls(mover)
    assert mover.commit("t1", 2, b"call", events=[(None, "call", b"")]) == 3
    assert calls.counts == {"commit_known": 2}
    assert [d.name for d in mover.deadlines("t1")] == ["kick:0"]  # the claim is not undone
    assert mover.commit("t1", 3, b"raise") == 4
    assert calls.counts == {"commit_known": 3}


def test_a_commit_by_another_process_is_stale_and_leaves_the_table_known(backend: Backend) -> None:
    first, second = backend.store(), backend.store()
    first.create("t1", b"dealt")
    first.load("t1")
    second.commit("t1", 1, b"theirs", events=[(None, "bet", b"1")])
    with pytest.raises(StaleVersion):
        first.commit("t1", 1, b"mine")
    calls = ScriptCalls(first)
    assert first.latest_known("t1").state == b"theirs"
    assert first.commit("t1", 2, b"mine", events=[(None, "call", b"")]) == 3
    assert calls.counts == {"commit_known": 1}
    assert [e.type for e in second.read_events("t1")] == ["bet", "call"]


def test_a_mark_of_ones_own_keeps_the_table_known(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"settled")
    store.load("t1")
    store.set_deadline("t1", "starting:1-ab", 9_000, 1)
    calls = ScriptCalls(store)
    store.commit("t1", 1, b"dealt", deadlines_clear=["starting:1-ab"], deadlines_set=[("turn", 5_000, 2)])
    assert calls.counts == {"commit_known": 1}
    assert [d.name for d in store.deadlines("t1")] == ["turn"]
    assert image_of(stored(backend, store, "t1")) == store._images["t1"]


def test_a_mark_elsewhere_that_leaves_every_length_as_it_was_is_not_written_back(backend: Backend) -> None:
    # The header line alone (version, ids, lengths) does not tell that a deadline was replaced by
    # one of the same width: the check covers the deadlines themselves.
    known, other = backend.store(), backend.store()
    known.create("t1", b"dealt")
    known.load("t1")
    known.commit("t1", 1, b"bet", deadlines_set=[("turn", 5_000, 2)])
    other.set_deadline("t1", "turn", 7_000, 2)
    known.commit("t1", 2, b"call")
    assert [(d.name, d.due_ms) for d in other.deadlines("t1")] == [("turn", 7_000)]


def test_a_table_in_an_older_form_is_committed_in_lua_then_known(backend: Backend) -> None:
    store = backend.store()
    client = backend.new_client()
    key = store.keys("t1").state
    client.hset(key, mapping={"v": "4", "s": b"old", "e": "0-0", "x": "0-0", "m:game": "zhajinhua"})
    calls = ScriptCalls(store)
    assert store.commit("t1", 4, b"new", events=[(None, "bet", b"1")]) == 5
    assert store.commit("t1", 5, b"newer") == 6
    assert calls.counts == {"commit": 1, "commit_known": 1}
    assert store.load("t1").state == b"newer" and store.meta("t1") == {"game": "zhajinhua"}


def test_a_deleted_table_is_unknown_to_a_known_commit(backend: Backend) -> None:
    store, other = backend.store(), backend.store()
    store.create("t1", b"dealt")
    store.load("t1")
    other.delete("t1")
    with pytest.raises(UnknownTable):
        store.commit("t1", 1, b"bet")


def test_a_known_commit_refuses_an_outbox_key_twice(backend: Backend) -> None:
    store = backend.store()
    store.create("t1", b"dealt")
    store.load("t1")
    store.commit("t1", 1, b"settled", outbox=[("settle:1", b"paid")])
    calls = ScriptCalls(store)
    with pytest.raises(DuplicateOutboxKey):
        store.commit("t1", 2, b"again", outbox=[("settle:1", b"paid")])
    assert calls.counts == {"commit_known": 1}
    assert store.load("t1").state == b"settled"


WRITERS = ("known", "other")
DEADLINE_NAMES = ("turn", "starting:1-ab", "kick:0")
operations = st.lists(st.one_of(
    st.tuples(st.just("commit"), st.sampled_from(WRITERS), st.sampled_from(DEADLINE_NAMES + ("",)),
              st.sampled_from(DEADLINE_NAMES + ("",)), st.integers(0, 2)),
    # Due times of one width: a mark that replaces one leaves the header's lengths as they were.
    st.tuples(st.just("mark"), st.sampled_from(WRITERS), st.sampled_from(DEADLINE_NAMES), st.integers(1_000, 9_999)),
    st.tuples(st.just("claim"), st.sampled_from(WRITERS), st.sampled_from(DEADLINE_NAMES)),
    st.tuples(st.just("drop"), st.sampled_from(WRITERS)),
), min_size=1, max_size=30)


@given(steps=operations)
@example(steps=[("commit", "known", "turn", "", 0), ("mark", "other", "turn", 7_000), ("commit", "known", "", "", 1)])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_write_of_another_process_is_lost_under_known_commits(backend: Backend, steps: list[Any]) -> None:
    # Two processes take turns at one table: commits made from the string each knows, marks,
    # claims and dropped events in any order. A commit from a known string that missed another
    # writer's mark or claim would write the table back as it was: checked against a model.
    stores = {name: backend.store(stream_maxlen=3) for name in WRITERS}
    reader = backend.store()
    table = f"m{next(_TABLE_NUMBERS)}"
    stores["known"].create(table, b"s0")
    version, state, deadlines = 1, b"s0", {}
    for step in steps:
        kind, who = step[0], stores[step[1]]
        if kind == "commit":
            _, _, setting, clearing, event_count = step
            clear = [clearing] if clearing and clearing != setting else []
            settings_ = [(setting, 5_000 + version, version)] if setting else []
            state = b"s%d" % (version + 1)
            for _ in range(2):  # a stale try is answered with the table as it is; the next one lands
                try:
                    who.commit(table, who.latest_known(table).version, state,
                               events=[(None, "bet", b"1")] * event_count, deadlines_set=settings_,
                               deadlines_clear=clear)
                    break
                except StaleVersion:
                    continue
            else:
                pytest.fail("a commit on the table as it was answered did not land")
            version += 1
            for name in clear:
                deadlines.pop(name, None)
            deadlines.update({name: (due, stamp) for name, due, stamp in settings_})
        elif kind == "mark":
            _, _, name, due = step
            who.set_deadline(table, name, due, version)
            deadlines[name] = (due, version)
        elif kind == "claim":
            name = step[2]
            stamp = deadlines.get(name, (0, 1))[1]
            assert who.claim_deadline(table, name, stamp, now_ms=10**13) == (name in deadlines)
            deadlines.pop(name, None)
        else:
            who.drop_events(table)
        snapshot = reader.load(table)
        assert (snapshot.version, snapshot.state) == (version, state)
        assert {d.name: (d.due_ms, d.version_set_for) for d in reader.deadlines(table)} == deadlines
