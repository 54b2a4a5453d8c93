"""The wallet's errors: one class per refusal, so callers (gRPC, Celery) can map each one.

Every class derives from :class:`WalletError`. Bad arguments (an empty hand id, a 40-character
username) raise a plain :class:`ValueError`, and a value of the wrong type a :class:`TypeError`,
saying what was wrong; the classes here are for requests that are well formed but refused.
"""

from __future__ import annotations


class WalletError(Exception):
    """A request the wallet refused; the ledger is unchanged."""


class SchemaError(WalletError):
    """The database is not at the schema this code expects (run ``migrate()``, or upgrade)."""


class DuplicateUsername(WalletError):
    """``register`` was given a username that an account already has."""

    def __init__(self, username: str) -> None:
        super().__init__(f"the username {username!r} is taken")
        self.username = username


class UnknownAccount(WalletError, LookupError):
    """No account has this id."""

    def __init__(self, account: int) -> None:
        super().__init__(f"no account {account}")
        self.account = account


class InsufficientFunds(WalletError):
    """A hold, transfer or settlement would need more coins than the account has free."""

    def __init__(self, account: int, needed: int, available: int) -> None:
        super().__init__(
            f"account {account} has {available:,} coins available, {needed:,} are needed"
        )
        self.account = account
        self.needed = needed
        self.available = available


class CoinsChanged(WalletError):
    """A hand's holds were asked for on the strength of an account's available coins (read from
    a copy, such as the board of coins) that the ledger no longer has: nothing was held."""

    def __init__(self, account: int, expected: int, available: int) -> None:
        super().__init__(
            f"account {account} has {available:,} coins available, not the {expected:,} the hand was dealt from"
        )
        self.account = account
        self.expected = expected
        self.available = available


class HoldConflict(WalletError):
    """A second hold for the same hand and account asked for a different amount."""

    def __init__(self, hand_id: str, account: int, held: int, asked: int) -> None:
        super().__init__(
            f"hand {hand_id!r} already holds {held:,} coins of account {account}; "
            f"a hold of {asked:,} cannot replace it"
        )
        self.hand_id = hand_id
        self.account = account
        self.held = held
        self.asked = asked


class HandAlreadySettled(WalletError):
    """A hold or a release was asked for a hand whose settlement is already applied."""

    def __init__(self, hand_id: str) -> None:
        super().__init__(f"hand {hand_id!r} is already settled: its holds cannot change")
        self.hand_id = hand_id


class UnbalancedSettlement(WalletError):
    """A settlement's lines do not add up to zero (the house's fee lines included)."""

    def __init__(self, hand_id: str, total: int) -> None:
        super().__init__(
            f"the settlement of hand {hand_id!r} adds up to {total:+,} coins; "
            "it must add up to zero, the house's fee included"
        )
        self.hand_id = hand_id
        self.total = total


class LossExceedsHold(WalletError):
    """A settlement would take more from an account than was held for the hand."""

    def __init__(self, hand_id: str, account: int, loss: int, held: int) -> None:
        super().__init__(
            f"hand {hand_id!r} would take {loss:,} coins from account {account}, "
            f"but only {held:,} were held for it"
        )
        self.hand_id = hand_id
        self.account = account
        self.loss = loss
        self.held = held


class SettlementConflict(WalletError):
    """A hand was delivered again with lines that differ from the ones already applied."""

    def __init__(self, hand_id: str) -> None:
        super().__init__(
            f"hand {hand_id!r} is already settled with different lines; nothing was changed"
        )
        self.hand_id = hand_id


class IdempotencyConflict(WalletError):
    """An idempotency key was used again for a different change of coins."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the idempotency key {key!r} was already used for another change")
        self.key = key
