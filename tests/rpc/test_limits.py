"""The limits one client meets: request sizes, call rates, streams and logins (issue 13, 7 and 8)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import grpc
import pytest
from google.rpc import status_pb2

from paiju.common.auth import Role, TokenSigner
from paiju.common.error_details import DETAILS_KEY, error_info, retry_delay
from paiju.common.metrics import METRICS
from paiju.proto.v1 import table_pb2, table_pb2_grpc, wallet_pb2, wallet_pb2_grpc
from paiju.rpc import aio_bridge
from paiju.rpc.errors import ERROR_CODE_KEY, trailer
from paiju.rpc.interceptor import bearer_metadata
from paiju.rpc.limits import (
    RATE_LIMITED,
    SERVER_BUSY,
    TOO_LARGE,
    TOO_MANY_LOGINS,
    TOO_MANY_STREAMS,
    Admission,
    FakeClock,
    Limits,
    Oversized,
    Refused,
    bounded,
)
from paiju.rpc.server import ServiceBinding, start_server
from paiju.wallet import passwords
from paiju.wallet.passwords import PasswordHasher

SECRET = b"the limits test secret, 32 bytes long"
WAIT_SECONDS = 20.0
LOGIN = "/paiju.v1.WalletService/Login"
WATCH = "/paiju.v1.TableService/Watch"
GET_VIEW = "/paiju.v1.TableService/GetView"


def wait_until(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def token_of(signer: TokenSigner, account: str, role: Role = Role.PLAYER) -> tuple[tuple[str, str]]:
    return bearer_metadata(signer.issue(account, account, ttl=600, role=role))


def refused(code_word: str, call: Callable[[], object]) -> Refused:
    with pytest.raises(Refused) as refusal:
        call()
    assert refusal.value.error_code == code_word
    assert refusal.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    return refusal.value


# --- the admission, with an injected clock -------------------------------------------------


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_000.0)


@pytest.fixture
def signer() -> TokenSigner:
    return TokenSigner(SECRET)


def test_a_player_over_their_calls_per_second_is_refused_until_the_bucket_refills(clock, signer) -> None:
    admission = Admission(Limits(calls_per_second=10, call_burst=5), signer, clock)
    ann, bob = token_of(signer, "ann"), token_of(signer, "bob")
    for _ in range(5):
        admission.admit(GET_VIEW, ann, "ipv4:127.0.0.1:1", streaming=False)()
    refused(RATE_LIMITED, lambda: admission.admit(GET_VIEW, ann, "ipv4:127.0.0.1:1", streaming=False))
    admission.admit(GET_VIEW, bob, "ipv4:127.0.0.1:1", streaming=False)()  # another player's own bucket
    clock.now += 0.1  # one token back
    admission.admit(GET_VIEW, ann, "ipv4:127.0.0.1:1", streaming=False)()
    refused(RATE_LIMITED, lambda: admission.admit(GET_VIEW, ann, "ipv4:127.0.0.1:1", streaming=False))


def test_a_rate_refusal_says_how_long_until_the_next_token_and_which_limit(clock, signer) -> None:
    admission = Admission(Limits(calls_per_second=10, call_burst=2), signer, clock)
    ann = token_of(signer, "ann")
    for _ in range(2):
        admission.admit(GET_VIEW, ann, "ipv4:127.0.0.1:1", streaming=False)()
    clock.now += 0.04  # four tenths of a token back: the next one comes in 0.06 s
    refusal = refused(RATE_LIMITED, lambda: admission.admit(GET_VIEW, ann, "ipv4:127.0.0.1:1", streaming=False))
    assert refusal.retry_after == pytest.approx(0.06)
    status = status_pb2.Status.FromString(dict(refusal.trailing_metadata)[DETAILS_KEY])
    assert retry_delay(status) == pytest.approx(0.06)
    info = error_info(status)
    assert (info.reason, dict(info.metadata)) == (RATE_LIMITED, {"calls_per_second": "10"})
    assert (status.code, status.message) == (grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], refusal.reason)


def test_paiju_services_and_calls_without_a_valid_token_are_not_counted_against_a_player(clock, signer) -> None:
    admission = Admission(Limits(calls_per_second=1, call_burst=1, streams_per_account=1), signer, clock)
    service = token_of(signer, "service:table", Role.SERVICE)
    for _ in range(50):
        admission.admit(GET_VIEW, service, "ipv4:10.0.0.1:1", streaming=True)  # never released: no limit
        admission.admit(GET_VIEW, (("authorization", "Bearer forged"),), "ipv4:10.0.0.1:1", streaming=False)()


def test_one_player_cannot_open_a_thousand_watch_streams(clock, signer) -> None:
    admission = Admission(Limits(streams_per_account=3), signer, clock)
    ann = token_of(signer, "ann")
    open_streams = [admission.admit(WATCH, ann, "ipv4:127.0.0.1:1", streaming=True) for _ in range(3)]
    refused(TOO_MANY_STREAMS, lambda: admission.admit(WATCH, ann, "ipv4:127.0.0.1:1", streaming=True))
    admission.admit(WATCH, token_of(signer, "bob"), "ipv4:127.0.0.1:1", streaming=True)
    open_streams.pop()()  # one closes: one more may open
    admission.admit(WATCH, ann, "ipv4:127.0.0.1:1", streaming=True)
    refused(TOO_MANY_STREAMS, lambda: admission.admit(WATCH, ann, "ipv4:127.0.0.1:1", streaming=True))


def test_logins_are_bounded_per_client_address_and_in_all(clock, signer) -> None:
    admission = Admission(Limits(logins_per_peer=2, logins_in_flight=3), signer, clock)
    first = admission.admit(LOGIN, (), "ipv4:10.0.0.1:1000", streaming=False)
    admission.admit(LOGIN, (), "ipv4:10.0.0.1:1001", streaming=False)
    # Another connection of the same address is the same peer.
    refused(TOO_MANY_LOGINS, lambda: admission.admit(LOGIN, (), "ipv4:10.0.0.1:1002", streaming=False))
    admission.admit(LOGIN, (), "ipv6:[::1]:1000", streaming=False)
    refused(SERVER_BUSY, lambda: admission.admit(LOGIN, (), "ipv4:10.0.0.9:1000", streaming=False))
    first()
    admission.admit(LOGIN, (), "ipv4:10.0.0.1:1003", streaming=False)


def test_bug_every_browser_behind_the_door_shared_its_two_logins_at_a_time(clock, signer) -> None:
    # All calls through the web door (or Envoy) came from the door's address: two people logging
    # in at once anywhere refused the third. A door's call counts against the address it forwards.
    admission = Admission(Limits(logins_per_peer=1, logins_in_flight=8, trusted_proxies=("127.0.0.0/8",)),
                          signer, clock)
    through_the_door = [admission.admit(LOGIN, [("x-forwarded-for", f"203.0.113.{n}")], "ipv4:127.0.0.1:40000",
                                        streaming=False) for n in range(1, 5)]
    assert len(through_the_door) == 4
    # The same browser twice is one address, whatever it writes into the header itself.
    refused(TOO_MANY_LOGINS, lambda: admission.admit(
        LOGIN, [("x-forwarded-for", "198.51.100.9, 203.0.113.1")], "ipv4:127.0.0.1:40001", streaming=False))
    # A caller that is no door is counted as itself, whatever header it sends.
    admission.admit(LOGIN, [("x-forwarded-for", "198.51.100.7")], "ipv4:10.0.0.5:1", streaming=False)
    refused(TOO_MANY_LOGINS, lambda: admission.admit(
        LOGIN, [("x-forwarded-for", "198.51.100.8")], "ipv4:10.0.0.5:2", streaming=False))


def test_one_address_logging_in_over_and_over_is_refused_until_its_bucket_refills(clock, signer) -> None:
    admission = Admission(Limits(login_rate_per_peer=2, login_burst_per_peer=3), signer, clock)
    for _ in range(3):
        admission.admit(LOGIN, (), "ipv4:10.0.0.1:1000", streaming=False)()
    refusal = refused(TOO_MANY_LOGINS, lambda: admission.admit(LOGIN, (), "ipv4:10.0.0.1:1001", streaming=False))
    assert "2 logins a second" in refusal.reason
    admission.admit(LOGIN, (), "ipv4:10.0.0.2:1000", streaming=False)()  # another address
    clock.now += 0.5
    admission.admit(LOGIN, (), "ipv4:10.0.0.1:1002", streaming=False)()
    refused(TOO_MANY_LOGINS, lambda: admission.admit(LOGIN, (), "ipv4:10.0.0.1:1003", streaming=False))


def test_a_bounded_deserializer_hands_on_an_oversized_request_unparsed() -> None:
    parsed: list[bytes] = []
    deserialize = bounded(lambda data: parsed.append(data) or "parsed", most=4)
    assert deserialize(b"four") == "parsed"
    too_big = deserialize(b"x" * 5)
    assert isinstance(too_big, Oversized) and too_big.size == 5
    assert parsed == [b"four"]


# --- through a real server ---------------------------------------------------------------


class GatedWallet(wallet_pb2_grpc.WalletServiceServicer):
    """Login waits for the gate: how many logins are inside at once is then plain to see."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.inside = 0
        self.lock = threading.Lock()

    def Login(self, request, context):  # type: ignore[no-untyped-def]
        with self.lock:
            self.inside += 1
        self.gate.wait(WAIT_SECONDS)
        return wallet_pb2.LoginResponse(account_id="1", username=request.username)


