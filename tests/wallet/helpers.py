"""Small helpers shared by the wallet tests."""

from __future__ import annotations

import sqlalchemy as sa

from paiju.wallet import Wallet


def players(wallet: Wallet, count: int, prefix: str = "player") -> list[int]:
    """Register ``count`` accounts and return their ids."""
    return [wallet.register(f"{prefix}{number}", "password-123") for number in range(count)]


def row_count(wallet: Wallet, table: str) -> int:
    """How many rows ``table`` has."""
    with wallet.database.engine.connect() as conn:
        return conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()


def execute_raw(wallet: Wallet, statement: str, **params: object) -> None:
    """Run one statement outside the wallet's API, committed (to tamper with the tables)."""
    with wallet.database.engine.begin() as conn:
        conn.execute(sa.text(statement), params)


def balances(wallet: Wallet, accounts: list[int]) -> list[int]:
    """The balances of ``accounts``."""
    return [wallet.balance(account) for account in accounts]
