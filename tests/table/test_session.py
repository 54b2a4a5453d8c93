"""The watch session without gRPC: who may watch, resuming after an event id, starting over
after a trim, which events a seat sees, leaving out the player's own moves, and the reply to a
move built beside what its watchers get."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from paiju.table.commits import TableNotFound
from paiju.table.fanout import StreamHub
from paiju.table.session import (
    BadEventId,
    FollowedView,
    NotAllowed,
    StartOver,
    StreamItem,
    VisibleEvents,
    WatchSession,
    hand_commits_to,
)
from paiju.table.views import CommitOutput, TableViews
from tests.patience import PATIENCE_SECONDS
from tests.table.test_tables import seated_table


@pytest.fixture
def hub(tables: Any) -> Iterator[StreamHub]:
    hub = StreamHub(tables.store, None, tables.clock_ms)
    hand_commits_to(tables, hub)
    yield hub
    hub.stop()


@pytest.fixture
def views(tables: Any) -> TableViews:
    return TableViews(tables)


@pytest.fixture
def opened(tables: Any, hub: StreamHub, views: TableViews) -> Iterator[Callable[..., WatchSession]]:
    """Opens sessions of table t1, each closed when the test ends."""
    sessions: list[WatchSession] = []

    def open_session(account: str, **options: Any) -> WatchSession:
        sessions.append(WatchSession.open(tables, hub, views, "t1", account, **options))
        return sessions[-1]

    yield open_session
    for session in sessions:
        session.close()


def started_hand(tables: Any, wallet: Any) -> list[str]:
    """Three players at t1, a hand dealt; the second player's turn (the first may look)."""
    accounts = seated_table(tables, wallet, count=3)
    for account in accounts:
        tables.ready("t1", account)
    return accounts


def events_in(items: list[StreamItem]) -> list[tuple[str, str]]:
    """Each visible event's type and hand id, in order."""
    return [(event.type, hand_id) for item in items if isinstance(item, VisibleEvents) for event, hand_id in item.events]


def items_until(session: WatchSession, done: Callable[[list[StreamItem]], bool]) -> list[StreamItem]:
    """The session's items until ``done`` says they are enough (the hub may hand a commit out
    from this thread or from its own)."""
    items: list[StreamItem] = []
    give_up = time.monotonic() + PATIENCE_SECONDS
    while not done(items):
        assert time.monotonic() < give_up, f"still waiting, having {items}"
        items += session.wait(0.05)
    return items


def test_a_session_resumed_after_an_event_gets_what_came_after_it_with_hand_ids_and_no_snapshot(
    tables: Any, wallet: Any, store: Any, opened: Any
) -> None:
    accounts = seated_table(tables, wallet, count=3)
    resume_after = store.load("t1").last_event_id  # the last sitting down
    for account in accounts:
        tables.ready("t1", account)
    hand_id = tables.view("t1", accounts[0])["hand"]["hand_id"]
    session = opened(accounts[0])
    items = session.start(resume_after)
    assert not any(isinstance(item, StartOver) for item in items)
    assert events_in(items) == [("ready", ""), ("ready", ""), ("ready", ""), ("hand_seats", hand_id),
                                ("hand_started", hand_id), ("turn", hand_id)]
    assert session.after == store.load("t1").last_event_id


def test_a_session_from_nothing_starts_with_the_table_as_it_is(tables: Any, wallet: Any, store: Any, opened: Any) -> None:
    accounts = started_hand(tables, wallet)
    session = opened(accounts[1])
    (first,) = session.start("")
    assert isinstance(first, StartOver)
    assert first.view["seat"] == 1 and first.view["hand"]["state"]["legal_actions"]
    assert first.view["last_event_id"] == session.after == store.load("t1").last_event_id


def test_a_session_resumed_after_trimmed_events_starts_over_from_a_fresh_snapshot(
    tables: Any, wallet: Any, store: Any, opened: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "stream_maxlen", 1)  # the table keeps its last commit's events only
    accounts = seated_table(tables, wallet, count=3)
    first_event = "0-1"  # the first sitting down, gone with the commits after it
    for account in accounts:
        tables.ready("t1", account)
    session = opened(accounts[0])
    items = session.start(first_event)
    assert [type(item) for item in items] == [StartOver]
    assert items[0].view["hand"] is not None
    assert session.after == store.load("t1").last_event_id


