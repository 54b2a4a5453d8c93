"""Per-account "sessions valid after" stamps: how a password change ends every other session.

Tokens are checked without a session table (:mod:`paiju.common.auth`), so ending sessions early
needs one fact per account that every replica of every service can read: the moment before which
its tokens no longer count. It lives in Redis (``<prefix>:sessions-after:<account>``, Unix
milliseconds), because every service holds a Redis client and the ledger only the wallet does.
The key expires once every token issued before it has expired anyway (the session lifetime).
The ledger keeps each stamp too (with the password it came with): a Redis that lost its data is
given the stamps still alive back (:meth:`SessionStamps.restore`, every minute by the process
that holds the ledger), so a lost key reopens old sessions for a minute at most, not a lifetime.

Where it is checked, and why there: in the auth interceptor, for every authenticated call of a
player (service tokens are never stamped), inside the call's own handler rather than where the
handler is chosen, so that a Redis read never blocks grpc's dispatch. A Redis GET per call would
double the Redis traffic of the hot path (``TableService.Act``), so each process remembers an account's
stamp for :data:`REMEMBERED_SECONDS`: an account costs at most one GET per process that often,
and a changed password reaches the other processes within that time (at once in the process that
changed it). An open stream was admitted when it opened and is not cut.

A token issued before a stamp is refused UNAUTHENTICATED (``password_changed``); a token without
an ``iat`` predates every stamp, so it is refused once its account has one, and otherwise lives
out its time. When Redis cannot be read the call goes through (logged): Redis down stops the
tables anyway, and an unreadable stamp must not log everyone out.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from paiju.common.auth import Caller

log = logging.getLogger(__name__)

REMEMBERED_SECONDS = 5.0
"""How long a process trusts the stamp it read of an account before reading it again."""
PASSWORD_CHANGED = "password_changed"
"""The ``paiju-error-code`` of a session ended by a password change."""
PASSWORD_CHANGED_REASON = "the account's password was changed since this session began; log in again"


class Stamps(Protocol):
    """Where stamps are kept: Redis when deployed, a dictionary when everything is one process."""

    def read(self, account_id: str) -> int | None: ...

    def write(self, account_id: str, valid_after_ms: int, lifetime_seconds: int) -> None: ...

    def write_if_missing(self, account_id: str, valid_after_ms: int, lifetime_seconds: int) -> bool: ...


def stamp_lifetime_seconds(session_ttl_seconds: int) -> int:
    """How long a stamp is needed: until every token issued before it has expired (a minute
    more for the clocks of the replicas)."""
    return session_ttl_seconds + 60


class RedisStamps:
    """Stamps in Redis under ``<prefix>:sessions-after:<account>``."""

    def __init__(self, client: Any, prefix: str) -> None:
        self._client = client
        self._prefix = prefix

    def key(self, account_id: str) -> str:
        return f"{self._prefix}:sessions-after:{account_id}"

    def read(self, account_id: str) -> int | None:
        value = self._client.get(self.key(account_id))
        return None if value is None else int(value)

    def write(self, account_id: str, valid_after_ms: int, lifetime_seconds: int) -> None:
        self._client.set(self.key(account_id), valid_after_ms, ex=lifetime_seconds)

    def write_if_missing(self, account_id: str, valid_after_ms: int, lifetime_seconds: int) -> bool:
        return bool(self._client.set(self.key(account_id), valid_after_ms, ex=lifetime_seconds, nx=True))


class LocalStamps:
    """Stamps of one process (the embedded platform: every service shares the process)."""

    def __init__(self) -> None:
        self._stamps: dict[str, int] = {}

    def read(self, account_id: str) -> int | None:
        return self._stamps.get(account_id)

    def write(self, account_id: str, valid_after_ms: int, lifetime_seconds: int) -> None:
        self._stamps[account_id] = valid_after_ms

    def write_if_missing(self, account_id: str, valid_after_ms: int, lifetime_seconds: int) -> bool:
        if account_id in self._stamps:
            return False
        self._stamps[account_id] = valid_after_ms
        return True


class SessionStamps:
    """Reads stamps (remembered per process for :data:`REMEMBERED_SECONDS`) and writes them.

    >>> from dataclasses import replace
    >>> from paiju.common.auth import Role
    >>> now = [100.0]
    >>> sessions = SessionStamps(LocalStamps(), clock=lambda: now[0])
    >>> old = Caller("7", "lihua", Role.PLAYER, expires_at=10**10, issued_at_ms=1_000)
    >>> sessions.is_current(old)
    True
    >>> sessions.end_sessions_before("7", 2_000, lifetime_seconds=60)
    >>> sessions.is_current(old), sessions.is_current(replace(old, issued_at_ms=2_000))
    (False, True)
    """

    def __init__(self, stamps: Stamps, *, clock: Callable[[], float] = time.monotonic,
                 remembered_seconds: float = REMEMBERED_SECONDS) -> None:
        self._stamps = stamps
        self._clock = clock
        self._remembered_seconds = remembered_seconds
        self._lock = threading.Lock()
        self._known: dict[str, tuple[int | None, float]] = {}
        """An account's stamp (``None``: none) and when it was read."""

    def is_current(self, caller: Caller) -> bool:
        """Whether ``caller``'s token was issued after its account's stamp, if it has one."""
        if caller.is_service:
            return True
        stamp = self._stamp(caller.account_id)
        if stamp is None:
            return True
        return caller.issued_at_ms is not None and caller.issued_at_ms >= stamp

    def end_sessions_before(self, account_id: str, valid_after_ms: int, lifetime_seconds: int) -> None:
        """Refuse from now on ``account_id``'s tokens issued before ``valid_after_ms``.

        Raises what the store raises (a Redis error): the caller must not report success then."""
        self._stamps.write(account_id, valid_after_ms, lifetime_seconds)
        with self._lock:
            self._known[account_id] = (valid_after_ms, self._clock())

    def restore(self, stamps: list[tuple[int, int]], lifetime_seconds: int, now_ms: int) -> int:
        """Give the store back the ledger's ``stamps`` (``(account, valid after ms)``) it lacks,
        each for what is left of ``lifetime_seconds``; how many it lacked. A stamp the store
        holds is never replaced: it is the ledger's, or newer (a password change writes it here
        before the ledger)."""
        restored = 0
        for account, valid_after_ms in stamps:
            left_ms = valid_after_ms + lifetime_seconds * 1000 - now_ms
            if left_ms > 0 and self._stamps.write_if_missing(str(account), valid_after_ms, -(-left_ms // 1000)):
                restored += 1
        if restored:
            log.warning("gave back %d session stamp(s) that the store had lost", restored)
        return restored

    def _stamp(self, account_id: str) -> int | None:
        now = self._clock()
        with self._lock:
            known = self._known.get(account_id)
        if known is not None and now - known[1] < self._remembered_seconds:
            return known[0]
        try:
            stamp = self._stamps.read(account_id)
        except Exception:  # any failure of the store lets the call through
            log.warning("cannot read the session stamp of account %s; letting the call through", account_id,
                        exc_info=True)
            return None
        with self._lock:
            if len(self._known) >= REMEMBERED_ACCOUNTS:
                self._known.clear()  # refilled within a few seconds by the accounts still calling
            self._known[account_id] = (stamp, now)
        return stamp


REMEMBERED_ACCOUNTS = 100_000
"""Accounts whose stamp a process remembers at once (about one per connected player)."""


_shared: dict[tuple[str | None, str, str], SessionStamps] = {}
_shared_lock = threading.Lock()


def session_stamps(redis_url: str | None, prefix: str, *, cluster: bool = False, scope: str = "") -> SessionStamps:
    """The stamps of a deployment: in Redis at ``redis_url`` under ``prefix``, or, without one, in
    this process (one store per ``prefix`` and ``scope``, e.g. the ledger's URL, shared by the
    wallet that writes and the server that checks)."""
    key = (redis_url, prefix, "" if redis_url else scope)
    with _shared_lock:
        found = _shared.get(key)
        if found is None:
            if redis_url:
                from paiju.common.redis_clients import open_redis

                store: Stamps = RedisStamps(open_redis(redis_url, cluster=cluster, max_connections=64), prefix)
            else:
                store = LocalStamps()
            found = _shared[key] = SessionStamps(store)
        return found
