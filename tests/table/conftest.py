"""One contract, two backends: every store test runs on fakeredis and on the real Redis.

Each test gets its own key prefix and removes its keys afterwards, so runs never collide.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import fakeredis
import pytest
import redis

from paiju.table.deadline_names import Timers
from paiju.table.store import TableStore
from paiju.table.tables import Tables
from paiju.wallet import Wallet
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.table_port import DirectWallet
from tests.patience import PATIENCE_SECONDS


@dataclass
class Backend:
    """Makes clients of one Redis (each a separate connection pool, like separate replicas)."""

    name: str
    new_client: Callable[[], Any]
    prefix: str

    def store(self, **settings: Any) -> TableStore:
        return TableStore(self.new_client(), prefix=self.prefix, **settings)

    def keys(self) -> list[str]:
        client = self.new_client()
        return sorted(k.decode() for k in client.scan_iter(match=f"{self.prefix}:*", count=1000))


def run_together(work: Callable[[int], None], workers: int) -> None:
    """Run ``work(0..workers-1)`` on as many threads; re-raise the first failure here."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for done in [pool.submit(work, number) for number in range(workers)]:
            done.result(timeout=PATIENCE_SECONDS)


@pytest.fixture(params=["fakeredis", "redis"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    prefix = f"paiju-test-{uuid.uuid4().hex[:12]}"
    if request.param == "fakeredis":
        server = fakeredis.FakeServer()
        yield Backend("fakeredis", lambda: fakeredis.FakeRedis(server=server), prefix)
        return
    url = request.getfixturevalue("redis_url")
    made = Backend("redis", lambda: redis.Redis.from_url(url), prefix)
    try:
        yield made
    finally:
        client = made.new_client()
        stale = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if stale:
            client.delete(*stale)


@pytest.fixture
def store(backend: Backend) -> TableStore:
    return backend.store()


@pytest.fixture
def wallet(tmp_path):
    ledger = Wallet(f"sqlite:///{tmp_path}/ledger.sqlite3")
    ledger.migrate()
    yield ledger
    ledger.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def tables(store, wallet, clock):
    return Tables(store, DirectWallet(wallet), Timers(turn_ms=20_000, ready_kick_ms=20_000), clock_ms=clock,
                  randbelow=lambda n: 0, coins_board=AvailableCoinsBoard(store.client, store.prefix))
