"""The all-in-one front door, spoken to frame by frame as a browser's gRPC-Web transport does."""

from __future__ import annotations

import base64
import http.client
import secrets
import socket
import struct

import grpc
import pytest

from paiju.gateway.door import start_web_door
from paiju.gateway.grpc_web import KEEPALIVE_IDLE_SECONDS, ROUTED_SERVICES, probe_vanished_peers
from paiju.proto.v1 import (
    lobby_pb2,
    wallet_pb2,
    wallet_pb2_grpc,
)
from paiju.rpc.interceptor import bearer_metadata
from tests.gateway.conftest import paiju_metadata, rich_status, stale_action_refused_natively
from tests.gateway.grpc_web_client import (
    BINARY,
    TEXT,
    TRAILER_FLAG,
    OpenStream,
    call,
    decode_base64_chunks,
    frame,
    read_frames,
)

OK, DEADLINE_EXCEEDED, FAILED_PRECONDITION, UNIMPLEMENTED, UNAVAILABLE, UNAUTHENTICATED = 0, 4, 9, 12, 14, 16


def register(port: int, *, text: bool = False) -> wallet_pb2.RegisterResponse:
    request = wallet_pb2.RegisterRequest(username=f"web-{secrets.token_hex(4)}", password="a long password")
    answer = call(port, "/paiju.v1.WalletService/Register", request.SerializeToString(), text=text)
    assert answer.code == OK, answer.details
    return wallet_pb2.RegisterResponse.FromString(answer.messages[0])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_unary_call_answers_one_message_frame_then_the_trailer_frame(platform_door) -> None:
    request = wallet_pb2.RegisterRequest(username=f"web-{secrets.token_hex(4)}", password="a long password")
    answer = call(platform_door.port, "/paiju.v1.WalletService/Register", request.SerializeToString())

    assert answer.http_status == 200
    assert answer.headers["Content-Type"] == BINARY
    assert [flag for flag, _ in answer.frames] == [0x00, TRAILER_FLAG]
    # The frame as the protocol lays it out: flag, 4-byte big-endian length, the message.
    session = wallet_pb2.RegisterResponse.FromString(answer.messages[0])
    assert answer.raw_body[:5] == struct.pack(">BI", 0, len(answer.messages[0]))
    assert session.username == request.username
    assert answer.frames[-1][1] == b"grpc-status:0\r\n"
    # The token works natively: the door handed out the server's own session.
    with grpc.insecure_channel(platform_door.grpc_address) as channel:
        balance = wallet_pb2_grpc.WalletServiceStub(channel).GetBalance(
            wallet_pb2.GetBalanceRequest(), metadata=bearer_metadata(session.token), timeout=10)
    assert balance.available > 0


def test_text_mode_answers_base64_frames_ending_with_the_trailer_frame(platform_door) -> None:
    session = register(platform_door.port)
    answer = call(platform_door.port, "/paiju.v1.WalletService/GetBalance", wallet_pb2.GetBalanceRequest().SerializeToString(),
                  text=True, headers=bearer(session.token))

    assert answer.headers["Content-Type"] == TEXT
    assert set(answer.raw_body) <= set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    assert [flag for flag, _ in answer.frames] == [0x00, TRAILER_FLAG]
    assert answer.code == OK
    assert wallet_pb2.GetBalanceResponse.FromString(answer.messages[0]).available > 0


def test_a_text_mode_request_of_several_padded_base64_chunks_is_read_whole(platform_door) -> None:
    message = wallet_pb2.RegisterRequest(username=f"web-{secrets.token_hex(4)}", password="a long password")
    framed = frame(message.SerializeToString())
    body = base64.b64encode(framed[:4]) + base64.b64encode(framed[4:])
    assert body.index(b"=") < len(body) - 4, "the first chunk must end padded inside the body"

    connection = http.client.HTTPConnection("127.0.0.1", platform_door.port, timeout=30)
    connection.request("POST", "/paiju.v1.WalletService/Register", body=body, headers={"Content-Type": TEXT})
    frames = read_frames(decode_base64_chunks(connection.getresponse().read()))
    connection.close()

    assert [flag for flag, _ in frames] == [0x00, TRAILER_FLAG]
    assert wallet_pb2.RegisterResponse.FromString(frames[0][1]).username == message.username


