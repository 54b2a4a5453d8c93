"""The SDK wraps every public call (History, Level, ListTiers, WatchRooms too), and its watch
resumes after a dropped stream from the last event it delivered, none missed, none twice."""

from __future__ import annotations

import secrets
import threading

import grpc
import pytest

from paiju.client.sdk import PaijuClient, PaijuError
from tests.e2e.test_platform import seated_clients


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_every_public_call_has_its_wrapper(deployment) -> None:
    me = PaijuClient.connect(deployment.address, f"sdk{secrets.token_hex(3)}", "a long password", register=True)
    try:
        assert [tier.tier for tier in me.tiers("zhajinhua")] == ["free", "expert"]
        assert me.history(limit=10).entries[0].amount == 20_000  # the starting grant
        assert me.level("zhajinhua").level >= 1
        updates = me.watch_rooms("zhajinhua", "free")
        first = next(updates)
        assert first.WhichOneof("update") == "snapshot" and first.snapshot.rooms
        updates.close()
    finally:
        me.close()


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_bug_a_dropped_watch_ended_the_stream_and_the_events_after_it_were_lost(deployment, monkeypatch) -> None:
    room = "zhajinhua-free-01"
    clients, _ = seated_clients(deployment, room, count=2)
    watcher = clients[0]
    real_once = PaijuClient._watch_once
    opened: list[str] = []
    delivered_before_the_drop: list[str] = []

    def dropping_once(self, table_id, after_event_id, follow_view):
        # The first stream dies (as when its server goes away) after two events.
        opened.append(after_event_id)
        for update in real_once(self, table_id, after_event_id, follow_view):
            yield update
            if len(opened) == 1 and update.event_id:
                delivered_before_the_drop.append(update.event_id)
                if len(delivered_before_the_drop) == 2:
                    raise PaijuError(grpc.StatusCode.UNAVAILABLE, "the server went away", None)

    monkeypatch.setattr(PaijuClient, "_watch_once", dropping_once)
    seen: list[str] = []
    done = threading.Event()

    def follow() -> None:
        for update in watcher.watch(room, resume=True):
            if update.event_id:
                seen.append(update.event_id)
            if update.event_type == "hand_over":
                done.set()
                return

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    for client in clients:
        client.ready(room)
    from tests.e2e.test_platform import finish_hand

    finish_hand(clients, room)
    assert done.wait(60), "the resumed watch never saw the hand end"
    assert len(opened) == 2 and opened[1] == delivered_before_the_drop[-1] == seen[1], (
        "reopened after the last event it delivered")
    assert len(seen) > 2, "the events after the drop arrived"
    assert len(seen) == len(set(seen)), "no event twice"
    for client in clients:
        client.close()
