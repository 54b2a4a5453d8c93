"""Which table each account sits at, so that a player sits in one room at a time (platform.md).

One small key per account beside the table records, changed only by the scripts below, so that
concurrent Sits of one account (threads, processes, replicas) cannot all win. Its value is
``<table> <phase> <since_ms> <token>``: a Sit first *claims* the key (phase ``sitting``, with a
token of its own), commits the seat, then *confirms* the claim (phase ``seated``) only if the key
still holds its token; a Sit that lost its claim meanwhile stands up again. The key is released
when the player stands (stand, ready kick, escape, short of coins).

A claim for another table refuses the Sit while it is fresh. A claim left behind by a crash is
noticed — older than :data:`CLAIM_PENDING_MS` if still ``sitting``, and the table it names does
not seat the account — and taken over by swapping exactly the value read, so a claim confirmed
in between is never overwritten.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from paiju.common.redis_clients import RegisteredScript
from paiju.games.engine import IllegalAction

CLAIM_PENDING_MS = 10_000
"""How long a Sit's claim in progress keeps other Sits of the account out without a look at its
table; after that (a crash between claim and seat) the table decides."""
TAKEOVER_TRIES = 5

# KEYS[1] the account's key; ARGV: table, token, now (ms), pending bound (ms).
# Reply: {'claimed'}, or {'busy', value} (a fresh claim elsewhere), or {'elsewhere', value}.
_CLAIM = """
local current = redis.call('GET', KEYS[1])
if current then
  local table_id, phase, since = string.match(current, '^(%S+) (%S+) (%d+) %S+$')
  if not table_id then table_id, phase, since = current, 'seated', '0' end
  if table_id ~= ARGV[1] then
    if phase == 'sitting' and tonumber(ARGV[3]) - tonumber(since) < tonumber(ARGV[4]) then
      return {'busy', current}
    end
    return {'elsewhere', current}
  end
end
redis.call('SET', KEYS[1], ARGV[1] .. ' sitting ' .. ARGV[3] .. ' ' .. ARGV[2])
return {'claimed'}
"""
# KEYS[1]; ARGV: the value read, table, token, now. Take over a stale claim: 1, or 0 if it moved.
_TAKE_OVER = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2] .. ' sitting ' .. ARGV[4] .. ' ' .. ARGV[3])
return 1
"""
# KEYS[1]; ARGV: table, token. The Sit holding this claim is seated: 1, or 0 if it lost it.
_CONFIRM = """
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local table_id, since, token = string.match(current, '^(%S+) %S+ (%d+) (%S+)$')
if table_id ~= ARGV[1] or token ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], table_id .. ' seated ' .. since .. ' ' .. token)
return 1
"""
# KEYS[1]; ARGV: table, token ('' for any). Delete the claim only if it still names this table
# (and this Sit's token, when given): another Sit may have replaced it.
_RELEASE = """
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local table_id, token = string.match(current, '^(%S+) %S+ %d+ (%S+)$')
if not table_id then table_id, token = current, '' end
if table_id ~= ARGV[1] or (ARGV[2] ~= '' and token ~= ARGV[2]) then return 0 end
return redis.call('DEL', KEYS[1])
"""


class SeatDirectory:
    def __init__(self, client, prefix: str = "paiju") -> None:  # type: ignore[no-untyped-def]
        self._client = client
        self._prefix = prefix
        self._claim = RegisteredScript(client, _CLAIM)
        self._take_over = RegisteredScript(client, _TAKE_OVER)
        self._confirm = RegisteredScript(client, _CONFIRM)
        self._release = RegisteredScript(client, _RELEASE)

    def _key(self, account: str) -> str:
        return f"{self._prefix}:seated:{account}"

    def table_of(self, account: str) -> str | None:
        found = self._client.get(self._key(account))
        return None if found is None else found.decode().split(" ", 1)[0]

    def claim(self, account: str, table_id: str, seats_account: Callable[[str], bool], now_ms: int) -> str:
        """Claim ``account``'s one seat for ``table_id``; the claim's token, for :meth:`confirm`.

        IllegalAction (``seated_elsewhere``) if the account sits at another table, or a Sit of it
        at another table is under way; ``seats_account(other_table)`` tells whether another
        table really seats the account.
        """
        key, token = self._key(account), secrets.token_hex(8)
        for _ in range(TAKEOVER_TRIES):
            reply = self._claim(keys=[key], args=[table_id, token, now_ms, CLAIM_PENDING_MS])
            if reply[0] == b"claimed":
                return token
            current = reply[1]
            other = current.decode().split(" ", 1)[0]
            if reply[0] == b"busy" or seats_account(other):
                raise IllegalAction(f"you are seated at table {other}: stand up there first", "seated_elsewhere")
            if self._take_over(keys=[key], args=[current, table_id, token, now_ms]):
                return token
        raise IllegalAction("your seat is changing elsewhere: try again", "seated_elsewhere")

    def confirm(self, account: str, table_id: str, token: str) -> bool:
        """The Sit holding claim ``token`` is seated; False if another Sit took the claim first
        (this one must stand up again)."""
        return bool(self._confirm(keys=[self._key(account)], args=[table_id, token]))

    def release(self, account: str, table_id: str, token: str = "") -> None:
        """Forget that ``account`` sits at ``table_id`` (only the claim ``token`` when given)."""
        self._release(keys=[self._key(account)], args=[table_id, token])
