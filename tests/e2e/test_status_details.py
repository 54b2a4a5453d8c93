"""Every refusal's stable word reaches a plain gRPC client through the standard status details:
``grpc_status.rpc_status.from_call`` finds a ``google.rpc.ErrorInfo`` whose reason is the word
the contracts document (and ``paiju-error-code`` carries), on both servers, for a refusal of each
status; a rate limit adds a ``RetryInfo``; through the front door (gRPC-Web) the trailer arrives
as it left the server."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from paiju.client.sdk import PaijuClient
from paiju.common.config import Settings
from paiju.gateway.door import start_web_door
from paiju.proto.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    lobby_pb2,
    table_pb2,
    wallet_pb2,
    wallet_pb2_grpc,
)
from paiju.rpc.channels import authorized_channel
from paiju.rpc.errors import ERROR_CODE_KEY, trailer
from tests.e2e.conftest import SECRET, Deployment, serving, without_turn_timer
from tests.e2e.test_platform import new_clients, start_hand
from tests.gateway.grpc_web_client import call

IDLE_ROOM = "zhajinhua-free-01"
PLAYING_ROOM = "zhajinhua-free-02"
UNKNOWN_ROOM = "zhajinhua-free-99"
CALL_BURST = 100
"""Calls a player may make at once; then one a second (a rate low enough to run out of)."""


@pytest.fixture(scope="module", params=["loop", "threads"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp(f"details-{request.param}")
    settings = Settings.from_env({
        "PAIJU_SECRET": SECRET, "DATABASE_URL": f"sqlite:///{folder / 'ledger.sqlite3'}",
        "PAIJU_REDIS_PREFIX": f"details-{secrets.token_hex(4)}", "PAIJU_GRPC_SERVER": request.param,
        "PAIJU_CALLS_PER_SECOND": "1", "PAIJU_CALL_BURST": str(CALL_BURST), "PAIJU_REFUSAL_PAUSE_MS": "0"})
    with serving(settings, "embedded", rooms_per_tier=2) as deployment:
        yield deployment


def refused(call_it, request) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as failure:
        call_it(request, timeout=15)
    return failure.value


def unpacked(status: status_pb2.Status, kind: type[Message]) -> list[Message]:
    """The details of ``kind`` among ``status``'s."""
    found = []
    for detail in status.details:
        if detail.Is(kind.DESCRIPTOR):
            message = kind()
            detail.Unpack(message)
            found.append(message)
    return found


def details(error: grpc.RpcError) -> tuple[status_pb2.Status, error_details_pb2.ErrorInfo]:
    """What any gRPC client reads of a refusal: the rich status and its one ErrorInfo."""
    status = rpc_status.from_call(error)  # raises when its code or message differ from the call's
    assert status is not None, f"{error.code()} came without grpc-status-details-bin"
    (info,) = unpacked(status, error_details_pb2.ErrorInfo)
    assert info.domain == "paiju.dev"
    return status, info


def assert_reason(error: grpc.RpcError, code: grpc.StatusCode, reason: str) -> error_details_pb2.ErrorInfo:
    assert error.code() == code, (error.code(), error.details())
    status, info = details(error)
    assert (status.code, info.reason) == (code.value[0], reason)
    assert trailer(error, ERROR_CODE_KEY) == reason  # the older way to read it says the same
    return info


@pytest.fixture(scope="module")
def hand(served: Deployment) -> Iterator[tuple[list[PaijuClient], dict]]:
    """Two players in a hand of 炸金花 at PLAYING_ROOM, and the view of its first turn."""
    clients = new_clients(served, 2)
    without_turn_timer(served, PLAYING_ROOM)
    view = start_hand(served, clients, PLAYING_ROOM)
    yield clients, view
    for client in clients:
        client.close()


def test_a_move_no_action_of_the_game_reads_is_invalid_argument_malformed(hand) -> None:
    (player, _), view = hand
    error = refused(player.table.Act, table_pb2.ActRequest(table_id=PLAYING_ROOM, expected_version=view["version"],
                                                           action="raise --5"))
    info = assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT, "malformed")
    assert info.metadata["table_id"] == PLAYING_ROOM


