"""Holds: the most a player can lose in a hand, set aside at its start."""

from __future__ import annotations

import pytest

from paiju.wallet import (
    Coins,
    CoinsChanged,
    HandAlreadySettled,
    Hold,
    HoldConflict,
    InsufficientFunds,
    UnknownAccount,
    Wallet,
)

from .helpers import players, row_count


def test_a_hold_lowers_what_is_available_not_the_balance(wallet: Wallet) -> None:
    [alice] = players(wallet, 1)
    assert wallet.hold("hand-1", alice, 6_000) == Hold("hand-1", alice, 6_000)
    assert (wallet.balance(alice), wallet.held(alice), wallet.available(alice)) == (
        20_000,
        6_000,
        14_000,
    )
    wallet.hold("hand-2", alice, 14_000)
    assert wallet.available(alice) == 0
    assert wallet.holds("hand-1") == {alice: 6_000}


def test_a_hold_beyond_the_available_coins_fails_and_holds_nothing(wallet: Wallet) -> None:
    [alice] = players(wallet, 1)
    wallet.hold("hand-1", alice, 15_000)
    with pytest.raises(InsufficientFunds) as raised:
        wallet.hold("hand-2", alice, 5_001)
    assert (raised.value.account, raised.value.needed, raised.value.available) == (
        alice,
        5_001,
        5_000,
    )
    assert "5,000 coins available" in str(raised.value)
    assert wallet.holds("hand-2") == {}
    assert wallet.available(alice) == 5_000


def test_holding_again_is_idempotent_for_the_same_amount_and_refused_for_another(
    wallet: Wallet,
) -> None:
    [alice] = players(wallet, 1)
    wallet.hold("hand-1", alice, 12_000)
    assert wallet.hold("hand-1", alice, 12_000) == Hold("hand-1", alice, 12_000)
    assert wallet.available(alice) == 8_000
    with pytest.raises(HoldConflict) as raised:
        wallet.hold("hand-1", alice, 11_000)
    assert (raised.value.held, raised.value.asked) == (12_000, 11_000)
    assert wallet.holds("hand-1") == {alice: 12_000}


def test_a_hand_holds_every_player_or_none(wallet: Wallet) -> None:
    rich, poor, other = players(wallet, 3)
    wallet.transfer(poor, rich, 19_000, "empty the poor one")
    with pytest.raises(InsufficientFunds) as raised:
        wallet.hold_hand("hand-1", {rich: 5_000, poor: 5_000, other: 5_000})
    assert raised.value.account == poor
    assert wallet.holds("hand-1") == {}
    assert wallet.hold_hand("hand-1", [(rich, 5_000), (poor, 1_000), (other, 0)]) == [
        Hold("hand-1", rich, 5_000),
        Hold("hand-1", poor, 1_000),
        Hold("hand-1", other, 0),
    ]
    # Asking again with the same holds is the idempotent retry of the table engine.
    assert len(wallet.hold_hand("hand-1", {rich: 5_000, poor: 1_000, other: 0})) == 3
    with pytest.raises(HoldConflict):
        wallet.hold_hand("hand-1", {rich: 5_000, poor: 999})
    assert wallet.holds("hand-1") == {rich: 5_000, poor: 1_000}  # a hold of 0 leaves no row


def test_holds_dealt_from_expected_coins_are_placed_only_when_the_ledger_has_exactly_those(
    wallet: Wallet,
) -> None:
    alice, bob = players(wallet, 2)
    wallet.hold("another-table", alice, 2_000)
    with pytest.raises(CoinsChanged) as raised:
        wallet.hold_hand("hand-1", {alice: 500, bob: 500}, expected_available={alice: 20_000, bob: 20_000})
    assert (raised.value.account, raised.value.expected, raised.value.available) == (alice, 20_000, 18_000)
    assert wallet.holds("hand-1") == {}
    # More coins than expected is a change too: the hand's stakes were dealt from the coins.
    wallet.release("another-table")
    with pytest.raises(CoinsChanged):
        wallet.hold_hand("hand-1", {alice: 500, bob: 500}, expected_available={alice: 18_000})
    held = wallet.hold_hand_with_coins("hand-1", {alice: 500, bob: 0}, expected_available={alice: 20_000})
    assert held.holds == [Hold("hand-1", alice, 500), Hold("hand-1", bob, 0)]
    assert held.coins == {alice: Coins(20_000, 500), bob: Coins(20_000, 0)}
    # The retry of holds already placed is not checked against what they took.
    assert len(wallet.hold_hand("hand-1", {alice: 500, bob: 0}, expected_available={alice: 20_000})) == 2
    assert wallet.available(alice) == 19_500


def test_expected_coins_name_only_accounts_the_hand_holds(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    with pytest.raises(ValueError, match="no hold in this hand"):
        wallet.hold_hand("hand-1", {alice: 500}, expected_available={bob: 20_000})
    with pytest.raises(ValueError, match="below zero"):
        wallet.hold_hand("hand-1", {alice: 500}, expected_available={alice: -1})
    assert wallet.holds("hand-1") == {}


def test_release_drops_the_hands_holds_and_says_how_many_coins(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    wallet.hold_hand("hand-1", {alice: 3_000, bob: 4_000})
    wallet.hold("hand-2", alice, 1_000)
    assert wallet.release("hand-1") == 7_000
    assert wallet.release("hand-1") == 0
    assert wallet.release("never-held") == 0
    assert (wallet.available(alice), wallet.available(bob)) == (19_000, 20_000)
    assert wallet.holds("hand-2") == {alice: 1_000}


def test_a_settled_hand_takes_no_new_hold_and_no_release(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    wallet.hold_hand("hand-1", {alice: 1_000, bob: 1_000})
    wallet.settle("hand-1", "zhajinhua", [(alice, -100, "stake"), (bob, 100, "pot")])
    with pytest.raises(HandAlreadySettled):
        wallet.hold("hand-1", alice, 1_000)
    with pytest.raises(HandAlreadySettled):
        wallet.release("hand-1")
    assert row_count(wallet, "wallet_holds") == 0


@pytest.mark.parametrize(
    ("hand_id", "amount", "error", "message"),
    [
        ("", 10, ValueError, "hand id has 1 to 64"),
        ("h" * 65, 10, ValueError, "hand id has 1 to 64"),
        (7, 10, TypeError, "hand id is a string"),
        ("hand", -1, ValueError, "cannot be below zero"),
        ("hand", 2.0, TypeError, "whole number"),
        ("hand", False, TypeError, "whole number"),
    ],
)
def test_bad_holds_are_refused(
    wallet: Wallet, hand_id: object, amount: object, error: type[Exception], message: str
) -> None:
    [alice] = players(wallet, 1)
    with pytest.raises(error, match=message):
        wallet.hold(hand_id, alice, amount)  # type: ignore[arg-type]
    assert row_count(wallet, "wallet_holds") == 0


def test_bad_hand_holds_are_refused(wallet: Wallet) -> None:
    alice, bob = players(wallet, 2)
    with pytest.raises(ValueError, match="at least one account"):
        wallet.hold_hand("hand", {})
    with pytest.raises(ValueError, match="held twice"):
        wallet.hold_hand("hand", [(alice, 1), (alice, 2)])
    with pytest.raises(TypeError, match="is \\(account, amount\\)"):
        wallet.hold_hand("hand", [(alice, 1, 2)])  # type: ignore[list-item]
    with pytest.raises(UnknownAccount):
        wallet.hold_hand("hand", {alice: 1, bob + 100: 1})
    assert row_count(wallet, "wallet_holds") == 0