class QuietTable(table_pb2_grpc.TableServiceServicer):
    """Act answers at once; Watch sends one snapshot, then waits (on the loop, or in its thread)
    until cancelled."""

    def __init__(self) -> None:
        self.actions: list[str] = []

    def Act(self, request, context):  # type: ignore[no-untyped-def]
        self.actions.append(request.action)
        return table_pb2.ActResponse(version=1)

    def Watch(self, request, context):  # type: ignore[no-untyped-def]
        yield table_pb2.WatchResponse()
        if getattr(context, "waits_on_loop", False):
            while True:
                yield aio_bridge.WAITING
        ended = threading.Event()
        if context.add_callback(ended.set):
            ended.wait(WAIT_SECONDS)


SERVER_KINDS = ["loop", "threads"]
"""Both servers (``PAIJU_GRPC_SERVER``): each must refuse exactly as the other does."""


@contextmanager
def serving(kind: str, signer: TokenSigner, limits: Limits) -> Iterator[tuple[GatedWallet, QuietTable, grpc.Channel]]:
    wallet, table = GatedWallet(), QuietTable()
    bindings = [
        ServiceBinding("paiju.v1.WalletService", wallet, wallet_pb2_grpc.add_WalletServiceServicer_to_server),
        ServiceBinding("paiju.v1.TableService", table, table_pb2_grpc.add_TableServiceServicer_to_server, frozenset({"Act", "Watch"})),
    ]
    with start_server(bindings, signer=signer, max_workers=8, limits=limits, event_loop=kind == "loop") as running, \
            grpc.insecure_channel(running.address) as channel:
        try:
            yield wallet, table, channel
        finally:
            wallet.gate.set()


