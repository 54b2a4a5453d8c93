"""Platform benchmark: bot tables playing 炸金花 through the all-in-one server over real gRPC.

Each server process (``--server-processes``, sharing one port) builds the whole platform on
real Redis (``REDIS_URL``, a key prefix of this run, removed at the end) and a ledger (a SQLite
file in a temporary folder, or a PostgreSQL schema of this run with ``--postgres``), serves every
service on loopback and runs the deadline pump and the settlement relay; this process registers
the bots and reads the tables for the figures. The bots live in separate processes
(``--bot-processes``, each bot a ``play_bot`` thread with its Play stream, exactly what
``paiju serve --bots`` runs) so that the figures are the server's; the bots act as fast as they
can. After a warm-up it measures for ``--seconds`` and prints actions/s (successful moves),
hands/s, a move's latency as the bots see it (on their Play streams), Redis bytes per live table and CPU.

Targets on the 2-core dev machine, at 200 tables: >= 1,000 actions/s with p99 <= 25 ms, and
<= 4 KB of Redis per table. Run: ``make bench`` or
``.venv/bin/python bench/bot_tables.py --tables 200 --seconds 30``.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import queue
import random
import secrets
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runs import cpu_seconds, drop_prefix, ledger, percentile, redis_cpu_seconds, with_connections
from servers import (
    ACT_SERVED_WITHIN,
    DEADLINES_CLAIMED,
    GC_KEYS,
    LOOP_KEYS,
    REDIS_ROUND_TRIPS,
    REPORT_SECONDS,
    ServerProcesses,
    start_servers,
)

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
BOTS_PER_TABLE = 3
TARGET_ACTIONS_PER_SECOND = 1_000
TARGET_P99_MS = 25.0
TARGET_BYTES_PER_TABLE = 4_096
TARGET_TABLES = 200
MEMORY_SAMPLE = 25


# --- the bot processes -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotReport:
    """What one bot process did since its last report."""

    pid: int
    actions: int
    stale: int
    refused: int
    errors: list[str]
    act_seconds: list[float]
    seated: int


class _Counters:
    """Counters shared by the bot threads of one process."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.act_seconds: list[float] = []
        self.errors: list[str] = []
        self.seated = 0

    def take(self) -> tuple[list[float], list[str], int]:
        with self.lock:
            taken, self.act_seconds = self.act_seconds, []
            errors, self.errors = self.errors, []
            return taken, errors, self.seated


def _timed_moves(counters: _Counters, think_seconds: float = 0.0) -> None:
    """Wrap the bots' moves (``PlayWaiter.move``: on the Play stream, or an Act call where the
    server serves no Play) so every move's round trip is recorded (refused ones too), after
    ``think_seconds`` of thought on average (not counted). Once per bot process."""
    from paiju.client.waiters import PlayWaiter

    move = PlayWaiter.move
    thought = random.Random()

    def timed(waiter: PlayWaiter, action: str, expected_version: int) -> dict[str, Any]:
        if think_seconds:
            # Spread around the mean, so that the tables do not all move in the same instant.
            time.sleep(think_seconds * thought.uniform(0.5, 1.5))
        started = time.perf_counter()
        try:
            return move(waiter, action, expected_version)
        finally:
            elapsed = time.perf_counter() - started
            with counters.lock:
                counters.act_seconds.append(elapsed)

    PlayWaiter.move = timed  # type: ignore[method-assign]


