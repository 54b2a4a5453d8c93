"""Which table each account sits at, so that a player sits in one room at a time (platform.md).

One small key per account beside the table records. It is claimed before the sit is committed
and released after a stand; a claim left behind by a crash is noticed (the table it names
does not seat the account) and taken over, so it never locks a player out.
"""

from __future__ import annotations

from collections.abc import Callable

from paiju.games.engine import IllegalAction

# Delete the claim only if it still names this table: another sit may have replaced it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class SeatDirectory:
    def __init__(self, client, prefix: str = "paiju") -> None:  # type: ignore[no-untyped-def]
        self._client = client
        self._prefix = prefix
        self._release = client.register_script(_RELEASE)

    def _key(self, account: str) -> str:
        return f"{self._prefix}:seated:{account}"

    def table_of(self, account: str) -> str | None:
        found = self._client.get(self._key(account))
        return None if found is None else found.decode()

    def claim(self, account: str, table_id: str, seats_account: Callable[[str], bool]) -> None:
        """Note that ``account`` sits at ``table_id``; IllegalAction if it sits elsewhere.

        ``seats_account(other_table)`` tells whether another table really seats the account.
        """
        key = self._key(account)
        if self._client.set(key, table_id, nx=True):
            return
        other = self.table_of(account)
        if other is not None and other != table_id and seats_account(other):
            raise IllegalAction(
                f"you are seated at table {other}: stand up there first", "seated_elsewhere"
            )
        self._client.set(key, table_id)

    def release(self, account: str, table_id: str) -> None:
        self._release(keys=[self._key(account)], args=[table_id])
