"""Settling a hand: zero-sum lines, within the holds, exactly once."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from paiju.wallet import (
    InsufficientFunds,
    Line,
    LossExceedsHold,
    Reason,
    SettlementConflict,
    UnbalancedSettlement,
    UnknownAccount,
    Wallet,
)

from .helpers import balances, execute_raw, players, row_count


def three_player_hand(wallet: Wallet, hand_id: str = "hand-1") -> tuple[list[int], list[Line]]:
    """Alice loses 1,000, Bob 500 (plus an escape penalty of 200), Carol wins; the house takes
    a 50 fee."""
    alice, bob, carol = players(wallet, 3)
    wallet.hold_hand(hand_id, {alice: 2_000, bob: 2_000, carol: 2_000})
    lines = [
        Line(alice, -1_000, Reason.STAKE, "compare lost"),
        Line(bob, -500, Reason.STAKE),
        Line(bob, -200, Reason.ESCAPE_PENALTY),
        Line(carol, 1_600, Reason.POT),
        Line(carol, 50, Reason.BONUS, "trips"),
        Line(wallet.house, 50, Reason.FEE),
    ]
    return [alice, bob, carol], lines


def test_a_settlement_moves_coins_releases_holds_and_records_entries(wallet: Wallet) -> None:
    (alice, bob, carol), lines = three_player_hand(wallet)
    result = wallet.settle("hand-1", "zhajinhua", lines)
    assert result.lines == tuple(lines) and not result.replayed
    assert balances(wallet, [alice, bob, carol, wallet.house]) == [19_000, 19_300, 21_650, 50]
    assert wallet.holds("hand-1") == {}
    assert [wallet.available(a) for a in (alice, bob, carol)] == [19_000, 19_300, 21_650]
    [newest, older] = wallet.history(bob, limit=2)
    assert (older.amount, older.reason, older.hand_id, older.game) == (
        -500, Reason.STAKE, "hand-1", "zhajinhua",
    )
    assert (newest.amount, newest.reason, newest.balance_after) == (
        -200, Reason.ESCAPE_PENALTY, 19_300,
    )
    assert wallet.history(alice, limit=1)[0].detail == "compare lost"
    assert wallet.settlement("hand-1") == result.__class__(
        "hand-1", "zhajinhua", tuple(lines), replayed=True
    )
    assert wallet.total_coins() == wallet.grants_total()


def test_settling_twice_is_settling_once(wallet: Wallet) -> None:
    (alice, bob, carol), lines = three_player_hand(wallet)
    first = wallet.settle("hand-1", "zhajinhua", lines)
    after_first = balances(wallet, [alice, bob, carol, wallet.house])
    entries = row_count(wallet, "wallet_entries")
    for delivery in (lines, list(reversed(lines)), [_as_tuple(line) for line in lines]):
        again = wallet.settle("hand-1", "zhajinhua", delivery)
        assert again.replayed and again.lines == first.lines
    assert balances(wallet, [alice, bob, carol, wallet.house]) == after_first
    assert row_count(wallet, "wallet_entries") == entries
    assert row_count(wallet, "wallet_settlements") == 4


def _as_tuple(line: Line) -> tuple[int, int, str, str]:
    return (line.account, line.amount, line.reason.value, line.detail)


def test_a_second_delivery_with_other_lines_is_refused(wallet: Wallet) -> None:
    (alice, _bob, carol), lines = three_player_hand(wallet)
    wallet.settle("hand-1", "zhajinhua", lines)
    before = balances(wallet, [alice, carol])
    with pytest.raises(SettlementConflict):
        wallet.settle("hand-1", "zhajinhua", [(alice, -10, "stake"), (carol, 10, "pot")])
    with pytest.raises(SettlementConflict):
        wallet.settle("hand-1", "hunzhan", lines)
    assert balances(wallet, [alice, carol]) == before


def test_lines_must_add_up_to_zero_with_the_house(wallet: Wallet) -> None:
    (alice, _bob, carol), _lines = three_player_hand(wallet)
    with pytest.raises(UnbalancedSettlement) as raised:
        wallet.settle("hand-1", "zhajinhua", [(alice, -1_000, "stake"), (carol, 1_000, "pot"),
                                             (wallet.house, 10, "fee")])
    assert raised.value.total == 10
    assert "+10" in str(raised.value)
    assert wallet.settlement("hand-1") is None
    assert wallet.holds("hand-1")[alice] == 2_000  # the holds stay until a real settlement


def test_a_loss_above_the_hold_is_refused(wallet: Wallet) -> None:
    (alice, bob, carol), _lines = three_player_hand(wallet)
    with pytest.raises(LossExceedsHold) as raised:
        wallet.settle("hand-1", "zhajinhua", [(alice, -2_001, "stake"), (carol, 2_001, "pot")])
    assert (raised.value.account, raised.value.loss, raised.value.held) == (alice, 2_001, 2_000)
    # A loss spread over several lines counts whole.
    with pytest.raises(LossExceedsHold):
        wallet.settle("hand-1", "zhajinhua", [(bob, -1_500, "stake"),
                                             (bob, -600, "escape_penalty"), (carol, 2_100, "pot")])
    assert balances(wallet, [alice, bob, carol]) == [20_000, 20_000, 20_000]
    assert wallet.settlement("hand-1") is None


def test_a_loss_without_a_hold_is_refused(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    with pytest.raises(LossExceedsHold) as raised:
        wallet.settle("no-holds", "zhajinhua", [(alice, -1, "stake"), (bob, 1, "pot")])
    assert raised.value.held == 0
    wallet.hold("zero", alice, 0)
    with pytest.raises(LossExceedsHold):
        wallet.settle("zero", "zhajinhua", [(alice, -1, "stake"), (bob, 1, "pot")])


def test_settling_releases_holds_of_players_without_lines(wallet: Wallet) -> None:
    alice, bob, folded = players(wallet, 3)
    wallet.hold_hand("hand-1", {alice: 500, bob: 500, folded: 500})
    wallet.settle("hand-1", "zhajinhua", [(alice, -100, "stake"), (bob, 100, "pot")])
    assert wallet.available(folded) == 20_000
    assert row_count(wallet, "wallet_holds") == 0


def test_zero_lines_record_that_a_player_was_in_the_hand(wallet: Wallet) -> None:
    alice, bob, even = players(wallet, 3)
    wallet.hold_hand("hand-1", {alice: 500, bob: 500, even: 500})
    wallet.settle("hand-1", "zhajinhua", [(alice, -100, "stake"), (bob, 100, "pot"),
                                         (even, 0, "stake")])
    assert wallet.balance(even) == 20_000
    assert row_count(wallet, "wallet_settlements") == 3


def test_a_settlement_never_takes_a_balance_below_zero(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    wallet.hold("hand-1", alice, 20_000)
    # Someone bypasses the API and empties the account while the hand is on.
    execute_raw(wallet, "UPDATE wallet_accounts SET balance = 100 WHERE id = :id", id=alice)
    with pytest.raises(InsufficientFunds):
        wallet.settle("hand-1", "zhajinhua", [(alice, -20_000, "stake"), (bob, 20_000, "pot")])
    assert wallet.balance(alice) == 100
    assert wallet.settlement("hand-1") is None


def test_fees_go_to_the_house_only(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    wallet.hold("hand-1", alice, 1_000)
    with pytest.raises(ValueError, match="fee line pays the house"):
        wallet.settle("hand-1", "zhajinhua", [(alice, -100, "stake"), (bob, 90, "pot"),
                                             (bob, 10, "fee")])
    with pytest.raises(ValueError, match="fee line pays the house"):
        wallet.settle("hand-1", "zhajinhua", [(alice, 10, "stake"), (wallet.house, -10, "fee")])


@pytest.mark.parametrize(
    ("hand_id", "game", "lines", "error", "message"),
    [
        ("hand", "zhajinhua", [], ValueError, "at least one line"),
        ("hand", "zhajinhua", "1,-1,stake", TypeError, "list of \\(account, amount, reason\\)"),
        ("hand", "zhajinhua", [(1, -1)], TypeError, "line 1 is not"),
        ("hand", "zhajinhua", [(1, -1, "grant"), (2, 1, "pot")], ValueError, "'grant' is not one"),
        ("hand", "zhajinhua", [(1, -1, "transfer")], ValueError, "'transfer' is not one"),
        ("hand", "zhajinhua", [(1, -1, "stake"), (2, 1.0, "pot")], TypeError, "amount of line 2"),
        ("hand", "zhajinhua", [(1, -1, "stake", 5)], TypeError, "detail of line 1"),
        ("", "zhajinhua", [(1, 0, "stake")], ValueError, "hand id"),
        ("hand", "", [(1, 0, "stake")], ValueError, "game name has 1 to 32"),
    ],
)
def test_malformed_settlements_are_refused_clearly(
    wallet: Wallet,
    hand_id: str,
    game: str,
    lines: object,
    error: type[Exception],
    message: str,
) -> None:
    with pytest.raises(error, match=message):
        wallet.settle(hand_id, game, lines)  # type: ignore[arg-type]
    assert row_count(wallet, "wallet_hands") == 0


def test_a_settlement_naming_an_unknown_account_is_refused(wallet: Wallet) -> None:
    alice, _ = players(wallet, 2)
    wallet.hold("hand-1", alice, 100)
    with pytest.raises(UnknownAccount):
        wallet.settle("hand-1", "zhajinhua", [(alice, -100, "stake"), (alice + 50, 100, "pot")])
    assert wallet.settlement("hand-1") is None
    assert wallet.holds("hand-1") == {alice: 100}


def test_the_database_keeps_one_settlement_row_per_hand_and_account(wallet: Wallet) -> None:
    (alice, _bob, _carol), lines = three_player_hand(wallet)
    wallet.settle("hand-1", "zhajinhua", lines)
    with pytest.raises(sa.exc.IntegrityError):
        execute_raw(
            wallet,
            "INSERT INTO wallet_settlements (hand_id, account_id, net) VALUES ('hand-1', :a, 0)",
            a=alice,
        )