def _bot(address: str, name: str, password: str, room: str, kind: str, stats: Any, counters: _Counters,
         stop: Any, think_seconds: float) -> None:
    from paiju.client.bots import BOTS
    from paiju.client.play import play_bot
    from paiju.client.sdk import PaijuClient, PaijuError

    rng = random.Random()
    try:
        # A connection per bot, as a device per player has: server processes sharing the port
        # each take a share of the connections.
        client = PaijuClient(address, own_connection=True)
        client.login(name, password)
    except PaijuError as error:
        with counters.lock:
            counters.errors.append(f"{name} login: {error.reason}")
        return
    with counters.lock:
        counters.seated += 1
    try:
        while not stop.is_set():
            try:
                play_bot(client, "zhajinhua", "free", BOTS[kind], hands=10**9, stop=stop, rng=rng,
                         room_id=room, stats=stats)
            except PaijuError as error:
                with counters.lock:
                    counters.errors.append(f"{name}: {error.reason}")
                stop.wait(1.0)
    finally:
        client.close()


def bot_process(address: str, seats: list[tuple[str, str, str, str]], stop: Any, reports: Any,
                think_seconds: float = 0.0) -> None:
    """Play ``seats`` (name, password, room, bot kind), one thread each, until ``stop``."""
    from paiju.client.play import BotStats

    counters = _Counters()
    _timed_moves(counters, think_seconds)
    stats = [BotStats() for _ in seats]
    threads = [
        threading.Thread(target=_bot, args=(address, *seat, stat, counters, stop, think_seconds), daemon=True)
        for seat, stat in zip(seats, stats)
    ]
    for thread in threads:
        thread.start()
    last_actions = last_stale = last_refused = 0
    while True:
        stopping = stop.wait(REPORT_SECONDS)
        actions = sum(s.actions for s in stats)
        stale = sum(s.stale for s in stats)
        refused = sum(len(s.refused) for s in stats)
        act_seconds, errors, seated = counters.take()
        reports.put(BotReport(os.getpid(), actions - last_actions, stale - last_stale, refused - last_refused,
                              errors, act_seconds, seated))
        last_actions, last_stale, last_refused = actions, stale, refused
        if stopping:
            break
    for thread in threads:
        thread.join(timeout=5)


# --- the server side ---------------------------------------------------------------------


@dataclass
class Totals:
    """Everything the bot processes reported, split at the start of the measured window."""

    actions: int = 0
    stale: int = 0
    refused: int = 0
    act_seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seated: dict[int, int] = field(default_factory=dict)

    def add(self, report: BotReport) -> None:
        self.actions += report.actions
        self.stale += report.stale
        self.refused += report.refused
        self.act_seconds += report.act_seconds
        self.errors += report.errors
        self.seated[report.pid] = report.seated


def table_records(platform: Any, rooms: list[str]) -> list[Any]:
    """The records of ``rooms``, read in one round trip (the server is busy; be brief)."""
    from paiju.table.record import TableRecord

    snapshots = platform.store.load_many(rooms)
    return [TableRecord.from_bytes(snapshots[room].state) for room in rooms if room in snapshots]


def hands_played(platform: Any, rooms: list[str]) -> int:
    """Hands finished at ``rooms`` so far, from the table records themselves."""
    return sum(record.hands_played for record in table_records(platform, rooms))


def seated_bots(platform: Any, rooms: list[str]) -> int:
    """Players seated at ``rooms`` now, from the table records."""
    return sum(len(record.seated()) for record in table_records(platform, rooms))


def bytes_per_table(platform: Any, rooms: list[str], prefix: str, sample: int) -> tuple[float, int, float]:
    """Mean and largest ``MEMORY USAGE`` of a sample of live tables' keys, and every key of the
    run (indexes, seat directory, leaderboard included) divided by the number of tables."""
    chosen = random.Random(0).sample(rooms, min(sample, len(rooms)))
    sizes = [platform.store.memory_usage(room).total_bytes for room in chosen]
    client = platform.redis
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.memory_usage(key, samples=0)
    everything = sum(used or 0 for used in pipe.execute())
    return statistics.fmean(sizes), max(sizes), everything / len(rooms)