def test_a_move_on_a_stale_version_names_the_current_one(hand) -> None:
    (player, _), view = hand
    error = refused(player.table.Act, table_pb2.ActRequest(table_id=PLAYING_ROOM, expected_version=view["version"] - 1,
                                                           action="look"))
    info = assert_reason(error, grpc.StatusCode.ABORTED, "stale_version")
    assert int(info.metadata["current_version"]) >= view["version"]


def test_a_move_with_no_hand_on_is_failed_precondition(served) -> None:
    player = new_clients(served, 1)[0]
    player.sit(IDLE_ROOM)
    version = player.view(IDLE_ROOM)["version"]
    error = refused(player.table.Act, table_pb2.ActRequest(table_id=IDLE_ROOM, expected_version=version, action="look"))
    assert_reason(error, grpc.StatusCode.FAILED_PRECONDITION, "no_hand")
    player.stand(IDLE_ROOM)
    player.close()


def test_an_unknown_table_is_not_found_naming_it(served) -> None:
    player = new_clients(served, 1)[0]
    error = refused(player.table.GetView, table_pb2.GetViewRequest(table_id=UNKNOWN_ROOM))
    info = assert_reason(error, grpc.StatusCode.NOT_FOUND, "not_found")
    assert info.metadata["table_id"] == UNKNOWN_ROOM
    unknown_game = refused(player.lobby.ListTiers, lobby_pb2.ListTiersRequest(game="poker"))
    assert_reason(unknown_game, grpc.StatusCode.NOT_FOUND, "unknown_name")
    player.close()


def test_a_call_without_a_token_is_unauthenticated(served) -> None:
    with grpc.insecure_channel(served.address) as anonymous:
        error = refused(wallet_pb2_grpc.WalletServiceStub(anonymous).GetBalance, wallet_pb2.GetBalanceRequest())
    assert_reason(error, grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")


def test_an_operators_verb_with_a_players_token_is_permission_denied(served) -> None:
    player = new_clients(served, 1)[0]
    with authorized_channel(served.address, lambda: player.token) as channel:
        error = refused(admin_pb2_grpc.AdminServiceStub(channel).ListAuditLog, admin_pb2.ListAuditLogRequest())
    assert_reason(error, grpc.StatusCode.PERMISSION_DENIED, "operators_only")
    player.close()


def test_a_player_over_the_call_rate_is_resource_exhausted_with_the_wait(served) -> None:
    player = new_clients(served, 1)[0]
    asked = wallet_pb2.GetBalanceRequest()
    error = None
    for _ in range(5 * CALL_BURST):
        try:
            player.wallet.GetBalance(asked, timeout=15)
        except grpc.RpcError as refusal:
            error = refusal
            break
    assert error is not None, f"{5 * CALL_BURST} calls at once were all admitted at one a second"
    info = assert_reason(error, grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited")
    assert info.metadata["calls_per_second"] == "1"
    (retry,) = unpacked(details(error)[0], error_details_pb2.RetryInfo)
    # Until the next token of a rate of one a second: within a second.
    assert 0 < retry.retry_delay.ToNanoseconds() <= 1_000_000_000
    player.close()


def test_through_the_front_door_the_status_details_arrive_as_the_server_sent_them(served) -> None:
    player = new_clients(served, 1)[0]
    door = start_web_door(served.address, "127.0.0.1", 0)
    try:
        answer = call(door.port, "/paiju.v1.TableService/GetView",
                      table_pb2.GetViewRequest(table_id=UNKNOWN_ROOM).SerializeToString(),
                      headers={"Authorization": f"Bearer {player.token}"})
    finally:
        door.stop()
        player.close()
    assert answer.code == grpc.StatusCode.NOT_FOUND.value[0]
    encoded = answer.trailer("grpc-status-details-bin")
    assert encoded is not None, answer.trailers
    status = status_pb2.Status.FromString(base64.b64decode(encoded + "=" * (-len(encoded) % 4)))
    (info,) = unpacked(status, error_details_pb2.ErrorInfo)
    assert (status.code, status.message) == (answer.code, answer.details)
    assert (info.reason, info.metadata["table_id"]) == ("not_found", UNKNOWN_ROOM)
