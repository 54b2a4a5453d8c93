"""The watchdog's gRPC face (internal): deadlines and presence, for other services and operators."""

from __future__ import annotations

import grpc

from paiju.proto.v1 import common_pb2, watchdog_pb2, watchdog_pb2_grpc
from paiju.rpc.errors import abort, required
from paiju.table.commits import TableNotFound
from paiju.table.deadline_names import (
    READY_KICK_DEADLINE,
    RECONNECT_PREFIX,
    START_DEADLINE,
    TURN_DEADLINE,
)
from paiju.table.store.keys import check_table_id
from paiju.table.tables import Tables
from paiju.watchdog.presence import PresenceBoard

REPORTED_STREAM = "reported"
KINDS = {
    TURN_DEADLINE: common_pb2.DEADLINE_KIND_TURN,
    READY_KICK_DEADLINE: common_pb2.DEADLINE_KIND_READY_KICK,
    START_DEADLINE: common_pb2.DEADLINE_KIND_HAND_START,
}


def deadline_message(table_id: str, name: str, due_ms: int, stamp: int) -> common_pb2.Deadline:
    kind = common_pb2.DEADLINE_KIND_RECONNECT if name.startswith(RECONNECT_PREFIX) else KINDS.get(name, 0)
    message = common_pb2.Deadline(deadline_id=name, kind=kind, owner=common_pb2.DEADLINE_OWNER_TABLE,
                                  target_id=table_id, version=stamp)
    if name.startswith(RECONNECT_PREFIX):
        message.seat = int(name[len(RECONNECT_PREFIX):])
    message.due_at.FromMilliseconds(due_ms)
    return message


class WatchdogService(watchdog_pb2_grpc.WatchdogServiceServicer):
    def __init__(self, tables: Tables, board: PresenceBoard) -> None:
        self.tables = tables
        self.board = board

    def _target(self, target_id: str, context: grpc.ServicerContext) -> str:
        return required(context, target_id, "target_id", check_table_id)

    def ListDeadlines(self, request, context):  # type: ignore[no-untyped-def]
        table_id = self._target(request.target_id, context)
        pending = sorted(self.tables.store.deadlines(table_id), key=lambda d: d.due_ms)
        return watchdog_pb2.ListDeadlinesResponse(
            deadlines=[deadline_message(table_id, d.name, d.due_ms, d.version_set_for) for d in pending]
        )

    def GetPresence(self, request, context):  # type: ignore[no-untyped-def]
        table_id = self._target(request.target_id, context)
        try:
            _, record = self.tables.load(table_id)
        except TableNotFound as error:
            abort(context, grpc.StatusCode.NOT_FOUND, str(error))
        windows = {d.name: d.due_ms for d in self.tables.store.deadlines(table_id)}
        players = []
        for seat, taken in enumerate(record.seats):
            if taken is None:
                continue
            presence = watchdog_pb2.Presence(owner=common_pb2.DEADLINE_OWNER_TABLE, target_id=table_id,
                                             seat=seat, account_id=taken.account, connected=taken.connected)
            beat = self.board.last_beat(table_id, taken.account)
            if beat is not None:
                presence.since.FromMilliseconds(beat)
            window = windows.get(f"{RECONNECT_PREFIX}{seat}")
            if not taken.connected and window is not None:
                presence.reconnect_by.FromMilliseconds(window)
            players.append(presence)
        return watchdog_pb2.GetPresenceResponse(players=players)

    def ReportPresence(self, request, context):  # type: ignore[no-untyped-def]
        if request.owner == common_pb2.DEADLINE_OWNER_UNSPECIFIED:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a report names the service owning the target")
        table_id = self._target(request.target_id, context)
        if not request.account_id or request.seat < 0:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a report names a seated account")
        now = self.tables.clock_ms()
        # A report stands for one stream of the player's: the reporter's own.
        if request.connected:
            self.board.beat(table_id, request.account_id, now, REPORTED_STREAM)
        else:
            self.board.closed(table_id, request.account_id, now, REPORTED_STREAM)
        presence = watchdog_pb2.Presence(owner=common_pb2.DEADLINE_OWNER_TABLE, target_id=table_id,
                                         seat=request.seat, account_id=request.account_id,
                                         connected=request.connected)
        presence.since.FromMilliseconds(now)
        return watchdog_pb2.ReportPresenceResponse(presence=presence)
