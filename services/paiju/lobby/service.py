"""The lobby service's gRPC face: a thin layer over :class:`~paiju.lobby.rooms.Lobby`."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc

from paiju.games.engine import IllegalAction
from paiju.games.registry import Tier, UnknownName, game_spec
from paiju.lobby.rooms import NO_FREE_SEAT, Lobby, RoomEntry, room_of_commit
from paiju.proto.v1 import common_pb2, lobby_pb2, lobby_pb2_grpc
from paiju.rpc import aio_bridge
from paiju.rpc.errors import abort, refuse_illegal, required
from paiju.rpc.interceptor import current_caller
from paiju.table.commits import LedgerNeeded, TableNotFound
from paiju.table.fanout import StreamHub
from paiju.table.record import IDLE, PLAYING, WAITING, TableRecord

ROOM_STATES = {
    IDLE: common_pb2.ROOM_STATE_IDLE,
    WAITING: common_pb2.ROOM_STATE_WAITING,
    PLAYING: common_pb2.ROOM_STATE_PLAYING,
}
WATCH_POLL_S = 5.0
"""Under a thread server, how often a waiting room list looks whether its client is still there."""


def tier_message(game: str, tier: Tier) -> common_pb2.Tier:
    spec = game_spec(game)
    return common_pb2.Tier(
        game=game,
        tier=tier.name,
        title=tier.title,
        min_coins=tier.min_coins,
        stake=tier.base_stake,
        unit="ante" if game == "zhajinhua" else "stake",
        seat_count=spec.max_players,
    )


def room_message(version: int, record: TableRecord) -> common_pb2.Room:
    seats = [
        common_pb2.Seat(
            seat=number, account_id=taken.account, username=taken.name, coins=taken.coins,
            ready=taken.ready, connected=taken.connected,
        )
        for number, taken in enumerate(record.seats)
        if taken is not None
    ]
    return common_pb2.Room(
        room_id=record.table_id,
        tier=tier_message(record.game, record.spec.tier(record.tier)),
        state=ROOM_STATES[record.state],
        seats=seats,
        table_id=record.table_id,
        version=version,
    )


class LobbyService(lobby_pb2_grpc.LobbyServiceServicer):
    NON_BLOCKING = frozenset({"ListTiers", "ListRooms", "WatchRooms"})
    """Methods that read Redis only (Sit, Stand, Ready and QuickMatch may ask the ledger), so an
    event loop may run them itself: a room list then waits on the loop, holding no thread."""
    LOOP_FIRST = frozenset({"Ready"})
    """Methods that usually need Redis only: a press of start is answered on the loop from the
    ledger's board of coins, and goes to a thread only when the ledger must be asked (the board
    does not let the player through, or the press starts the hand and holds its coins)."""

    def __init__(self, lobby: Lobby, hub: StreamHub | None = None) -> None:
        self.lobby = lobby
        self.hub = hub or StreamHub(lobby.tables.store)

    def _rooms(self, game: str, tier: str, context: grpc.ServicerContext) -> list[RoomEntry]:
        required(context, game, "game")
        try:
            return self.lobby.rooms(game, tier)
        except UnknownName as error:
            abort(context, grpc.StatusCode.NOT_FOUND, str(error), error_code="unknown_name")

    def _room(self, room_id: str, context: grpc.ServicerContext) -> common_pb2.Room:
        try:
            snapshot, record = self.lobby.tables.load(room_id)
        except TableNotFound as error:
            abort(context, grpc.StatusCode.NOT_FOUND, str(error))
        return room_message(snapshot.version, record)

    def ListTiers(self, request, context):  # type: ignore[no-untyped-def]
        required(context, request.game, "game")
        try:
            spec = game_spec(request.game)
        except UnknownName as error:
            abort(context, grpc.StatusCode.NOT_FOUND, str(error), error_code="unknown_name")
        tiers = [tier_message(spec.name, tier) for tier in spec.tiers]
        for message in tiers:
            message.players_seated = sum(len(entry.record.seated()) for entry in self.lobby.rooms(spec.name, message.tier))
        return lobby_pb2.ListTiersResponse(tiers=tiers)

    def ListRooms(self, request, context):  # type: ignore[no-untyped-def]
        rooms = self._rooms(request.game, request.tier, context)
        return lobby_pb2.ListRoomsResponse(rooms=[room_message(e.version, e.record) for e in rooms])

    def WatchRooms(self, request, context) -> Iterator[lobby_pb2.WatchRoomsResponse]:  # type: ignore[no-untyped-def]
        """The rooms of a tier, then each room again whenever it changed, until the client goes.

        The stream holds no thread while it waits: the stream hub reads each room once after its
        events, for every room list, and wakes the stream (or its thread, under a thread server).
        """
        required(context, request.game, "game")
        try:
            ids = self.lobby.room_ids(request.game, request.tier)
        except UnknownName as error:
            abort(context, grpc.StatusCode.NOT_FOUND, str(error), error_code="unknown_name")
        # Subscribed first, so that no change falls between the snapshot and the live ones.
        subscriptions = self.hub.subscribe_many(ids, None, self._changed_room, state_of_commit=room_of_commit)
        on_loop = getattr(context, "waits_on_loop", False)
        woken = threading.Event()
        for subscription in subscriptions:
            subscription.notify = context.wake if on_loop else woken.set
        try:
            rooms = self.lobby.rooms(request.game, request.tier)
            seen = {entry.record.table_id: entry.version for entry in rooms}
            yield lobby_pb2.WatchRoomsResponse(
                snapshot=lobby_pb2.RoomSnapshot(rooms=[room_message(e.version, e.record) for e in rooms])
            )
            while context.is_active():
                taken = [item for subscription in subscriptions for item in subscription.take_all()]
                if any(item is None for item in taken):  # the hub's interrupt: the server is shutting down
                    abort(context, grpc.StatusCode.UNAVAILABLE, "this server is shutting down: watch again",
                          error_code="server_draining")
                changed = [item for item in taken if isinstance(item, RoomEntry)]
                for entry in changed:
                    if seen.get(entry.record.table_id, -1) < entry.version:
                        seen[entry.record.table_id] = entry.version
                        yield lobby_pb2.WatchRoomsResponse(changed=room_message(entry.version, entry.record))
                if changed:
                    continue
                if on_loop:
                    yield aio_bridge.WAITING  # served from an event loop: the hub's notify resumes it
                else:
                    woken.wait(WATCH_POLL_S)  # a thread server's stream looks at is_active now and then
                    woken.clear()
        finally:
            for subscription in subscriptions:
                self.hub.unsubscribe(subscription)

    def _changed_room(self, table_id: str) -> RoomEntry | None:
        """What the hub hands every room list after a room's events (read once for them all)."""
        return self.lobby.room(table_id)

    def _seat_change(self, context: grpc.ServicerContext, change):  # type: ignore[no-untyped-def]
        try:
            return change()
        except (TableNotFound, UnknownName) as error:
            abort(context, grpc.StatusCode.NOT_FOUND, str(error))
        except IllegalAction as error:
            if error.code == NO_FREE_SEAT:
                abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, error.reason, error_code=error.code)
            refuse_illegal(context, error)
        except ValueError as error:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))

    def Sit(self, request, context):  # type: ignore[no-untyped-def]
        caller = current_caller()
        seat = request.seat if request.HasField("seat") else None
        self._seat_change(
            context, lambda: self.lobby.tables.sit(request.room_id, caller.account_id, caller.username, seat)
        )
        room = self._room(request.room_id, context)
        return lobby_pb2.SitResponse(room=room, seat=_seat_of(room, caller.account_id))

    def Stand(self, request, context):  # type: ignore[no-untyped-def]
        caller = current_caller()
        outcome = self._seat_change(
            context, lambda: self.lobby.tables.stand(request.room_id, caller.account_id, request.accept_escape)
        )
        escaped = any(event.type == "escaped" for event in outcome.events)
        room = (room_message(outcome.version, outcome.record) if outcome.record is not None
                else self._room(request.room_id, context))
        return lobby_pb2.StandResponse(room=room, escaped=escaped)

    def Ready(self, request, context):  # type: ignore[no-untyped-def]
        caller = current_caller()
        ask_ledger = not getattr(context, "runs_on_loop", False)
        try:
            outcome = self._seat_change(
                context, lambda: self.lobby.tables.ready(request.room_id, caller.account_id, ask_ledger)
            )
        except LedgerNeeded:
            raise aio_bridge.OffTheLoop from None
        started = next((e for e in outcome.events if e.type == "hand_seats"), None)
        # The room as this change committed it: no second read of the table.
        room = (room_message(outcome.version, outcome.record) if outcome.record is not None
                else self._room(request.room_id, context))
        return lobby_pb2.ReadyResponse(
            room=room,
            hand_started=started is not None,
            hand_id="" if started is None else started.data["hand_id"],
        )

    def QuickMatch(self, request, context):  # type: ignore[no-untyped-def]
        caller = current_caller()
        required(context, request.game, "game")
        required(context, request.tier, "tier")  # an empty tier lists rooms of all; it seats in none
        room_id, _ = self._seat_change(
            context, lambda: self.lobby.quick_match(request.game, request.tier, caller.account_id, caller.username)
        )
        room = self._room(room_id, context)
        return lobby_pb2.QuickMatchResponse(room=room, seat=_seat_of(room, caller.account_id))


def _seat_of(room: common_pb2.Room, account: str) -> int:
    return next(seat.seat for seat in room.seats if seat.account_id == account)