def test_an_error_carries_the_status_message_and_paiju_metadata_exactly_as_natively(platform_door) -> None:
    session = register(platform_door.port)
    stale, native = stale_action_refused_natively(platform_door.grpc_address, session.token)

    answer = call(platform_door.port, "/paiju.v1.TableService/Act", stale.SerializeToString(), headers=bearer(session.token))

    assert answer.messages == []
    assert (answer.code, answer.details) == (native.code().value[0], native.details())
    assert paiju_metadata(answer.trailers) == paiju_metadata(native.trailing_metadata())
    # The status details (the ErrorInfo with the stable word) pass too, as the server sent them.
    assert rich_status(answer.trailers) == rich_status(native.trailing_metadata()) is not None


def test_a_call_without_a_session_is_refused_by_the_servers_own_check(platform_door) -> None:
    answer = call(platform_door.port, "/paiju.v1.WalletService/GetBalance", wallet_pb2.GetBalanceRequest().SerializeToString())
    assert answer.code == UNAUTHENTICATED
    assert answer.details


def test_a_server_stream_sends_each_message_as_it_comes_while_the_call_stays_open(platform_door) -> None:
    session = register(platform_door.port)
    request = lobby_pb2.WatchRoomsRequest(game="zhajinhua", tier="free")
    stream = OpenStream(platform_door.port, "/paiju.v1.LobbyService/WatchRooms", request.SerializeToString(),
                        headers=bearer(session.token))
    try:
        flag, payload = stream.next_frame()
        assert flag == 0x00
        first = lobby_pb2.WatchRoomsResponse.FromString(payload)
        assert first.WhichOneof("update") == "snapshot"
        assert len(first.snapshot.rooms) == 2
    finally:
        stream.close()


def test_grpc_timeout_ends_a_long_stream_with_deadline_exceeded_after_its_messages(platform_door) -> None:
    session = register(platform_door.port)
    request = lobby_pb2.WatchRoomsRequest(game="zhajinhua", tier="free")
    answer = call(platform_door.port, "/paiju.v1.LobbyService/WatchRooms", request.SerializeToString(),
                  headers={**bearer(session.token), "grpc-timeout": "300m"})

    assert len(answer.messages) >= 1
    assert answer.code == DEADLINE_EXCEEDED


def test_a_browser_going_away_cancels_its_stream_on_the_server(scripted_door) -> None:
    door, seen = scripted_door
    stream = OpenStream(door.port, "/paiju.v1.TableService/Watch", b"")
    assert stream.next_frame() == (0x00, b"first")
    assert not seen.stream_cancelled.is_set()

    stream.close()

    assert seen.stream_cancelled.wait(30), "the server's stream outlived its browser"


@pytest.mark.parametrize("method", [
    "/paiju.v1.WalletInternalService/HoldForHand",
    "/paiju.v1.TableInternalService/ExpireDeadline",
    "/paiju.v1.WatchdogService/Notice",
    "/grpc.health.v1.Health/Check",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
])
def test_internal_services_are_never_routed_through_the_door(scripted_door, method: str) -> None:
    door, seen = scripted_door
    answer = call(door.port, method, b"")

    assert answer.code == UNIMPLEMENTED
    assert seen.methods == [], "the call reached the server"


def test_the_routed_services_are_exactly_the_public_ones() -> None:
    assert ROUTED_SERVICES == {"paiju.v1.WalletService", "paiju.v1.LobbyService", "paiju.v1.TableService"}


def test_metadata_travels_both_ways_binary_values_in_base64(scripted_door) -> None:
    door, seen = scripted_door
    answer = call(door.port, "/paiju.v1.WalletService/Echo", b"ping", headers={
        "Authorization": "Bearer t", "paiju-trace-bin": base64.b64encode(b"\x01\x02").decode().rstrip("="),
        "Origin": "http://localhost:5173", "grpc-timeout": "10S"})

    assert answer.messages == [b"ping"]
    assert ("authorization", "Bearer t") in seen.metadata
    assert ("paiju-trace-bin", b"\x01\x02") in seen.metadata
    assert not {key for key, _ in seen.metadata} & {"origin", "content-type", "x-grpc-web", "host"}
    assert base64.b64decode(answer.trailer("paiju-echo-bin") + "==") == b"\x00\xffraw"
    assert answer.trailer("paiju-echo") == "plain"


