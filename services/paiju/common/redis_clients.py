"""Clients of the Redis that holds live tables: one server, or a Redis Cluster.

Every key of a table shares its ``{table_id}`` hash tag, so each table's scripts and
transactions touch one cluster slot; the global indexes, the presence board, the seat directory
and the leaderboards are single keys, so a cluster client routes every command by itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import redis
from redis.cluster import RedisCluster
from redis.exceptions import NoScriptError


def open_redis(url: str, *, cluster: bool = False, max_connections: int = 128) -> Any:
    """A bytes-returning client of ``url``: a pooled one that waits for a free connection, or,
    with ``cluster``, a cluster client that finds every node from the one ``url`` names.

    >>> open_redis("redis://127.0.0.1:1/0").connection_pool.max_connections
    128
    """
    if cluster:
        return RedisCluster.from_url(url, max_connections=max_connections)
    # Every open Watch stream may hold a connection in a blocking read: size the pool for all
    # the server's threads, and wait for a free one rather than fail.
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=10)
    return redis.Redis(connection_pool=pool)


class RegisteredScript:
    """A Lua script called by its SHA (``EVALSHA``) and sent whole only when Redis answers that it
    lacks it (a restart, a new cluster node): one round trip a call, never a failure.

    What redis-py's ``register_script`` gives, called straight: its ``Script`` looks for
    pipelines and builds the arguments anew at every call, ~6 µs of the client's CPU per call
    here (``bench/redis_client.py``), and the commit script runs at every action. On a pipeline,
    queue it with :func:`queue_script`.

    >>> RegisteredScript(None, "return 1").sha
    'e0e1f9fabfc9d4800c877a703b823ac0578ff8db'
    """

    __slots__ = ("_client", "script", "sha")

    def __init__(self, client: Any, source: str) -> None:
        self._client = client
        self.script = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    def __call__(self, keys: Sequence[Any] = (), args: Sequence[Any] = ()) -> Any:
        try:
            return self._client.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            self._client.script_load(self.script)
            return self._client.evalsha(self.sha, len(keys), *keys, *args)


def queue_script(pipe: Any, script: RegisteredScript, keys: list[Any], args: list[Any]) -> Callable[[Any], Any]:
    """A call of ``script`` into ``pipe``, a pipeline its caller executes without raising on
    errors; the function returned takes the call's reply and answers the script's.

    The call goes by the script's SHA alone (redis-py's own ``Script``, called on a pipeline,
    first asks Redis whether it has it: a round trip more). A Redis that lost the script (a
    restart) is sent it when the reply says so, and the call made again on its own; any other
    error is raised.
    """
    pipe.evalsha(script.sha, len(keys), *keys, *args)

    def reply_of(reply: Any) -> Any:
        if isinstance(reply, NoScriptError):
            return script(keys=keys, args=args)
        if isinstance(reply, Exception):
            raise reply
        return reply

    return reply_of
