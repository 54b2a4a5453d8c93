"""Random sequences of grants, transfers, holds and settlements against a model of the coins.

Whatever happens, the coins of all accounts (the house's included) add up to the coins ever
granted, no balance or available amount goes below zero, every cached balance is the sum of
its entries, and each balance is what the model predicts.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paiju.wallet import InsufficientFunds, LossExceedsHold, Wallet
from tests.volume import volume

from .helpers import players

PLAYERS = 4
player = st.integers(0, PLAYERS - 1)
coins = st.integers(1, 30_000)

grant_op = st.tuples(st.just("grant"), player, st.integers(1, 50_000))
transfer_op = st.tuples(st.just("transfer"), player, player, coins)
hand_op = st.tuples(
    st.just("hand"),
    st.lists(player, min_size=2, max_size=PLAYERS, unique=True),  # the first one wins
    st.lists(st.integers(0, 30_000), min_size=PLAYERS, max_size=PLAYERS),  # holds
    st.lists(st.integers(0, 30_000), min_size=PLAYERS, max_size=PLAYERS),  # losses, capped
    st.integers(0, 10),  # fee, per cent of the pot
    st.sampled_from(["settle", "settle twice", "abandon", "overreach"]),
)
operations = st.lists(st.one_of(grant_op, transfer_op, hand_op), max_size=10)


@dataclass
class Model:
    """What the balances and holds must be."""

    balance: dict[int, int]
    held: dict[int, int] = field(default_factory=dict)

    def available(self, account: int) -> int:
        return self.balance[account] - self.held.get(account, 0)


@pytest.fixture
def table(wallet: Wallet) -> tuple[Wallet, list[int]]:
    return wallet, players(wallet, PLAYERS)


@settings(
    max_examples=volume(suite=20, soak=60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=operations)
def test_coins_are_conserved_and_never_negative(
    table: tuple[Wallet, list[int]], ops: list[tuple[object, ...]]
) -> None:
    wallet, accounts = table
    everyone = [*accounts, wallet.house]
    model = Model({account: wallet.balance(account) for account in everyone})
    for account in accounts:
        model.held[account] = wallet.held(account)
    run = Runner(wallet, accounts, model)
    for op in ops:
        run.apply(op)
        assert wallet.total_coins() == wallet.grants_total()
    for account in everyone:
        assert wallet.balance(account) == model.balance[account] >= 0
        assert wallet.available(account) == model.available(account) >= 0
    assert wallet.check_balances() == []


_hands = itertools.count(1)


class Runner:
    """Applies one random operation to the wallet and to the model."""

    def __init__(self, wallet: Wallet, accounts: list[int], model: Model) -> None:
        self.wallet, self.accounts, self.model = wallet, accounts, model
        self.handlers: dict[object, Callable[..., None]] = {
            "grant": self.grant,
            "transfer": self.transfer,
            "hand": self.hand,
        }

    def apply(self, op: tuple[object, ...]) -> None:
        self.handlers[op[0]](*op[1:])

    def grant(self, who: int, amount: int) -> None:
        account = self.accounts[who]
        self.wallet.grant(account, amount, f"grant:test:{next(_hands)}")
        self.model.balance[account] += amount

    def transfer(self, source_index: int, target_index: int, amount: int) -> None:
        source, target = self.accounts[source_index], self.accounts[target_index]
        if source == target:
            return
        key = f"transfer:test:{next(_hands)}"
        if amount > self.model.available(source):
            with pytest.raises(InsufficientFunds):
                self.wallet.transfer(source, target, amount, key)
            return
        self.wallet.transfer(source, target, amount, key)
        self.model.balance[source] -= amount
        self.model.balance[target] += amount

    def hand(
        self,
        seats: list[int],
        hold_amounts: list[int],
        loss_draws: list[int],
        fee_percent: int,
        ending: str,
    ) -> None:
        hand = f"hand-{next(_hands)}"
        wallet, model = self.wallet, self.model
        seated = [self.accounts[seat] for seat in seats]
        holds = {account: hold_amounts[seat] for seat, account in zip(seats, seated, strict=True)}
        if any(amount > model.available(account) for account, amount in holds.items()):
            with pytest.raises(InsufficientFunds):
                wallet.hold_hand(hand, holds)
            assert wallet.holds(hand) == {}
            return
        wallet.hold_hand(hand, holds)
        for account, amount in holds.items():
            model.held[account] = model.held.get(account, 0) + amount
        if ending == "abandon":
            assert wallet.release(hand) == sum(holds.values())
        else:
            winner, losers = seated[0], seated[1:]
            losses = {
                loser: min(loss_draws[index], holds[loser]) for index, loser in enumerate(losers)
            }
            if ending == "overreach":
                losses[losers[0]] = holds[losers[0]] + 1
            pot = sum(losses.values())
            fee = pot * fee_percent // 100
            lines = [(loser, -loss, "stake") for loser, loss in losses.items()]
            lines.append((winner, pot - fee, "pot"))
            if fee:
                lines.append((wallet.house, fee, "fee"))
            if ending == "overreach":
                with pytest.raises(LossExceedsHold):
                    wallet.settle(hand, "zhajinhua", lines)
                assert wallet.release(hand) == sum(holds.values())
            else:
                deliveries = 2 if ending == "settle twice" else 1
                for _ in range(deliveries):
                    wallet.settle(hand, "zhajinhua", lines)
                for loser, loss in losses.items():
                    model.balance[loser] -= loss
                model.balance[winner] += pot - fee
                model.balance[wallet.house] += fee
        for account, amount in holds.items():
            model.held[account] -= amount
