"""The login budget of one client address shared by every replica, in Redis.

Each process also keeps its own per-address bucket (:class:`paiju.rpc.limits.Admission`), but
behind a load balancer N replicas would then let an address log in N times as often. This bucket
lives in Redis (``<prefix>:login-budget:<address>``): one script call per ``Login`` or
``Register``, timed by the Redis server's own clock (``TIME``) so that replicas whose clocks
disagree still share one budget, and expiring once it would be full again.

Redis failing never blocks a login: the call is let through (logged), and for
:data:`RESTING_SECONDS` after a failure Redis is not asked at all, so that a Redis that hangs does
not make every login wait out a timeout (the per-process bucket still holds meanwhile).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from paiju.common.redis_clients import RegisteredScript

log = logging.getLogger(__name__)

RESTING_SECONDS = 5.0
"""After a Redis failure, how long logins are admitted by the per-process budget alone."""

TAKE_ONE = """
local now = redis.call('TIME')
local at = tonumber(now[1]) + tonumber(now[2]) / 1000000
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local saved = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(saved[1]) or burst
local since = tonumber(saved[2]) or at
tokens = math.min(burst, tokens + math.max(0, at - since) * rate)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return taken
"""
"""A token bucket in one hash: take a token if there is one (1), else 0."""


class SharedLoginBudget:
    """``rate`` logins a second per client address across all replicas, after a first ``burst``."""

    def __init__(self, client: Any, prefix: str, rate: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._take_one = RegisteredScript(client, TAKE_ONE)
        self._prefix = prefix
        self.rate, self.burst = rate, burst
        # Once this long without a login the bucket is full again: the key is not needed.
        self._lifetime_ms = math.ceil(burst / rate * 1000) + 1000
        self._clock = clock
        self._lock = threading.Lock()
        self._resting_until = -math.inf

    def key(self, address: str) -> str:
        return f"{self._prefix}:login-budget:{address}"

    def take(self, address: str) -> bool:
        """Take one of ``address``'s logins; False when the deployment's budget for it is spent.
        True when Redis cannot be asked (see the module's doc)."""
        with self._lock:
            if self._clock() < self._resting_until:
                return True
        try:
            return bool(self._take_one(keys=[self.key(address)], args=[self.rate, self.burst, self._lifetime_ms]))
        except Exception:  # Redis failing must never stop logins
            log.warning("the shared login budget is out of reach; admitting logins by this process's alone "
                        "for %.0f s", RESTING_SECONDS, exc_info=True)
            with self._lock:
                self._resting_until = self._clock() + RESTING_SECONDS
            return True


def shared_login_budget(redis_url: str | None, prefix: str, rate: float, burst: int, *,
                        cluster: bool = False) -> SharedLoginBudget | None:
    """The shared budget of a deployment whose Redis is at ``redis_url``; ``None`` without one
    (the embedded platform is one process: its own budget is the deployment's)."""
    if not redis_url:
        return None
    import redis
    from redis.cluster import RedisCluster

    # A login waits on this call: a Redis that answers slowly is given up on quickly.
    kind = RedisCluster if cluster else redis.Redis
    client = kind.from_url(redis_url, socket_timeout=0.5, socket_connect_timeout=0.5)
    return SharedLoginBudget(client, prefix, rate, burst)
