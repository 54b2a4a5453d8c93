"""The gRPC server interceptor that times every RPC into the process's metrics
(``paiju_rpc_duration_seconds``, ``paiju_rpc_in_flight``, ``paiju_rpc_stream_messages_sent_total``
of :mod:`paiju.common.metrics`), on the event-loop server and grpc's thread-pool server alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc

from paiju.common.metrics import METRICS, PaijuMetrics, split_method
from paiju.rpc.aio_bridge import WAITING, OffTheLoop


def rpc_kind(handler: grpc.RpcMethodHandler) -> str:
    """``unary``, ``server_stream``, ``client_stream`` or ``bidi_stream``."""
    if handler.request_streaming and handler.response_streaming:
        return "bidi_stream"
    if handler.request_streaming:
        return "client_stream"
    if handler.response_streaming:
        return "server_stream"
    return "unary"


class MetricsInterceptor(grpc.ServerInterceptor):
    """Times every RPC into ``paiju_rpc_duration_seconds`` by service, method, kind and code.

    A unary RPC is observed when it returns or raises; a stream when it ends, is aborted, or is
    cancelled by the client (``CANCELLED``). The code is the one the servicer set (``abort`` or
    ``set_code``), ``OK`` when it set none and returned, ``UNKNOWN`` when it raised.
    """

    def __init__(self, metrics: PaijuMetrics = METRICS, clock: Callable[[], float] = time.perf_counter) -> None:
        self._metrics = metrics
        self._clock = clock

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        service, method = split_method(handler_call_details.method)
        kind = rpc_kind(handler)
        timing = _Timing(self._metrics, self._clock, service, method, kind)
        if handler.response_streaming:
            behaviour = handler.stream_stream if handler.request_streaming else handler.unary_stream
            wrapped: Callable[..., Any] = timing.wrap_stream(behaviour)
        else:
            behaviour = handler.stream_unary if handler.request_streaming else handler.unary_unary
            wrapped = timing.wrap_unary(behaviour)
        return _rebuild(handler, wrapped)


@dataclass(frozen=True, slots=True)
class _Timing:
    metrics: PaijuMetrics
    clock: Callable[[], float]
    service: str
    method: str
    kind: str

    def wrap_unary(self, behaviour: Callable[..., Any]) -> Callable[..., Any]:
        def serve(request: Any, context: grpc.ServicerContext) -> Any:
            started = self._begin()
            code: grpc.StatusCode | None = grpc.StatusCode.UNKNOWN
            try:
                response = behaviour(request, context)
                code = _code_of(context, default=grpc.StatusCode.OK)
                return response
            except OffTheLoop:
                code = None  # not an answer: the call runs again in a thread, and is counted there
                raise
            except BaseException:
                code = _code_of(context, default=grpc.StatusCode.UNKNOWN)
                raise
            finally:
                self._end(started, code)

        return serve

    def wrap_stream(self, behaviour: Callable[..., Any]) -> Callable[..., Iterator[Any]]:
        sent = self.metrics.stream_messages_sent.labels(self.service, self.method)

        def serve(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            started = self._begin()
            code = grpc.StatusCode.UNKNOWN
            try:
                for response in behaviour(request, context):
                    yield response
                    if response is not WAITING:  # a stream waiting on the event loop sent nothing
                        sent.inc()
                code = _code_of(context, default=grpc.StatusCode.OK)
            except GeneratorExit:
                code = grpc.StatusCode.CANCELLED  # the client went away mid-stream
                raise
            except BaseException:
                code = _code_of(context, default=grpc.StatusCode.UNKNOWN)
                raise
            finally:
                self._end(started, code)

        return serve

    def _begin(self) -> float:
        self.metrics.rpc_in_flight.labels(self.service, self.method).inc()
        return self.clock()

    def _end(self, started: float, code: grpc.StatusCode | None) -> None:
        elapsed = max(self.clock() - started, 0.0)
        self.metrics.rpc_in_flight.labels(self.service, self.method).dec()
        if code is None:
            return
        self.metrics.rpc_duration.labels(self.service, self.method, self.kind, code.name).observe(
            elapsed
        )


def _code_of(context: grpc.ServicerContext, *, default: grpc.StatusCode) -> grpc.StatusCode:
    code = getattr(context, "code", lambda: None)()
    if isinstance(code, grpc.StatusCode):
        return code
    if isinstance(code, int):  # some grpc versions keep the numeric value
        for candidate in grpc.StatusCode:
            if candidate.value[0] == code:
                return candidate
    return default


def _rebuild(handler: grpc.RpcMethodHandler, behaviour: Callable[..., Any]) -> grpc.RpcMethodHandler:
    deserializer, serializer = handler.request_deserializer, handler.response_serializer
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(behaviour, deserializer, serializer)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(behaviour, deserializer, serializer)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(behaviour, deserializer, serializer)
    return grpc.unary_unary_rpc_method_handler(behaviour, deserializer, serializer)
