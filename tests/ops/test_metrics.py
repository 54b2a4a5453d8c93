"""The metrics interceptor on a real loopback gRPC server, the domain metrics' API, and the
``/metrics`` endpoint over HTTP.

The interceptor times calls on a clock the servicer and the test move, so the durations it
records are exact however busy the machine is."""

from __future__ import annotations

import socket
import time
import urllib.request
from collections.abc import Iterator

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from paiju.common.auth import TokenSigner
from paiju.common.metrics import MetricsServerError, PaijuMetrics, start_metrics_server
from paiju.proto.v1 import table_pb2, table_pb2_grpc
from paiju.rpc.errors import abort
from paiju.rpc.interceptor import bearer_metadata
from paiju.rpc.server import ServiceBinding, start_server
from paiju.rpc.timing import MetricsInterceptor
from tests.patience import PATIENCE_SECONDS, ManualClock, wait_until

SECRET = b"the metrics test secret ........"
TABLE = "paiju.v1.TableService"
STREAM_LENGTH = 7


class SlowTable(table_pb2_grpc.TableServiceServicer):
    """GetView takes as long on the clock as the table id says (in ms); Act always aborts;
    Watch streams (the ``endless`` stream until the client cancels it)."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock

    def GetView(
        self, request: table_pb2.GetViewRequest, context: grpc.ServicerContext
    ) -> table_pb2.GetViewResponse:
        self.clock.advance(int(request.table_id) / 1000)
        return table_pb2.GetViewResponse(view=table_pb2.TableView(table_id=request.table_id, view_json="{}"))

    def Act(
        self, request: table_pb2.ActRequest, context: grpc.ServicerContext
    ) -> table_pb2.ActResponse:
        if request.expected_version < 0:
            raise RuntimeError("a servicer bug")
        abort(context, grpc.StatusCode.ABORTED, "the table moved on", current_version=3)

    def Watch(
        self, request: table_pb2.WatchRequest, context: grpc.ServicerContext
    ) -> Iterator[table_pb2.WatchResponse]:
        endless = request.table_id == "endless"
        number = 0
        while endless or number < STREAM_LENGTH:
            yield table_pb2.WatchResponse(events=[table_pb2.Event(id=f"{number}-0", type="tick")])
            number += 1
            time.sleep(0.005 if endless else 0)  # a pace, so an endless stream does not spin


@pytest.fixture()
def metrics() -> PaijuMetrics:
    return PaijuMetrics(CollectorRegistry())


@pytest.fixture()
def clock() -> ManualClock:
    return ManualClock(0.0)


@pytest.fixture()
def stub(metrics: PaijuMetrics, clock: ManualClock) -> Iterator[table_pb2_grpc.TableServiceStub]:
    binding = ServiceBinding(TABLE, SlowTable(clock), table_pb2_grpc.add_TableServiceServicer_to_server)
    with start_server(
        [binding],
        signer=TokenSigner(SECRET),
        max_workers=8,
        extra_interceptors=[MetricsInterceptor(metrics, clock=clock)],
    ) as running, grpc.insecure_channel(running.address) as channel:
        yield table_pb2_grpc.TableServiceStub(channel)


@pytest.fixture()
def auth() -> tuple[tuple[str, str], ...]:
    return bearer_metadata(TokenSigner(SECRET).issue("acct-1", "lihua", ttl=600))


def count(metrics: PaijuMetrics, method: str, kind: str, code: str) -> float:
    labels = {"service": TABLE, "method": method, "kind": kind, "code": code}
    return metrics.sample("paiju_rpc_duration_seconds_count", **labels) or 0.0


def duration_sum(metrics: PaijuMetrics, method: str, kind: str, code: str) -> float:
    labels = {"service": TABLE, "method": method, "kind": kind, "code": code}
    return metrics.sample("paiju_rpc_duration_seconds_sum", **labels) or 0.0


def test_unary_calls_are_counted_by_method_and_ok_code_with_their_duration(
    metrics: PaijuMetrics, stub: table_pb2_grpc.TableServiceStub, auth: tuple[tuple[str, str], ...]
) -> None:
    for taking_ms in ("30", "60"):
        stub.GetView(table_pb2.GetViewRequest(table_id=taking_ms), metadata=auth, timeout=PATIENCE_SECONDS)
    assert count(metrics, "GetView", "unary", "OK") == 2
    assert duration_sum(metrics, "GetView", "unary", "OK") == pytest.approx(0.09)
    bucket = metrics.sample(
        "paiju_rpc_duration_seconds_bucket",
        service=TABLE, method="GetView", kind="unary", code="OK", le="0.025",
    )
    assert bucket == 0  # both took longer than 25 ms
    assert metrics.sample("paiju_rpc_in_flight", service=TABLE, method="GetView") == 0


def test_an_aborted_call_is_recorded_with_the_code_it_ended_with(
    metrics: PaijuMetrics, stub: table_pb2_grpc.TableServiceStub, auth: tuple[tuple[str, str], ...]
) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        stub.Act(table_pb2.ActRequest(table_id="t", expected_version=1), metadata=auth, timeout=PATIENCE_SECONDS)
    assert raised.value.code() is grpc.StatusCode.ABORTED
    assert count(metrics, "Act", "unary", "ABORTED") == 1
    assert count(metrics, "Act", "unary", "OK") == 0


def test_a_servicer_that_raises_is_answered_and_recorded_as_internal(
    metrics: PaijuMetrics, stub: table_pb2_grpc.TableServiceStub, auth: tuple[tuple[str, str], ...]
) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        stub.Act(table_pb2.ActRequest(table_id="t", expected_version=-1), metadata=auth, timeout=PATIENCE_SECONDS)
    assert raised.value.code() is grpc.StatusCode.INTERNAL
    assert "servicer bug" not in raised.value.details()
    assert count(metrics, "Act", "unary", "INTERNAL") == 1


def test_a_finished_stream_counts_once_with_its_messages(
    metrics: PaijuMetrics, stub: table_pb2_grpc.TableServiceStub, auth: tuple[tuple[str, str], ...]
) -> None:
    updates = list(stub.Watch(table_pb2.WatchRequest(table_id="t"), metadata=auth, timeout=PATIENCE_SECONDS))
    assert len(updates) == STREAM_LENGTH
    wait_until("the stream's record", lambda: count(metrics, "Watch", "server_stream", "OK") == 1)
    assert metrics.sample(
        "paiju_rpc_stream_messages_sent_total", service=TABLE, method="Watch"
    ) == STREAM_LENGTH


def test_a_stream_the_client_cancels_is_recorded_as_cancelled_for_its_whole_life(
    metrics: PaijuMetrics, stub: table_pb2_grpc.TableServiceStub, auth: tuple[tuple[str, str], ...], clock: ManualClock
) -> None:
    stream = stub.Watch(table_pb2.WatchRequest(table_id="endless"), metadata=auth, timeout=PATIENCE_SECONDS)
    for _ in range(10):
        next(stream)
    assert metrics.sample("paiju_rpc_in_flight", service=TABLE, method="Watch") == 1
    clock.advance(100.0)  # the stream stays open a while after its tenth message
    stream.cancel()
    wait_until("the stream's record", lambda: count(metrics, "Watch", "server_stream", "CANCELLED") == 1)
    assert duration_sum(metrics, "Watch", "server_stream", "CANCELLED") == 100.0
    assert metrics.sample("paiju_rpc_in_flight", service=TABLE, method="Watch") == 0
    assert count(metrics, "Watch", "server_stream", "OK") == 0


def test_domain_metrics_keep_their_label_sets(metrics: PaijuMetrics) -> None:
    metrics.set_table_counts("zhajinhua", tables=4, hands=3, players=11)
    metrics.player_connected("zhajinhua")
    metrics.player_disconnected("hunzhan")
    metrics.hand_completed("zhajinhua")
    metrics.observe_settlement_lag(0.3)
    metrics.observe_settlement_lag(-2.0)  # clock skew between machines
    metrics.set_outbox_depth(5)
    metrics.observe_deadline_lag("turn", 7.0)
    metrics.cas_retried("act", 2)
    metrics.ledger_entries_written("settle", 3)
    assert metrics.sample("paiju_live_tables", game="zhajinhua") == 4
    assert metrics.sample("paiju_live_hands", game="zhajinhua") == 3
    assert metrics.sample("paiju_connected_players", game="zhajinhua") == 12
    assert metrics.sample("paiju_connected_players", game="hunzhan") == -1
    assert metrics.sample("paiju_hands_completed_total", game="zhajinhua") == 1
    assert metrics.sample("paiju_settlement_lag_seconds_count") == 2
    assert metrics.sample("paiju_settlement_lag_seconds_sum") == pytest.approx(0.3)
    assert metrics.sample("paiju_outbox_depth") == 5
    assert metrics.sample("paiju_deadline_lag_seconds_bucket", timer="turn", le="5.0") == 0
    assert metrics.sample("paiju_deadline_lag_seconds_bucket", timer="turn", le="10.0") == 1
    assert metrics.sample("paiju_cas_retries_total", operation="act") == 2
    assert metrics.sample("paiju_ledger_entries_total", kind="settle") == 3


@given(st.integers(max_value=-1))
def test_negative_counts_are_refused_with_a_clear_error(negative: int) -> None:
    metrics = PaijuMetrics(CollectorRegistry())
    for call in (
        lambda: metrics.set_outbox_depth(negative),
        lambda: metrics.cas_retried("act", negative),
        lambda: metrics.ledger_entries_written("grant", negative),
        lambda: metrics.set_table_counts("zhajinhua", tables=negative, hands=0, players=0),
    ):
        with pytest.raises(ValueError, match="negative"):
            call()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_metrics_endpoint_serves_the_registry_over_http(metrics: PaijuMetrics) -> None:
    metrics.hand_completed("chaodipi")
    server = start_metrics_server(free_port(), registry=metrics.registry)
    assert server is not None
    try:
        with urllib.request.urlopen(server.url, timeout=PATIENCE_SECONDS) as reply:
            body = reply.read().decode()
        assert 'paiju_hands_completed_total{game="chaodipi"} 1.0' in body
        with pytest.raises(MetricsServerError, match="cannot serve metrics"):
            start_metrics_server(server.port, registry=metrics.registry)
    finally:
        server.stop()


@pytest.mark.parametrize("port", [-1, 70_000])
def test_a_bad_metrics_port_is_refused(port: int) -> None:
    with pytest.raises(MetricsServerError, match="1..65535"):
        start_metrics_server(port)


def test_every_metric_is_named_with_the_paiju_prefix(metrics: PaijuMetrics) -> None:
    names = [family.name for family in metrics.registry.collect()]
    assert len(names) == 13
    assert all(name.startswith("paiju_") for name in names), names
