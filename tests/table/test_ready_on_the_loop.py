"""A press of start answered without the ledger (``ask_ledger=False``, as on the event loop).

The board of coins (:mod:`paiju.wallet.coins_board`) may only let a player through: a press it
cannot let through, and the press that starts the hand, raise ``LedgerNeeded`` having changed
nothing, and are made again where the ledger may be asked. A hand's start deals from the
board's coins when it knows every player, and its holds confirm them in the ledger.
"""

from __future__ import annotations

import pytest

from paiju.games.engine import IllegalAction
from paiju.table.commits import LedgerNeeded
from paiju.table.deadline_names import Timers
from paiju.table.store import TableStore
from paiju.table.tables import Tables
from paiju.wallet import Wallet
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.table_port import DirectWallet


class CountedLedger(DirectWallet):
    """The ledger's port, counting the questions a press asks it."""

    def __init__(self, wallet: Wallet) -> None:
        super().__init__(wallet)
        self.questions = 0

    def available(self, account: str) -> int:
        self.questions += 1
        return super().available(account)

    def available_many(self, accounts: list[str]) -> list[int]:
        self.questions += 1
        return super().available_many(accounts)


@pytest.fixture
def board(store: TableStore, wallet: Wallet) -> AvailableCoinsBoard:
    board = AvailableCoinsBoard(store.client, store.prefix)
    wallet.on_available = board.publish
    return board


@pytest.fixture
def ledger(wallet: Wallet) -> CountedLedger:
    return CountedLedger(wallet)


@pytest.fixture
def tables(store: TableStore, ledger: CountedLedger, clock, board: AvailableCoinsBoard) -> Tables:  # type: ignore[no-untyped-def]
    return Tables(store, ledger, Timers(turn_ms=20_000, ready_kick_ms=20_000), clock_ms=clock, randbelow=lambda n: 0, coins_board=board)


def seated(tables: Tables, wallet: Wallet, tier: str = "free", count: int = 3) -> list[str]:
    tables.open("t1", "zhajinhua", tier)
    accounts = [str(wallet.register(f"p{i}", "secret password")) for i in range(count)]
    for account in accounts:
        tables.sit("t1", account, f"name-{account}")
    return accounts


def ready_seats(tables: Tables) -> list[int]:
    record = tables.load("t1")[1]
    return [seat for seat, taken in enumerate(record.seats) if taken is not None and taken.ready]


def test_a_press_the_board_lets_through_is_answered_without_asking_the_ledger(tables, wallet, ledger) -> None:
    first, second, _ = seated(tables, wallet)
    ledger.questions = 0  # a sit asks the ledger
    tables.ready("t1", first, ask_ledger=False)
    tables.ready("t1", second, ask_ledger=False)
    assert ready_seats(tables) == [0, 1]
    assert ledger.questions == 0


def test_the_press_that_starts_the_hand_changes_nothing_without_the_ledger(tables, wallet, store) -> None:
    accounts = seated(tables, wallet)
    for account in accounts[:2]:
        tables.ready("t1", account, ask_ledger=False)
    version = store.load("t1").version
    with pytest.raises(LedgerNeeded, match="starts the hand"):
        tables.ready("t1", accounts[2], ask_ledger=False)
    assert store.load("t1").version == version and ready_seats(tables) == [0, 1]
    assert wallet.available(int(accounts[2])) == 20_000  # nothing held
    tables.ready("t1", accounts[2])  # where the ledger may be asked: the hand starts
    assert tables.view("t1", accounts[2])["hand"] is not None


def test_a_player_the_board_does_not_know_is_sent_to_the_ledger(tables, wallet, store) -> None:
    first, _, _ = seated(tables, wallet)
    store.client.delete(f"{store.prefix}:coins:{first}")  # expired, or never written
    with pytest.raises(LedgerNeeded, match="does not know"):
        tables.ready("t1", first, ask_ledger=False)
    assert ready_seats(tables) == []
    tables.ready("t1", first)
    assert ready_seats(tables) == [0]