def test_a_spectator_sees_no_hidden_event_and_a_seat_only_its_own(tables: Any, wallet: Any, opened: Any) -> None:
    accounts = started_hand(tables, wallet)
    tables.act("t1", accounts[0], tables.view("t1", accounts[0])["version"], "look")  # cards for seat 0 alone
    seen = {name: events_in(opened(account, operator=True).start("0-0"))
            for name, account in [("looker", accounts[0]), ("other", accounts[1]), ("spectator", "operator-1")]}
    assert "cards" in [kind for kind, _ in seen["looker"]]
    assert [kind for kind, _ in seen["looker"] if kind != "cards"] == [kind for kind, _ in seen["other"]]
    assert seen["spectator"] == seen["other"]
    assert all(kind != "cards" for kind, _ in seen["other"])


def test_live_events_are_cut_to_the_seat_that_follows_the_player(tables: Any, wallet: Any, opened: Any) -> None:
    accounts = started_hand(tables, wallet)
    looker, other = opened(accounts[0]), opened(accounts[2])
    looker.start("")
    other.start("")
    tables.act("t1", accounts[0], tables.view("t1", accounts[0])["version"], "look")
    assert [kind for kind, _ in events_in(items_until(looker, lambda items: len(events_in(items)) >= 2))] == \
        ["looked", "cards"]
    assert [kind for kind, _ in events_in(items_until(other, events_in))] == ["looked"]
    assert other.wait(0.05) == []


def test_the_players_own_moves_are_left_out_and_the_reply_to_each_carries_its_events(
    tables: Any, wallet: Any, views: TableViews, opened: Any
) -> None:
    accounts = started_hand(tables, wallet)
    mover = opened(accounts[1], follow_view=True, leave_out_own_moves=True)
    watcher = opened(accounts[2])
    mover.start("")
    watcher.start("")
    outcome = tables.act("t1", accounts[1], tables.view("t1", accounts[1])["version"], "call")
    reply = CommitOutput.for_actor(views, "t1", accounts[1], outcome)
    moved = [event.type for event, _ in reply.events]
    assert moved and reply.view["last_event_id"] == "" and reply.version == outcome.version
    assert [kind for kind, _ in events_in(items_until(watcher, lambda items: len(events_in(items)) >= len(moved)))] \
        == moved
    tables.act("t1", accounts[0], tables.view("t1", accounts[0])["version"], "look")  # someone else's move
    after_both = items_until(mover, events_in)
    assert [kind for kind, _ in events_in(after_both)] == ["looked"], "the own move is not sent again"
    assert not any(isinstance(item, FollowedView) for item in after_both), "nor its view: the reply had it"
    assert mover.after == tables.load("t1")[0].last_event_id


def test_a_move_shows_its_player_the_same_view_as_the_stream_that_follows_their_views(
    tables: Any, wallet: Any, views: TableViews, opened: Any
) -> None:
    accounts = started_hand(tables, wallet)
    follower = opened(accounts[1], follow_view=True)
    follower.start("")
    outcome = tables.act("t1", accounts[1], tables.view("t1", accounts[1])["version"], "call")
    replied = CommitOutput.for_actor(views, "t1", accounts[1], outcome).view
    followed = next(item.view for item in items_until(
        follower, lambda items: any(isinstance(item, FollowedView) for item in items)) if isinstance(item, FollowedView))
    # The reply leaves the event id to its events and adds the windows a frontend shows.
    assert followed["last_event_id"] == outcome.receipt.last_event_id
    assert {**followed, "last_event_id": ""} == {key: value for key, value in replied.items()
                                                if key not in ("ready_kick", "reconnect_by_ms")}


def test_what_goes_wrong_is_a_domain_error(tables: Any, wallet: Any, hub: StreamHub, views: TableViews,
                                           opened: Any) -> None:
    accounts = seated_table(tables, wallet, count=2)
    with pytest.raises(TableNotFound):
        WatchSession.open(tables, hub, views, "t404", accounts[0])
    with pytest.raises(NotAllowed):
        WatchSession.open(tables, hub, views, "t1", "a-stranger")
    assert opened("an-operator", operator=True).account is None  # an operator without a seat: the public view
    with pytest.raises(BadEventId) as refused:
        opened(accounts[0]).start("not-an-event-id")
    assert isinstance(refused.value, ValueError)
