"""The table's view of the wallet when both run in one process: direct calls, no network.

Account ids are text on the wire and in table records, integers in the ledger.
"""

from __future__ import annotations

from paiju.games.engine import IllegalAction
from paiju.wallet import InsufficientFunds, Wallet


class DirectWallet:
    """:class:`~paiju.table.tables.WalletPort` over a :class:`~paiju.wallet.Wallet`."""

    def __init__(self, wallet: Wallet) -> None:
        self.wallet = wallet

    def available(self, account: str) -> int:
        return self.wallet.available(int(account))

    def hold_hand(self, hand_id: str, amounts: dict[str, int]) -> None:
        try:
            self.wallet.hold_hand(hand_id, {int(account): amount for account, amount in amounts.items()})
        except InsufficientFunds as error:
            # The hand cannot start: a player's coins changed since they sat down.
            raise IllegalAction(str(error), "cannot_hold") from None

    def release(self, hand_id: str) -> None:
        self.wallet.release(hand_id)
