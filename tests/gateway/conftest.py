"""The all-in-one front door over a whole embedded platform, and over a scripted gRPC server."""

from __future__ import annotations

import base64
import secrets
import threading
from collections.abc import Iterable, Iterator
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.rpc import status_pb2

from paiju.common.config import Settings
from paiju.gateway.door import WebDoor, start_web_door
from paiju.platform import build
from paiju.proto.v1 import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc
from paiju.rpc.interceptor import bearer_metadata
from paiju.rpc.server import RunningServer, start_from_settings


@dataclass
class Door:
    """A front door and the native gRPC address behind it."""

    door: WebDoor
    grpc_address: str

    @property
    def port(self) -> int:
        return self.door.port


@pytest.fixture(scope="module")
def platform_door(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Door]:
    folder = tmp_path_factory.mktemp("door")
    settings = Settings.from_env({"PAIJU_SECRET": "the front door test secret, 32 b",
                                  "DATABASE_URL": f"sqlite:///{folder / 'ledger.sqlite3'}",
                                  "PAIJU_REDIS_PREFIX": f"door-{secrets.token_hex(4)}"})
    platform = build(settings, rooms_per_tier=2)
    server: RunningServer = start_from_settings(settings, platform.bindings(), port=0)
    platform.start_background(relay=True)
    door = start_web_door(server.address, "127.0.0.1", 0)
    try:
        yield Door(door, server.address)
    finally:
        door.stop()
        server.stop(grace=0.5)
        platform.close()


def stale_action_refused_natively(grpc_address: str, token: str) -> tuple[table_pb2.ActRequest, grpc.RpcError]:
    """Sit ``token``'s player at a 炸金花 table and act on a version the table never had: the
    request, and the refusal (ABORTED with ``paiju-*`` metadata) a native client gets for it."""
    with grpc.insecure_channel(grpc_address) as channel:
        seat = lobby_pb2_grpc.LobbyServiceStub(channel).QuickMatch(
            lobby_pb2.QuickMatchRequest(game="zhajinhua", tier="free"), metadata=bearer_metadata(token), timeout=10)
        stale = table_pb2.ActRequest(table_id=seat.room.table_id, expected_version=10**9, action="look")
        try:
            table_pb2_grpc.TableServiceStub(channel).Act(stale, metadata=bearer_metadata(token), timeout=10)
        except grpc.RpcError as refusal:
            assert any(key.startswith("paiju-") for key, _ in refusal.trailing_metadata()), "no paiju-* metadata"
            return stale, refusal
    raise AssertionError("a stale version was accepted")


def paiju_metadata(pairs: Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The ``paiju-*`` entries of trailing metadata or trailers, in order."""
    return [(key, value) for key, value in pairs if key.startswith("paiju-")]


def rich_status(pairs: Iterable[tuple[str, Any]]) -> status_pb2.Status | None:
    """The ``google.rpc.Status`` of ``grpc-status-details-bin`` in trailing metadata (bytes) or in
    gRPC-Web trailers (base64 text, padded or not)."""
    for key, value in pairs:
        if key == "grpc-status-details-bin":
            raw = value if isinstance(value, bytes) else base64.b64decode(value + "=" * (-len(value) % 4))
            return status_pb2.Status.FromString(raw)
    return None


@dataclass
class Scripted:
    """What the scripted server saw: the methods called, their metadata, streams cancelled."""

    methods: list[str] = field(default_factory=list)
    metadata: list[tuple[str, str | bytes]] = field(default_factory=list)
    stream_opened: threading.Event = field(default_factory=threading.Event)
    stream_cancelled: threading.Event = field(default_factory=threading.Event)


class _ScriptedHandler(grpc.GenericRpcHandler):
    """``/paiju.v1.TableService/Watch`` sends one message and then waits until cancelled,
    ``/paiju.v1.LobbyService/Refuse`` refuses in Chinese; every other method answers its request back
    with binary trailing metadata."""

    def __init__(self, seen: Scripted) -> None:
        self.seen = seen

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        self.seen.methods.append(details.method)
        if details.method == "/paiju.v1.TableService/Watch":
            return grpc.unary_stream_rpc_method_handler(self._wait_until_cancelled)
        if details.method == "/paiju.v1.LobbyService/Refuse":
            return grpc.unary_unary_rpc_method_handler(self._refuse)
        return grpc.unary_unary_rpc_method_handler(self._echo)

    def _echo(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        self.seen.metadata.extend(context.invocation_metadata())
        context.set_trailing_metadata((("paiju-echo-bin", b"\x00\xffraw"), ("paiju-echo", "plain")))
        return request

    def _refuse(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        context.set_trailing_metadata((("paiju-error-code", "seat_taken"),))
        context.abort(grpc.StatusCode.FAILED_PRECONDITION, "座位已有人 100%")

    def _wait_until_cancelled(self, request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        context.add_callback(self.seen.stream_cancelled.set)
        self.seen.stream_opened.set()
        yield b"first"
        self.seen.stream_cancelled.wait(60)


@pytest.fixture
def scripted_door() -> Iterator[tuple[Door, Scripted]]:
    seen = Scripted()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), handlers=(_ScriptedHandler(seen),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    door = start_web_door(f"127.0.0.1:{port}", "127.0.0.1", 0)
    try:
        yield Door(door, f"127.0.0.1:{port}"), seen
    finally:
        door.stop()
        server.stop(grace=0).wait()
