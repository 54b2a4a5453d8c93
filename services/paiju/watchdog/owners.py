"""How a watchdog reaches the tables' owner: in the same process, or the table service by gRPC."""

from __future__ import annotations

import grpc

from paiju.proto.v1 import common_pb2, table_pb2, table_pb2_grpc
from paiju.table.tables import Tables


class LocalTables:
    """The owner in this process (the all-in-one server)."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    def expire(self, table_id: str, name: str, stamp: int) -> bool:
        return self.tables.expire(table_id, name, stamp) is not None

    def disconnect(self, table_id: str, account: str, since_ms: int) -> bool:
        return self.tables.disconnect(table_id, account, since_ms) is not None


class RemoteTables:
    """The table service, through ``TableInternalService`` with a ``service`` token."""

    def __init__(self, channel: grpc.Channel, timeout: float = 5.0) -> None:
        self._stub = table_pb2_grpc.TableInternalServiceStub(channel)
        self._timeout = timeout

    def expire(self, table_id: str, name: str, stamp: int) -> bool:
        deadline = common_pb2.Deadline(deadline_id=name, target_id=table_id, version=stamp,
                                       owner=common_pb2.DEADLINE_OWNER_TABLE)
        request = common_pb2.ExpireDeadlineRequest(deadline=deadline)
        return self._stub.ExpireDeadline(request, timeout=self._timeout).applied

    def disconnect(self, table_id: str, account: str, since_ms: int) -> bool:
        request = table_pb2.MarkDisconnectedRequest(table_id=table_id, account_id=account)
        request.since.FromMilliseconds(since_ms)
        return self._stub.MarkDisconnected(request, timeout=self._timeout).applied
