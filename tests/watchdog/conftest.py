"""The watchdog's world with an injected clock, on fakeredis and on the real Redis."""

from __future__ import annotations

import uuid

import fakeredis
import pytest
import redis

from paiju.table.deadline_names import Timers
from paiju.table.store import TableStore
from paiju.table.tables import Tables
from paiju.wallet import PasswordHasher, Wallet
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.table_port import DirectWallet
from paiju.watchdog.owners import LocalTables
from paiju.watchdog.presence import PresenceBoard
from paiju.watchdog.replica import Replica


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture(params=["fakeredis", "redis"])
def client(request):
    if request.param == "fakeredis":
        yield fakeredis.FakeRedis(server=fakeredis.FakeServer())
        return
    real = redis.Redis.from_url(request.getfixturevalue("redis_url"))
    yield real


@pytest.fixture
def world(client, tmp_path):
    prefix = f"wd-{uuid.uuid4().hex[:8]}"
    clock = Clock()
    wallet = Wallet(f"sqlite:///{tmp_path}/ledger.sqlite3", password_hasher=PasswordHasher(n=2**4))
    wallet.migrate()
    store = TableStore(client, prefix=prefix, stream_maxlen=256)  # the tests read whole logs
    tables = Tables(store, DirectWallet(wallet), Timers(turn_ms=20_000, ready_kick_ms=20_000, reconnect_ms=90_000),
                    clock_ms=clock, randbelow=lambda n: 0, coins_board=AvailableCoinsBoard(store.client, store.prefix))
    board = PresenceBoard(client, prefix)
    replica = Replica(store, board, LocalTables(tables), clock_ms=clock)
    yield tables, board, replica, clock, wallet
    wallet.close()
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)
