"""`paiju serve` as a real process: readiness on gRPC health, and a graceful SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from paiju.client.sdk import PaijuClient, PaijuError
from tests.e2e.served import stop, wait_until_serving
from tests.patience import PATIENCE_SECONDS


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def server_process(tmp_path):
    port = free_port()
    environment = {**os.environ, "PAIJU_PORT": str(port), "PAIJU_METRICS_PORT": "0",
                   "DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3", "PAIJU_SHUTDOWN_GRACE_SECONDS": "3"}
    environment.pop("REDIS_URL", None)  # the embedded default
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "paiju.cli", "serve", "--rooms", "1"], env=environment,
                               stdout=log, stderr=subprocess.STDOUT)
    address = f"127.0.0.1:{port}"
    wait_until_serving(process, address, tmp_path / "serve.log")
    yield process, address, tmp_path / "serve.log"
    stop(process)


def test_every_service_reports_ready_on_grpc_health(server_process):
    _, address, _ = server_process
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", "paiju.v1.Wallet", "paiju.v1.Lobby", "paiju.v1.Table", "paiju.v1.Watchdog"):
            answer = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=PATIENCE_SECONDS)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING, service


def test_sigterm_ends_streams_with_a_hint_to_reconnect_and_exits_cleanly(server_process):
    process, address, log = server_process
    client = PaijuClient.connect(address, "drainer", "a long password")
    room = "zhajinhua-free-01"
    client.sit(room)
    stream = client.watch(room)
    assert next(stream).view is not None
    process.send_signal(signal.SIGTERM)
    with pytest.raises(PaijuError) as ended:
        for _ in stream:
            pass
    assert ended.value.status == grpc.StatusCode.UNAVAILABLE
    assert ended.value.error_code == "server_draining"
    assert process.wait(timeout=PATIENCE_SECONDS) == 0, log.read_text()[-3000:]
    assert "shutting down" in log.read_text()
    client.close()
