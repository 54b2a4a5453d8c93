"""The ledger writes each changed account's available coins to the tables' board of coins.

A press of start answered on the event loop trusts the board to let a player through, so every
write of the ledger that changes what an account may stake must reach it.
"""

from __future__ import annotations

import fakeredis
import pytest

from paiju.wallet import InsufficientFunds, Wallet
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.model import Line, Reason


class Announcements:
    def __init__(self) -> None:
        self.seen: list[dict[int, int]] = []

    def __call__(self, coins: dict[int, int]) -> None:
        self.seen.append(dict(coins))

    def last(self) -> dict[int, int]:
        return self.seen[-1]


@pytest.fixture
def announced(wallet: Wallet) -> Announcements:
    listener = Announcements()
    wallet.on_available = listener
    return listener


def test_every_write_that_changes_coins_announces_each_changed_accounts_available_coins(
    wallet: Wallet, announced: Announcements
) -> None:
    alice = wallet.register("alice", "alice's secret")
    assert announced.last() == {alice: 20_000}
    bob = wallet.register("bob", "bob's secret")
    wallet.grant(alice, 500, "grant-1")
    assert announced.last() == {alice: 20_500}
    wallet.transfer(alice, bob, 1_500, "gift-1")
    assert announced.last() == {alice: 19_000, bob: 21_500}
    wallet.hold("hand-1", alice, 4_000)
    assert announced.last() == {alice: 15_000}
    wallet.hold_hand("hand-2", {alice: 1_000, bob: 2_000})
    assert announced.last() == {alice: 14_000, bob: 19_500}
    assert wallet.release("hand-2") == 3_000
    assert announced.last() == {alice: 15_000, bob: 21_500}
    wallet.settle("hand-1", "zhajinhua", [Line(alice, -300, Reason.STAKE), Line(bob, 290, Reason.POT),
                                          Line(wallet.house, 10, Reason.FEE)])
    assert announced.last() == {alice: 18_700, bob: 21_790}  # the house is never seated


def test_a_hold_announces_the_coins_its_own_transaction_counted_without_reading_again(
    wallet: Wallet, announced: Announcements, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = wallet.register("alice", "alice's secret"), wallet.register("bob", "bob's secret")
    wallet.hold("elsewhere", bob, 5_000)

    def no_read() -> None:
        raise AssertionError("a hold's notice read the ledger again")

    monkeypatch.setattr(wallet.database, "read", no_read)
    wallet.hold_hand("hand-1", {alice: 1_000, bob: 2_000})
    assert announced.last() == {alice: 19_000, bob: 13_000}


def test_a_settlement_announces_what_it_counted_and_a_replay_reads_the_ledger(
    wallet: Wallet, announced: Announcements, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = wallet.register("alice", "alice's secret"), wallet.register("bob", "bob's secret")
    wallet.hold_hand("hand-1", {alice: 1_000, bob: 1_000})
    wallet.hold("elsewhere", bob, 4_000)  # another table's hand: still held after hand-1
    lines = [Line(alice, -500, Reason.STAKE), Line(bob, -500, Reason.STAKE), Line(bob, 990, Reason.POT),
             Line(wallet.house, 10, Reason.FEE)]
    read = wallet.database.read

    def no_read() -> None:
        raise AssertionError("a settlement's notice read the ledger again")

    monkeypatch.setattr(wallet.database, "read", no_read)
    wallet.settle("hand-1", "zhajinhua", lines)
    assert announced.last() == {alice: 19_500, bob: 20_490 - 4_000}
    monkeypatch.setattr(wallet.database, "read", read)
    announced.seen.clear()
    assert wallet.settle("hand-1", "zhajinhua", lines).replayed
    assert announced.seen == [{alice: 19_500, bob: 16_490}]  # read: the first notice may have been lost


def test_bug_a_player_who_broke_even_had_the_hold_released_and_the_board_never_heard_of_it(
    wallet: Wallet, announced: Announcements
) -> None:
    # A 混战 hand can leave a player at exactly 0: the settlement has no line for them, yet it
    # releases their hold. The board kept their coins less the hold, so their next start was
    # dealt from coins too low, refused by the ledger and dealt again.
    alice, bob, carol = (wallet.register(name, f"{name}'s secret") for name in ("alice", "bob", "carol"))
    wallet.hold_hand("hand-1", {alice: 1_000, bob: 1_000, carol: 1_000})
    announced.seen.clear()
    wallet.settle("hand-1", "hunzhan", [Line(alice, -100, Reason.STAKE), Line(bob, 95, Reason.POT),
                                        Line(wallet.house, 5, Reason.FEE)])
    told = {account: coins for notice in announced.seen for account, coins in notice.items()}
    assert told == {alice: 19_900, bob: 20_095, carol: 20_000}
    assert told[carol] == wallet.available(carol)


def test_a_refused_write_announces_nothing(wallet: Wallet, announced: Announcements) -> None:
    alice = wallet.register("alice", "alice's secret")
    before = len(announced.seen)
    with pytest.raises(InsufficientFunds):
        wallet.hold_hand("hand-1", {alice: 20_001})
    assert len(announced.seen) == before


def test_a_listener_that_fails_leaves_the_ledgers_write_standing(wallet: Wallet) -> None:
    def unreachable(coins: dict[int, int]) -> None:
        raise ConnectionError("the board's Redis is restarting")

    wallet.on_available = unreachable
    alice = wallet.register("alice", "alice's secret")
    wallet.hold("hand-1", alice, 700)
    assert wallet.available(alice) == 19_300


def test_the_board_keeps_what_the_ledger_last_said_for_a_bounded_time(wallet: Wallet) -> None:
    client = fakeredis.FakeRedis()
    board = AvailableCoinsBoard(client, "board-test", ttl_seconds=90)
    wallet.on_available = board.publish
    alice = wallet.register("alice", "alice's secret")
    wallet.hold("hand-1", alice, 19_000)
    assert board.available(str(alice)) == 1_000
    assert board.available("424242") is None
    assert 0 < client.ttl(f"board-test:coins:{alice}") <= 90


def test_a_board_needs_a_positive_lifetime() -> None:
    with pytest.raises(ValueError, match="positive"):
        AvailableCoinsBoard(fakeredis.FakeRedis(), ttl_seconds=0)
