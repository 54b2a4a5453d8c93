"""A real in-process gRPC server on loopback: token checks, the caller seen by servicers,
health checking and reflection."""

from __future__ import annotations

import io
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from paiju.common.auth import Role, TokenSigner
from paiju.common.config import Settings
from paiju.common.error_details import error_info, reason_of, status_of
from paiju.proto.v1 import (
    lobby_pb2,
    lobby_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
    wallet_pb2,
    wallet_pb2_grpc,
    watchdog_pb2,
    watchdog_pb2_grpc,
)
from paiju.rpc.channels import ServiceTokenSource, authorized_channel
from paiju.rpc.errors import CURRENT_VERSION_KEY, ERROR_CODE_KEY, abort, trailer
from paiju.rpc.interceptor import bearer_metadata, current_caller, current_caller_or_none
from paiju.rpc.server import (
    RunningServer,
    ServerStartError,
    ServiceBinding,
    start_from_settings,
    start_server,
)
from tests.patience import PATIENCE_SECONDS, wait_until

SECRET = b"the interceptor test secret ...."
STUB_MODULES = (
    (wallet_pb2, wallet_pb2_grpc),
    (lobby_pb2, lobby_pb2_grpc),
    (table_pb2, table_pb2_grpc),
    (watchdog_pb2, watchdog_pb2_grpc),
)
TIMEOUT = PATIENCE_SECONDS
LONG_AGO = 1_000_000_000.0


class FakeTable(table_pb2_grpc.TableServiceServicer):
    """Answers with whoever the interceptor says is calling."""

    def __init__(self) -> None:
        self.calls = 0
        self.stream_cleanups: list[str] = []

    def GetView(
        self, request: table_pb2.GetViewRequest, context: grpc.ServicerContext
    ) -> table_pb2.GetViewResponse:
        self.calls += 1
        caller = current_caller()
        time.sleep(0.01)  # overlap concurrent calls, so a leaked caller would show
        view = {"account": caller.account_id, "username": caller.username, "role": caller.role}
        logging.getLogger("fake.table").info("viewed")
        return table_pb2.GetViewResponse(view=table_pb2.TableView(table_id=request.table_id, view_json=json.dumps(view)))

    def Watch(
        self, request: table_pb2.WatchRequest, context: grpc.ServicerContext
    ) -> Iterator[table_pb2.WatchResponse]:
        self.calls += 1
        try:
            for number in range(1000):
                event = table_pb2.Event(
                    id=f"{number}-0",
                    type="seen_by",
                    payload_json=json.dumps(current_caller().account_id),
                )
                yield table_pb2.WatchResponse(events=[event])
                time.sleep(0.005)
        finally:
            self.stream_cleanups.append(current_caller().account_id)

    def Act(
        self, request: table_pb2.ActRequest, context: grpc.ServicerContext
    ) -> table_pb2.ActResponse:
        if request.expected_version != 5:
            abort(context, grpc.StatusCode.ABORTED, "the table moved on", current_version=5)
        abort(
            context,
            grpc.StatusCode.FAILED_PRECONDITION,
            "it is seat 2's turn",
            error_code="not_your_turn",
        )


