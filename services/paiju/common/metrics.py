"""Prometheus metrics of every Paiju process, the gRPC interceptor that times RPCs, and the
``/metrics`` HTTP endpoint.

Every metric is named ``paiju_*``. Labels, and where each metric is fed from:

=========================================  =========  ==========================  ====================================
metric                                     type       labels                      fed by
=========================================  =========  ==========================  ====================================
``paiju_rpc_duration_seconds``             histogram  service, method, kind, code ``MetricsInterceptor`` (every RPC;
                                                                                  a stream counts once, for its life)
``paiju_rpc_in_flight``                    gauge      service, method             ``MetricsInterceptor``
``paiju_rpc_stream_messages_sent_total``   counter    service, method             ``MetricsInterceptor`` (streams)
``paiju_live_tables``                      gauge      game                        table service: tables held open
``paiju_live_hands``                       gauge      game                        table service: hands being played
``paiju_connected_players``                gauge      game                        table service: open Watch streams
``paiju_hands_completed_total``            counter    game                        table service: a hand reached its end
``paiju_settlement_lag_seconds``           histogram  (none)                      settlement: hand end -> ledger applied
``paiju_outbox_depth``                     gauge      (none)                      relay / worker: settlements waiting
``paiju_deadline_lag_seconds``             histogram  timer                       deadline pump / watchdog: fired - due
``paiju_cas_retries_total``                counter    operation                   table store: compare-and-set lost
``paiju_ledger_entries_total``             counter    kind                        wallet ledger: one per entry written
=========================================  =========  ==========================  ====================================

``kind`` is one of ``unary``, ``server_stream``, ``client_stream``, ``bidi_stream``; ``code`` is the
gRPC status name (``OK``, ``ABORTED``, ...). Gauges are per process: dashboards ``sum`` them.

Domain code feeds the others through ``METRICS`` (or a ``PaijuMetrics`` of its own registry in
tests)::

    METRICS.hand_completed("zhajinhua")
    METRICS.observe_deadline_lag("turn", fired_at - due_at)

>>> from prometheus_client import CollectorRegistry
>>> metrics = PaijuMetrics(CollectorRegistry())
>>> metrics.hand_completed("zhajinhua")
>>> metrics.sample("paiju_hands_completed_total", game="zhajinhua")
1.0
>>> metrics.set_outbox_depth(-1)
Traceback (most recent call last):
...
ValueError: outbox depth cannot be negative, got -1
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from wsgiref.simple_server import WSGIServer

import grpc
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    start_http_server,
)

from paiju.common.aio_bridge import WAITING, OffTheLoop

RPC_BUCKETS: tuple[float, ...] = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
    300.0, 1800.0, 7200.0,
)
"""Seconds; the long tail is there because a Watch stream lives as long as its player stays."""
LAG_BUCKETS: tuple[float, ...] = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0)
"""Seconds of settlement or deadline lag; alerts look at 5 s and beyond."""

UNKNOWN_METHOD = "unknown"


class PaijuMetrics:
    """Every ``paiju_*`` metric, registered in one registry (the process default unless given)."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.registry = registry
        self.rpc_duration = Histogram(
            "paiju_rpc_duration_seconds",
            "Time from an RPC's start to its status; a stream is timed for its whole life.",
            ("service", "method", "kind", "code"),
            buckets=RPC_BUCKETS,
            registry=registry,
        )
        self.rpc_in_flight = Gauge(
            "paiju_rpc_in_flight",
            "RPCs being served right now (open streams included).",
            ("service", "method"),
            registry=registry,
        )
        self.rpc_refused = Counter(
            "paiju_rpc_refused_total",
            "RPCs turned away by the limits before any work (paiju.common.limits), by reason.",
            ("service", "method", "reason"),
            registry=registry,
        )
        self.stream_messages_sent = Counter(
            "paiju_rpc_stream_messages_sent_total",
            "Messages sent on server-streaming RPCs.",
            ("service", "method"),
            registry=registry,
        )
        self.live_tables = Gauge(
            "paiju_live_tables", "Tables this process holds open.", ("game",), registry=registry
        )
        self.live_hands = Gauge(
            "paiju_live_hands", "Hands being played at this process's tables.", ("game",),
            registry=registry,
        )
        self.connected_players = Gauge(
            "paiju_connected_players", "Players with an open Watch stream to this process.",
            ("game",), registry=registry,
        )
        self.hands_completed = Counter(
            "paiju_hands_completed_total", "Hands played to their end.", ("game",),
            registry=registry,
        )
        self.settlement_lag = Histogram(
            "paiju_settlement_lag_seconds",
            "Time from a hand's end to its settlement being applied to the ledger.",
            buckets=LAG_BUCKETS,
            registry=registry,
        )
        self.outbox_depth = Gauge(
            "paiju_outbox_depth", "Settlements written but not yet applied to the ledger.",
            registry=registry,
        )
        self.deadline_lag = Histogram(
            "paiju_deadline_lag_seconds",
            "How late a timer fired: the time it fired minus the time it was due.",
            ("timer",),
            buckets=LAG_BUCKETS,
            registry=registry,
        )
        self.cas_retries = Counter(
            "paiju_cas_retries_total",
            "Compare-and-set writes retried because the state moved on underneath.",
            ("operation",),
            registry=registry,
        )
        self.ledger_entries = Counter(
            "paiju_ledger_entries_total", "Ledger entries written.", ("kind",), registry=registry
        )

    def set_table_counts(self, game: str, *, tables: int, hands: int, players: int) -> None:
        """Set the live tables, hands being played and connected players of ``game`` here."""
        for name, value in (("tables", tables), ("hands", hands), ("players", players)):
            if value < 0:
                raise ValueError(f"live {name} cannot be negative, got {value}")
        self.live_tables.labels(game).set(tables)
        self.live_hands.labels(game).set(hands)
        self.connected_players.labels(game).set(players)

    def player_connected(self, game: str) -> None:
        """A Watch stream opened at a table of ``game``."""
        self.connected_players.labels(game).inc()

    def player_disconnected(self, game: str) -> None:
        """A Watch stream of a table of ``game`` ended."""
        self.connected_players.labels(game).dec()

    def hand_completed(self, game: str) -> None:
        """A hand of ``game`` reached its end."""
        self.hands_completed.labels(game).inc()

    def observe_settlement_lag(self, seconds: float) -> None:
        """A settlement was applied ``seconds`` after its hand ended (negative clock skew -> 0)."""
        self.settlement_lag.observe(max(seconds, 0.0))

    def set_outbox_depth(self, depth: int) -> None:
        """``depth`` settlements are waiting to be applied."""
        if depth < 0:
            raise ValueError(f"outbox depth cannot be negative, got {depth}")
        self.outbox_depth.set(depth)

    def observe_deadline_lag(self, timer: str, seconds: float) -> None:
        """A ``timer`` (``turn``, ``reconnect``, ``ready_kick`` ...) fired ``seconds`` late."""
        self.deadline_lag.labels(timer).observe(max(seconds, 0.0))

    def cas_retried(self, operation: str, times: int = 1) -> None:
        """A compare-and-set ``operation`` (e.g. ``act``) lost the race ``times`` times."""
        if times < 0:
            raise ValueError(f"retries cannot be negative, got {times}")
        self.cas_retries.labels(operation).inc(times)

    def ledger_entries_written(self, kind: str, count: int = 1) -> None:
        """``count`` ledger entries of ``kind`` (``grant``, ``hold``, ``settle`` ...) were written."""
        if count < 0:
            raise ValueError(f"ledger entries cannot be negative, got {count}")
        self.ledger_entries.labels(kind).inc(count)

    def refused(self, full_method: str, reason: str) -> None:
        """A call to ``full_method`` was refused by a limit (``reason``: its error code)."""
        self.rpc_refused.labels(*split_method(full_method), reason).inc()

    def sample(self, name: str, **labels: str) -> float | None:
        """The current value of one sample, e.g. ``sample("paiju_live_tables", game="zhajinhua")``."""
        return self.registry.get_sample_value(name, labels)


