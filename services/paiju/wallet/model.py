"""What the wallet hands back: entries, holds, settlement lines, leaderboard rows.

All amounts are integer coins. Account ids are integers chosen by the database.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime


class Reason(enum.StrEnum):
    """Why a ledger entry changed an account's coins.

    >>> Reason("fee"), Reason.ESCAPE_PENALTY.value
    (<Reason.FEE: 'fee'>, 'escape_penalty')
    """

    GRANT = "grant"
    STAKE = "stake"
    POT = "pot"
    BONUS = "bonus"
    FEE = "fee"
    ESCAPE_PENALTY = "escape_penalty"
    TRANSFER = "transfer"


SETTLEMENT_REASONS: frozenset[Reason] = frozenset(
    {Reason.STAKE, Reason.POT, Reason.BONUS, Reason.FEE, Reason.ESCAPE_PENALTY}
)
"""The reasons a hand's settlement line may carry (grants and transfers happen outside hands)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One change of one account's coins; the ledger is the list of these."""

    id: int
    account: int
    amount: int
    reason: Reason
    idempotency_key: str
    hand_id: str | None
    game: str | None
    detail: str | None
    balance_after: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Coins:
    """An account's coins: ``total`` (its balance) of which ``held`` are set aside by holds.

    >>> Coins(20_000, 1_500).available
    18500
    """

    total: int
    held: int

    @property
    def available(self) -> int:
        return self.total - self.held


@dataclass(frozen=True, slots=True)
class Hold:
    """Coins of ``account`` set aside for hand ``hand_id`` until it is settled or released."""

    hand_id: str
    account: int
    amount: int


@dataclass(frozen=True, slots=True)
class HandHeld:
    """A hand's holds as placed, and the coins of its accounts as the transaction that placed
    them counted them, with the accounts locked (a release of another hand, which locks no
    account, may have committed meanwhile)."""

    holds: list[Hold]
    coins: dict[int, Coins]


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a hand's settlement: ``amount`` coins to (or, negative, from) ``account``;
    ``detail`` is the rules' own word for it ("ante", "compare lost"), kept with the entry.

    >>> Line(7, -150, Reason.STAKE)
    Line(account=7, amount=-150, reason=<Reason.STAKE: 'stake'>, detail='')
    """

    account: int
    amount: int
    reason: Reason
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Settlement:
    """A hand's applied settlement. ``replayed`` is true when this call applied nothing
    because the same settlement had been applied before."""

    hand_id: str
    game: str
    lines: tuple[Line, ...]
    replayed: bool

    def net(self, account: int) -> int:
        """The sum of the lines of ``account`` in this hand.

        >>> s = Settlement("h1", "zhajinhua", (Line(1, 90, Reason.POT), Line(1, 5, Reason.BONUS),
        ...     Line(2, -95, Reason.STAKE)), replayed=False)
        >>> s.net(1), s.net(2), s.net(3)
        (95, -95, 0)
        """
        return sum(line.amount for line in self.lines if line.account == account)


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """An account's net coins won in one game (negative when it lost overall)."""

    account: int
    username: str
    net: int


@dataclass(frozen=True, slots=True)
class BalanceMismatch:
    """An account whose cached balance differs from the sum of its ledger entries."""

    account: int
    cached: int
    ledger: int
