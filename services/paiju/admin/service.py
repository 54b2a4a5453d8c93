"""``paiju.v1.AdminService``: the operator's gRPC service, a thin layer over
:class:`~paiju.admin.operations.Operations`, served in the wallet's process beside ``WalletService``.

Every call needs an operator's token: the auth interceptor has refused a call without a valid
token (UNAUTHENTICATED) before it gets here, and each method refuses any other role
(PERMISSION_DENIED) before it reads or does anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

import grpc
import sqlalchemy as sa
from google.protobuf.timestamp_pb2 import Timestamp

from paiju.admin.operations import EntryRefused, NotPending, Operations, PlayerFound, document_json
from paiju.common.auth import Role
from paiju.proto.v1 import admin_pb2, admin_pb2_grpc
from paiju.quoting import quoted
from paiju.rpc.errors import abort
from paiju.rpc.interceptor import current_caller
from paiju.rpc.server import ServiceBinding
from paiju.table.commits import TableNotFound
from paiju.wallet.errors import (
    HandAlreadySettled,
    IdempotencyConflict,
    InsufficientFunds,
    UnknownAccount,
)

OUTBOX_DEFAULT, AUDIT_DEFAULT, MOST_LISTED = 100, 50, 500
MAX_ACCOUNT_ID = 2**31 - 1

_REFUSALS: tuple[tuple[type[Exception], grpc.StatusCode, str], ...] = (
    (UnknownAccount, grpc.StatusCode.NOT_FOUND, "unknown_account"),
    (NotPending, grpc.StatusCode.NOT_FOUND, "not_pending"),
    (TableNotFound, grpc.StatusCode.NOT_FOUND, "unknown_table"),
    (InsufficientFunds, grpc.StatusCode.FAILED_PRECONDITION, "insufficient_funds"),
    (IdempotencyConflict, grpc.StatusCode.FAILED_PRECONDITION, "idempotency_conflict"),
    (HandAlreadySettled, grpc.StatusCode.FAILED_PRECONDITION, "hand_settled"),
    (EntryRefused, grpc.StatusCode.FAILED_PRECONDITION, "refused"),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument"),
    (TypeError, grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument"),
    (sa.exc.OperationalError, grpc.StatusCode.UNAVAILABLE, "ledger_unavailable"),
)

F = TypeVar("F", bound=Callable[..., Any])


def operators_only(method: F) -> F:
    """Refuse the call unless its token is an operator's."""
    @wraps(method)
    def guarded(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        if current_caller().role is not Role.OPERATOR:
            abort(context, grpc.StatusCode.PERMISSION_DENIED, "paiju.v1.AdminService is for operators only",
                  error_code="operators_only")
        with _answering(context):
            return method(self, request, context)

    return guarded  # type: ignore[return-value]


@contextmanager
def _answering(context: grpc.ServicerContext) -> Iterator[None]:
    """End the RPC with the documented status when the domain refuses."""
    try:
        yield
    except tuple(kind for kind, _, _ in _REFUSALS) as error:
        code, word = next((code, word) for kind, code, word in _REFUSALS if isinstance(error, kind))
        message = "the ledger is unavailable; try again" if isinstance(error, sa.exc.OperationalError) else str(error)
        abort(context, code, message, error_code=word)


class AdminServicer(admin_pb2_grpc.AdminServiceServicer):
    """``paiju.v1.AdminService`` (see ``admin.proto``)."""

    def __init__(self, operations: Operations) -> None:
        self.operations = operations

    @operators_only
    def FindPlayer(self, request: admin_pb2.FindPlayerRequest,
                   context: grpc.ServicerContext) -> admin_pb2.FindPlayerResponse:
        if bool(request.username) == bool(request.account_id):
            raise ValueError("name the player by username or by account_id: one of them")
        if request.account_id:
            return admin_pb2.FindPlayerResponse(
                player=_player(self.operations.find_player(account=_account(request.account_id))))
        return admin_pb2.FindPlayerResponse(player=_player(self.operations.find_player(username=request.username)))

    @operators_only
    def SuspendAccount(self, request: admin_pb2.SuspendAccountRequest,
                       context: grpc.ServicerContext) -> admin_pb2.SuspendAccountResponse:
        return admin_pb2.SuspendAccountResponse(
            player=_player(self.operations.suspend(_operator(), _account(request.account_id), request.reason)))

    @operators_only
    def RestoreAccount(self, request: admin_pb2.RestoreAccountRequest,
                       context: grpc.ServicerContext) -> admin_pb2.RestoreAccountResponse:
        return admin_pb2.RestoreAccountResponse(
            player=_player(self.operations.restore(_operator(), _account(request.account_id), request.reason)))

    @operators_only
    def AdjustCoins(self, request: admin_pb2.AdjustCoinsRequest,
                    context: grpc.ServicerContext) -> admin_pb2.AdjustCoinsResponse:
        done = self.operations.adjust(_operator(), _account(request.account_id), request.amount, request.reason,
                                      request.request_id)
        return admin_pb2.AdjustCoinsResponse(entry_id=str(done.entry_id), balance_after=done.balance_after,
                                             house_balance_after=done.house_balance_after)

    @operators_only
    def ListOutbox(self, request: admin_pb2.ListOutboxRequest,
                   context: grpc.ServicerContext) -> admin_pb2.ListOutboxResponse:
        entries = self.operations.outbox(_limit(request.limit, OUTBOX_DEFAULT))
        return admin_pb2.ListOutboxResponse(entries=[
            admin_pb2.OutboxEntry(table_id=e.table_id, key=e.key, kind=e.kind, hand_id=e.hand_id,
                                  payload_json=e.payload) for e in entries])

    @operators_only
    def RetrySettlement(self, request: admin_pb2.RetrySettlementRequest,
                        context: grpc.ServicerContext) -> admin_pb2.RetrySettlementResponse:
        done = self.operations.retry(_operator(), request.table_id, request.key, request.reason)
        return admin_pb2.RetrySettlementResponse(outcome=done.outcome, released=done.released)

    @operators_only
    def VoidSettlement(self, request: admin_pb2.VoidSettlementRequest,
                       context: grpc.ServicerContext) -> admin_pb2.VoidSettlementResponse:
        done = self.operations.void(_operator(), request.table_id, request.key, request.reason)
        return admin_pb2.VoidSettlementResponse(outcome=done.outcome, released=done.released)

    @operators_only
    def EndTable(self, request: admin_pb2.EndTableRequest, context: grpc.ServicerContext) -> admin_pb2.EndTableResponse:
        if not request.table_id:
            raise ValueError("name the table: table_id is empty")
        ended = self.operations.end_table(_operator(), request.table_id, request.reason)
        return admin_pb2.EndTableResponse(
            outcome=ended.summary(), nothing_to_end=ended.nothing_to_end, voided_hand_id=ended.voided_hand or "",
            abandoned_start_hand_ids=ended.abandoned_starts, released=ended.released,
            stood_account_ids=ended.stood, deadlines_cleared=ended.deadlines_cleared, outbox_left=ended.outbox_left)

    @operators_only
    def GetHandRecord(self, request: admin_pb2.GetHandRecordRequest,
                      context: grpc.ServicerContext) -> admin_pb2.GetHandRecordResponse:
        if not request.hand_id:
            raise ValueError("name the hand: hand_id is empty")
        document = self.operations.hand_record(request.hand_id)
        if document is None:
            abort(context, grpc.StatusCode.NOT_FOUND,
                  f"no hand {quoted(request.hand_id)} is kept (never played, or past the retention)",
                  error_code="unknown_hand")
        return admin_pb2.GetHandRecordResponse(record_json=document_json(document))

    @operators_only
    def ListAuditLog(self, request: admin_pb2.ListAuditLogRequest,
                     context: grpc.ServicerContext) -> admin_pb2.ListAuditLogResponse:
        if request.before_id < 0:
            raise ValueError("before_id is an entry id, or 0 for the newest")
        found = self.operations.audit_log(_limit(request.limit, AUDIT_DEFAULT), request.before_id or None)
        return admin_pb2.ListAuditLogResponse(entries=[
            admin_pb2.AuditEntry(id=entry.id, at=_timestamp(entry.at), operator=entry.operator, action=entry.action,
                                 target=entry.target, reason=entry.reason, result=entry.result)
            for entry in found])


def admin_binding(operations: Operations) -> ServiceBinding:
    """The Admin service, for the wallet's process (:meth:`paiju.platform.Platform.bindings`)."""
    return ServiceBinding("paiju.v1.AdminService", AdminServicer(operations), admin_pb2_grpc.add_AdminServiceServicer_to_server)


def _operator() -> str:
    return current_caller().username


def _account(account_id: str) -> int:
    """The ledger id an account id names (ValueError when it names none)."""
    if not (account_id.isascii() and account_id.isdigit()) or not 0 < int(account_id) <= MAX_ACCOUNT_ID:
        raise ValueError(f"{quoted(account_id)} is not an account id")
    return int(account_id)


def _limit(asked: int, default: int) -> int:
    if not 0 <= asked <= MOST_LISTED:
        raise ValueError(f"list 1 to {MOST_LISTED} (0 for {default}), not {asked}")
    return asked or default


def _player(found: PlayerFound) -> admin_pb2.Player:
    return admin_pb2.Player(account_id=str(found.account), username=found.username, balance=found.balance,
                            held=found.held, suspended=found.suspension_reason is not None,
                            suspension_reason=found.suspension_reason or "", table_id=found.table_id or "")


def _timestamp(moment: Any) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp
