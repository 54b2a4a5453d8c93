"""Refusals over real gRPC carry a status code the contract names and a short reason: malformed
input is INVALID_ARGUMENT, a backend outage UNAVAILABLE, and no status carries SQL, a traceback,
a host:port or the whole of what was sent (issue 13, items 9 and 10)."""

from __future__ import annotations

import re
import secrets
import socket
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
import redis
import sqlalchemy as sa

from paiju.client.sdk import PaijuClient
from paiju.common.config import Settings
from paiju.platform import Platform, build
from paiju.proto.v1 import lobby_pb2, table_pb2, wallet_pb2
from paiju.quoting import QUOTE_LIMIT
from paiju.rpc.errors import ERROR_CODE_KEY, trailer
from paiju.rpc.server import RunningServer, start_from_settings
from tests.e2e.conftest import SECRET, without_turn_timer
from tests.e2e.test_platform import new_clients, start_hand

INTERNALS = re.compile(r"Traceback|SELECT|INSERT|psycopg|sqlalchemy|Exception|Error \d+|\d+\.\d+\.\d+\.\d+|:\d{2,5}\b")


def refused(call, request) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as failure:
        call(request, timeout=15)
    return failure.value


def assert_clean(error: grpc.RpcError, code: grpc.StatusCode, longest: int = 200) -> None:
    assert error.code() == code, (error.code(), error.details()[:300])
    assert len(error.details()) <= longest, error.details()[:300]
    assert not INTERNALS.search(error.details()), error.details()
    for key, value in error.trailing_metadata() or ():
        if key.startswith("paiju-"):
            assert len(value) <= longest


@pytest.fixture(scope="module")
def playing(deployment):
    """Two players in a hand of 炸金花, and the view of its first turn."""
    clients = new_clients(deployment, 2)
    room = "zhajinhua-free-05"
    without_turn_timer(deployment, room)
    view = start_hand(deployment, clients, room)
    yield clients, room, view
    for client in clients:
        client.close()


@pytest.mark.parametrize("action", ["raise --5", "compare --1", "raise " + "9" * 5000])
def test_a_number_int_cannot_read_in_an_action_is_invalid_argument_not_unknown(playing, action):
    clients, room, view = playing
    error = refused(clients[0].table.Act, table_pb2.ActRequest(table_id=room, expected_version=view["version"], action=action))
    assert_clean(error, grpc.StatusCode.INVALID_ARGUMENT)
    # Longer than any action: refused unparsed by the request limit, before the parser.
    assert trailer(error, ERROR_CODE_KEY) == ("malformed" if len(action) < 256 else "request_too_large")


@pytest.mark.parametrize("action", ["x" * 1_000_000, "😀" * 1000])
def test_a_huge_action_gets_its_real_error_not_resource_exhausted_about_metadata(playing, action):
    clients, room, view = playing
    error = refused(clients[0].table.Act, table_pb2.ActRequest(table_id=room, expected_version=view["version"], action=action))
    assert_clean(error, grpc.StatusCode.INVALID_ARGUMENT)


@pytest.mark.parametrize("table_id", ["no such {table}", "x" * 300, "😀" * 1000])
def test_a_malformed_or_300_char_table_id_is_invalid_argument_quoting_a_prefix(deployment, table_id):
    client = new_clients(deployment, 1)[0]
    for call, request in [
        (client.table.GetView, table_pb2.GetViewRequest(table_id=table_id)),
        (client.table.Act, table_pb2.ActRequest(table_id=table_id, action="look")),
        (client.lobby.Sit, lobby_pb2.SitRequest(room_id=table_id)),
        (client.lobby.Ready, lobby_pb2.ReadyRequest(room_id=table_id)),
    ]:
        error = refused(call, request)
        assert_clean(error, grpc.StatusCode.INVALID_ARGUMENT)
        assert table_id[:QUOTE_LIMIT + 1] not in error.details() or len(table_id) <= QUOTE_LIMIT
    client.close()


@pytest.mark.parametrize("account_id", ["2147483648", "99999999999999999", "1" * 3000])
def test_level_of_an_account_id_beyond_the_ledger_is_not_found_without_sql(deployment, account_id):
    client = new_clients(deployment, 1)[0]
    error = refused(client.wallet.Level, wallet_pb2.LevelRequest(game="zhajinhua", account_id=account_id))
    assert_clean(error, grpc.StatusCode.NOT_FOUND)
    client.close()


def test_a_request_larger_than_its_method_takes_is_invalid_argument_unparsed(deployment):
    client = new_clients(deployment, 1)[0]
    error = refused(client.wallet.Level, wallet_pb2.LevelRequest(game="zhajinhua", account_id="1" * 5000))
    assert_clean(error, grpc.StatusCode.INVALID_ARGUMENT)
    assert trailer(error, ERROR_CODE_KEY) == "request_too_large"
    client.close()


# --- backends down ----------------------------------------------------------------------------


@dataclass
class Served:
    platform: Platform
    server: RunningServer


def closed_port() -> int:
    """A loopback port nothing listens on (connecting is refused: "Error 111")."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(params=["loop", "threads"])
def on_real_redis(request, redis_url, tmp_path) -> Iterator[Served]:
    environment = {"PAIJU_SECRET": SECRET, "PAIJU_REDIS_PREFIX": f"errors-{secrets.token_hex(4)}",
                   "REDIS_URL": redis_url, "DATABASE_URL": f"sqlite:///{tmp_path / 'ledger.sqlite3'}",
                   "PAIJU_GRPC_SERVER": request.param}
    settings = Settings.from_env(environment)
    platform = build(settings, rooms_per_tier=1)
    server = start_from_settings(settings, platform.bindings(), port=0)
    try:
        yield Served(platform, server)
    finally:
        server.stop(grace=0.2)
        platform.close()
        client = redis.Redis.from_url(redis_url)
        stale = list(client.scan_iter(match=f"{environment['PAIJU_REDIS_PREFIX']}:*", count=1000))
        if stale:
            client.delete(*stale)


def test_redis_refusing_connections_is_unavailable_without_host_or_port(on_real_redis):
    client = PaijuClient.connect(on_real_redis.server.address, f"r{secrets.token_hex(3)}", "a long enough password", register=True)
    pool = on_real_redis.platform.store.client.connection_pool
    pool.disconnect()
    pool.connection_kwargs["port"] = closed_port()
    pool.reset()  # the connections made so far keep their port: new ones take the dead one
    for call, request in [
        (client.table.GetView, table_pb2.GetViewRequest(table_id="zhajinhua-free-01")),
        (client.lobby.ListRooms, lobby_pb2.ListRoomsRequest(game="zhajinhua")),
        (client.lobby.Sit, lobby_pb2.SitRequest(room_id="zhajinhua-free-01")),
    ]:
        error = refused(call, request)
        assert_clean(error, grpc.StatusCode.UNAVAILABLE)
        assert trailer(error, ERROR_CODE_KEY) == "backend_unavailable"
    client.close()


def test_redis_loading_its_dataset_is_unavailable_without_its_message(on_real_redis, monkeypatch):
    client = PaijuClient.connect(on_real_redis.server.address, f"r{secrets.token_hex(3)}", "a long enough password", register=True)

    def loading(*args, **kwargs):
        raise redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory")

    monkeypatch.setattr(on_real_redis.platform.store, "load", loading)
    error = refused(client.table.GetView, table_pb2.GetViewRequest(table_id="zhajinhua-free-01"))
    assert_clean(error, grpc.StatusCode.UNAVAILABLE)
    assert "loading" not in error.details()
    client.close()


def test_an_unexpected_bug_is_internal_with_a_generic_message(on_real_redis, monkeypatch):
    client = PaijuClient.connect(on_real_redis.server.address, f"r{secrets.token_hex(3)}", "a long enough password", register=True)

    def broken(*args, **kwargs):
        raise KeyError("a secret detail of the server")

    monkeypatch.setattr(on_real_redis.platform.store, "load", broken)
    error = refused(client.table.GetView, table_pb2.GetViewRequest(table_id="zhajinhua-free-01"))
    assert_clean(error, grpc.StatusCode.INTERNAL)
    assert "secret" not in error.details() and trailer(error, ERROR_CODE_KEY) == "internal"
    client.close()


def test_the_database_out_of_reach_is_unavailable_without_sql_or_host(on_real_redis, monkeypatch):
    client = PaijuClient.connect(on_real_redis.server.address, f"r{secrets.token_hex(3)}", "a long enough password", register=True)

    def refused_connection(*args, **kwargs):
        raise sa.exc.OperationalError(
            "SELECT wallet_accounts.balance FROM wallet_accounts WHERE wallet_accounts.id = %(id)s",
            {"id": 1}, OSError("connection to server at 127.0.0.1, port 5432 failed: Connection refused"))

    monkeypatch.setattr(on_real_redis.platform.tables.wallet, "available", refused_connection)
    error = refused(client.lobby.Sit, lobby_pb2.SitRequest(room_id="zhajinhua-free-01"))
    assert_clean(error, grpc.StatusCode.UNAVAILABLE)
    client.close()
