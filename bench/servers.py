"""The server side of the platform benchmarks: whole-platform server processes sharing one port,
started from a parent that only measures, each reporting its finished RPCs per method.

Imported by ``bot_tables.py`` and ``tablegen.py`` (``from servers import …``).
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import time
from dataclasses import dataclass, field
from typing import Any

REPORT_SECONDS = 0.5
REDIS_ROUND_TRIPS = "redis round trips"
"""The key under which a server process reports the Redis round trips it has made, beside its RPCs."""
REDIS_TRIPS_FROM = "redis round trips from "
"""Prefix of a round-trip count by the platform function that asked (``PAIJU_BENCH_TRIPS_BY_SITE=1``)."""
DEADLINES_CLAIMED = "deadlines claimed: "
"""Prefix of a count of due deadlines this process claimed, by timer (turn, start, …): each is
a look at the table, whether it moves it or finds it moved on."""


ACT_SERVED_WITHIN = {"0.01": "Act served within 10 ms", "0.025": "Act served within 25 ms"}
"""Acts whose servicer returned within a bound (the server's own histogram, from a call's start on
the event loop to its answer): what of the players' tail is the server's own."""


def count_redis_round_trips() -> list[int]:
    """From now on, count every request this process sends to Redis (a command, a pipeline or a
    transaction: one write each, one round trip each); the one-element list holds the count.

    redis-py sends a pipeline's commands in one ``send_packed_command``, so counting those calls
    counts round trips, which INFO's per-command figures cannot tell (a script's inner commands
    count there too)."""
    import redis.asyncio.connection
    import redis.connection

    sent = [0]
    by_site = TRIPS_BY_SITE if os.environ.get("PAIJU_BENCH_TRIPS_BY_SITE") == "1" else None
    for connection_class in (redis.connection.AbstractConnection, redis.asyncio.connection.AbstractConnection):
        original = connection_class.send_packed_command
        if getattr(original, "counts_round_trips", False):
            continue

        def counted(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            sent[0] += 1
            if by_site is not None:
                site = _asking_site()
                by_site[site] = by_site.get(site, 0) + 1
            return _original(self, *args, **kwargs)

        counted.counts_round_trips = True  # type: ignore[attr-defined]
        connection_class.send_packed_command = counted  # type: ignore[method-assign]
    return sent


TRIPS_BY_SITE: dict[str, int] = {}


def _asking_site() -> str:
    """The innermost two platform functions (outside the Redis client wrappers) on the stack."""
    frame = sys._getframe(2)
    names: list[str] = []
    while frame is not None and len(names) < 2:
        path = frame.f_code.co_filename
        if "/paiju/" in path and "/redis_clients" not in path and "/store/store.py" not in path:
            names.append(frame.f_code.co_name)
        frame = frame.f_back
    return " < ".join(names) or "?"


GC_FULL_COLLECTIONS = "gc full collections"
GC_PAUSE_SECONDS = "gc pause seconds"
GC_LONGEST_PAUSE = "gc longest pause seconds since start"
"""Not a count: the bench shows it as it is, not as a difference over the run."""
GC_KEYS = (GC_FULL_COLLECTIONS, GC_PAUSE_SECONDS, GC_LONGEST_PAUSE)

LOOP_LATENESS = "PAIJU_BENCH_LOOP_LATENESS"
"""Set to 1 in a server process's environment to time its event loop's lateness."""
LOOP_LATE_OVER = {0.01: "loop late over 10 ms", 0.025: "loop late over 25 ms"}
LOOP_LONGEST_LATE = "loop longest lateness seconds since start"
"""Not a count: the bench shows it as it is, not as a difference over the run."""
LOOP_KEYS = (*LOOP_LATE_OVER.values(), LOOP_LONGEST_LATE)
HIGHEST_SINCE_START = (GC_LONGEST_PAUSE, LOOP_LONGEST_LATE)
"""The reported figures that are not counts: the most of any process, taken as they are."""
LOOP_PROBE_SECONDS = 0.005
MOVE_METHODS = ("Act", "Play.move")
"""How the servers' metrics name a player's move: an Act call, or a move on a Play stream."""


def time_garbage_collections() -> dict[str, float]:
    """From now on, time this process's garbage collections; the dict holds the totals so far.

    A collection holds the interpreter, so each is a pause of every thread, the event loop's
    included: full collections (the oldest generation) walk every tracked object."""
    import gc

    totals = {GC_FULL_COLLECTIONS: 0.0, GC_PAUSE_SECONDS: 0.0, GC_LONGEST_PAUSE: 0.0}
    began = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
            return
        pause = time.perf_counter() - began[0]
        totals[GC_PAUSE_SECONDS] += pause
        totals[GC_LONGEST_PAUSE] = max(totals[GC_LONGEST_PAUSE], pause)
        if info["generation"] == 2:
            totals[GC_FULL_COLLECTIONS] += 1

    gc.callbacks.append(timed)
    return totals


def time_loop_lateness(loop: Any) -> dict[str, float]:
    """From now on, wake on ``loop`` every LOOP_PROBE_SECONDS and count how late each wake-up
    came; the dict holds the counts so far. A late wake-up is time the loop could not take
    anything: a garbage collection, another thread holding the interpreter, a synchronous call
    on the loop, or the machine's cores all taken."""
    import asyncio

    totals = {**dict.fromkeys(LOOP_LATE_OVER.values(), 0.0), LOOP_LONGEST_LATE: 0.0}

    async def probe() -> None:
        while True:
            asked = loop.time()
            await asyncio.sleep(LOOP_PROBE_SECONDS)
            late = loop.time() - asked - LOOP_PROBE_SECONDS
            for bound, key in LOOP_LATE_OVER.items():
                if late > bound:
                    totals[key] += 1
            totals[LOOP_LONGEST_LATE] = max(totals[LOOP_LONGEST_LATE], late)

    asyncio.run_coroutine_threadsafe(probe(), loop)
    return totals