def register_bots(platform: Any, tables: int, run: str) -> list[tuple[str, str, str, str]]:
    """One account per seat, registered in-process with a cheap password hash (setup only:
    600 default scrypt hashes would take longer than the measurement)."""
    from paiju.wallet.passwords import PasswordHasher

    platform.wallet.passwords = PasswordHasher(n=2**4)
    kinds = itertools.cycle(["sensible", "sensible", "random"])
    seats = []
    for table in range(tables):
        room = f"zhajinhua-free-{table + 1:02d}"
        for seat in range(BOTS_PER_TABLE):
            name, password = f"b{run}-{table}-{seat}", secrets.token_hex(8)
            platform.wallet.register(name, password)
            seats.append((name, password, room, next(kinds)))
    return seats


def run(args: argparse.Namespace) -> int:
    from paiju.common.config import Settings
    from paiju.platform import build
    from paiju.wallet.celery_app import WorkerOptions

    run_id = secrets.token_hex(4)
    prefix = f"bench-{run_id}"
    postgres = (args.postgres or DEFAULT_POSTGRES_URL) if args.postgres is not None else None
    with ledger(postgres, run_id) as database_url:
        workers = args.grpc_workers or BOTS_PER_TABLE * args.tables * 2 + 32
        environment = {
            "REDIS_URL": with_connections(args.redis_url, workers + 64),
            "DATABASE_URL": database_url,
            "PAIJU_REDIS_PREFIX": prefix,
            "PAIJU_SECRET": secrets.token_hex(32),
            "PAIJU_STARTING_GRANT": str(10**9),  # nobody goes broke within a run
            "PAIJU_GRPC_WORKERS": str(workers),
        }
        settings = Settings.from_env(environment)
        began = time.monotonic()
        # This process only sets up and measures: it registers the bots and reads the tables.
        platform = build(settings, rooms_per_tier=args.tables, options=WorkerOptions.from_env(environment))
        rooms = [f"zhajinhua-free-{n + 1:02d}" for n in range(args.tables)]
        seats = register_bots(platform, args.tables, run_id)
        context = multiprocessing.get_context("spawn")  # never fork a process that runs gRPC
        stop, server_stop, reports = context.Event(), context.Event(), context.Queue()
        servers = start_servers(context, environment, args, server_stop)
        address = f"127.0.0.1:{servers.port}"
        print(f"paiju platform bench: {args.tables} tables x {BOTS_PER_TABLE} bots in {args.bot_processes} "
              f"bot processes (a play_bot thread + a Play stream per bot); {args.server_processes} server "
              f"process(es) {servers.pids} on {address}; Redis {args.redis_url} prefix {prefix}; ledger "
              f"{'PostgreSQL' if postgres else 'SQLite'}; {settings.grpc_workers} gRPC workers; "
              f"bots think {args.think_ms:g} ms before each move; "
              f"setup {time.monotonic() - began:.1f} s", flush=True)
        shares = [seats[i::args.bot_processes] for i in range(args.bot_processes)]
        bots = [context.Process(target=bot_process, args=(address, share, stop, reports, args.think_ms / 1000),
                                daemon=True)
                for share in shares if share]
        try:
            for process in bots:
                process.start()
            report = _measure(args, platform, servers, rooms, bots, reports)
            _stop_bots(stop, bots)
            if report is None:
                return 2
            # Measured once the bots are gone: the tables' keys stay, and the server is quiet.
            report(*bytes_per_table(platform, rooms, prefix, MEMORY_SAMPLE))
            return 0
        finally:
            _stop_bots(stop, bots)
            _stop_bots(server_stop, servers.processes)
            platform.close()
            removed = drop_prefix(platform.redis, prefix)
            print(f"cleaned up: {removed} Redis keys of {prefix}, the {'schema' if postgres else 'SQLite file'}")


def _stop_bots(stop: Any, bots: list[Any]) -> None:
    stop.set()
    for process in bots:
        if process.pid is None:
            continue  # never started
        process.join(timeout=15)
        if process.is_alive():
            process.terminate()


