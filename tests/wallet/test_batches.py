"""Many hands in one ledger transaction: Wallet.settle_many, the relay's batched pass and its
one-by-one fallback, and Wallet.available_many — on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

import fakeredis
import pytest
import sqlalchemy as sa

from paiju.table.store import TableStore
from paiju.wallet import Settlement, SettlementConflict, UnknownAccount, Wallet
from paiju.wallet import store as wallet_store
from paiju.wallet.relay import SettlementOrder, Settler, relay_outbox

from .helpers import balances, players, row_count
from .test_concurrency import at_once
from .test_relay import hand_payload, queue

Hand = tuple[str, str, list[tuple[int, int, str]]]


def held_hand(wallet: Wallet, hand_id: str, loser: int, winner: int, stake: int, fee: int) -> Hand:
    """Hold ``stake`` of both players for ``hand_id``; the settlement in which ``loser`` pays
    ``stake`` to ``winner``, who pays ``fee`` of it to the house."""
    wallet.hold_hand(hand_id, {loser: stake, winner: stake})
    return hand_id, "zhajinhua", [
        (loser, -stake, "stake"), (winner, stake - fee, "pot"), (wallet.house, fee, "fee")
    ]


def assert_ledger_sound(wallet: Wallet, accounts: list[int]) -> None:
    """Coins were only ever granted, cached balances are their entries' sums, and every entry's
    balance_after is the running balance of its account."""
    assert wallet.total_coins() == wallet.grants_total()
    assert wallet.check_balances() == []
    for account in accounts:
        running = 0
        for entry in reversed(wallet.history(account, limit=1_000)):
            running += entry.amount
            assert entry.balance_after == running, entry
        assert running == wallet.balance(account)


def test_a_batch_applies_each_hand_once_repeats_included(wallet: Wallet) -> None:
    alice, bob, carol = players(wallet, 3)
    first = held_hand(wallet, "hand-1", alice, bob, 300, fee=6)
    second = held_hand(wallet, "hand-2", bob, carol, 500, fee=10)
    third = held_hand(wallet, "hand-3", carol, alice, 200, fee=4)
    wallet.settle(*first)  # delivered once already, before the batch
    results = wallet.settle_many([first, second, third, second])
    assert [(result.hand_id, result.replayed) for result in results] == [
        ("hand-1", True), ("hand-2", False), ("hand-3", False), ("hand-2", True)
    ]
    everyone = [alice, bob, carol, wallet.house]
    assert balances(wallet, everyone) == [19_896, 19_794, 20_290, 20]
    assert sum(balances(wallet, everyone)) == wallet.grants_total() == 60_000
    assert (row_count(wallet, "wallet_hands"), row_count(wallet, "wallet_settlements")) == (3, 9)
    assert row_count(wallet, "wallet_holds") == 0
    assert wallet.available_many(everyone) == dict(zip(everyone, balances(wallet, everyone)))
    assert_ledger_sound(wallet, everyone)
    again = wallet.settle_many([third, second, first])
    assert [result.replayed for result in again] == [True, True, True]
    assert balances(wallet, everyone) == [19_896, 19_794, 20_290, 20]
    assert row_count(wallet, "wallet_entries") == 3 + 9  # three grants, three lines a hand


def test_one_refused_hand_leaves_the_whole_batch_unsettled(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    good = held_hand(wallet, "hand-1", alice, bob, 300, fee=6)
    stranger = bob + 1_000
    unknown = ("hand-2", "zhajinhua", [(bob, -100, "stake"), (stranger, 100, "pot")])
    wallet.hold_hand("hand-2", {bob: 100})
    with pytest.raises(UnknownAccount):
        wallet.settle_many([good, unknown])
    conflicting = ("hand-1", "zhajinhua", [(alice, -200, "stake"), (bob, 200, "pot")])
    with pytest.raises(SettlementConflict):
        wallet.settle_many([good, conflicting])
    assert wallet.settlement("hand-1") is None
    assert wallet.holds("hand-1") == {alice: 300, bob: 300}
    assert balances(wallet, [alice, bob, wallet.house]) == [20_000, 20_000, 0]
    assert wallet.settle_many([good])[0].replayed is False
    assert balances(wallet, [alice, bob, wallet.house]) == [19_700, 20_294, 6]
    assert_ledger_sound(wallet, [alice, bob, wallet.house])


def test_concurrent_batches_apply_each_hand_once(open_wallet: Callable[..., Wallet]) -> None:
    first, second = open_wallet(), open_wallet()
    first.migrate()
    alice, bob = players(first, 2)
    hands = [held_hand(first, f"hand-{number}", alice, bob, 100, fee=2) for number in range(6)]
    results = at_once(
        partial(first.settle_many, hands), partial(second.settle_many, list(reversed(hands)))
    )
    assert all(isinstance(result, list) for result in results), results
    applied = [s.hand_id for result in results for s in result if not s.replayed]
    assert sorted(applied) == sorted(hand_id for hand_id, _, _ in hands)
    assert balances(first, [alice, bob, first.house]) == [19_400, 20_588, 12]
    assert row_count(first, "wallet_settlements") == 18
    assert_ledger_sound(first, [alice, bob, first.house])


def test_bug_relays_of_two_processes_walking_one_outbox_failed_their_pass_on_a_second_collision(
    open_wallet: Callable[..., Wallet],
) -> None:
    # Each relay settles what is pending, in overlapping batches, over and over; a batch that met
    # another's uncommitted hand was retried once, and under that load the retry met the next one
    # ("duplicate key value violates unique constraint wallet_hands_pkey"), failing the pass.
    first = open_wallet()
    first.migrate()
    relays = [first, open_wallet(), open_wallet(), open_wallet()]
    duplicate_keys: list[str] = []
    for relay_wallet in relays:
        sa.event.listen(relay_wallet.database.engine, "handle_error",
                        lambda context: duplicate_keys.append(str(context.original_exception))
                        if isinstance(context.sqlalchemy_exception, sa.exc.IntegrityError) else None)
    alice, bob = players(first, 2)
    hands = [held_hand(first, f"hand-{number:02d}", alice, bob, 10, fee=1) for number in range(24)]
    windows = [[hands[start:start + 6] for start in range(offset, 20, 3)] for offset in range(4)]

    def relay(wallet: Wallet, batches: list[list[Hand]]) -> list[str]:
        applied = []
        for _ in range(3):
            for batch in batches:
                applied += [s.hand_id for s in wallet.settle_many(batch) if not s.replayed]
        return applied

    results = at_once(*(partial(relay, wallet, batches) for wallet, batches in zip(relays, windows)))
    assert all(isinstance(result, list) for result in results), results
    applied = sorted(hand_id for result in results for hand_id in result)
    assert applied == sorted({hand_id for batches in windows for batch in batches for hand_id, _, _ in batch})
    assert duplicate_keys == []  # a hand recorded by another relay is skipped, not an error
    assert_ledger_sound(first, [alice, bob, first.house])


def test_available_many_answers_every_account_at_once(wallet: Wallet) -> None:
    alice, bob, carol = players(wallet, 3)
    wallet.hold_hand("hand-1", {alice: 700, bob: 50})
    wallet.hold("hand-2", alice, 300)
    assert wallet.available_many([carol, alice, bob, alice]) == {
        alice: 19_000, bob: 19_950, carol: 20_000
    }
    assert all(wallet.available_many([a])[a] == wallet.available(a) for a in (alice, bob, carol))
    assert wallet.available_many([]) == {}
    with pytest.raises(UnknownAccount):
        wallet.available_many([alice, carol + 1_000])


# --- the relay's batched pass -------------------------------------------------------------


class CountingSettler(Settler):
    """A settler that counts how it was asked: batches, and hands one by one."""

    def __init__(self, wallet: Wallet) -> None:
        super().__init__(wallet)
        self.batches: list[int] = []
        self.singles = 0

    def __call__(self, order: SettlementOrder) -> Settlement:
        self.singles += 1
        return super().__call__(order)

    def settle_and_acknowledge(self, orders, outbox, entries):  # the relay's way to settle a batch
        self.batches.append(len(orders))
        return super().settle_and_acknowledge(orders, outbox, entries)


@pytest.fixture
def store() -> TableStore:
    return TableStore(fakeredis.FakeRedis(), prefix=f"batches-{uuid.uuid4().hex[:8]}")


def pending_keys(store: TableStore) -> list[str]:
    return sorted(f"{entry.table_id}/{entry.key}" for entry in store.outbox_pending())


def test_a_relay_pass_settles_its_hands_in_one_batch_and_acks_after_the_commit(
    wallet: Wallet, store: TableStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, carol = players(wallet, 3)
    for table, (loser, winner) in {"t1": (alice, bob), "t2": (bob, carol), "t3": (carol, alice)}.items():
        wallet.hold_hand(f"{table}-1", {loser: 200, winner: 200})
        queue(store, table, (f"settle:{table}-1", hand_payload(f"{table}-1", table, loser, winner, 200, fee=4)))
    settler = CountingSettler(wallet)
    settler(SettlementOrder.from_json(hand_payload("t3-1", "t3", carol, alice, 200, fee=4)))
    acked_when_committed: list[bool] = []
    ack = store.outbox_ack

    def ack_once_committed(table_id: str, key: str) -> bool:
        hand_id = key.removeprefix("settle:")
        acked_when_committed.append(wallet.settlement(hand_id) is not None)  # another connection
        return ack(table_id, key)

    monkeypatch.setattr(store, "outbox_ack", ack_once_committed)
    report = relay_outbox(store, settler)
    assert (settler.batches, settler.singles) == ([3], 1)  # the one single: the early delivery
    assert (report.applied, report.replayed, report.refused) == (2, 1, [])
    assert acked_when_committed == [True, True, True]
    assert pending_keys(store) == []
    everyone = [alice, bob, carol, wallet.house]
    assert balances(wallet, everyone) == [19_996, 19_996, 19_996, 12]
    assert sum(balances(wallet, everyone)) == wallet.grants_total()
    assert_ledger_sound(wallet, everyone)


def test_a_refused_entry_sends_the_batch_one_by_one_and_blocks_no_other(
    wallet: Wallet, store: TableStore
) -> None:
    alice, bob = players(wallet, 2)
    for table in ("t1", "t3"):
        wallet.hold_hand(f"{table}-1", {alice: 100, bob: 100})
        queue(store, table, (f"settle:{table}-1", hand_payload(f"{table}-1", table, alice, bob, 100, fee=2)))
    stranger = bob + 1_000
    queue(store, "t2", ("settle:t2-1", hand_payload("t2-1", "t2", alice, stranger, 100)))
    wallet.hold_hand("t4-1", {alice: 50, bob: 50})
    settled_before = hand_payload("t4-1", "t4", bob, alice, 50)
    Settler(wallet)(SettlementOrder.from_json(settled_before))
    queue(store, "t4", ("settle:t4-1", settled_before))
    settler = CountingSettler(wallet)
    report = relay_outbox(store, settler)
    assert (settler.batches, settler.singles) == ([4], 4)
    assert (report.applied, report.replayed) == (2, 1)
    assert [(table, key) for table, key, _ in report.refused] == [("t2", "settle:t2-1")]
    assert report.refused[0][2] == f"no account {stranger}"
    assert pending_keys(store) == ["t2/settle:t2-1"]
    everyone = [alice, bob, wallet.house]
    assert balances(wallet, everyone) == [19_850, 20_146, 4]
    assert sum(balances(wallet, everyone)) == wallet.grants_total() == 40_000
    assert wallet.settlement("t2-1") is None
    assert_ledger_sound(wallet, everyone)


def test_a_database_failure_in_a_batch_acks_nothing(
    wallet: Wallet, store: TableStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = players(wallet, 2)
    for table in ("t1", "t2"):
        wallet.hold_hand(f"{table}-1", {alice: 100, bob: 100})
        queue(store, table, (f"settle:{table}-1", hand_payload(f"{table}-1", table, alice, bob, 100)))

    def database_down(*_args: Any) -> Any:
        raise sa.exc.OperationalError("COMMIT", {}, OSError("the database went away"))

    monkeypatch.setattr(wallet_store, "apply_settlements", database_down)
    with pytest.raises(sa.exc.OperationalError):
        relay_outbox(store, Settler(wallet))
    assert pending_keys(store) == ["t1/settle:t1-1", "t2/settle:t2-1"]
    assert balances(wallet, [alice, bob]) == [20_000, 20_000]
    monkeypatch.undo()
    assert relay_outbox(store, Settler(wallet)).applied == 2
    assert pending_keys(store) == []
    assert balances(wallet, [alice, bob]) == [19_800, 20_200]


def test_a_malformed_entry_stays_out_of_the_batch(wallet: Wallet, store: TableStore) -> None:
    alice, bob = players(wallet, 2)
    for table in ("t1", "t2"):
        wallet.hold_hand(f"{table}-1", {alice: 100, bob: 100})
        queue(store, table, (f"settle:{table}-1", hand_payload(f"{table}-1", table, alice, bob, 100)))
    queue(store, "t3", ("settle:t3-1", json.dumps({"hand_id": "t3-1"}).encode()))
    settler = CountingSettler(wallet)
    report = relay_outbox(store, settler)
    assert (settler.batches, settler.singles, report.applied) == ([2], 0, 2)
    assert pending_keys(store) == ["t3/settle:t3-1"]


def test_coins_many_gives_each_accounts_total_and_held_coins_at_once(wallet: Wallet) -> None:
    alice, bob, carol = players(wallet, 3)
    wallet.hold_hand("hand-1", {alice: 700, bob: 50})
    wallet.hold("hand-2", alice, 300)
    coins = wallet.coins_many([carol, alice, bob, alice])
    assert {account: (c.total, c.held, c.available) for account, c in coins.items()} == {
        alice: (20_000, 1_000, 19_000), bob: (20_000, 50, 19_950), carol: (20_000, 0, 20_000)}
    assert all(coins[a].available == wallet.available(a) and coins[a].held == wallet.held(a) for a in coins)
    assert wallet.coins_many([]) == {}
    with pytest.raises(UnknownAccount):
        wallet.coins_many([alice, carol + 1_000])
