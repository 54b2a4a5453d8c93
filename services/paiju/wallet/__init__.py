"""The wallet: accounts, the coin ledger, holds, settlements, levels and leaderboards.

Everything goes through :class:`Wallet` over one SQL URL (SQLite embedded, PostgreSQL in
production). The errors it raises are in :mod:`paiju.wallet.errors`.
"""

from paiju.wallet.errors import (
    CoinsChanged,
    DuplicateUsername,
    HandAlreadySettled,
    HoldConflict,
    IdempotencyConflict,
    InsufficientFunds,
    LossExceedsHold,
    SchemaError,
    SettlementConflict,
    UnbalancedSettlement,
    UnknownAccount,
    WalletError,
)
from paiju.wallet.model import (
    SETTLEMENT_REASONS,
    BalanceMismatch,
    Coins,
    Entry,
    HandHeld,
    Hold,
    LeaderboardRow,
    Line,
    Reason,
    Settlement,
)
from paiju.wallet.passwords import PasswordHasher
from paiju.wallet.store import DEFAULT_STARTING_GRANT, Wallet

__all__ = [
    "DEFAULT_STARTING_GRANT",
    "SETTLEMENT_REASONS",
    "BalanceMismatch",
    "Coins",
    "CoinsChanged",
    "DuplicateUsername",
    "Entry",
    "HandAlreadySettled",
    "HandHeld",
    "Hold",
    "HoldConflict",
    "IdempotencyConflict",
    "InsufficientFunds",
    "LeaderboardRow",
    "Line",
    "LossExceedsHold",
    "PasswordHasher",
    "Reason",
    "SchemaError",
    "Settlement",
    "SettlementConflict",
    "UnbalancedSettlement",
    "UnknownAccount",
    "Wallet",
    "WalletError",
]
