"""Ending an RPC with a status code, a sentence for people and a stable word for programs.

The ``paiju.v1`` contracts put the human reason in the status message and, where a program
needs to branch on it, a stable word in the trailing metadata ``paiju-error-code`` (an engine's
``IllegalAction.code``, for example). An ABORTED answer to a stale version also carries the
current version in ``paiju-current-version``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn, Protocol

import grpc

from paiju.common.wire import CURRENT_VERSION_KEY, ERROR_CODE_KEY, trailer  # noqa: F401 (the servicers import them from here)

MAX_MESSAGE_CHARS = 400
"""A status message is cut here whatever it says: its reason must fit in gRPC's metadata limit
(8 KB soft), or the client gets RESOURCE_EXHAUSTED about metadata instead of the reason. Input
is quoted short (:func:`paiju.quoting.quoted`); this bounds what slips past."""


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
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[: MAX_MESSAGE_CHARS - 1] + "…"
    context.abort(code, message)
    raise AssertionError("grpc's context.abort returned")  # it always raises


def required(
    context: grpc.ServicerContext, value: str, field: str, check: Callable[[str], object] | None = None
) -> str:
    """``value`` when it is given and ``check`` (which raises ValueError with a reason) accepts
    it; otherwise the RPC ends with INVALID_ARGUMENT and ``paiju-error-code: invalid_argument``."""
    if not value:
        abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"{field} is empty", error_code="invalid_argument")
    if check is not None:
        try:
            check(value)
        except ValueError as error:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error), error_code="invalid_argument")
    return value


class RuleRefusal(Protocol):
    """A refusal of the rules as the services answer it, whatever the game: an engine's
    ``IllegalAction`` is one. ``common`` names only this shape, so it needs no game."""

    @property
    def reason(self) -> str:
        """A sentence for the player."""
        ...

    @property
    def code(self) -> str:
        """A stable word for programs (the ``paiju-error-code`` trailer)."""
        ...

    @property
    def malformed(self) -> bool:
        """Whether the input could never be right, rather than not allowed in this state."""
        ...


def refuse_illegal(context: grpc.ServicerContext, error: RuleRefusal) -> NoReturn:
    """End the RPC for a refusal of the rules: INVALID_ARGUMENT for input that could never be
    right, FAILED_PRECONDITION for what the table's state does not allow now; the rule's reason
    as the message and its code in ``paiju-error-code``."""
    code = grpc.StatusCode.INVALID_ARGUMENT if error.malformed else grpc.StatusCode.FAILED_PRECONDITION
    abort(context, code, error.reason, error_code=error.code)