LOOP_STALLS = "PAIJU_BENCH_LOOP_STALLS"
"""Set to 1 in a server process's environment to note where its event loop's thread stands when
the loop stalls."""
CORES = "PAIJU_BENCH_CORES"
"""The cores (comma-separated) a process of the run keeps to, set in its environment when the
run gives the servers cores of their own (``--server-cores``)."""
LOOP_STALL_AT = "loop stalled at "
"""Prefix of a count of the loop's stalls by where its thread stood (:class:`LoopStalls`)."""
LOOP_STALL_SECONDS = 0.015
LOOP_STALL_WATCH_SECONDS = 0.003


class LoopStalls:
    """Where the event loop's thread stood whenever the loop had not turned for
    LOOP_STALL_SECONDS: its innermost frames, counted by site.

    A thread of this process looks every LOOP_STALL_WATCH_SECONDS. It needs the interpreter to
    look, so the stalls it sees last at least as long as that wait. A site at a call that lets go
    of the interpreter (a socket's send or receive, a deflate) says the loop's thread was waiting
    to have it back, or for a core: some other thread ran meanwhile."""

    def __init__(self, loop: Any) -> None:
        import asyncio
        import threading

        self._counts: dict[str, float] = {}
        self._lock = threading.Lock()
        self._turned = time.perf_counter()
        self._loop_thread: int | None = None
        asyncio.run_coroutine_threadsafe(self._turn(), loop)
        threading.Thread(target=self._watch, name="loop-stall-watch", daemon=True).start()

    async def _turn(self) -> None:
        import asyncio
        import threading

        self._loop_thread = threading.get_ident()
        while True:
            self._turned = time.perf_counter()
            await asyncio.sleep(LOOP_STALL_WATCH_SECONDS / 2)

    def _watch(self) -> None:
        noted = None
        while True:
            time.sleep(LOOP_STALL_WATCH_SECONDS)
            turned = self._turned
            if self._loop_thread is None or turned == noted or time.perf_counter() - turned < LOOP_STALL_SECONDS:
                continue
            noted = turned
            site = LOOP_STALL_AT + _innermost(sys._current_frames().get(self._loop_thread))
            with self._lock:
                self._counts[site] = self._counts.get(site, 0.0) + 1

    def counts(self) -> dict[str, float]:
        with self._lock:
            return dict(self._counts)


def _innermost(frame: Any, depth: int = 3) -> str:
    """A frame and its callers, innermost first: ``function (file:line) < …``."""
    sites = []
    while frame is not None and len(sites) < depth:
        sites.append(f"{frame.f_code.co_name} ({os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno})")
        frame = frame.f_back
    return " < ".join(sites) or "?"