@pytest.fixture(params=SERVER_KINDS)
def served(request, signer) -> Iterator[tuple[GatedWallet, QuietTable, grpc.Channel]]:
    limits = Limits(max_request_bytes=2_048, max_action_bytes=256, streams_per_account=4, logins_per_peer=2)
    with serving(request.param, signer, limits) as served:
        yield served


@pytest.mark.parametrize("kind", SERVER_KINDS)
def test_a_player_over_their_calls_per_second_is_refused_by_the_server_and_others_are_not(kind, signer) -> None:
    # No refill: exactly the burst is admitted, however slowly the calls come.
    with serving(kind, signer, Limits(calls_per_second=0, call_burst=3)) as (_, table, channel):
        stub = table_pb2_grpc.TableServiceStub(channel)
        ann, bob = token_of(signer, "ann"), token_of(signer, "bob")
        refused_before = METRICS.sample("paiju_rpc_refused_total", service="paiju.v1.TableService", method="Act",
                                        reason=RATE_LIMITED) or 0.0
        for n in range(3):
            stub.Act(table_pb2.ActRequest(table_id="t1", action=f"ann {n}"), metadata=ann, timeout=WAIT_SECONDS)
        with pytest.raises(grpc.RpcError) as too_fast:
            stub.Act(table_pb2.ActRequest(table_id="t1", action="ann 3"), metadata=ann, timeout=WAIT_SECONDS)
        assert too_fast.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert trailer(too_fast.value, ERROR_CODE_KEY) == RATE_LIMITED
        assert "calls a second" in too_fast.value.details()
        stub.Act(table_pb2.ActRequest(table_id="t1", action="bob 0"), metadata=bob, timeout=WAIT_SECONDS)
        service = token_of(signer, "service:lobby", Role.SERVICE)
        for n in range(5):  # Paiju's own services are never limited by rate
            stub.Act(table_pb2.ActRequest(table_id="t1", action=f"service {n}"), metadata=service, timeout=WAIT_SECONDS)
        assert table.actions == ["ann 0", "ann 1", "ann 2", "bob 0"] + [f"service {n}" for n in range(5)]
        assert METRICS.sample("paiju_rpc_refused_total", service="paiju.v1.TableService", method="Act",
                              reason=RATE_LIMITED) == refused_before + 1


