"""The gRPC server interceptor that checks session tokens, and who the current caller is.

Every RPC must carry the metadata ``authorization: Bearer <token>`` unless its method is public
(``WalletService.Register``, ``WalletService.Login``) or its service is (health checking, reflection). A call
without a valid token ends with UNAUTHENTICATED before any servicer code runs; a call to an
internal service (``WalletInternalService``, ``TableInternalService``, ``WatchdogService``) with a
token that is not of the ``service`` role ends with PERMISSION_DENIED.

While a servicer method runs (every step of a streaming one included), ``current_caller()``
returns the verified ``Caller``::

    class TableServicer(table_pb2_grpc.TableServiceServicer):
        def GetView(self, request, context):
            caller = current_caller()   # caller.account_id, caller.role ...
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import grpc

from paiju.common.auth import Caller, TokenError, TokenSigner
from paiju.common.logs import bind_log_context
from paiju.common.wire import AUTHORIZATION_KEY
from paiju.rpc.errors import abort
from paiju.rpc.sessions import PASSWORD_CHANGED, PASSWORD_CHANGED_REASON, SessionStamps

PUBLIC_METHODS: frozenset[str] = frozenset({"/paiju.v1.WalletService/Register", "/paiju.v1.WalletService/Login"})
"""Full method names callable without a token."""
PUBLIC_SERVICES: frozenset[str] = frozenset(
    {
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    }
)
"""Services whose every method is callable without a token."""
INTERNAL_SERVICES: frozenset[str] = frozenset(
    {
        "paiju.v1.WalletInternalService",
        "paiju.v1.TableInternalService",
        "paiju.v1.WatchdogService",
    }
)
"""Services only other Paiju services (tokens of the ``service`` role) may call."""
UNAUTHENTICATED = "unauthenticated"
"""The ``paiju-error-code`` of a call without a valid token (none, malformed, forged, expired)."""
SERVICES_ONLY = "services_only"
"""The ``paiju-error-code`` of a player's call to an internal service."""

_BEARER = "bearer"

_current_caller: contextvars.ContextVar[Caller | None] = contextvars.ContextVar(
    "paiju_current_caller", default=None
)


class NoCallerError(RuntimeError):
    """``current_caller()`` was asked outside an authenticated RPC."""


def current_caller() -> Caller:
    """The verified caller of the RPC being served.

    Raises ``NoCallerError`` outside an RPC, or in a public method called without a token.

    >>> current_caller()
    Traceback (most recent call last):
    ...
    paiju.rpc.interceptor.NoCallerError: no authenticated caller: not inside an authenticated RPC
    """
    caller = _current_caller.get()
    if caller is None:
        raise NoCallerError("no authenticated caller: not inside an authenticated RPC")
    return caller


def current_caller_or_none() -> Caller | None:
    """The verified caller of the RPC being served, or ``None`` when there is none."""
    return _current_caller.get()


def bearer_metadata(token: str) -> tuple[tuple[str, str]]:
    """The call metadata that presents ``token``, for a client stub's ``metadata=`` argument.

    >>> bearer_metadata("v1.abc.def")
    (('authorization', 'Bearer v1.abc.def'),)
    """
    return ((AUTHORIZATION_KEY, f"Bearer {token}"),)


def service_of(method: str) -> str:
    """The service part of a full method name.

    >>> service_of("/paiju.v1.TableService/Act")
    'paiju.v1.TableService'
    """
    return method.lstrip("/").partition("/")[0]


class AuthInterceptor(grpc.ServerInterceptor):
    """Refuses calls without a valid session token and exposes the caller to servicers."""

    def __init__(
        self,
        signer: TokenSigner,
        *,
        public_methods: Iterable[str] = PUBLIC_METHODS,
        public_services: Iterable[str] = PUBLIC_SERVICES,
        internal_services: Iterable[str] = INTERNAL_SERVICES,
        sessions: SessionStamps | None = None,
    ) -> None:
        """``sessions``: the accounts' "sessions valid after" stamps (:mod:`paiju.rpc.sessions`),
        checked in each call's handler; ``None`` checks none."""
        self._signer = signer
        self._sessions = sessions
        self._public_methods = frozenset(public_methods)
        self._public_services = frozenset(public_services)
        self._internal_services = frozenset(internal_services)

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None  # unknown method: grpc answers UNIMPLEMENTED
        method = handler_call_details.method
        service = service_of(method)
        try:
            token = _bearer_token(handler_call_details.invocation_metadata or ())
            caller = None if token is None else self._signer.verify(token)
        except TokenError as error:
            token_problem: str | None = str(error)
            caller = None
        else:
            token_problem = (
                None if caller is not None else "missing 'authorization: Bearer <token>'"
            )
        if method in self._public_methods or service in self._public_services:
            # A stale token must not block logging in again, so public calls ignore a bad one.
            return handler if caller is None else _with_caller(handler, caller)
        if caller is None:
            return _refusal(handler, grpc.StatusCode.UNAUTHENTICATED, token_problem or "", error_code=UNAUTHENTICATED)
        if service in self._internal_services and not caller.is_service:
            return _refusal(
                handler, grpc.StatusCode.PERMISSION_DENIED, f"{service} is for Paiju services only",
                error_code=SERVICES_ONLY,
            )
        return _with_caller(handler, caller, self._sessions)


