"""Who is connected: every open Watch stream beats for its player, and silence is noticed.

One sorted set holds ``table_id \\x1f account`` members scored by their last beat (epoch ms).
A stream beats while it is open (about every second); when it closes it backdates its member so
the next sweep finds it at once — unless another stream of the same player beats meanwhile.
A server killed with its streams stops beating, so its players are noticed just the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SEPARATOR = "\x1f"
QUIET_AFTER_MS = 10_000
"""A player whose streams have not beaten for this long is disconnected."""

# Take the members silent since ``cutoff`` out of the set, atomically, so that of several
# sweeping replicas exactly one handles each silence.
_CLAIM_SILENT = """
local silent = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[2])
for i = 1, #silent, 2 do redis.call('ZREM', KEYS[1], silent[i]) end
return silent
"""


@dataclass(frozen=True, slots=True)
class Silence:
    table_id: str
    account: str
    since_ms: int
    """When the player counts as disconnected: a closed stream at once, a stream that stopped
    beating :data:`QUIET_AFTER_MS` after its last beat. The reconnect window opens then."""


class PresenceBoard:
    def __init__(self, client: Any, prefix: str = "paiju") -> None:
        self._client = client
        self.key = f"{prefix}:presence"
        self._claim = client.register_script(_CLAIM_SILENT)

    @staticmethod
    def _member(table_id: str, account: str) -> str:
        return f"{table_id}{SEPARATOR}{account}"

    def beat(self, table_id: str, account: str, now_ms: int) -> None:
        """A stream of ``account`` on ``table_id`` is alive at ``now_ms``."""
        self._client.zadd(self.key, {self._member(table_id, account): now_ms})

    def beat_many(self, present: list[tuple[str, str]], now_ms: int) -> None:
        """Many streams alive at ``now_ms``, in one command (a process's whole hub)."""
        self._client.zadd(self.key, {self._member(table_id, account): now_ms for table_id, account in present})

    def closed(self, table_id: str, account: str, now_ms: int) -> None:
        """A stream closed: unless another one beats, the player counts as gone since now."""
        # Only backdate a member that exists and has not been beaten since by another stream.
        self._client.zadd(self.key, {self._member(table_id, account): now_ms - QUIET_AFTER_MS}, xx=True, lt=True)

    def put_back(self, silence: Silence) -> None:
        """Return a claimed silence, as it was, for a later sweep (its handling failed)."""
        member = self._member(silence.table_id, silence.account)
        self._client.zadd(self.key, {member: silence.since_ms - QUIET_AFTER_MS}, nx=True)

    def last_beat(self, table_id: str, account: str) -> int | None:
        score = self._client.zscore(self.key, self._member(table_id, account))
        return None if score is None else int(score)

    def claim_silent(self, now_ms: int, limit: int = 100) -> list[Silence]:
        """The players silent for at least :data:`QUIET_AFTER_MS`, each handed to one caller."""
        raw = self._claim(keys=[self.key], args=[now_ms - QUIET_AFTER_MS, limit])
        found = []
        for member, score in zip(raw[::2], raw[1::2]):
            text = member.decode() if isinstance(member, bytes) else member
            table_id, _, account = text.partition(SEPARATOR)
            found.append(Silence(table_id, account, int(float(score)) + QUIET_AFTER_MS))
        return found