def test_a_board_behind_a_grant_never_refuses_a_player_the_ledger_lets_play(tables, wallet, board) -> None:
    first, _, _ = seated(tables, wallet, tier="expert")
    board.publish({int(first): 100})  # out of date: the ledger says 20,000
    with pytest.raises(LedgerNeeded, match="too few"):
        tables.ready("t1", first, ask_ledger=False)
    tables.ready("t1", first)
    assert ready_seats(tables) == [0]


def test_the_ledger_still_refuses_a_player_whose_coins_a_hold_elsewhere_took(tables, wallet) -> None:
    poor, _, _ = seated(tables, wallet, tier="expert")
    wallet.hold("a-hand-elsewhere", int(poor), 15_000)  # 5,000 left, the expert room needs 10,100
    with pytest.raises(LedgerNeeded):
        tables.ready("t1", poor, ask_ledger=False)
    with pytest.raises(IllegalAction) as refused:
        tables.ready("t1", poor)
    assert refused.value.code == "not_enough_coins"
    assert ready_seats(tables) == []


def test_a_press_a_stale_board_let_through_is_stood_up_by_the_start_not_dealt_in(tables, wallet, board) -> None:
    poor, *others = seated(tables, wallet, tier="expert")
    wallet.on_available = None  # the hold below never reaches the board: it still says 20,000
    wallet.hold("a-hand-elsewhere", int(poor), 15_000)
    tables.ready("t1", poor, ask_ledger=False)
    for account in others:
        tables.ready("t1", account)
    assert tables.view("t1", others[0])["hand"] is not None
    assert tables.load("t1")[1].seat_of(poor) is None
    assert wallet.available(int(poor)) == 5_000  # nothing of the hand was held from them


def test_a_start_the_board_knows_asks_the_ledger_nothing_but_the_holds(tables, wallet, ledger) -> None:
    accounts = seated(tables, wallet)
    for account in accounts[:2]:
        tables.ready("t1", account, ask_ledger=False)
    ledger.questions = 0
    tables.ready("t1", accounts[2])
    hand = tables.load("t1")[1].hand
    assert hand is not None and ledger.questions == 0
    held = wallet.holds(hand.hand_id)
    assert sorted(held) == sorted(int(account) for account in accounts) and min(held.values()) > 0
    assert [taken.coins for taken in tables.load("t1")[1].seats if taken is not None] == [20_000] * 3


def test_a_start_dealt_from_a_board_behind_the_ledger_is_dealt_again_from_the_ledger(tables, wallet, ledger) -> None:
    accounts = seated(tables, wallet)
    wallet.on_available = None  # the hold below never reaches the board: it still says 20,000
    wallet.hold("a-hand-elsewhere", int(accounts[1]), 2_000)
    for account in accounts[:2]:
        tables.ready("t1", account, ask_ledger=False)
    ledger.questions = 0
    tables.ready("t1", accounts[2])
    record = tables.load("t1")[1]
    assert record.hand is not None and ledger.questions == 1
    assert [taken.coins for taken in record.seats if taken is not None] == [20_000, 18_000, 20_000]
    held = wallet.holds(record.hand.hand_id)
    assert sorted(held) == sorted(int(account) for account in accounts)
    assert wallet.held(int(accounts[1])) == 2_000 + held[int(accounts[1])]  # the refused deal held nothing


def test_a_last_press_a_stale_board_let_through_is_refused_by_the_ledgers_coins(tables, wallet) -> None:
    poor, *others = seated(tables, wallet, tier="expert")
    wallet.on_available = None  # the hold below never reaches the board: it still says 20,000
    wallet.hold("a-hand-elsewhere", int(poor), 15_000)
    for account in others:
        tables.ready("t1", account, ask_ledger=False)
    with pytest.raises(IllegalAction) as refused:
        tables.ready("t1", poor)
    assert refused.value.code == "not_enough_coins"
    record = tables.load("t1")[1]
    assert record.hand is None and record.seat_of(poor) is not None
    assert [wallet.available(int(account)) for account in others] == [20_000, 20_000]  # nothing held