def _reported(round_trips: list[int], collections: dict[str, float], lateness: dict[str, float],
              stalls: LoopStalls | None = None) -> dict[str, float]:
    return {**rpc_counts(), **collections, **lateness, **(stalls.counts() if stalls else {}),
            REDIS_ROUND_TRIPS: float(round_trips[0]),
            **{REDIS_TRIPS_FROM + site: float(count) for site, count in TRIPS_BY_SITE.items()}}


def rpc_counts() -> dict[str, float]:
    """RPCs the server has finished so far, per method, from its own metrics (empty if none)."""
    try:
        from paiju.common.metrics import METRICS
    except ImportError:
        return {}
    counts: dict[str, float] = {}
    # The one histogram, not the whole registry: the process and GC collectors read /proc and
    # walk the interpreter, work of this harness that the server's CPU figure would count.
    for metric in METRICS.rpc_duration.collect():
        for sample in metric.samples:
            if sample.name == "paiju_rpc_duration_seconds_count":
                method = sample.labels.get("method", "?")
                counts[method] = counts.get(method, 0.0) + sample.value
            elif (sample.name == "paiju_rpc_duration_seconds_bucket" and sample.labels.get("method") in MOVE_METHODS
                  and sample.labels.get("le") in ACT_SERVED_WITHIN):
                key = ACT_SERVED_WITHIN[sample.labels["le"]]
                counts[key] = counts.get(key, 0.0) + sample.value
    for metric in METRICS.deadline_lag.collect():
        for sample in metric.samples:
            if sample.name == "paiju_deadline_lag_seconds_count":
                counts[DEADLINES_CLAIMED + sample.labels.get("timer", "?")] = sample.value
    return counts


TABLE_SIDE = ("table", "lobby", "watchdog")
"""What a server process serves when the ledger has a process of its own (``--ledger-process``)."""


def server_process(environment: dict[str, str], rooms_per_tier: int, port: int, share_port: bool,
                   started: Any, stop: Any, counts: Any, services: tuple[str, ...] | None = None) -> None:
    """One server process: ``services`` (by default the whole platform) on ``port`` (shared with
    the other server processes of the run when ``share_port``) until ``stop``; it reports
    ``(pid, port)`` once serving, then ``(pid, RPC counts and Redis round trips)`` every
    REPORT_SECONDS and once more when stopping."""
    from paiju.common.collector import settle_after_start_up
    from paiju.common.config import Settings
    from paiju.platform import SERVICES, build
    from paiju.rpc.server import start_from_settings
    from paiju.wallet.celery_app import WorkerOptions

    keep_to_cores(environment.get(CORES))
    round_trips = count_redis_round_trips()
    collections = time_garbage_collections()
    settings = Settings.from_env(environment)
    platform = build(settings, rooms_per_tier=rooms_per_tier, options=WorkerOptions.from_env(environment),
                     services=services or SERVICES)
    server = start_from_settings(settings, platform.bindings(), port=port, share_port=share_port)
    platform.start_background(relay=True)
    settle_after_start_up()  # as ``paiju serve`` does
    loop = getattr(server.server, "loop", None)
    lateness = time_loop_lateness(loop) if environment.get(LOOP_LATENESS) == "1" and loop is not None else {}
    stalls = LoopStalls(loop) if environment.get(LOOP_STALLS) == "1" and loop is not None else None
    started.put((os.getpid(), server.port))
    try:
        while not stop.wait(REPORT_SECONDS):
            counts.put((os.getpid(), time.monotonic(), _reported(round_trips, collections, lateness, stalls)))
        counts.put((os.getpid(), time.monotonic(), _reported(round_trips, collections, lateness, stalls)))
    finally:
        server.stop(grace=1.0)
        platform.close()


