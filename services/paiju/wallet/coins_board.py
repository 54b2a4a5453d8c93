"""The ledger's last word on each account's available coins, kept in Redis for the tables.

A player presses start before every hand, and the table must refuse one whose available coins
fell below the room's minimum. Asking the ledger (SQL) for each press would send every press to
a thread; the ledger instead writes each account's available coins here whenever it changes
them (grants, transfers, holds, releases, settlements), and a press that finds enough here is
answered on the event loop with no SQL at all.

What is here is a hint, never the ledger:

* it may be stale (a write lost in a crash between the ledger's commit and this one, or two
  writers of one account publishing out of order), so each entry lives
  :data:`DEFAULT_TTL_SECONDS` at most;
* a table trusts it only to let a press through. A press it would refuse, or one with no entry,
  asks the ledger;
* a hand's start may deal from it, but only with holds that carry the coins it dealt from: the
  ledger holds nothing unless they are exactly its own, and the start then deals again from the
  ledger's coins, standing up whoever is short. A board that says too few sends the start to
  the ledger at once.

>>> import fakeredis
>>> board = AvailableCoinsBoard(fakeredis.FakeRedis(), "doc")
>>> board.publish({7: 20_000, 8: 150})
>>> board.available("7"), board.available("8"), board.available("9")
(20000, 150, None)
>>> board.available_many(["8", "9", "7"])
[150, None, 20000]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from redis.cluster import RedisCluster

DEFAULT_TTL_SECONDS = 600
"""How long an account's entry stands without a newer one: a seated player's coins are written
again by every hand's settlement, so only idle accounts' entries expire (their next press asks
the ledger)."""


class AvailableCoinsBoard:
    """``{prefix}:coins:{account}`` → the account's available coins, as the ledger last wrote."""

    def __init__(self, client: Any, prefix: str = "paiju", ttl_seconds: int = DEFAULT_TTL_SECONDS) -> None:
        if ttl_seconds <= 0:
            raise ValueError(f"an entry's lifetime must be positive, got {ttl_seconds}")
        self._client = client
        self._prefix = prefix
        self._ttl_seconds = ttl_seconds
        self._one_redis = not isinstance(client, RedisCluster)

    def _key(self, account: int | str) -> str:
        return f"{self._prefix}:coins:{account}"

    @property
    def client(self) -> Any:
        """The Redis client the board writes with (a caller with writes of its own on the same
        client sends them in one round trip with :meth:`queue`)."""
        return self._client

    def publish(self, coins: Mapping[int, int]) -> None:
        """Write the available coins of each account (one round trip for all of them)."""
        if not coins:
            return
        pipe = self._client.pipeline(transaction=False)
        self.queue(pipe, coins)
        pipe.execute()

    def queue(self, pipe: Any, coins: Mapping[int, int]) -> None:
        """:meth:`publish` into ``pipe``, a pipeline of :attr:`client` its caller executes."""
        for account, available in coins.items():
            pipe.set(self._key(account), int(available), ex=self._ttl_seconds)

    def available_many(self, accounts: list[str]) -> list[int | None]:
        """:meth:`available` of each account, in the order asked (one round trip for all)."""
        if not accounts:
            return []
        keys = [self._key(account) for account in accounts]
        if self._one_redis:  # one command for all
            found = self._client.mget(keys)
        else:  # GETs in a pipeline: under Redis Cluster the keys lie in several slots
            pipe = self._client.pipeline(transaction=False)
            for key in keys:
                pipe.get(key)
            found = pipe.execute()
        return [None if coins is None else int(coins) for coins in found]

    def available(self, account: int | str) -> int | None:
        """The account's available coins as the ledger last wrote them; ``None`` when unknown."""
        found = self._client.get(self._key(account))
        return None if found is None else int(found)
