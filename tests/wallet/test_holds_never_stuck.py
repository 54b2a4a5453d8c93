"""Coins and tables never stuck (issue 13), on the real Redis and PostgreSQL: every hand that
ends releases its holds once."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from paiju.table.store import TableStore
from paiju.table.tables import RELEASE_PREFIX, Tables, Timers, reconnect_deadline
from paiju.table.wallet_port import DirectWallet
from paiju.wallet import Wallet
from paiju.wallet.relay import Settler, relay_outbox
from tests.wallet.conftest import FAST_HASHER, PostgresSchemas
from tests.wallet.helpers import row_count

SWEEP_AFTER = timedelta(seconds=60)
FORTUNE = ("chaodipi", "yancheng-fortune100")  # a hold is the player's whole balance
SCORE = ("chaodipi", "yancheng-score")  # no coins move


class WalletClock:
    """The wallet's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class TableClock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


class Crash(BaseException):
    """A kill -9 at this instant: no handler of the code under test runs."""


@pytest.fixture
def wallet_clock() -> WalletClock:
    return WalletClock()


@pytest.fixture
def wallet(postgres_schemas: PostgresSchemas, wallet_clock: WalletClock) -> Iterator[Wallet]:
    ledger = Wallet(postgres_schemas.new_url(), password_hasher=FAST_HASHER, clock=wallet_clock)
    ledger.migrate()
    yield ledger
    ledger.close()


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[Any]:
    yield redis.Redis.from_url(redis_url)


@pytest.fixture
def store(redis_client: Any) -> Iterator[TableStore]:
    prefix = f"holds-test-{uuid.uuid4().hex[:10]}"
    yield TableStore(redis_client, prefix=prefix)
    stale = list(redis_client.scan_iter(match=f"{prefix}:*", count=1000))
    if stale:
        redis_client.delete(*stale)


@pytest.fixture
def table_clock() -> TableClock:
    return TableClock()


def tables_on(store: TableStore, port: Any, clock: TableClock) -> Tables:
    """A table service over ``store`` (a new one is a restarted process, or another replica)."""
    return Tables(store, port, Timers(), clock_ms=clock, randbelow=lambda n: 0)


@pytest.fixture
def tables(store: TableStore, wallet: Wallet, table_clock: TableClock) -> Tables:
    return tables_on(store, DirectWallet(wallet), table_clock)


def seat_players(tables: Tables, wallet: Wallet, table_id: str, game: tuple[str, str], count: int) -> list[str]:
    tables.open(table_id, *game)
    accounts = [str(wallet.register(f"{table_id}-{n}", "password-123")) for n in range(count)]
    for account in accounts:
        tables.sit(table_id, account, f"player {account}")
    return accounts


def relay(store: TableStore, wallet: Wallet) -> Any:
    settler = Settler(wallet)
    return relay_outbox(store, settler, record_scores=settler.record_scores, release=settler.release)


def assert_coins_conserved(wallet: Wallet) -> None:
    assert wallet.total_coins() == wallet.grants_total()
    assert wallet.check_balances() == []


def void_by_escape(tables: Tables, table_id: str, account: str, clock: TableClock) -> None:
    """``account`` leaves before the first card is played and is not back in time (炒地皮: the
    hand is void)."""
    tables.disconnect(table_id, account, clock.now)
    seat = tables.view(table_id, account)["seat"]
    window = tables.deadline(table_id, reconnect_deadline(seat))
    assert window is not None
    tables.expire(table_id, window.name, window.version_set_for)


def play_out(tables: Tables, table_id: str, accounts: list[str], rng: random.Random) -> None:
    """Play the hand on ``table_id`` to its end with random legal moves (炸金花)."""
    while (view := tables.view(table_id, None))["hand"] is not None:
        hand = view["hand"]
        actor = next(a for a in accounts if tables.view(table_id, a)["seat"] == hand["seats"][hand["state"]["to_act"]])
        mine = tables.view(table_id, actor)
        legal = [a for a in mine["hand"]["state"]["legal_actions"] if a != "look"] or ["look"]
        tables.act(table_id, actor, mine["version"], rng.choice(legal))


# --- 13.1: every hand that ends releases its holds, once ----------------------------------------


def test_a_void_chaodipi_hand_left_every_players_hold_forever(tables, wallet, store, table_clock):
    accounts = seat_players(tables, wallet, "void-01", FORTUNE, 4)
    for account in accounts:
        tables.ready("void-01", account)
    hand_id = tables.view("void-01", None)["hand"]["hand_id"]
    assert wallet.holds(hand_id) == {int(a): 20_000 for a in accounts}  # everything each one has

    void_by_escape(tables, "void-01", accounts[0], table_clock)

    assert tables.view("void-01", None)["hand"] is None
    assert [e.key for e in store.outbox_pending()] == [RELEASE_PREFIX + hand_id]
    assert tables.start_if_ready("void-01") is None  # no next hand before the holds are back
    first, again = relay(store, wallet), relay(store, wallet)
    assert (first.released, again.released) == (1, 0) and store.outbox_pending() == []
    assert [wallet.held(int(a)) for a in accounts] == [0, 0, 0, 0]
    assert [wallet.balance(int(a)) for a in accounts] == [20_000] * 4
    assert_coins_conserved(wallet)
    # Every one of them can play again: the escaper at another table, the others here.
    tables.open("void-02", *FORTUNE)
    tables.sit("void-02", accounts[0], "back")
    newcomer = str(wallet.register("void-newcomer", "password-123"))
    tables.sit("void-01", newcomer, "newcomer")
    for account in [*accounts[1:], newcomer]:
        tables.ready("void-01", account)
    next_hand = tables.view("void-01", None)["hand"]
    assert next_hand is not None and sum(wallet.holds(next_hand["hand_id"]).values()) == 80_000


def test_a_score_channel_hand_left_zero_coin_hold_rows(tables, wallet, store, table_clock):
    accounts = seat_players(tables, wallet, "score-01", SCORE, 4)
    for account in accounts:
        tables.ready("score-01", account)
    assert tables.view("score-01", None)["hand"] is not None
    assert row_count(wallet, "wallet_holds") == 0

    void_by_escape(tables, "score-01", accounts[0], table_clock)

    assert store.outbox_pending() == []  # nothing held, nothing to release or record
    assert_coins_conserved(wallet)
