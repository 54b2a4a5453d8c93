"""`paiju serve` as a real process: readiness on gRPC health, and a graceful SIGTERM."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from paiju.client.sdk import PaijuClient, PaijuError
from paiju.proto.v1 import lobby_pb2
from tests.e2e.served import stop, wait_until_serving
from tests.patience import PATIENCE_SECONDS


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(tmp_path: Path, *arguments: str, settings: dict[str, str] | None = None
            ) -> Iterator[tuple[subprocess.Popen, str, Path]]:
    """``paiju serve *arguments`` in a process of its own on a free loopback port, embedded Redis
    and a SQLite ledger in ``tmp_path`` (and ``settings`` in its environment), once it reports
    ready: the process, its address, its log."""
    port = free_port()
    environment = {**os.environ, "PAIJU_PORT": str(port), "PAIJU_METRICS_PORT": "0", "PAIJU_WEB_PORT": "0",
                   "DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3", "PAIJU_SHUTDOWN_GRACE_SECONDS": "3",
                   **(settings or {})}
    environment.pop("REDIS_URL", None)  # the embedded default
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "paiju.cli", "serve", *arguments], env=environment,
                               stdout=log, stderr=subprocess.STDOUT)
    address = f"127.0.0.1:{port}"
    wait_until_serving(process, address, tmp_path / "serve.log")
    try:
        yield process, address, tmp_path / "serve.log"
    finally:
        stop(process)


@pytest.fixture
def server_process(tmp_path, request):
    with serving(tmp_path, "--rooms", "1", settings=getattr(request, "param", {})) as running:
        yield running


def test_every_service_reports_ready_on_grpc_health(server_process):
    _, address, _ = server_process
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", "paiju.v1.WalletService", "paiju.v1.LobbyService", "paiju.v1.TableService", "paiju.v1.WatchdogService"):
            answer = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=PATIENCE_SECONDS)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING, service


def test_sigterm_ends_streams_with_a_hint_to_reconnect_and_exits_cleanly(server_process):
    process, address, log = server_process
    client = PaijuClient.connect(address, "drainer", "a long password", register=True)
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


@pytest.mark.parametrize("server_process", [{"PAIJU_GRPC_WORKERS": "4"}], indirect=True)
def test_closed_room_lists_leave_the_pool_free_and_sigterm_still_stops_the_server(server_process):
    process, address, log = server_process
    client = PaijuClient.connect(address, "lister", "a long password", register=True)
    for _ in range(16):  # four times the pool's threads
        updates = client.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game="zhajinhua", tier="free"), timeout=20)
        assert next(updates).snapshot.rooms
        updates.cancel()
    again = PaijuClient(address)
    again.login("lister", "a long password")
    assert again.sit("zhajinhua-free-01") == 0
    still_open = client.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game="zhajinhua", tier="free"), timeout=20)
    assert next(still_open).snapshot.rooms
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0, log.read_text()[-3000:]
    client.close()
    again.close()