class FakeWallet(wallet_pb2_grpc.WalletServiceServicer):
    def Login(
        self, request: wallet_pb2.LoginRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.LoginResponse:
        caller = current_caller_or_none()
        return wallet_pb2.LoginResponse(
            account_id="" if caller is None else caller.account_id, username=request.username
        )


class FakeWalletInternal(wallet_pb2_grpc.WalletInternalServiceServicer):
    def ReleaseHand(
        self, request: wallet_pb2.ReleaseHandRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.ReleaseHandResponse:
        return wallet_pb2.ReleaseHandResponse(released=len(request.hand_id))


@pytest.fixture(scope="module")
def table() -> FakeTable:
    return FakeTable()


@pytest.fixture(scope="module", params=["event loop", "threads"])
def address(request: pytest.FixtureRequest, table: FakeTable) -> Iterator[str]:
    """Every test here runs against both servers: the event loop's (the unary table methods on
    the loop itself, the rest in threads) and grpc's thread pool."""
    bindings = [
        ServiceBinding("paiju.v1.TableService", table, table_pb2_grpc.add_TableServiceServicer_to_server,
                       inline=frozenset({"GetView", "Act"})),
        ServiceBinding(
            "paiju.v1.WalletService", FakeWallet(), wallet_pb2_grpc.add_WalletServiceServicer_to_server
        ),
        ServiceBinding(
            "paiju.v1.WalletInternalService",
            FakeWalletInternal(),
            wallet_pb2_grpc.add_WalletInternalServiceServicer_to_server,
        ),
    ]
    with start_server(bindings, signer=TokenSigner(SECRET), max_workers=16,
                      event_loop=request.param == "event loop") as running:
        assert running.host == "127.0.0.1" and running.port > 0
        yield running.address


@pytest.fixture(scope="module")
def channel(address: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=TIMEOUT)
        yield channel


def token_for(account_id: str, role: Role = Role.PLAYER, *, issued_at: float | None = None) -> str:
    clock = (lambda: issued_at) if issued_at is not None else time.time
    return TokenSigner(SECRET, clock=clock).issue(
        account_id, f"user {account_id}", ttl=3600, role=role
    )


def get_view(channel: grpc.Channel, metadata: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
    reply = table_pb2_grpc.TableServiceStub(channel).GetView(
        table_pb2.GetViewRequest(table_id="t1"), metadata=metadata, timeout=TIMEOUT
    )
    assert reply.view.table_id == "t1"
    return json.loads(reply.view.view_json)


def test_bug_a_stream_both_ways_the_loop_does_not_serve_ended_unknown_with_the_servers_exception_text(
    channel: grpc.Channel,
) -> None:
    """Play on a table servicer that has none, and (on the event loop) that is not bound to
    live on the loop: UNIMPLEMENTED on either server. The event loop's bridge raised instead,
    and grpc ended the call UNKNOWN with "Unexpected <class 'NotImplementedError'>: …"."""
    opening = table_pb2.PlayRequest(open=table_pb2.WatchRequest(table_id="t1"))
    metadata = bearer_metadata(token_for("42"))
    with pytest.raises(grpc.RpcError) as refused:
        list(table_pb2_grpc.TableServiceStub(channel).Play(iter([opening]), metadata=metadata, timeout=TIMEOUT))
    assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED


def refusal(call: object) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as raised:
        call()  # type: ignore[operator]
    return raised.value


def test_a_call_without_a_token_is_unauthenticated_and_never_reaches_the_servicer(
    channel: grpc.Channel, table: FakeTable
) -> None:
    before = table.calls
    error = refusal(lambda: get_view(channel))
    assert error.code() is grpc.StatusCode.UNAUTHENTICATED
    assert "authorization" in error.details()
    assert table.calls == before


BAD_CREDENTIALS = {
    "garbage": lambda: bearer_metadata("v1.not.atoken"),
    "foreign-secret": lambda: bearer_metadata(TokenSigner(b"some other secret entirely").issue("7", "x", ttl=3600)),
    "expired": lambda: bearer_metadata(token_for("7", issued_at=LONG_AGO)),
    "basic-scheme": lambda: (("authorization", "Basic dXNlcjpwYXNz"),),
    "empty-bearer": lambda: (("authorization", "Bearer "),),
}


@pytest.mark.parametrize("credentials", BAD_CREDENTIALS)
def test_a_call_with_a_bad_token_is_unauthenticated(
    channel: grpc.Channel, table: FakeTable, credentials: str
) -> None:
    metadata = BAD_CREDENTIALS[credentials]()  # made here: a token made at import would age
    before = table.calls
    assert refusal(lambda: get_view(channel, metadata)).code() is grpc.StatusCode.UNAUTHENTICATED
    assert table.calls == before


def test_the_servicer_sees_the_account_of_a_good_token(channel: grpc.Channel) -> None:
    assert get_view(channel, bearer_metadata(token_for("acct-42"))) == {
        "account": "acct-42",
        "username": "user acct-42",
        "role": "player",
    }


def test_concurrent_calls_each_see_their_own_caller(channel: grpc.Channel) -> None:
    accounts = [f"acct-{number}" for number in range(24)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        seen = list(
            pool.map(
                lambda a: get_view(channel, bearer_metadata(token_for(a)))["account"], accounts
            )
        )
    assert seen == accounts


def test_a_streaming_call_sees_its_caller_at_every_step_and_in_its_cleanup(
    channel: grpc.Channel, table: FakeTable
) -> None:
    stream = table_pb2_grpc.TableServiceStub(channel).Watch(
        table_pb2.WatchRequest(table_id="t1"),
        metadata=bearer_metadata(token_for("acct-9")),
        timeout=TIMEOUT,
    )
    first = [next(stream) for _ in range(5)]
    stream.cancel()
    assert [json.loads(update.events[0].payload_json) for update in first] == ["acct-9"] * 5
    wait_until("the stream's cleanup", lambda: "acct-9" in table.stream_cleanups)


def test_a_streaming_call_without_a_token_is_unauthenticated(channel: grpc.Channel) -> None:
    stream = table_pb2_grpc.TableServiceStub(channel).Watch(
        table_pb2.WatchRequest(table_id="t1"), timeout=TIMEOUT
    )
    assert refusal(lambda: next(stream)).code() is grpc.StatusCode.UNAUTHENTICATED


def test_login_needs_no_token_and_ignores_a_bad_one(channel: grpc.Channel) -> None:
    wallet = wallet_pb2_grpc.WalletServiceStub(channel)
    request = wallet_pb2.LoginRequest(username="lihua", password="secret")
    assert wallet.Login(request, timeout=TIMEOUT).account_id == ""
    assert (
        wallet.Login(request, metadata=bearer_metadata("v1.bad.token"), timeout=TIMEOUT).username
        == "lihua"
    )
    assert (
        wallet.Login(
            request, metadata=bearer_metadata(token_for("acct-3")), timeout=TIMEOUT
        ).account_id
        == "acct-3"
    )


def test_other_wallet_calls_need_a_token(channel: grpc.Channel) -> None:
    wallet = wallet_pb2_grpc.WalletServiceStub(channel)
    error = refusal(lambda: wallet.GetBalance(wallet_pb2.GetBalanceRequest(), timeout=TIMEOUT))
    assert error.code() is grpc.StatusCode.UNAUTHENTICATED


def test_internal_services_refuse_players_and_serve_services(channel: grpc.Channel) -> None:
    internal = wallet_pb2_grpc.WalletInternalServiceStub(channel)
    request = wallet_pb2.ReleaseHandRequest(hand_id="hand-1")
    for role in (Role.PLAYER, Role.OPERATOR):
        metadata = bearer_metadata(token_for("p", role))
        error = refusal(partial(internal.ReleaseHand, request, metadata=metadata, timeout=TIMEOUT))
        assert error.code() is grpc.StatusCode.PERMISSION_DENIED
    assert (
        refusal(lambda: internal.ReleaseHand(request, timeout=TIMEOUT)).code()
        is grpc.StatusCode.UNAUTHENTICATED
    )
    service_token = TokenSigner(SECRET).issue_service_token("table", ttl=3600)
    assert (
        internal.ReleaseHand(
            request, metadata=bearer_metadata(service_token), timeout=TIMEOUT
        ).released
        == 6
    )


def test_an_unimplemented_method_answers_unimplemented_to_an_authenticated_caller(
    channel: grpc.Channel,
) -> None:
    wallet = wallet_pb2_grpc.WalletServiceStub(channel)
    error = refusal(
        lambda: wallet.GetBalance(
            wallet_pb2.GetBalanceRequest(),
            metadata=bearer_metadata(token_for("a")),
            timeout=TIMEOUT,
        )
    )
    assert error.code() is grpc.StatusCode.UNIMPLEMENTED
    assert reason_of(error) == "unimplemented"


@pytest.mark.parametrize("kind", ["unary_unary", "unary_stream", "stream_unary", "stream_stream"])
def test_bug_a_method_no_service_here_has_was_refused_by_grpc_without_the_word(channel: grpc.Channel, kind: str) -> None:
    # grpc answered it with a bare UNIMPLEMENTED: no ErrorInfo, no paiju-error-code.
    call = getattr(channel, kind)("/paiju.v1.NoSuchService/Nothing")
    metadata = bearer_metadata(token_for("a"))
    if kind.startswith("unary"):
        invoke = partial(call, b"", metadata=metadata, timeout=TIMEOUT)
    else:
        invoke = partial(call, iter([b""]), metadata=metadata, timeout=TIMEOUT)
    if kind.endswith("stream"):
        error = refusal(lambda: list(invoke()))
    else:
        error = refusal(invoke)
    assert error.code() is grpc.StatusCode.UNIMPLEMENTED
    assert trailer(error, ERROR_CODE_KEY) == reason_of(error) == "unimplemented"
    assert "/paiju.v1.NoSuchService/Nothing" in error.details()


def test_refusals_carry_the_reason_and_the_stable_words_in_trailers(channel: grpc.Channel) -> None:
    stub = table_pb2_grpc.TableServiceStub(channel)
    metadata = bearer_metadata(token_for("a"))

    def act(version: int) -> grpc.RpcError:
        request = table_pb2.ActRequest(table_id="t1", expected_version=version, action="look")
        return refusal(partial(stub.Act, request, metadata=metadata, timeout=TIMEOUT))

    stale = act(4)
    assert stale.code() is grpc.StatusCode.ABORTED
    assert trailer(stale, CURRENT_VERSION_KEY) == "5"
    # Given no particular word, the status's own name; in the trailer and the ErrorInfo alike.
    assert trailer(stale, ERROR_CODE_KEY) == reason_of(stale) == "aborted"
    assert error_info(status_of(stale)).metadata["current_version"] == "5"
    illegal = act(5)
    assert illegal.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert illegal.details() == "it is seat 2's turn"
    assert trailer(illegal, ERROR_CODE_KEY) == reason_of(illegal) == "not_your_turn"


def test_an_authorized_channel_presents_its_token_on_every_call(address: str) -> None:
    with authorized_channel(address, lambda: token_for("acct-77")) as channel:
        assert get_view(channel)["account"] == "acct-77"
        stream = table_pb2_grpc.TableServiceStub(channel).Watch(
            table_pb2.WatchRequest(table_id="t1"), timeout=TIMEOUT
        )
        assert json.loads(next(stream).events[0].payload_json) == "acct-77"
        stream.cancel()


def test_a_service_token_source_renews_before_expiry_and_reaches_internal_services(
    address: str,
) -> None:
    now = [1_800_000_000.0]
    tokens = ServiceTokenSource(
        TokenSigner(SECRET, clock=lambda: now[0]), "table", ttl=60, clock=lambda: now[0]
    )
    first = tokens()
    now[0] += 29
    assert tokens() == first
    now[0] += 2
    renewed = tokens()
    assert renewed != first and TokenSigner(SECRET, clock=lambda: now[0]).verify(renewed).is_service
    with authorized_channel(
        address, lambda: TokenSigner(SECRET).issue_service_token("t", 3600)
    ) as ch:
        internal = wallet_pb2_grpc.WalletInternalServiceStub(ch)
        reply = internal.ReleaseHand(wallet_pb2.ReleaseHandRequest(hand_id="abc"), timeout=TIMEOUT)
        assert reply.released == 3


def test_all_services_can_share_one_server() -> None:
    bindings = [
        ServiceBinding(
            service.full_name,
            getattr(stubs, f"{service.name}Servicer")(),
            getattr(stubs, f"add_{service.name}Servicer_to_server"),
        )
        for messages, stubs in STUB_MODULES
        for service in messages.DESCRIPTOR.services_by_name.values()
    ]
    names = {binding.name for binding in bindings}
    assert names == {
        "paiju.v1.WalletService",
        "paiju.v1.WalletInternalService",
        "paiju.v1.LobbyService",
        "paiju.v1.TableService",
        "paiju.v1.TableInternalService",
        "paiju.v1.WatchdogService",
    }
    with (
        start_server(bindings, signer=TokenSigner(SECRET)) as running,
        grpc.insecure_channel(running.address) as channel,
    ):
        listed = reflect(channel, reflection_pb2.ServerReflectionRequest(list_services=""))
        assert names <= {service.name for service in listed.list_services_response.service}
        health = health_pb2_grpc.HealthStub(channel)
        for name in names:
            reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=TIMEOUT)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_health_checking_answers_serving_without_a_token(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "paiju.v1.TableService", "paiju.v1.WalletService", "paiju.v1.WalletInternalService"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, service
    unknown = refusal(
        lambda: health.Check(
            health_pb2.HealthCheckRequest(service="paiju.v1.LobbyService"), timeout=TIMEOUT
        )
    )
    assert unknown.code() is grpc.StatusCode.NOT_FOUND


def reflect(
    channel: grpc.Channel, request: reflection_pb2.ServerReflectionRequest
) -> reflection_pb2.ServerReflectionResponse:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    return next(iter(stub.ServerReflectionInfo(iter([request]), timeout=TIMEOUT)))


def test_reflection_answers_in_v1_as_in_v1alpha(channel: grpc.Channel) -> None:
    v1 = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    asked = reflection_pb2.ServerReflectionRequest(list_services="")
    listed = next(iter(v1(iter([asked]), timeout=TIMEOUT)))
    names = {service.name for service in listed.list_services_response.service}
    assert {"paiju.v1.TableService", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} <= names
    assert names == {service.name for service in reflect(channel, asked).list_services_response.service}
    described = next(iter(v1(iter([reflection_pb2.ServerReflectionRequest(file_containing_symbol="paiju.v1.TableService")]),
                             timeout=TIMEOUT)))
    assert described.file_descriptor_response.file_descriptor_proto


def test_reflection_lists_the_services_and_serves_their_files(channel: grpc.Channel) -> None:
    listed = reflect(channel, reflection_pb2.ServerReflectionRequest(list_services=""))
    names = {service.name for service in listed.list_services_response.service}
    assert {
        "paiju.v1.TableService",
        "paiju.v1.WalletService",
        "paiju.v1.WalletInternalService",
        "grpc.health.v1.Health",
    } <= names
    assert "paiju.v1.LobbyService" not in names
    files = reflect(
        channel, reflection_pb2.ServerReflectionRequest(file_containing_symbol="paiju.v1.TableService")
    )
    from google.protobuf import descriptor_pb2

    protos = [
        descriptor_pb2.FileDescriptorProto.FromString(raw)
        for raw in files.file_descriptor_response.file_descriptor_proto
    ]
    table_file = next(proto for proto in protos if proto.name == "paiju/v1/table.proto")
    assert table_file.package == "paiju.v1"
    assert [method.name for method in table_file.service[0].method] == ["GetView", "Act", "CheckAction", "Watch", "Play"]


def test_stopping_reports_not_serving_first() -> None:
    running = start_server(
        [
            ServiceBinding(
                "paiju.v1.WalletService", FakeWallet(), wallet_pb2_grpc.add_WalletServiceServicer_to_server
            )
        ],
        signer=TokenSigner(SECRET),
    )
    running.stop(grace=0.1)
    assert running.health.Check(health_pb2.HealthCheckRequest(service=""), None).status == (
        health_pb2.HealthCheckResponse.NOT_SERVING
    )
    running.stop()  # a second stop is harmless


def test_a_misspelt_service_or_no_service_is_refused() -> None:
    signer = TokenSigner(SECRET)
    with pytest.raises(ServerStartError, match="unknown service"):
        start_server(
            [
                ServiceBinding(
                    "paiju.v1.Tabel", FakeTable(), table_pb2_grpc.add_TableServiceServicer_to_server
                )
            ],
            signer=signer,
        )
    with pytest.raises(ServerStartError, match="at least one"):
        start_server([], signer=signer)


def test_a_busy_port_is_a_clear_error() -> None:
    with socket.socket() as occupant:
        occupant.bind(("127.0.0.1", 0))
        occupant.listen()
        port = occupant.getsockname()[1]
        with pytest.raises(ServerStartError, match="cannot listen"):
            start_server(
                [
                    ServiceBinding(
                        "paiju.v1.WalletService",
                        FakeWallet(),
                        wallet_pb2_grpc.add_WalletServiceServicer_to_server,
                    )
                ],
                signer=TokenSigner(SECRET),
                port=port,
            )


def _table_server(table: FakeTable, port: int = 0, *, share_port: bool = False) -> RunningServer:
    binding = ServiceBinding("paiju.v1.TableService", table, table_pb2_grpc.add_TableServiceServicer_to_server)
    return start_server([binding], signer=TokenSigner(SECRET), port=port, share_port=share_port)


def test_a_second_server_on_a_taken_port_fails_unless_both_share_it() -> None:
    with _table_server(FakeTable()) as alone, pytest.raises(ServerStartError, match="cannot listen"):
        _table_server(FakeTable(), alone.port, share_port=True)
    first, second = FakeTable(), FakeTable()
    with _table_server(first, share_port=True) as one, _table_server(second, one.port, share_port=True):
        # The kernel spreads connections, not calls: each client needs a connection of its own.
        for _ in range(40):
            with authorized_channel(one.address, lambda: token_for("acct-1"), own_connection=True) as channel:
                assert get_view(channel)["account"] == "acct-1"
        assert first.calls + second.calls == 40
        assert first.calls > 0 and second.calls > 0, (first.calls, second.calls)


def test_channels_share_one_connection_unless_asked_for_their_own() -> None:
    first, second = FakeTable(), FakeTable()
    with _table_server(first, share_port=True) as one, _table_server(second, one.port, share_port=True):
        with authorized_channel(one.address, lambda: token_for("acct-1")) as pinned:
            get_view(pinned)
            for _ in range(20):
                with authorized_channel(one.address, lambda: token_for("acct-1")) as channel:
                    get_view(channel)
        assert sorted((first.calls, second.calls)) == [0, 21]


def test_the_caller_does_not_leak_outside_the_call() -> None:
    assert current_caller_or_none() is None
    done = threading.Event()
    seen: list[object] = []

    def probe() -> None:
        seen.append(current_caller_or_none())
        done.set()

    threading.Thread(target=probe).start()
    assert done.wait(TIMEOUT) and seen == [None]


def test_a_server_from_settings_accepts_tokens_signed_with_the_configured_secret() -> None:
    settings = Settings.from_env(
        {"PAIJU_SECRET": "one secret for every replica", "PAIJU_GRPC_WORKERS": "4"}
    )
    binding = ServiceBinding(
        "paiju.v1.TableService", FakeTable(), table_pb2_grpc.add_TableServiceServicer_to_server
    )
    with start_from_settings(settings, [binding], port=0) as running:
        assert running.host == "127.0.0.1"
        token = TokenSigner(settings.secret).issue("acct-5", "wu", ttl=3600)
        with authorized_channel(running.address, lambda: token) as channel:
            assert get_view(channel)["account"] == "acct-5"
        with authorized_channel(running.address, lambda: token_for("acct-5")) as channel:
            assert refusal(lambda: get_view(channel)).code() is grpc.StatusCode.UNAUTHENTICATED


def test_every_log_line_of_a_call_carries_the_caller_and_the_table(channel: grpc.Channel) -> None:
    from paiju.common.logs import configure_logging

    lines = io.StringIO()
    handler = configure_logging("INFO", stream=lines)
    try:
        get_view(channel, bearer_metadata(token_for("77")))
    finally:
        logging.getLogger().removeHandler(handler)
    record = next(json.loads(line) for line in lines.getvalue().splitlines() if '"viewed"' in line)
    assert (record["player_id"], record["table_id"]) == ("77", "t1")
