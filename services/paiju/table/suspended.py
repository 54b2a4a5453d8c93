"""The accounts an operator suspended, as the tables see them: a Redis set every lobby and table
process reads when a player asks for a seat, so a suspended player sits nowhere.

The ledger keeps the suspensions themselves (:mod:`paiju.admin.suspensions`); this is their
copy where the tables live, written by the operator's service as it suspends and restores, and
filled again from the ledger whenever the wallet's process starts (an emptied Redis forgets it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

ACCOUNT_SUSPENDED = "account_suspended"
"""The refusal word (``paiju-error-code``) of a Sit, a quick match or a login of a suspended account."""


class SuspendedAccounts:
    """The set of suspended account ids (the API's text ids) under ``<prefix>:suspended``."""

    def __init__(self, client: Any, prefix: str = "paiju") -> None:
        self._client = client
        self._key = f"{prefix}:suspended"

    def holds(self, account: str) -> bool:
        """Whether ``account`` is suspended."""
        return bool(self._client.sismember(self._key, account))

    def add(self, account: str) -> None:
        self._client.sadd(self._key, account)

    def remove(self, account: str) -> None:
        self._client.srem(self._key, account)

    def replace(self, accounts: Iterable[str]) -> None:
        """Make the set exactly ``accounts`` (the ledger's word), in one transaction."""
        pipe = self._client.pipeline(transaction=True)
        pipe.delete(self._key)
        wanted = list(accounts)
        if wanted:
            pipe.sadd(self._key, *wanted)
        pipe.execute()