def test_the_door_tells_the_server_the_browsers_address_after_any_it_was_told(scripted_door) -> None:
    # The server's per-address limits must count browsers, not the door they all come through.
    door, seen = scripted_door
    call(door.port, "/paiju.v1.WalletService/Echo", b"ping", headers={"X-Forwarded-For": "198.51.100.4"})
    assert ("x-forwarded-for", "198.51.100.4, 127.0.0.1") in seen.metadata


def test_a_body_that_is_not_one_message_frame_is_refused(scripted_door) -> None:
    door, seen = scripted_door
    connection = http.client.HTTPConnection("127.0.0.1", door.port, timeout=30)
    connection.request("POST", "/paiju.v1.WalletService/Echo", body=frame(b"a") + frame(b"b"),
                       headers={"Content-Type": BINARY})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    assert response.status == 200
    assert body[0] == TRAILER_FLAG and b"grpc-status:3\r\n" in body
    assert seen.methods == []


def test_a_request_that_is_not_grpc_web_is_refused_with_415(platform_door) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", platform_door.port, timeout=30)
    connection.request("POST", "/paiju.v1.WalletService/Login", body=b"{}", headers={"Content-Type": "application/json"})
    assert connection.getresponse().status == 415
    connection.close()


def test_a_cors_preflight_allows_the_headers_the_browser_asks_for(platform_door) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", platform_door.port, timeout=30)
    connection.request("OPTIONS", "/paiju.v1.WalletService/Login", headers={
        "Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type,x-grpc-web,x-user-agent,grpc-timeout"})
    response = connection.getresponse()
    response.read()
    connection.close()

    assert response.status == 204
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    assert "authorization" in response.headers["Access-Control-Allow-Headers"]


def test_an_answer_lets_a_page_from_another_origin_read_the_status_headers(platform_door) -> None:
    answer = call(platform_door.port, "/paiju.v1.WalletService/GetBalance", wallet_pb2.GetBalanceRequest().SerializeToString(),
                  headers={"Origin": "http://localhost:5173"})
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    exposed = {name.strip() for name in answer.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"grpc-status", "grpc-message", "grpc-status-details-bin", "paiju-error-code",
            "paiju-current-version"} <= exposed


def test_a_refusal_in_chinese_arrives_percent_encoded_and_whole(scripted_door) -> None:
    door, _ = scripted_door
    answer = call(door.port, "/paiju.v1.LobbyService/Refuse", b"")

    assert answer.code == FAILED_PRECONDITION
    assert answer.trailer("grpc-message").isascii()
    assert answer.details == "座位已有人 100%"
    assert answer.trailer("paiju-error-code") == "seat_taken"


def test_an_unreachable_server_is_reported_without_its_address() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    nowhere = f"127.0.0.1:{port}"
    door = start_web_door(nowhere, "127.0.0.1", 0)
    try:
        answer = call(door.port, "/paiju.v1.WalletService/Login", wallet_pb2.LoginRequest().SerializeToString())
    finally:
        door.stop()
    assert answer.code == UNAVAILABLE
    assert str(port) not in answer.details
    assert "cannot be reached" in answer.details


def test_a_streams_connection_is_probed_so_a_vanished_browser_ends_its_streams() -> None:
    with socket.socket() as connection:
        probe_vanished_peers(connection)
        assert connection.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        if hasattr(socket, "TCP_KEEPIDLE"):
            assert connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == KEEPALIVE_IDLE_SECONDS


def test_stopping_the_door_ends_its_open_streams_on_the_server(scripted_door) -> None:
    door, seen = scripted_door
    stream = OpenStream(door.port, "/paiju.v1.TableService/Watch", b"")
    assert stream.next_frame() == (0x00, b"first")

    door.door.stop()

    assert seen.stream_cancelled.wait(30), "the server's stream outlived the door"
    stream.close()
