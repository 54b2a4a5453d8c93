"""Prometheus metrics of every Paiju process and the ``/metrics`` HTTP endpoint (the gRPC
interceptor that times RPCs into them is :class:`paiju.rpc.timing.MetricsInterceptor`).

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
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    start_http_server,
)

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
            "RPCs turned away by the limits before any work (paiju.rpc.limits), by reason.",
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
    """``("paiju.v1.TableService", "Act")`` from ``"/paiju.v1.TableService/Act"``.

    >>> split_method("/paiju.v1.TableService/Act")
    ('paiju.v1.TableService', 'Act')
    >>> split_method("nonsense")
    ('nonsense', 'unknown')
    """
    service, _, method = full_method.lstrip("/").partition("/")
    return service, method or UNKNOWN_METHOD


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
