"""Ending an RPC with a status code, a sentence for people and a stable word for programs.

The ``paiju.v1`` contracts put the human reason in the status message and a stable word for
programs (an engine's ``IllegalAction.code``, for example; the status's own name,
``not_found``, where no more particular word is given) twice: in the trailing metadata
``paiju-error-code``, and as the ``reason`` of the ``google.rpc.ErrorInfo`` in
``grpc-status-details-bin``, which every gRPC library decodes
(:mod:`paiju.common.error_details`). An ABORTED answer to a stale version also carries the
current version in ``paiju-current-version``. Only ending a call builds any of it: a call that
succeeds pays nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NoReturn, Protocol

import grpc

from paiju.common.error_details import details_trailer, status_word
from paiju.common.logs import current_log_context
from paiju.common.wire import CURRENT_VERSION_KEY, ERROR_CODE_KEY, trailer  # noqa: F401 (the servicers import them from here)

Trailers = tuple[tuple[str, str | bytes], ...]
IDS_OF_THE_CALL = ("table_id", "hand_id")
"""Ids of what the call is about (bound to its log context by the auth interceptor) that a
refusal's ``ErrorInfo`` names."""

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
    """End the RPC with ``code`` and ``message``; never returns (``context.abort`` raises).

    ``error_code`` is the stable word (the status's name without one)."""
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[: MAX_MESSAGE_CHARS - 1] + "…"
    context.set_trailing_metadata(refusal_trailers(code, message, error_code, current_version=current_version))
    context.abort(code, message)
    raise AssertionError("grpc's context.abort returned")  # it always raises


def refusal_trailers(code: grpc.StatusCode, message: str, error_code: str | None = None, *,
                     current_version: int | None = None, metadata: Mapping[str, str] | None = None,
                     retry_after: float | None = None) -> Trailers:
    """The trailing metadata of a call ending with ``code`` and ``message``: the stable word
    (``error_code``, else the status's name) in ``paiju-error-code`` and in the ``ErrorInfo``
    of ``grpc-status-details-bin``; there with ``metadata``, the ids of what the call is about,
    ``current_version``, and a ``RetryInfo`` of ``retry_after`` seconds when given."""
    word = error_code or status_word(code)
    about = {key: value for key, value in current_log_context().items() if key in IDS_OF_THE_CALL and value}
    trailers: list[tuple[str, str | bytes]] = [(ERROR_CODE_KEY, word)]
    if current_version is not None:
        trailers.append((CURRENT_VERSION_KEY, str(current_version)))
        about["current_version"] = str(current_version)
    about.update(metadata or {})
    trailers.append(details_trailer(code, message, word, about, retry_after))
    return tuple(trailers)


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
