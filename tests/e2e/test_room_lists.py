"""LobbyService.WatchRooms over real gRPC: a room list follows the rooms, and a closed one costs nothing."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator

import grpc
import pytest

from paiju.client.sdk import PaijuClient
from paiju.common.config import Settings
from paiju.platform import Platform, build
from paiju.proto.v1 import lobby_pb2
from paiju.rpc.server import RunningServer, start_from_settings

POOL_THREADS = 4
WAIT_SECONDS = 30.0
TIER = ("zhajinhua", "free")


@pytest.fixture(scope="module")
def small_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Platform, RunningServer]]:
    """The embedded platform served with a pool of only POOL_THREADS threads."""
    folder = tmp_path_factory.mktemp("room-lists")
    settings = Settings.from_env({
        "PAIJU_SECRET": "the room list test secret, 32 bytes", "PAIJU_GRPC_WORKERS": str(POOL_THREADS),
        "DATABASE_URL": f"sqlite:///{folder / 'ledger.sqlite3'}", "PAIJU_METRICS_PORT": "0",
    })
    platform = build(settings, rooms_per_tier=3)
    server = start_from_settings(settings, platform.bindings(), port=0)
    platform.start_background()
    try:
        yield platform, server
    finally:
        server.stop(grace=0.5)
        platform.close()


def wait_for(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def player(server: RunningServer) -> PaijuClient:
    return PaijuClient.connect(server.address, f"r{secrets.token_hex(4)}", "a long enough password", register=True)


def room_list(client: PaijuClient) -> Iterator[lobby_pb2.WatchRoomsResponse]:
    return client.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game=TIER[0], tier=TIER[1]), timeout=WAIT_SECONDS)


def test_a_room_list_sends_the_rooms_then_a_room_again_when_someone_sits(small_pool) -> None:
    _, server = small_pool
    watcher, sitter = player(server), player(server)
    updates = room_list(watcher)
    first = next(updates)
    assert [room.room_id for room in first.snapshot.rooms] == [f"zhajinhua-free-0{n}" for n in (1, 2, 3)]
    sitter.sit("zhajinhua-free-02")
    changed = next(updates).changed
    assert changed.room_id == "zhajinhua-free-02"
    assert [seat.account_id for seat in changed.seats] == [sitter.account_id]
    updates.cancel()
    sitter.stand("zhajinhua-free-02")


def test_closed_room_lists_hold_no_thread_so_login_and_sit_still_answer(small_pool) -> None:
    platform, server = small_pool
    client = player(server)
    for _ in range(POOL_THREADS * 4):  # more lists opened and closed than the pool has threads
        updates = room_list(client)
        assert next(updates).snapshot.rooms
        updates.cancel()
    # The lists let go of the rooms they watched (their cleanup ran), and the pool is free:
    wait_for("the closed lists to unsubscribe", lambda: not platform.hub.watched())
    again = PaijuClient(server.address)
    again.login(client.username, "a long enough password")
    assert again.sit("zhajinhua-free-03") >= 0
    assert again.ready("zhajinhua-free-03") is False
    again.stand("zhajinhua-free-03")


def test_a_refused_room_list_names_the_unknown_tier(small_pool) -> None:
    _, server = small_pool
    updates = player(server).lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game="zhajinhua", tier="nope"))
    with pytest.raises(grpc.RpcError) as refused:
        next(updates)
    assert refused.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_list_tiers_counts_the_players_seated_in_each_tier(deployment) -> None:
    """A frontend offers first the tier where players sit (炒地皮's first tier, yancheng 积分, was
    empty while the bots played in another, and a newcomer waited alone there)."""

    def seated(client: PaijuClient) -> dict[str, int]:
        return {tier.tier: tier.players_seated for tier in client.tiers("hunzhan")}

    players = [PaijuClient.connect(deployment.address, f"tiers{secrets.token_hex(3)}{i}", "a long password", register=True)
               for i in range(3)]
    try:
        before = seated(players[0])
        tier = next(name for name in before if name != next(iter(before)))
        rooms = [room.room_id for room in players[0].rooms("hunzhan", tier)]
        players[0].sit(rooms[0])
        players[1].sit(rooms[0])
        players[2].sit(rooms[1])
        after = seated(players[0])
        assert after[tier] == before[tier] + 3
        assert {name: count for name, count in after.items() if name != tier} == \
               {name: count for name, count in before.items() if name != tier}
    finally:
        for player in players:
            player.close()