def _bearer_token(metadata: Sequence[tuple[str, str | bytes]]) -> str | None:
    values = [value for key, value in metadata if key.lower() == AUTHORIZATION_KEY]
    if not values:
        return None
    if len(values) > 1:
        raise _MalformedHeader("more than one authorization header")
    value = values[0]
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != _BEARER or not token.strip():
        raise _MalformedHeader("the authorization header is not 'Bearer <token>'")
    return token.strip()


class _MalformedHeader(TokenError):
    pass


def presented_caller(signer: TokenSigner, metadata: Sequence[tuple[str, str | bytes]]) -> Caller | None:
    """The caller whose valid token ``metadata`` presents; ``None`` without one (or a bad one)."""
    try:
        token = _bearer_token(metadata)
        return None if token is None else signer.verify(token)
    except TokenError:
        return None


_END = object()


_TABLE_FIELDS = ("table_id", "room_id", "target_id")


def _with_caller(handler: grpc.RpcMethodHandler, caller: Caller,
                 sessions: SessionStamps | None = None) -> grpc.RpcMethodHandler:
    """The same handler, with ``caller`` set in the servicer's context for its whole run; a
    session ended by a password change (``sessions``) is refused first, in the call's own thread
    (a Redis read must not hold up grpc's dispatch of other calls)."""
    behaviour = behaviour_of(handler)

    def enter(request: Any, context: grpc.ServicerContext) -> contextvars.Context:
        if sessions is not None and not sessions.is_current(caller):
            abort(context, grpc.StatusCode.UNAUTHENTICATED, PASSWORD_CHANGED_REASON, error_code=PASSWORD_CHANGED)
        scope = contextvars.copy_context()
        scope.run(_current_caller.set, caller)
        # Every log line of the call carries who made it and which table it is about.
        table_id = next((getattr(request, f) for f in _TABLE_FIELDS if getattr(request, f, "")), None)
        scope.run(bind_log_context, player_id=caller.account_id, table_id=table_id)
        return scope

    def serve_unary(request: Any, context: grpc.ServicerContext) -> Any:
        return enter(request, context).run(behaviour, request, context)

    def serve_stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        scope = enter(request, context)
        responses = iter(scope.run(behaviour, request, context))
        try:
            while (response := scope.run(next, responses, _END)) is not _END:
                yield response
        finally:
            close = getattr(responses, "close", None)
            if close is not None:
                scope.run(close)  # a cancelled stream runs the servicer's cleanup as the caller

    return rebuilt_with(handler, serve_stream if handler.response_streaming else serve_unary)


def _refusal(
    handler: grpc.RpcMethodHandler, code: grpc.StatusCode, message: str, *, error_code: str
) -> grpc.RpcMethodHandler:
    def refuse(request: Any, context: grpc.ServicerContext) -> Any:
        abort(context, code, message, error_code=error_code)

    return rebuilt_with(handler, refuse)


def behaviour_of(handler: grpc.RpcMethodHandler) -> Callable[..., Any]:
    """The function that serves ``handler``'s calls, whatever its kind (for interceptors)."""
    if handler.request_streaming and handler.response_streaming:
        return handler.stream_stream
    if handler.request_streaming:
        return handler.stream_unary
    if handler.response_streaming:
        return handler.unary_stream
    return handler.unary_unary


def rebuilt_with(
    handler: grpc.RpcMethodHandler,
    behaviour: Callable[..., Any],
    request_deserializer: Callable[[bytes], Any] | None = None,
) -> grpc.RpcMethodHandler:
    """A handler of ``handler``'s kind and (de)serialisers that serves with ``behaviour``
    (and reads requests with ``request_deserializer`` when given)."""
    if handler.request_streaming and handler.response_streaming:
        factory = grpc.stream_stream_rpc_method_handler
    elif handler.request_streaming:
        factory = grpc.stream_unary_rpc_method_handler
    elif handler.response_streaming:
        factory = grpc.unary_stream_rpc_method_handler
    else:
        factory = grpc.unary_unary_rpc_method_handler
    return factory(
        behaviour,
        request_deserializer=request_deserializer or handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )
