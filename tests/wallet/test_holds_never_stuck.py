"""Coins and tables never stuck (issue 13, items 1-3), on the real Redis and PostgreSQL: every
hand that ends releases its holds once, a start that crashes anywhere leaves no hold after the
sweep and its table playable, and one account sits in one room at a time under concurrency."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from paiju.common.config import ConfigError, Settings
from paiju.games.engine import IllegalAction
from paiju.table.deadline_names import Timers, reconnect_deadline
from paiju.table.outbox_contract import RELEASE_PREFIX
from paiju.table.seating import CLAIM_PENDING_MS
from paiju.table.store import TableStore
from paiju.table.tables import Tables
from paiju.wallet import Wallet
from paiju.wallet.celery_app import SWEEP_HOLDS, WorkerOptions, celery_config
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.relay import Settler, relay_outbox
from paiju.wallet.sweep import sweep_orphan_holds
from paiju.wallet.table_port import DirectWallet
from paiju.wallet.tasks import WorkerResources, sweep_holds_task, use_resources
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
    return Tables(store, port, Timers(), clock_ms=clock, randbelow=lambda n: 0, coins_board=AvailableCoinsBoard(store.client, store.prefix))


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


# --- 13.2: a crash anywhere in a hand's start leaves nothing held after the sweep ---------------


class CrashingWallet(DirectWallet):
    """The wallet port, crashing at ``point`` once when armed."""

    def __init__(self, wallet: Wallet) -> None:
        super().__init__(wallet)
        self.point: str | None = None

    def _maybe_crash(self, point: str) -> None:
        if self.point == point:
            self.point = None
            raise Crash(point)

    def available_many(self, accounts: list[str]) -> list[int]:
        self._maybe_crash("before the holds")
        return super().available_many(accounts)

    def hold_hand(self, hand_id: str, amounts: dict[str, int], expected: dict[str, int] | None = None) -> None:
        super().hold_hand(hand_id, amounts, expected)
        self._maybe_crash("after the holds")


class CrashingStore:
    """The table store, crashing around a commit once when armed."""

    def __init__(self, store: TableStore) -> None:
        self.store = store
        self.point: str | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def commit_change(self, *args: Any, **kwargs: Any) -> Any:
        if self.point == "before the commit":
            self.point = None
            raise Crash("before the commit")
        receipt = self.store.commit_change(*args, **kwargs)
        if self.point == "after the commit":
            self.point = None
            raise Crash("after the commit")
        return receipt


CRASH_POINTS = ("before the holds", "after the holds", "before the commit", "after the commit")


def test_a_crash_between_the_holds_and_the_hands_commit_orphaned_the_hold_and_jammed_the_table(
    store, wallet, wallet_clock, table_clock
):
    rng = random.Random(13)
    port, crashing_store = CrashingWallet(wallet), CrashingStore(store)
    crashing = tables_on(crashing_store, port, table_clock)  # type: ignore[arg-type]
    accounts = seat_players(crashing, wallet, "crash-01", ("zhajinhua", "free"), 3)
    for _round in range(2):
        for point in CRASH_POINTS:
            for account in accounts[:-1]:
                crashing.ready("crash-01", account)
            port.point = crashing_store.point = point
            with pytest.raises(Crash):
                crashing.ready("crash-01", accounts[-1])
            restarted = tables_on(store, DirectWallet(wallet), table_clock)
            live = restarted.view("crash-01", None)["hand"]
            assert (live is not None) == (point == "after the commit")

            wallet_clock.now += SWEEP_AFTER + timedelta(seconds=1)
            sweep_orphan_holds(wallet, store, SWEEP_AFTER)

            owed = {} if live is None else wallet.holds(live["hand_id"])
            assert {int(a): wallet.held(int(a)) for a in accounts} == {int(a): owed.get(int(a), 0) for a in accounts}
            if live is None:  # the table plays on: the last player presses start again
                restarted.ready("crash-01", accounts[-1])
            hand = restarted.view("crash-01", None)["hand"]
            assert hand is not None and set(wallet.holds(hand["hand_id"])) == {int(a) for a in accounts}
            play_out(restarted, "crash-01", accounts, rng)
            relay(store, wallet)
            assert [wallet.held(int(a)) for a in accounts] == [0, 0, 0]
            assert_coins_conserved(wallet)


def test_a_player_whose_coins_an_orphaned_hold_took_is_stood_up_not_dealt_in_with_zero(
    tables, wallet, store, wallet_clock, table_clock
):
    accounts = seat_players(tables, wallet, "orphan-01", FORTUNE, 4)
    crashing = tables_on(store, CrashingWallet(wallet), table_clock)
    for account in accounts[:-1]:
        tables.ready("orphan-01", account)
    crashing.wallet.point = "after the holds"  # type: ignore[attr-defined]
    with pytest.raises(Crash):
        crashing.ready("orphan-01", accounts[-1])
    assert [wallet.available(int(a)) for a in accounts] == [0, 0, 0, 0]  # all held by a ghost

    with pytest.raises(IllegalAction) as refused:
        tables.ready("orphan-01", accounts[-1])

    assert refused.value.code == "not_enough_coins"
    assert tables.view("orphan-01", None)["hand"] is None  # nobody played with 0 coins
    # Refused at its Ready (the ledger says what it may hold): the seats stay, nobody dealt in.
    assert [tables.view("orphan-01", a)["seat"] for a in accounts] == [0, 1, 2, 3]
    wallet_clock.now += SWEEP_AFTER / 2
    assert sweep_orphan_holds(wallet, store, SWEEP_AFTER).released == {}  # not yet: within the bound
    wallet_clock.now += SWEEP_AFTER
    assert list(sweep_orphan_holds(wallet, store, SWEEP_AFTER).released.values()) == [80_000]
    tables.ready("orphan-01", accounts[-1])
    hand = tables.view("orphan-01", None)["hand"]
    assert wallet.holds(hand["hand_id"]) == {int(a): 20_000 for a in accounts}
    assert_coins_conserved(wallet)


class SweepBeforeCommit(DirectWallet):
    """The wallet port of a start that stalls between its holds and its commit while the sweep
    (its bound passed) runs, once."""

    def __init__(self, wallet: Wallet, sweep: Any) -> None:
        super().__init__(wallet)
        self.sweep = sweep

    def hold_hand(self, hand_id: str, amounts: dict[str, int], expected: dict[str, int] | None = None) -> None:
        super().hold_hand(hand_id, amounts, expected)
        sweep, self.sweep = self.sweep, None
        if sweep is not None:
            sweep()


def test_a_sweep_during_a_slow_start_fences_the_start_off_instead_of_leaving_a_hand_without_holds(
    store, wallet, wallet_clock, table_clock
):
    swept: list[Any] = []

    def sweep() -> None:
        wallet_clock.now += SWEEP_AFTER + timedelta(seconds=1)
        swept.append(sweep_orphan_holds(wallet, store, SWEEP_AFTER))

    slow = tables_on(store, SweepBeforeCommit(wallet, sweep), table_clock)
    accounts = seat_players(slow, wallet, "slow-01", ("zhajinhua", "free"), 2)
    for account in accounts:
        slow.ready("slow-01", account)

    (report,) = swept
    assert len(report.released) == 1  # the stalled try's holds, which then failed to commit
    hand = slow.view("slow-01", None)["hand"]
    assert hand is not None and hand["hand_id"] not in report.released  # the start tried again
    held = wallet.holds(hand["hand_id"])
    assert {int(a): wallet.held(int(a)) for a in accounts} == held and all(held.values())
    assert_coins_conserved(wallet)


def test_a_hold_whose_table_is_gone_is_released_by_the_sweep(store, wallet, wallet_clock):
    account = wallet.register("gone", "password-123")
    wallet.hold_hand("no-such-table-3-0badcafe", {account: 700})
    wallet.hold_hand("not a table hand", {account: 300})
    wallet_clock.now += SWEEP_AFTER + timedelta(seconds=1)
    report = sweep_orphan_holds(wallet, store, SWEEP_AFTER, batch=1)  # one page per hand
    assert report.released == {"no-such-table-3-0badcafe": 700, "not a table hand": 300}
    assert wallet.held(account) == 0
    assert_coins_conserved(wallet)


def test_the_beat_sweeps_orphaned_holds_and_keeps_those_of_hands_in_play(tables, store, wallet, wallet_clock):
    accounts = seat_players(tables, wallet, "beat-01", ("zhajinhua", "free"), 2)
    for account in accounts:
        tables.ready("beat-01", account)
    playing = tables.view("beat-01", None)["hand"]["hand_id"]
    wallet.hold_hand("beat-01-1-0badcafe", {int(accounts[0]): 500})  # a start that crashed
    schedule = celery_config(Settings.from_env({"REDIS_URL": "redis://127.0.0.1:6379/3"}),
                             WorkerOptions.from_env({"PAIJU_HOLD_SWEEP_SECONDS": "90"}))["beat_schedule"]
    assert (schedule["sweep-orphan-holds"]["task"], schedule["sweep-orphan-holds"]["schedule"]) == (SWEEP_HOLDS, 90)
    use_resources(WorkerResources(wallet, outbox=store, hold_sweep_seconds=SWEEP_AFTER.total_seconds()))
    try:
        assert sweep_holds_task() == {"released": 0, "kept": 0}  # within the bound
        wallet_clock.now += SWEEP_AFTER + timedelta(seconds=1)
        assert sweep_holds_task() == {"released": 1, "kept": 1}
    finally:
        use_resources(None)
    assert set(wallet.holds(playing)) == {int(a) for a in accounts}
    assert wallet.holds("beat-01-1-0badcafe") == {}
    with pytest.raises(ConfigError, match="PAIJU_HOLD_SWEEP_SECONDS"):
        WorkerOptions.from_env({"PAIJU_HOLD_SWEEP_SECONDS": "0"})


# --- 13.3: one room at a time, under concurrency --------------------------------------------------


def test_nine_concurrent_sits_seated_one_account_in_six_rooms(store, wallet, redis_url, table_clock):
    rooms = [f"room-{n}" for n in range(9)]
    setup = tables_on(store, DirectWallet(wallet), table_clock)
    for room in rooms:
        setup.open(room, "zhajinhua", "free")
    account = str(wallet.register("everywhere", "password-123"))
    for _round in range(5):
        # One table service per thread, each on its own connections: nine replicas at once.
        replicas = [
            tables_on(TableStore(redis.Redis.from_url(redis_url), prefix=store.prefix),
                      DirectWallet(wallet), table_clock)
            for _ in rooms
        ]
        outcomes = sit_at_once(replicas, rooms, account)

        seated_at = [room for room in rooms if setup.view(room, account)["seat"] is not None]
        assert len(seated_at) == 1, outcomes
        assert sorted(outcomes.values()) == ["seated"] + ["seated_elsewhere"] * 8
        assert setup.directory.table_of(account) == seated_at[0]
        setup.stand(seated_at[0], account)
        assert setup.directory.table_of(account) is None


def sit_at_once(replicas: list[Tables], rooms: list[str], account: str) -> dict[str, str]:
    """``account`` sits in every room at once, each through its own replica: each room's
    outcome (``seated`` or the refusal's code)."""
    start = threading.Barrier(len(rooms))
    outcomes: dict[str, str] = {}

    def sit(number: int) -> None:
        start.wait(timeout=30)
        try:
            replicas[number].sit(rooms[number], account, "everywhere")
            outcomes[rooms[number]] = "seated"
        except IllegalAction as refused:
            outcomes[rooms[number]] = refused.code

    threads = [threading.Thread(target=sit, args=(n,)) for n in range(len(rooms))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


def test_a_sit_that_crashed_after_its_claim_locks_the_player_out_only_for_the_pending_bound(
    tables, wallet, table_clock
):
    for room in ("claim-1", "claim-2"):
        tables.open(room, "zhajinhua", "free")
    account = str(wallet.register("crashed-sit", "password-123"))
    tables.directory.claim(account, "claim-1", lambda table: False, table_clock.now)  # then a crash

    with pytest.raises(IllegalAction) as refused:
        tables.sit("claim-2", account, "too soon")
    assert refused.value.code == "seated_elsewhere"
    table_clock.now += CLAIM_PENDING_MS
    tables.sit("claim-2", account, "later")
    assert tables.directory.table_of(account) == "claim-2"


def test_a_second_hands_hold_was_zero_because_the_first_took_the_balance(tables, wallet, store):
    accounts = seat_players(tables, wallet, "second-01", ("zhajinhua", "free"), 3)
    elsewhere = accounts[0]
    tables.ready("second-01", elsewhere)  # ready while its coins were free …
    wallet.hold_hand("first-hand-1-0badcafe", {int(elsewhere): 20_000})  # … then the first hand took them all
    for account in accounts[1:]:  # the last ready starts the hand, which finds those coins gone
        tables.ready("second-01", account)

    hand = tables.view("second-01", None)["hand"]
    assert hand is not None
    held = wallet.holds(hand["hand_id"])
    assert set(held) == {int(a) for a in accounts[1:]} and all(amount > 0 for amount in held.values())
    assert tables.view("second-01", elsewhere)["seat"] is None  # stood up, not dealt in with 0
    assert_coins_conserved(wallet)