METRICS = PaijuMetrics()
"""The process's metrics, in prometheus_client's default registry (what ``/metrics`` serves)."""


def split_method(full_method: str) -> tuple[str, str]:
    """``("paiju.v1.Table", "Act")`` from ``"/paiju.v1.Table/Act"``.

    >>> split_method("/paiju.v1.Table/Act")
    ('paiju.v1.Table', 'Act')
    >>> split_method("nonsense")
    ('nonsense', 'unknown')
    """
    service, _, method = full_method.lstrip("/").partition("/")
    return service, method or UNKNOWN_METHOD


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


@dataclass(slots=True)
class MetricsServer:
    """A running ``/metrics`` endpoint."""

    host: str
    port: int
    _server: WSGIServer
    _thread: threading.Thread

    @property
    def url(self) -> str:
        """Where to scrape, e.g. ``http://127.0.0.1:9100/metrics``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5.0)


class MetricsServerError(RuntimeError):
    """The ``/metrics`` endpoint could not listen where it was asked to."""


def start_metrics_server(
    port: int, host: str = "127.0.0.1", registry: CollectorRegistry = REGISTRY
) -> MetricsServer | None:
    """Serve ``registry`` at ``http://host:port/metrics`` in a daemon thread; ``port=0``: none.

    In a pod, pass ``settings.bind_host`` (``0.0.0.0`` there) so Prometheus can scrape it.

    >>> start_metrics_server(0) is None
    True
    """
    if port == 0:
        return None
    if not 0 < port <= 65_535:
        raise MetricsServerError(f"metrics port must be 1..65535 (or 0 for none), not {port}")
    try:
        server, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as error:
        raise MetricsServerError(f"cannot serve metrics on {host}:{port}: {error}") from None
    return MetricsServer(host, server.server_port, server, thread)
