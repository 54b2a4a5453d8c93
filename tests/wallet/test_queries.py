"""Balances, history pages, totals, levels and the per-game leaderboard source."""

from __future__ import annotations

import pytest

from paiju.games.zhajinhua import level_for
from paiju.platform import game_levels
from paiju.wallet import InsufficientFunds, LeaderboardRow, Reason, Wallet

from .helpers import execute_raw, players


def play(wallet: Wallet, hand: str, game: str, loser: int, winner: int, coins: int) -> None:
    """A two-player hand that ``winner`` wins, paying the house a 1 % fee."""
    fee = coins // 100
    wallet.hold_hand(hand, {loser: coins, winner: coins})
    lines = [(loser, -coins, "stake"), (winner, coins - fee, "pot"), (wallet.house, fee, "fee")]
    wallet.settle(hand, game, lines)


def test_history_is_newest_first_and_pages_with_before(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    for number in range(5):
        wallet.grant(alice, 10 + number, f"g{number}")
    play(wallet, "hand-1", "zhajinhua", alice, bob, 1_000)
    everything = wallet.history(alice, limit=100)
    assert [entry.amount for entry in everything] == [-1_000, 14, 13, 12, 11, 10, 20_000]
    assert [entry.id for entry in everything] == sorted((e.id for e in everything), reverse=True)
    running = 0
    for entry in reversed(everything):
        running += entry.amount
        assert entry.balance_after == running
    first_page = wallet.history(alice, limit=3)
    second_page = wallet.history(alice, limit=3, before=first_page[-1].id)
    third_page = wallet.history(alice, limit=3, before=second_page[-1].id)
    assert first_page + second_page + third_page == everything
    assert wallet.history(alice, before=everything[-1].id) == []
    assert [entry.reason for entry in wallet.history(alice, game="zhajinhua")] == [Reason.STAKE]
    assert all(entry.created_at.tzinfo is not None for entry in everything)


@pytest.mark.parametrize(
    ("limit", "before", "error", "message"),
    [
        (0, None, ValueError, "above zero"),
        (1_001, None, ValueError, "at most 1000"),
        ("10", None, TypeError, "whole number"),
        (10, "5", TypeError, "whole number"),
    ],
)
def test_bad_history_pages_are_refused(
    wallet: Wallet, limit: object, before: object, error: type[Exception], message: str
) -> None:
    [alice] = players(wallet, 1)
    with pytest.raises(error, match=message):
        wallet.history(alice, limit=limit, before=before)  # type: ignore[arg-type]


def test_total_coins_change_only_by_grants(wallet: Wallet) -> None:
    assert wallet.total_coins() == wallet.grants_total() == 0
    alice, bob, carol = players(wallet, 3)
    assert wallet.total_coins() == wallet.grants_total() == 60_000
    play(wallet, "hand-1", "zhajinhua", alice, bob, 5_000)
    wallet.transfer(bob, carol, 1_234, "t")
    assert wallet.total_coins() == 60_000
    wallet.grant(carol, 66, "bonus-grant")
    assert wallet.total_coins() == wallet.grants_total() == 60_066
    assert wallet.balance(wallet.house) == 50


def test_level_follows_the_balance(wallet: Wallet) -> None:
    levels = game_levels()["zhajinhua"]

    def level(account: int) -> tuple[int, str]:
        read = levels.read(wallet.balance(account))
        return read.level, read.title

    alice, bob = players(wallet, 2)
    assert level(alice) == level_for(20_000)
    play(wallet, "hand-1", "zhajinhua", alice, bob, 19_950)
    assert wallet.balance(alice) == 50
    assert level(alice) == (1, "穷光蛋")
    wallet.grant(bob, 10**10, "rich")
    assert level(bob) == (27, "全球首富")


def test_top_ranks_players_by_coins_won_in_one_game(wallet: Wallet) -> None:
    alice, bob, carol, dave = players(wallet, 4)
    play(wallet, "z1", "zhajinhua", alice, bob, 1_000)  # bob +990, alice -1000
    play(wallet, "z2", "zhajinhua", carol, bob, 100)  # bob +99, carol -100
    play(wallet, "z3", "zhajinhua", alice, carol, 500)  # carol +495, alice -500
    play(wallet, "h1", "hunzhan", bob, dave, 5_000)  # another game: not on this board
    wallet.grant(alice, 10_000, "outside any game")  # nor are grants
    assert wallet.top("zhajinhua", 10) == [
        LeaderboardRow(bob, "player1", 1_089),
        LeaderboardRow(carol, "player2", 395),
        LeaderboardRow(alice, "player0", -1_500),
    ]
    assert wallet.top("zhajinhua", 1) == [LeaderboardRow(bob, "player1", 1_089)]
    assert wallet.top("hunzhan", 10) == [
        LeaderboardRow(dave, "player3", 4_950),
        LeaderboardRow(bob, "player1", -5_000),
    ]
    assert wallet.top("chaodipi", 10) == []
    with pytest.raises(ValueError, match="above zero"):
        wallet.top("zhajinhua", 0)


def test_top_breaks_ties_by_account(wallet: Wallet) -> None:
    alice, bob, carol, dave = players(wallet, 4)
    play(wallet, "z1", "zhajinhua", alice, dave, 100)
    play(wallet, "z2", "zhajinhua", carol, bob, 100)
    assert [row.account for row in wallet.top("zhajinhua", 4)] == [bob, dave, alice, carol]


def test_every_amount_comes_back_as_an_int(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    play(wallet, "z1", "zhajinhua", alice, bob, 1_000)
    wallet.hold("z2", alice, 300)
    amounts = [
        wallet.balance(alice),
        wallet.available(alice),
        wallet.held(alice),
        wallet.ledger_balance(alice),
        wallet.total_coins(),
        wallet.grants_total(),
        *(row.net for row in wallet.top("zhajinhua", 5)),
        *(entry.amount for entry in wallet.history(alice)),
        *(entry.balance_after for entry in wallet.history(alice)),
    ]
    assert all(type(amount) is int for amount in amounts), [type(a) for a in amounts]
    with pytest.raises(InsufficientFunds) as raised:
        wallet.hold("z3", alice, 10**9)
    assert type(raised.value.available) is int
    execute_raw(wallet, "UPDATE wallet_accounts SET balance = balance + 1 WHERE id = :a", a=alice)
    [mismatch] = wallet.check_balances()
    assert type(mismatch.ledger) is int and type(mismatch.cached) is int