def test_a_huge_act_is_refused_before_it_is_parsed_and_a_short_one_is_played(served, signer) -> None:
    _, table, channel = served
    stub = table_pb2_grpc.TableServiceStub(channel)
    ann = token_of(signer, "ann")
    refused_before = METRICS.sample("paiju_rpc_refused_total", service="paiju.v1.TableService", method="Act",
                                    reason=TOO_LARGE) or 0.0
    for size in (1_000, 3_900_000):  # above Act's limit: refused unparsed, as no action is that long
        with pytest.raises(grpc.RpcError) as too_big:
            stub.Act(table_pb2.ActRequest(table_id="t1", action="play " + "5H " * (size // 3)), metadata=ann,
                     timeout=WAIT_SECONDS)
        assert too_big.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert trailer(too_big.value, ERROR_CODE_KEY) == TOO_LARGE
        assert len(too_big.value.details()) < 200
    with pytest.raises(grpc.RpcError) as beyond_grpc:  # above grpc's own ceiling: refused before Python
        stub.Act(table_pb2.ActRequest(table_id="t1", action="x" * 5_000_000), metadata=ann, timeout=WAIT_SECONDS)
    assert beyond_grpc.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert trailer(beyond_grpc.value, ERROR_CODE_KEY) is None
    with pytest.raises(grpc.RpcError) as over_act_limit:
        stub.Act(table_pb2.ActRequest(table_id="t1", action="x" * 300), metadata=ann, timeout=WAIT_SECONDS)
    assert trailer(over_act_limit.value, ERROR_CODE_KEY) == TOO_LARGE
    assert METRICS.sample("paiju_rpc_refused_total", service="paiju.v1.TableService", method="Act",
                          reason=TOO_LARGE) == refused_before + 3  # 1,000 bytes, 3.9 MB and 300 chars
    assert "at most 256 bytes" in over_act_limit.value.details()
    stub.Act(table_pb2.ActRequest(table_id="t1", action="play 5H 5H"), metadata=ann, timeout=WAIT_SECONDS)
    assert table.actions == ["play 5H 5H"]


def test_watch_streams_past_the_limit_are_refused_and_a_closed_one_frees_its_place(served, signer) -> None:
    _, _, channel = served
    stub = table_pb2_grpc.TableServiceStub(channel)
    ann = token_of(signer, "ann")
    streams = [stub.Watch(table_pb2.WatchRequest(table_id="t1"), metadata=ann, timeout=WAIT_SECONDS) for _ in range(4)]
    for stream in streams:
        next(stream)
    extra = stub.Watch(table_pb2.WatchRequest(table_id="t1"), metadata=ann, timeout=WAIT_SECONDS)
    with pytest.raises(grpc.RpcError) as too_many:
        next(extra)
    assert too_many.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert trailer(too_many.value, ERROR_CODE_KEY) == TOO_MANY_STREAMS
    streams[0].cancel()

    def one_more_opens() -> bool:
        try:
            next(stub.Watch(table_pb2.WatchRequest(table_id="t1"), metadata=ann, timeout=WAIT_SECONDS))
        except grpc.RpcError as error:
            assert trailer(error, ERROR_CODE_KEY) == TOO_MANY_STREAMS
            return False
        return True

    wait_until("the cancelled stream's place to be free", one_more_opens)


def test_a_login_flood_from_one_peer_is_refused_at_once_not_queued(served) -> None:
    wallet, _, channel = served
    stub = wallet_pb2_grpc.WalletServiceStub(channel)
    waiting = [stub.Login.future(wallet_pb2.LoginRequest(username=f"u{n}", password="p" * 8), timeout=WAIT_SECONDS)
               for n in range(2)]
    wait_until("two logins inside", lambda: wallet.inside == 2)
    # The pool has threads to spare, yet the third login is turned away while the two still wait.
    with pytest.raises(grpc.RpcError) as flood:
        stub.Login(wallet_pb2.LoginRequest(username="u3", password="p" * 8), timeout=WAIT_SECONDS)
    assert flood.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert trailer(flood.value, ERROR_CODE_KEY) == TOO_MANY_LOGINS
    assert wallet.inside == 2 and not any(call.done() for call in waiting)
    wallet.gate.set()
    assert [call.result().username for call in waiting] == ["u0", "u1"]
    assert stub.Login(wallet_pb2.LoginRequest(username="u4", password="p" * 8), timeout=WAIT_SECONDS).username == "u4"


# --- password hashing -----------------------------------------------------------------------


def test_no_more_password_hashes_run_at_once_than_the_hasher_allows(monkeypatch) -> None:
    gate, lock = threading.Event(), threading.Lock()
    running = most = 0

    def held_scrypt(*args: object) -> bytes:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        gate.wait(WAIT_SECONDS)
        with lock:
            running -= 1
        return b"\0" * passwords.DIGEST_BYTES

    monkeypatch.setattr(passwords, "_scrypt", held_scrypt)
    hasher = PasswordHasher(n=2**4, concurrency=2)
    started = threading.Barrier(7)

    def hash_one() -> None:
        started.wait()
        hasher.hash("a password")

    threads = [threading.Thread(target=hash_one) for _ in range(6)]
    for thread in threads:
        thread.start()
    started.wait()
    wait_until("two hashes running", lambda: running == 2)
    gate.set()
    for thread in threads:
        thread.join(WAIT_SECONDS)
    assert most == 2 and running == 0
