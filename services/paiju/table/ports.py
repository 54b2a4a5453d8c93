"""What the table domain needs from the rest of the platform, as the table states it: the wallet
(balances and holds), the board of available coins, and the presence of players' streams.

The table imports none of the services that answer these: each is wired where a process is
assembled (``paiju.platform``), so the table can be read, and tested, alone. The wallet adapts
itself to :class:`WalletPort` (``paiju.wallet.table_port``).
"""

from __future__ import annotations

from typing import Protocol


class WalletPort(Protocol):
    """What the table needs of the wallet: balances and holds for a hand."""

    def available(self, account: str) -> int: ...

    def available_many(self, accounts: list[str]) -> list[int]:
        """The available coins of each account, in the order asked (one question for a hand)."""
        ...

    def hold_hand(self, hand_id: str, amounts: dict[str, int], expected: dict[str, int] | None = None) -> None:
        """Hold each account's amount for the hand, all or none (raises when one cannot).

        ``expected``: each account's available coins the hand was dealt from, when they came
        from the board of coins and not from the ledger: unless the ledger has exactly those,
        it holds nothing and :class:`CoinsChanged` is raised."""
        ...

    def release(self, hand_id: str) -> int:
        """Give back every hold of a hand that will not be settled; the coins released (0 when
        it held none, or they were released already)."""
        ...


class CoinsChanged(Exception):
    """The ledger held nothing: a player's available coins are not those the hand was dealt
    from (the board of coins was behind the ledger)."""


class CoinsBoard(Protocol):
    """The ledger's last word on players' available coins, readable without the ledger: a hint
    that lets a press of start through on the event loop, never one that refuses it."""

    def available(self, account: str) -> int | None:
        """The account's available coins as last published, or None when the board has none."""
        ...

    def available_many(self, accounts: list[str]) -> list[int | None]: ...


class NoCoinsBoard:
    """A board that knows nobody: every press and every start asks the ledger.

    >>> NoCoinsBoard().available_many(["7", "8"])
    [None, None]
    """

    def available(self, account: str) -> int | None:
        return None

    def available_many(self, accounts: list[str]) -> list[int | None]:
        return [None] * len(accounts)


class Presence(Protocol):
    """Where a table server reports its players' live streams (the watchdog reads it)."""

    def beat(self, table_id: str, account: str, now_ms: int, stream: str = "") -> object:
        """A stream of ``account`` on ``table_id`` is alive at ``now_ms``."""
        ...

    def closed(self, table_id: str, account: str, now_ms: int, stream: str = "") -> object:
        """A stream of ``account`` on ``table_id`` closed at ``now_ms``."""
        ...
