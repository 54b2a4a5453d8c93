"""A refusal's stable word as any gRPC library reads it: the ``google.rpc.Status`` details.

Every status a Paiju server ends a call with carries, besides its code and message, the trailing
metadata ``grpc-status-details-bin``: a serialized ``google.rpc.Status`` (the same code and
message) whose details hold a ``google.rpc.ErrorInfo`` — ``reason`` the refusal's stable word
(the very word of the ``paiju-error-code`` trailer), ``domain`` :data:`DOMAIN`, ``metadata`` what
is known of it (``table_id``, ``current_version`` …) — and, when a later try may pass after a
known delay (a rate limit), a ``google.rpc.RetryInfo``. Every gRPC library decodes it with its
standard status helpers, so a client in any language branches on the reason without knowing
Paiju's own trailers.

Server and clients both use this module (the SDK reads the reason here first), so it needs
nothing beyond grpc and the googleapis protos that ``grpcio-status`` installs.

>>> key, value = details_trailer(grpc.StatusCode.NOT_FOUND, "there is no table 't9'", "not_found",
...                              {"table_id": "t9"})
>>> status = status_pb2.Status.FromString(value)
>>> key, status.code, status.message
('grpc-status-details-bin', 5, "there is no table 't9'")
>>> info = error_info(status)
>>> info.reason, info.domain, dict(info.metadata)
('not_found', 'paiju.dev', {'table_id': 't9'})
>>> retry_delay(status) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc
from google.rpc import error_details_pb2, status_pb2

DETAILS_KEY = "grpc-status-details-bin"
"""The trailing metadata gRPC libraries read a ``google.rpc.Status`` from."""
DOMAIN = "paiju.dev"
"""``ErrorInfo.domain`` of Paiju's refusals: the reason is one of Paiju's stable words."""


def status_word(code: grpc.StatusCode) -> str:
    """The stable word of a refusal no more particular word names: its status's name.

    >>> status_word(grpc.StatusCode.PERMISSION_DENIED)
    'permission_denied'
    """
    return code.name.lower()


def details_trailer(code: grpc.StatusCode, message: str, reason: str,
                    metadata: Mapping[str, str] | None = None,
                    retry_after: float | None = None) -> tuple[str, bytes]:
    """The ``grpc-status-details-bin`` trailing metadata of a status ending with ``code`` and
    ``message`` (exactly those the call ends with: libraries check that they match), its
    ``ErrorInfo`` saying ``reason``, with a ``RetryInfo`` of ``retry_after`` seconds if given."""
    status = status_pb2.Status(code=code.value[0], message=message)
    status.details.add().Pack(error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata or {}))
    if retry_after is not None:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.FromNanoseconds(round(max(retry_after, 0.0) * 1e9))
        status.details.add().Pack(retry)
    return DETAILS_KEY, status.SerializeToString()


def status_of(error: grpc.RpcError) -> status_pb2.Status | None:
    """The ``google.rpc.Status`` a failed call's trailers carry, client side (``None`` without
    one, or with one that is not a Status)."""
    trailing = getattr(error, "trailing_metadata", None)
    for name, value in (trailing() if trailing is not None else None) or ():
        if name == DETAILS_KEY and isinstance(value, bytes):
            try:
                return status_pb2.Status.FromString(value)
            except Exception:  # noqa: BLE001 - a trailer that does not parse says nothing
                return None
    return None


def error_info(status: status_pb2.Status | None) -> error_details_pb2.ErrorInfo | None:
    """The ``ErrorInfo`` of Paiju's :data:`DOMAIN` among ``status``'s details, if any."""
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if info.domain == DOMAIN:
                return info
    return None


def retry_delay(status: status_pb2.Status | None) -> float | None:
    """The seconds a ``RetryInfo`` among ``status``'s details asks to wait, if it has one."""
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            return retry.retry_delay.ToNanoseconds() / 1e9
    return None


def reason_of(error: grpc.RpcError) -> str | None:
    """A failed call's stable word, read from its ``ErrorInfo`` (``None`` without one)."""
    info = error_info(status_of(error))
    return info.reason if info is not None and info.reason else None
