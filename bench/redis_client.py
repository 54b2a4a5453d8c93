"""What the Redis client itself costs the table server per call: CPU time in this process (the
client's Python and its socket calls; Redis's own time is not in it) for the calls an action
makes most — a commit script with a table's kilobytes as its argument, a pipeline of five
writes (the board of coins after a hand), a plain GET.

The table server makes about two such calls per action, so a client that costs 20 µs more per
call costs every action that much. redis-py 7.1 and later cost more per call than 7.0 on this
project's machine (see ``docs/table-path.md``); run this before moving the pin in
``pyproject.toml``, once per installed version, taking turns:

    .venv/bin/python bench/redis_client.py --redis-url redis://127.0.0.1:6379/13

Prints the redis-py version and the median µs per call of each kind over ``--rounds``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import redis

from paiju.common.redis_clients import RegisteredScript, open_redis

TABLE_BYTES = 3_200
"""A table's stored string as a commit sends it (five-seat 炸金花 mid-hand)."""


def per_call_us(call: Callable[[], object], calls: int) -> float:
    """CPU µs of this thread per call of ``call``."""
    for _ in range(calls // 20):  # warm the connection and the caches first
        call()
    started = time.thread_time()
    for _ in range(calls):
        call()
    return (time.thread_time() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/13", help="a Redis to call (loopback)")
    parser.add_argument("--calls", type=int, default=5_000, help="calls of each kind per round (default 5000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    args = parser.parse_args()
    client = open_redis(args.redis_url)  # as the servers open it
    prefix = f"bench-client-{time.time_ns()}"
    commit = RegisteredScript(client, "redis.call('SET', KEYS[1], ARGV[2]) return {'ok', 1, -1}")  # as the store calls it
    table = b"x" * TABLE_BYTES
    keys = [f"{prefix}:{{t}}:{part}" for part in ("state", "events", "deadlines", "outbox", "acked", "watching")]

    def commit_call() -> object:
        return commit(keys=keys, args=["prefix", table, "", "0", "outbox", "t", "listeners", "", "", "0", ""])

    def pipeline_call() -> object:
        pipe = client.pipeline(transaction=False)
        for seat in range(5):
            pipe.set(f"{prefix}:coins:{seat}", 1_000 + seat, ex=60)
        return pipe.execute()

    kinds: dict[str, Callable[[], object]] = {
        "commit script": commit_call, "pipeline of 5": pipeline_call, "GET": lambda: client.get(keys[0])}
    samples: dict[str, list[float]] = {kind: [] for kind in kinds}
    try:
        for round_number in range(1, args.rounds + 1):
            for kind, call in kinds.items():
                samples[kind].append(per_call_us(call, args.calls))
            print(f"  round {round_number}/{args.rounds} done", flush=True)
    finally:
        client.delete(*keys, *(f"{prefix}:coins:{seat}" for seat in range(5)))
    print(f"redis-py {redis.__version__}: client CPU per call, median of {args.rounds} rounds: "
          + ", ".join(f"{kind} {statistics.median(values):.1f} µs" for kind, values in samples.items()))


if __name__ == "__main__":
    main()