def _drain(reports: Any, into: Callable[[BotReport], None], wait: float) -> None:
    deadline = time.monotonic() + wait
    while (left := deadline - time.monotonic()) > 0:
        try:
            into(reports.get(timeout=left))
        except queue.Empty:
            return


def _measure(args: argparse.Namespace, platform: Any, servers: ServerProcesses, rooms: list[str], bots: list[Any],
             reports: Any) -> Callable[[float, int, float], None] | None:
    """Warm up, measure, print the figures; returns what prints the memory figures and targets."""
    warmup, window = Totals(), Totals()
    bot_count = BOTS_PER_TABLE * args.tables
    began = time.monotonic()
    # Warm-up: every bot logged in and the tables playing, then --warmup seconds more.
    playing_since: float | None = None
    while True:
        before = warmup.actions
        _drain(reports, warmup.add, 1.0)
        logged_in = sum(warmup.seated.values())
        seated = bot_count if playing_since is not None else seated_bots(platform, rooms)
        if playing_since is None and seated >= bot_count and warmup.actions > 0:
            playing_since = time.monotonic()
        print(f"\rwarm-up {time.monotonic() - began:5.0f} s · bots logged in {logged_in}/{bot_count}, "
              f"seated {seated} · "
              f"{warmup.actions - before:,} actions/s".ljust(90), end="", flush=True)
        if playing_since is not None and time.monotonic() - playing_since >= args.warmup:
            break
        if time.monotonic() - began > args.warmup + 300:
            print(f"\nthe tables did not start playing: {warmup.errors[:5]}")
            return None

    server_pids, bot_pids = servers.pids, [p.pid for p in bots]
    redis_client = platform.redis
    rpcs_before = servers.counts_reported_after(time.monotonic())
    hands_before = hands_played(platform, rooms)
    server_cpu_before = sum(map(cpu_seconds, server_pids))
    bots_cpu_before = sum(map(cpu_seconds, bot_pids))
    redis_cpu_before = redis_cpu_seconds(redis_client)
    redis_commands_before = int(redis_client.info("stats")["total_commands_processed"])
    start = time.monotonic()
    while (elapsed := time.monotonic() - start) < args.seconds:
        before, samples_before = window.actions, len(window.act_seconds)
        _drain(reports, window.add, min(1.0, args.seconds - elapsed))
        recent = window.act_seconds[samples_before:]
        print(f"\rmeasuring {time.monotonic() - start:5.0f}/{args.seconds:.0f} s · "
              f"{window.actions - before:,} actions in the last second · p99 {percentile(recent, 0.99) * 1000:.1f} ms"
              .ljust(90), end="", flush=True)
    elapsed = time.monotonic() - start
    server_cpu = sum(map(cpu_seconds, server_pids)) - server_cpu_before
    bots_cpu = sum(map(cpu_seconds, bot_pids)) - bots_cpu_before
    hands = hands_played(platform, rooms) - hands_before
    redis_cpu = redis_cpu_seconds(redis_client) - redis_cpu_before
    redis_commands = int(redis_client.info("stats")["total_commands_processed"]) - redis_commands_before
    rpcs = {method: count - rpcs_before.get(method, 0.0)
            for method, count in servers.counts_reported_after(start + elapsed).items()}
    round_trips = rpcs.pop(REDIS_ROUND_TRIPS, 0.0)
    for not_a_call in (*GC_KEYS, *LOOP_KEYS, *ACT_SERVED_WITHIN.values(),
                       *[n for n in rpcs if n.startswith(DEADLINES_CLAIMED)]):
        rpcs.pop(not_a_call, None)
    print()

    actions_rate = window.actions / elapsed
    p50, p95, p99 = (percentile(window.act_seconds, f) * 1000 for f in (0.50, 0.95, 0.99))
    print(f"tables {args.tables} · bots {bot_count} · measured {elapsed:.1f} s")
    print(f"  actions/s (successful moves) : {actions_rate:10,.0f}   (stale {window.stale}, refused {window.refused})")
    print(f"  hands/s                      : {hands / elapsed:10,.1f}   ({hands / elapsed / args.tables:.2f} per table)")
    print(f"  move latency p50 / p95 / p99 : {p50:6.1f} / {p95:6.1f} / {p99:6.1f} ms   "
          f"(max {max(window.act_seconds, default=0) * 1000:.0f} ms, {len(window.act_seconds):,} moves)")
    print(f"  CPU (cores busy)             : server {server_cpu / elapsed:.2f} · bots {bots_cpu / elapsed:.2f} "
          f"· redis-server {redis_cpu / elapsed:.2f} · machine has {os.cpu_count()}")
    load = os.getloadavg()
    print(f"  machine load average         : {load[0]:.1f} (1 min) {load[1]:.1f} (5 min): "
          f"other work on the machine skews every figure above")
    print(f"  server CPU per action        : {server_cpu / max(window.actions, 1) * 1e6:10,.0f} µs")
    per_action = max(window.actions, 1)
    print(f"  per successful move          : {round_trips / per_action:6.1f} Redis round trips from the servers · "
          f"{redis_commands / per_action:.1f} Redis commands (whole Redis server, "
          f"scripts' inner commands included) · {sum(rpcs.values()) / per_action:.1f} finished RPCs: "
          + ", ".join(f"{method} {count / per_action:.2f}" for method, count in
                      sorted(rpcs.items(), key=lambda item: -item[1]) if count))
    if window.errors:
        print(f"  bot errors ({len(window.errors)}): {'; '.join(window.errors[:3])}")

    def report(mean_bytes: float, most_bytes: int, all_bytes: float) -> None:
        print(f"  Redis bytes per live table   : {mean_bytes:10,.0f}   (largest of {min(MEMORY_SAMPLE, len(rooms))} "
              f"sampled {most_bytes:,}; every key of the run / tables {all_bytes:,.0f})")
        scale = "" if args.tables == TARGET_TABLES else f" (the targets are set for {TARGET_TABLES} tables)"
        checks = [
            (f">= {TARGET_ACTIONS_PER_SECOND:,} actions/s", actions_rate >= TARGET_ACTIONS_PER_SECOND),
            (f"p99 <= {TARGET_P99_MS:.0f} ms", p99 <= TARGET_P99_MS),
            (f"<= {TARGET_BYTES_PER_TABLE // 1024} KB per table", mean_bytes <= TARGET_BYTES_PER_TABLE),
        ]
        print("targets" + scale + ": " + " · ".join(f"{name}: {'met' if ok else 'NOT met'}" for name, ok in checks))

    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="bot tables, 3 bots each (default 200)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured time (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of play before measuring (default 5)")
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="each bot thinks this long on average before each move (default 0: as fast as it can); "
                             "with thought the tables offer a load, and the latency is the server's at that load")
    parser.add_argument("--bot-processes", type=int, default=2, help="processes the bots run in (default 2)")
    parser.add_argument("--redis-url", default=os.environ.get("PAIJU_BENCH_REDIS_URL", DEFAULT_REDIS_URL),
                        help=f"real Redis (default {DEFAULT_REDIS_URL}); a key prefix of this run is removed after")
    parser.add_argument("--postgres", nargs="?", const="", default=None, metavar="URL",
                        help=f"ledger on PostgreSQL, in a schema of this run (default URL {DEFAULT_POSTGRES_URL})")
    parser.add_argument("--server-processes", type=int, default=1,
                        help="server processes sharing the port (default 1)")
    parser.add_argument("--grpc-workers", type=int, default=0,
                        help="server threads (default 2 per bot + 32: each Watch stream holds one)")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0 or args.bot_processes < 1 or args.warmup < 0:
        parser.error("--tables and --bot-processes must be at least 1, --seconds above 0, --warmup not negative")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