@dataclass
class ServerProcesses:
    """The run's server processes and the RPC counts they last reported."""

    processes: list[Any]
    port: int
    counts_queue: Any
    counts: dict[int, dict[str, float]] = field(default_factory=dict)
    reported_at: dict[int, float] = field(default_factory=dict)
    """When each process made its last report (``time.monotonic()``, one clock for the machine)."""
    ledger: Any = None
    """The ledger's own process (the wallet service and the settlement relay, as the wallet
    pods and the Celery worker are in production), when the run gave it one."""
    ledger_stop: Any = None
    """Stops the ledger, set once the servers have stopped (they call it until then)."""

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]

    def rpc_counts(self) -> dict[str, float]:
        """Every server process's finished RPCs per method, as last reported, and the Redis round
        trips they made (under ``REDIS_ROUND_TRIPS``)."""
        while True:
            try:
                pid, reported_at, counts = self.counts_queue.get_nowait()
            except queue.Empty:
                break
            self.counts[pid], self.reported_at[pid] = counts, reported_at
        total: dict[str, float] = {}
        for counts in self.counts.values():
            for method, count in counts.items():
                combined = max if method in HIGHEST_SINCE_START else sum
                total[method] = combined((total.get(method, 0.0), count))
        return total


    def counts_reported_after(self, moment: float, timeout: float = 60.0) -> dict[str, float]:
        """:meth:`rpc_counts` once every process (the ledger's too) has reported after
        ``moment`` (``time.monotonic()``). A busy server's report can come seconds late; counts
        taken from an older one would cover only part of a window."""
        reporting = [*self.pids, *([self.ledger.pid] if self.ledger else [])]
        give_up_at = time.monotonic() + timeout
        while True:
            total = self.rpc_counts()
            if all(self.reported_at.get(pid, -1.0) >= moment for pid in reporting):
                return total
            if time.monotonic() > give_up_at:
                raise RuntimeError(f"the server processes sent no report within {timeout:.0f} s")
            time.sleep(REPORT_SECONDS / 10)


def keep_to_cores(cores: str | None) -> None:
    """Keep this process, and every thread it starts from now on, to ``cores`` ("0,1"; none
    given: wherever the system puts it). Called first thing, before any thread starts."""
    if cores:
        os.sched_setaffinity(0, {int(core) for core in cores.split(",")})


def split_cores(server_cores: int) -> tuple[str, str] | None:
    """With ``--server-cores N``: the first N cores this process may use, for the servers, and
    the rest, for the load generators and the ledger (Redis and PostgreSQL are not the run's:
    they stay where the system puts them); ``None`` for 0 (no split)."""
    if not server_cores:
        return None
    cores = sorted(os.sched_getaffinity(0))
    if server_cores >= len(cores):
        raise SystemExit(f"--server-cores {server_cores} leaves none of the {len(cores)} cores for the rest")
    return ",".join(map(str, cores[:server_cores])), ",".join(map(str, cores[server_cores:]))


def start_servers(context: Any, environment: dict[str, str], args: argparse.Namespace, stop: Any) -> ServerProcesses:
    """``--server-processes`` servers on one port: the first picks it, the others share it. With
    ``--ledger-process``, the ledger first, in a process of its own that the servers call. With
    ``--server-cores``, the servers keep to those cores and the ledger to the others."""
    started, counts = context.Queue(), context.Queue()
    ledger, ledger_stop, services = None, None, None
    split = split_cores(getattr(args, "server_cores", 0))
    if getattr(args, "ledger_process", False):
        ledger_stop = context.Event()
        ledger_environment = {**environment, CORES: split[1]} if split else environment
        ledger = context.Process(target=server_process, daemon=True,
                                 args=(ledger_environment, args.tables, 0, False, started, ledger_stop, counts,
                                       ("wallet",)))
        ledger_port = _started(ledger, started)
        environment = {**environment, "PAIJU_WALLET_TARGET": f"127.0.0.1:{ledger_port}"}
        services = TABLE_SIDE
    if split:
        environment = {**environment, CORES: split[0]}
    share = args.server_processes > 1
    processes: list[Any] = []
    port = 0
    for _ in range(args.server_processes):
        process = context.Process(target=server_process, daemon=True,
                                  args=(environment, args.tables, port, share, started, stop, counts, services))
        processes.append(process)
        port = _started(process, started)
    return ServerProcesses(processes, port, counts, ledger=ledger, ledger_stop=ledger_stop)


def _started(process: Any, started: Any) -> int:
    """Start ``process``; the port it serves on, once it does."""
    process.start()
    try:
        _, port = started.get(timeout=120)
    except queue.Empty:
        raise RuntimeError("a server process did not start within 120 s") from None
    return int(port)
