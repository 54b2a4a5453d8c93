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


ASYNC_PROGRAM = """
import asyncio, json, secrets, sys

import grpc

from paiju.client.aio import AsyncPaijuClient
from paiju.client.sdk import PaijuError


async def play(address: str) -> dict:
    players = [await AsyncPaijuClient.connect(address, f"aio{secrets.token_hex(3)}{i}", "a long password",
                                              register=True) for i in range(2)]
    room = "zhajinhua-free-02"
    for player in players:
        await player.sit(room)
    tiers = [t.tier for t in await players[0].tiers("zhajinhua")]
    updates = players[0].watch(room)
    first = await anext(updates)  # the stream is open: what happens from now on comes on it
    for player in players:
        await player.ready(room)
    event = await anext(updates)
    while not event.event_id:
        event = await anext(updates)
    by_seat = {(await p.view(room))["seat"]: p for p in players}
    while True:
        view = await players[0].view(room)
        if view["hand"] is None:
            break
        actor = by_seat[view["hand"]["seats"][view["hand"]["state"]["to_act"]]]
        mine = await actor.view(room)
        await actor.act(room, "fold", mine["version"])
    try:
        await players[0].act(room, "fold", 0)
        refused = None
    except PaijuError as error:
        refused = error.status.name
    await updates.aclose()
    total = sum([(await p.balance()).total for p in players])
    for player in players:
        await player.close()
    return {"tiers": tiers, "first_is_view": first.view is not None, "event": event.event_type,
            "refused": refused, "total": total}


print(json.dumps(asyncio.run(play(sys.argv[1]))))
"""


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_an_asyncio_program_plays_a_hand_with_the_async_client(deployment) -> None:
    # A program of its own, as a client is: grpc's asyncio runs one event loop per process.
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", ASYNC_PROGRAM, deployment.address], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["tiers"] == ["free", "expert"]
    assert outcome["first_is_view"] and outcome["event"], "a watch opens with the view, then the events"
    assert outcome["total"] == 40_000, "coins are conserved"
    assert outcome["refused"] in ("FAILED_PRECONDITION", "ABORTED"), "a refusal is a PaijuError"
