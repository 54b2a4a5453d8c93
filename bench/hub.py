"""The stream hub alone: its CPU per event as the number of watched tables grows.

One process watches ``--tables`` tables (one watcher each) through a ``StreamHub`` on real Redis
and commits ``--events`` events to random tables, ``--gap-ms`` apart (so each is its own batch,
the hub's dearest case); it prints the hub thread's CPU per event once all arrived. A hub that
read every watched stream for each event grew with the tables (6.3 ms per event at 2,000 here);
one that reads only the tables named by commit notices should not.

Run: ``.venv/bin/python bench/hub.py --tables 2000``.
"""

from __future__ import annotations

import argparse
import random
import secrets
import threading
import time

from runs import cpu_seconds


def thread_cpu_seconds(name: str) -> float:
    """CPU seconds of this process's thread called ``name``."""
    thread = next(t for t in threading.enumerate() if t.name == name)
    return cpu_seconds("self", thread.native_id)


def main() -> int:
    import redis

    from paiju.table.fanout import StreamHub
    from paiju.table.store import TableStore

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200, help="watched tables (default 200)")
    parser.add_argument("--events", type=int, default=500, help="events committed (default 500)")
    parser.add_argument("--gap-ms", type=float, default=5.0, help="pause between commits (default 5)")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    args = parser.parse_args()
    client = redis.Redis.from_url(args.redis_url)
    store = TableStore(client, prefix=f"bench-hub-{secrets.token_hex(4)}")
    hub = StreamHub(store)
    try:
        tables = [f"t{n}" for n in range(args.tables)]
        for table_id in tables:
            store.create(table_id, b"s")
        watchers = [hub.subscribe(table_id, "a") for table_id in tables]
        time.sleep(1.5)  # the hub's first sweep over them all
        versions = dict.fromkeys(tables, 1)
        rng = random.Random(1)
        before = thread_cpu_seconds("stream-hub")
        for _ in range(args.events):
            table_id = rng.choice(tables)
            versions[table_id] = store.commit(table_id, versions[table_id], b"s", events=[(None, "bet", b"1")])
            time.sleep(args.gap_ms / 1000)
        deadline = time.monotonic() + 30
        while (arrived := sum(w.events.qsize() for w in watchers)) < args.events and time.monotonic() < deadline:
            time.sleep(0.05)
        spent = thread_cpu_seconds("stream-hub") - before
        print(f"{args.tables:,} watched tables, {args.events:,} events: {arrived:,} arrived; "
              f"hub CPU {spent / args.events * 1e6:,.0f} µs per event")
        return 0 if arrived == args.events else 1
    finally:
        hub.stop()
        stale = list(client.scan_iter(match=f"{store.prefix}:*", count=1000))
        for start in range(0, len(stale), 500):
            client.delete(*stale[start:start + 500])


if __name__ == "__main__":
    raise SystemExit(main())
