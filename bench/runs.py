"""What the benchmarks share about a run: its ledger or PostgreSQL schema, its Redis keys, and
how figures are measured and summed up. Imported by the bench scripts (``from runs import …``)."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Self

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_stat(pid: int | str, thread: int | None = None) -> list[str] | None:
    """The fields after the command name in ``/proc/<pid>[/task/<thread>]/stat`` (``pid`` may
    be ``"self"``), or None once the process or thread is gone. Field 11 is user CPU ticks,
    12 system CPU ticks, 17 threads, 21 resident pages."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    try:
        with open(path) as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pid: int | str, thread: int | None = None) -> float:
    """User plus system CPU seconds of a process (or one of its threads) so far; 0.0 once gone."""
    fields = process_stat(pid, thread)
    return 0.0 if fields is None else stat_cpu_seconds(fields)


def stat_cpu_seconds(fields: list[str]) -> float:
    """User plus system CPU seconds in the fields :func:`process_stat` read."""
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def redis_cpu_seconds(client: Any) -> float:
    """CPU seconds the Redis server has used so far (user plus system)."""
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def percentile(samples: list[float], fraction: float) -> float:
    """The nearest-rank percentile of ``samples`` (0.0 when there are none).

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5), percentile([], 0.99)
    (3.0, 0.0)
    """
    if not samples:
        return 0.0
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[int(rank) - 1]


class RunQueue:
    """The machine's runnable threads, sampled every ``every`` seconds on a thread of its own
    while started: how often the work on the machine wanted more cores than it has.

    A player's call that lands while every core is taken waits for one, wherever it is in the
    path; the event loop's own lateness cannot tell that apart from its own work."""

    def __init__(self, every: float = 0.1) -> None:
        self.every = every
        self.samples: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="run-queue", daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(self.every):
            running = procs_running()
            if running is not None:
                self.samples.append(running - 1)  # not this sampler itself

    def summary(self) -> dict[str, float]:
        """Runnable threads at the median sample, the 99th percentile and the most; empty when
        the machine does not say (not Linux)."""
        if not self.samples:
            return {}
        return {"p50": percentile(self.samples, 0.5), "p99": percentile(self.samples, 0.99),
                "most": float(max(self.samples))}


def procs_running() -> int | None:
    """Threads runnable on the machine now, this one included (Linux ``/proc/stat``)."""
    try:
        with open("/proc/stat") as stat:
            for line in stat:
                if line.startswith("procs_running "):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


@contextmanager
def postgres_schema(postgres_url: str, schema: str) -> Iterator[str]:
    """A SQLAlchemy URL of a new, empty PostgreSQL schema called ``schema``, dropped afterwards."""
    import psycopg
    import sqlalchemy as sa

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield sa.make_url(postgres_url).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@contextmanager
def ledger(postgres_url: str | None, run: str) -> Iterator[str]:
    """A SQLAlchemy URL of an empty ledger of this run (a SQLite file in a temporary folder, or a
    PostgreSQL schema of its own), removed afterwards."""
    if postgres_url is not None:
        with postgres_schema(postgres_url, f"bench_{run}") as url:
            yield url
        return
    folder = tempfile.mkdtemp(prefix=f"paiju-bench-{run}-")
    try:
        yield f"sqlite:///{folder}/ledger.sqlite3"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def with_connections(redis_url: str, connections: int) -> str:
    """``redis_url`` allowing ``connections`` pooled connections unless it already says.

    redis-py's pool refuses a 101st connection by default.

    >>> with_connections("redis://127.0.0.1:6379/14", 500)
    'redis://127.0.0.1:6379/14?max_connections=500'
    >>> with_connections("redis://h/1?max_connections=9", 500)
    'redis://h/1?max_connections=9'
    """
    if "max_connections=" in redis_url:
        return redis_url
    return f"{redis_url}{'&' if '?' in redis_url else '?'}max_connections={connections}"


def drop_prefix(redis_client: Any, prefix: str) -> int:
    """Delete every key of this run's prefix; how many there were."""
    removed = 0
    batch: list[bytes] = []
    for key in redis_client.scan_iter(match=f"{prefix}:*", count=1000):
        batch.append(key)
        if len(batch) >= 500:
            removed += redis_client.delete(*batch)
            batch = []
    if batch:
        removed += redis_client.delete(*batch)
    return removed
