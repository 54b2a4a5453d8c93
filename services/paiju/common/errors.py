"""Ending an RPC with a status code, a sentence for people and a stable word for programs.

The ``paiju.v1`` contracts put the human reason in the status message and, where a program
needs to branch on it, a stable word in the trailing metadata ``paiju-error-code`` (an engine's
``IllegalAction.code``, for example). An ABORTED answer to a stale version also carries the
current version in ``paiju-current-version``.
"""

from __future__ import annotations

from typing import NoReturn

import grpc

ERROR_CODE_KEY = "paiju-error-code"
CURRENT_VERSION_KEY = "paiju-current-version"


def abort(
    context: grpc.ServicerContext,
    code: grpc.StatusCode,
    message: str,
    *,
    error_code: str | None = None,
    current_version: int | None = None,
) -> NoReturn:
    """End the RPC with ``code`` and ``message``; never returns (``context.abort`` raises)."""
    trailers: list[tuple[str, str]] = []
    if error_code is not None:
        trailers.append((ERROR_CODE_KEY, error_code))
    if current_version is not None:
        trailers.append((CURRENT_VERSION_KEY, str(current_version)))
    if trailers:
        context.set_trailing_metadata(tuple(trailers))
    context.abort(code, message)
    raise AssertionError("grpc's context.abort returned")  # it always raises


def trailer(error: grpc.RpcError, key: str) -> str | None:
    """A trailing metadata value of a failed call, client side (``None`` when absent).

    >>> trailer(object(), ERROR_CODE_KEY) is None
    True
    """
    trailing = getattr(error, "trailing_metadata", None)
    if trailing is None:
        return None
    for name, value in trailing() or ():
        if name == key:
            return value if isinstance(value, str) else value.decode("utf-8", "replace")
    return None
