"""The last resort for an exception no servicer answered: a status with no internals.

Servicers answer what they expect with ``abort`` and the code their contract documents. Anything
else that escapes them — Redis refusing connections or still loading its dataset, the database
gone, a bug — would reach the client as UNKNOWN with the exception's text: a host:port, SQL, a
Python message. :class:`UnexpectedErrors` (the innermost server interceptor) answers it instead
with a generic sentence, and logs the details here, on the server:

* a backend outage (:data:`BACKEND_OUTAGES`, or another service answering UNAVAILABLE) is
  UNAVAILABLE with ``paiju-error-code: backend_unavailable``: the client may retry;
* anything else is INTERNAL with ``paiju-error-code: internal``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import grpc
import redis.exceptions
import sqlalchemy as sa

from paiju.rpc.errors import ERROR_CODE_KEY, abort, refusal_trailers
from paiju.rpc.interceptor import behaviour_of, rebuilt_with

log = logging.getLogger(__name__)

BACKEND_OUTAGES: tuple[type[Exception], ...] = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.TimeoutError,
    redis.exceptions.ConnectionError,  # BusyLoadingError ("loading the dataset") is one
    redis.exceptions.TimeoutError,
)
"""Failures of the database or of Redis that a later try may not meet."""

_PASSED_ON = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
"""Codes of another service's answer that mean it is out of reach, not that we failed."""


class Answer(NamedTuple):
    """The status a client gets for an unexpected exception."""

    code: grpc.StatusCode
    message: str
    error_code: str


UNAVAILABLE = Answer(grpc.StatusCode.UNAVAILABLE, "a backend is unavailable; try again shortly", "backend_unavailable")
INTERNAL = Answer(grpc.StatusCode.INTERNAL, "internal error; it was logged on the server", "internal")


def answer_for(error: BaseException) -> Answer:
    """What the client is told of ``error``; never its text.

    >>> answer_for(redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory")).code.name
    'UNAVAILABLE'
    >>> answer_for(KeyError("seat")).message
    'internal error; it was logged on the server'
    """
    if isinstance(error, BACKEND_OUTAGES):
        return UNAVAILABLE
    if isinstance(error, grpc.RpcError) and getattr(error, "code", lambda: None)() in _PASSED_ON:
        return UNAVAILABLE
    return INTERNAL


def is_outage(error: BaseException) -> bool:
    """Whether ``error`` says a backend or another service is out of reach (a later try may
    succeed), not that our own code failed.

    >>> is_outage(redis.exceptions.ConnectionError("Connection refused")), is_outage(KeyError("seat"))
    (True, False)
    """
    return answer_for(error) is UNAVAILABLE


def _already_answered(context: grpc.ServicerContext) -> bool:
    """Whether the servicer set a status before raising (``abort`` raises to end the call)."""
    code = context.code()
    return code is not None and code != grpc.StatusCode.OK and code != 0


def answer_unexpected(context: grpc.ServicerContext, method: str, error: Exception) -> None:
    """End the call for ``error`` with :func:`answer_for`'s status, logging the details; an
    abort the servicer already made goes on as it was."""
    if _already_answered(context):
        if not _carries_the_word(context):
            # A status set without abort (grpc's generated code for a method the servicer does
            # not implement): the word of the code goes with it, as on the event loop's server.
            code = context.code()
            context.set_trailing_metadata(refusal_trailers(code, context.details() or code.name.lower()))
        raise error
    answer = answer_for(error)
    log.error("%s failed: %s", method, answer.error_code, exc_info=error)
    abort(context, answer.code, answer.message, error_code=answer.error_code)


def _carries_the_word(context: grpc.ServicerContext) -> bool:
    """Whether the call's trailers hold the word; yes when the context cannot say (the event
    loop's bridge, which adds the word itself)."""
    read = getattr(context, "trailing_metadata", None)
    return read is None or any(key == ERROR_CODE_KEY for key, _ in read() or ())


class UnexpectedErrors(grpc.ServerInterceptor):
    """Answers every exception a servicer did not, as :func:`answer_for` says."""

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        behaviour = behaviour_of(handler)

        def serve_unary(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return behaviour(request, context)
            except Exception as error:  # noqa: BLE001 - answered without internals, logged
                answer_unexpected(context, method, error)

        def serve_stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            try:
                yield from behaviour(request, context)
            except Exception as error:  # noqa: BLE001 - answered without internals, logged
                answer_unexpected(context, method, error)

        return rebuilt_with(handler, serve_stream if handler.response_streaming else serve_unary)
