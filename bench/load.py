"""Load test: many simulated players through the Paiju services on loopback, ramped step by step.

Two shapes of server, both on real Redis (a key prefix of this run) and real PostgreSQL (a schema
of this run), both removed at the end:

* all-in-one (default): ``paiju serve`` as one process, the settlement relay inside it;
* ``--split``: ``paiju serve wallet|lobby|table|watchdog`` as four processes (the wallet with
  ``--external-worker``) plus a Celery worker (``celery -A paiju.wallet.celery_app worker -B``)
  that alone applies settlements.

The players live in client processes (``multiprocessing``, spawned), never in the server's:

* *active* players (``--active``, threads of the sync SDK, at most ``--threads-per-process``
  threads per process): register over gRPC (the real scrypt cost), quick match at 炸金花
  ``expert``, press ready, keep a Watch stream open and play with a bot (``play_bot``) as fast
  as the table lets them;
* *idle connected* players (asyncio ``grpc.aio``, no thread each): log in (accounts seeded into
  the ledger beforehand with a cheap hash, so that 10,000 scrypt hashes do not dominate the
  run), sit at a 炸金花 ``free`` room and only hold a Watch stream open. Each holds its own TCP
  connection for the stream (``--players-per-connection`` to share); logins and sits go over a
  small pool of connections per process.

The connected count (open Watch streams, counted by the clients) is ramped by ``--step`` up to
``--target``; each step holds ``--hold`` seconds and prints one line: connected (client count and
the server's own ``paiju_rpc_in_flight{method="Watch"}``), actions/s, p99 of each RPC in the
step, errors, CPU and memory of the servers, Redis clients and CPU. The ramp stops early when the
step is saturated: the count did not reach its target in ``--step-timeout`` seconds, more than
``--max-error-rate`` of the step's RPCs failed, or an RPC's p99 (Register and QuickMatch excepted:
scrypt and a scan of every room are slow by design) passed ``--max-p99-ms``. The summary gives
p50/p99 per RPC type (timed client-side), errors by status code, throughput and the highest
connected count reached.

Only loopback is ever a target; every process this starts is stopped at the end, Ctrl-C
included. Run: ``.venv/bin/python bench/load.py --target 2000 --step 500`` (add ``--split``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import multiprocessing
import os
import queue
import random
import resource
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from load_deployment import (
    Deployment,
    idle_name,
    read_process,
    scrape_metrics,
    seed_idle_accounts,
    start_servers,
    stop_processes,
)
from runs import (
    drop_prefix,
    percentile,
    postgres_schema,
    redis_cpu_seconds,
)

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
GAME = "zhajinhua"
IDLE_TIER = "free"
ACTIVE_TIER = "expert"
SEATS_PER_ROOM = 5
RPC_TIMEOUT_SECONDS = 30.0
REPORT_SECONDS = 1.0
PROGRESS_SECONDS = 10.0
SETUP_CONCURRENCY = 32
UNARY_CONNECTIONS = 4
SLOW_BY_DESIGN = ("Register", "QuickMatch")
FILE_LIMIT = 65_536


# --- what the client processes report --------------------------------------------------


@dataclass(slots=True)
class ClientReport:
    """What one client process did since its last report (``connected`` is its level now)."""

    pid: int
    connected: int
    actions: int
    samples: dict[str, list[float]]
    errors: dict[tuple[str, str], int]
    messages: list[str]


class Recorder:
    """RPC timings and failures of one client process, shared by its threads and tasks."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.samples: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter[tuple[str, str]] = Counter()
        self.messages: list[str] = []
        self.connected = 0
        self.actions = 0

    def timed(self, rpc: str, seconds: float) -> None:
        with self.lock:
            self.samples[rpc].append(seconds)

    def failed(self, rpc: str, code: str, message: str = "") -> None:
        with self.lock:
            self.errors[(rpc, code)] += 1
            if message and len(self.messages) < 20:
                self.messages.append(f"{rpc} {code}: {message[:160]}")

    def streams(self, delta: int) -> None:
        with self.lock:
            self.connected += delta

    def acted(self) -> None:
        with self.lock:
            self.actions += 1

    def take(self) -> ClientReport:
        with self.lock:
            report = ClientReport(os.getpid(), self.connected, self.actions, dict(self.samples),
                                  dict(self.errors), self.messages)
            self.samples, self.errors, self.messages, self.actions = defaultdict(list), Counter(), [], 0
            return report


def _report_loop(recorder: Recorder, reports: Any, stop: Any) -> None:
    while not stop.wait(REPORT_SECONDS):
        reports.put(recorder.take())
    reports.put(recorder.take())


# --- active players: the sync SDK, a bot each ------------------------------------------


def _timed_client_class(recorder: Recorder) -> type:
    """A ``PaijuClient`` whose every call is timed and whose refusals are counted by code."""
    from paiju.client.sdk import PaijuClient, PaijuError

    def timing(rpc: str, method: Any) -> Any:
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                result = method(self, *args, **kwargs)
            except PaijuError as error:
                recorder.failed(rpc, error.status.name, f"{error.error_code or ''} {error.reason}".strip())
                raise
            recorder.timed(rpc, time.perf_counter() - started)
            if rpc == "Act":
                recorder.acted()
            return result
        return call

    def watch(self: Any, table_id: str, after_event_id: str = "", follow_view: bool = False) -> Iterator[Any]:
        started = time.perf_counter()
        counted = False
        try:
            for update in PaijuClient.watch(self, table_id, after_event_id, follow_view):
                if not counted:
                    recorder.timed("Watch", time.perf_counter() - started)
                    recorder.streams(+1)
                    counted = True
                yield update
        except PaijuError as error:
            recorder.failed("Watch", error.status.name, error.reason)
            raise
        finally:
            if counted:
                recorder.streams(-1)

    methods = {name: timing(rpc, getattr(PaijuClient, name)) for name, rpc in (
        ("register", "Register"), ("login", "Login"), ("quick_match", "QuickMatch"), ("sit", "Sit"),
        ("ready", "Ready"), ("view", "GetView"), ("act", "Act"), ("balance", "GetBalance"))}
    return type("TimedClient", (PaijuClient,), {**methods, "watch": watch})


def _active_player(config: dict[str, Any], name: str, kind: str, recorder: Recorder, stop: threading.Event) -> None:
    from paiju.client.bots import BOTS
    from paiju.client.play import BotStats, play_bot
    from paiju.client.sdk import PaijuError

    client_class = _timed_client_class(recorder)
    client = client_class(config["routes"]["table"], config["routes"])
    try:
        try:
            client.register(name, config["password"])
        except PaijuError:
            return
        stats, rng = BotStats(), random.Random()
        while not stop.is_set():
            try:
                play_bot(client, GAME, ACTIVE_TIER, BOTS[kind], hands=10**9, stop=stop, rng=rng, stats=stats)
            except PaijuError:
                stop.wait(1.0)  # counted by the timed client; sit again
    finally:
        client.close()


def active_process(config: dict[str, Any], names: list[tuple[str, str]], stop: Any, reports: Any) -> None:
    """Run ``names`` (username, bot kind) as playing bots, one thread each (two with the stream)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when the run ends
    recorder = Recorder()
    local_stop = threading.Event()
    threads = []
    for name, kind in names:
        thread = threading.Thread(target=_active_player, args=(config, name, kind, recorder, local_stop), daemon=True)
        thread.start()
        threads.append(thread)
        time.sleep(0.02)  # spread the registrations' scrypt over a moment
    reporter = threading.Thread(target=_report_loop, args=(recorder, reports, local_stop), daemon=True)
    reporter.start()
    stop.wait()
    local_stop.set()
    for thread in threads:
        thread.join(timeout=3)
    reporter.join(timeout=3)


# --- idle connected players: asyncio, a Watch stream each ------------------------------


def idle_process(config: dict[str, Any], share: int, shares: int, target: Any, stop: Any, reports: Any) -> None:
    """Hold Watch streams for the idle players ``i`` with ``i % shares == share``, as many as
    ``target`` (a shared integer: the idle players wanted across every process) says."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when the run ends
    recorder = Recorder()
    local_stop = threading.Event()
    reporter = threading.Thread(target=_report_loop, args=(recorder, reports, local_stop), daemon=True)
    reporter.start()
    try:
        asyncio.run(_idle_main(config, share, shares, target, stop, recorder))
    finally:
        local_stop.set()
        reporter.join(timeout=3)


async def _idle_main(config: dict[str, Any], share: int, shares: int, target: Any, stop: Any,
                     recorder: Recorder) -> None:
    import grpc

    from paiju.proto.v1 import lobby_pb2_grpc, table_pb2_grpc, wallet_pb2_grpc

    routes = config["routes"]
    options = [("grpc.keepalive_time_ms", 30_000), ("grpc.keepalive_permit_without_calls", 1)]
    unary = [{name: grpc.aio.insecure_channel(address, options=options) for name, address in routes.items()}
             for _ in range(UNARY_CONNECTIONS)]
    stubs = [(wallet_pb2_grpc.WalletServiceStub(c["wallet"]), lobby_pb2_grpc.LobbyServiceStub(c["lobby"])) for c in unary]
    stream_channels: list[Any] = []
    per_connection = config["players_per_connection"]
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)
    tasks: list[asyncio.Task[None]] = []
    index = share
    while not stop.is_set():
        wanted = target.value
        while index < wanted:
            ordinal = len(tasks)
            if ordinal % per_connection == 0:
                stream_channels.append(grpc.aio.insecure_channel(routes["table"], options=options))
            table = table_pb2_grpc.TableServiceStub(stream_channels[-1])
            wallet, lobby = stubs[ordinal % len(stubs)]
            tasks.append(asyncio.create_task(_idle_player(config, index, wallet, lobby, table, gate, recorder)))
            index += shares
        await asyncio.sleep(0.2)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in stream_channels + [c for group in unary for c in group.values()]:
        await channel.close(grace=None)


def idle_seat(first_room: int, index: int) -> tuple[str, int]:
    """The room and seat of idle player ``index``: five to a room, from room ``first_room`` on.

    >>> idle_seat(3, 0), idle_seat(3, 4), idle_seat(3, 5)
    (('zhajinhua-free-03', 0), ('zhajinhua-free-03', 4), ('zhajinhua-free-04', 0))
    """
    return f"{GAME}-{IDLE_TIER}-{first_room + index // SEATS_PER_ROOM:02d}", index % SEATS_PER_ROOM


async def _timed_call(recorder: Recorder, rpc: str, call: Any) -> Any:
    import grpc

    started = time.perf_counter()
    try:
        result = await call
    except grpc.aio.AioRpcError as error:
        recorder.failed(rpc, error.code().name, error.details() or "")
        raise
    recorder.timed(rpc, time.perf_counter() - started)
    return result


async def _idle_player(config: dict[str, Any], index: int, wallet: Any, lobby: Any, table: Any,
                       gate: asyncio.Semaphore, recorder: Recorder) -> None:
    import grpc

    from paiju.proto.v1 import lobby_pb2, table_pb2, wallet_pb2

    room, seat = idle_seat(config["first_idle_room"], index)
    counted = False
    try:
        async with gate:
            session = await _timed_call(recorder, "Login", wallet.Login(
                wallet_pb2.LoginRequest(username=idle_name(config["run_id"], index), password=config["password"]),
                timeout=RPC_TIMEOUT_SECONDS))
            metadata = (("authorization", f"Bearer {session.token}"),)
            await _timed_call(recorder, "Sit", lobby.Sit(
                lobby_pb2.SitRequest(room_id=room, seat=seat), metadata=metadata, timeout=RPC_TIMEOUT_SECONDS))
            started = time.perf_counter()
            stream = table.Watch(table_pb2.WatchRequest(table_id=room), metadata=metadata)
            first = await asyncio.wait_for(stream.read(), RPC_TIMEOUT_SECONDS)
            if first is grpc.aio.EOF:
                recorder.failed("Watch", "EOF", "the stream ended before its first update")
                return
            recorder.timed("Watch", time.perf_counter() - started)
            recorder.streams(+1)
            counted = True
        while True:
            update = await stream.read()
            if update is grpc.aio.EOF:
                recorder.failed("Watch", "EOF", "the server ended the stream")
                return
    except grpc.aio.AioRpcError as error:
        if counted:  # a stream that was open and broke (its opening calls count themselves)
            recorder.failed("Watch", error.code().name, error.details() or "")
    except TimeoutError:
        recorder.failed("Watch", "DEADLINE_EXCEEDED", "no first update within the RPC timeout")
    finally:
        if counted:
            recorder.streams(-1)


# --- the server side: processes, schema, prefix ----------------------------------------


def ramp_steps(target: int, step: int, floor: int) -> list[int]:
    """Connected counts to hold in turn: ``floor`` (the active players alone, all seated before
    any idle one comes), multiples of ``step`` above it, then ``target``.

    >>> ramp_steps(2000, 500, 60)
    [60, 500, 1000, 1500, 2000]
    >>> ramp_steps(1200, 500, 0), ramp_steps(50, 500, 60)
    ([500, 1000, 1200], [60])
    """
    steps = [floor] if floor else []
    steps += [n for n in range(step, target, step) if n > floor]
    return steps if steps and steps[-1] >= target else steps + [target]


# --- the ramp -----------------------------------------------------------------------------


@dataclass
class Tally:
    """Everything the clients reported, for the whole run and for the step being held."""

    connected: dict[int, int] = field(default_factory=dict)
    actions: int = 0
    samples: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[tuple[str, str]] = field(default_factory=Counter)
    messages: Counter[str] = field(default_factory=Counter)

    def add(self, report: ClientReport) -> None:
        self.connected[report.pid] = report.connected
        self.actions += report.actions
        for rpc, seconds in report.samples.items():
            self.samples[rpc] += seconds
        self.errors.update(report.errors)
        self.messages.update(report.messages)

    @property
    def open_streams(self) -> int:
        return sum(self.connected.values())

    def calls(self) -> int:
        return sum(len(s) for s in self.samples.values()) + sum(self.errors.values())


def _drain(reports: Any, tallies: list[Tally], wait: float) -> None:
    deadline = time.monotonic() + wait
    while (left := deadline - time.monotonic()) > 0:
        try:
            report = reports.get(timeout=left)
        except queue.Empty:
            return
        for tally in tallies:
            tally.add(report)


def _stop_clients(stop: Any, clients: list[Any]) -> None:
    stop.set()
    for process in clients:
        process.join(timeout=10)
    for process in clients:
        if process.is_alive():
            process.terminate()
            process.join(timeout=5)
        if process.is_alive():
            process.kill()


def _step_line(wanted: int, step: Tally, actions_rate: float, server: dict[str, float],
               deployment: Deployment, cpu: dict[str, float], redis_info: dict[str, Any]) -> str:
    """One progress line: the step's RPCs (its ramp included), the held window's actions/s,
    the servers' and Redis's readings."""
    p99s = {rpc: percentile(s, 0.99) * 1000 for rpc, s in sorted(step.samples.items())}
    readings = {p.name: read_process(p.process.pid) for p in deployment.processes}
    table = readings[deployment.table_process.name]
    errors = sum(step.errors.values())
    hot = ", ".join(f"{rpc} {ms:.0f}" for rpc, ms in p99s.items())
    cpus = " ".join(f"{name} {busy:.2f}" for name, busy in cpu.items())
    streams, seated = (f"{server[key]:,.0f}" if key in server else "? (metrics did not answer in 5 s)"
                       for key in ("watch_streams", "connected_players"))
    return (f"step {wanted:>6,}: connected {step.open_streams:>6,} (server: {streams} "
            f"Watch streams, {seated} seated+connected) · "
            f"{actions_rate:6.0f} actions/s · errors {errors} · p99 ms: {hot} · "
            f"CPU cores: {cpus} · {deployment.table_process.name} RSS {table.rss_bytes / 2**20:,.0f} MiB "
            f"{table.threads:,} threads · redis {redis_info.get('connected_clients', '?')} clients "
            f"{redis_info.get('cpu', 0.0):.2f} cores · load average {os.getloadavg()[0]:.1f}")


def run(args: argparse.Namespace) -> int:
    import redis

    run_id = secrets.token_hex(4)
    prefix = f"load-{run_id}"
    password = secrets.token_hex(12)
    idle_total = max(0, args.target - args.active)
    active_rooms = math.ceil(args.active / 3) + 2
    first_idle_room = 1
    rooms = max(10, math.ceil(idle_total / SEATS_PER_ROOM) + 1, active_rooms)
    folder = Path(tempfile.mkdtemp(prefix=f"paiju-load-{run_id}-"))
    redis_client = redis.Redis.from_url(args.redis_url)
    deployment: Deployment | None = None
    context = multiprocessing.get_context("spawn")  # never fork a process that has used gRPC
    stop = context.Event()
    reports: Any = context.Queue()
    clients: list[Any] = []
    interrupted = False

    def on_signal(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    try:
        with postgres_schema(args.postgres_url, f"load_{run_id}") as database_url:
            environment = {
                "REDIS_URL": args.redis_url, "DATABASE_URL": database_url, "PAIJU_REDIS_PREFIX": prefix,
                "PAIJU_SECRET": secrets.token_hex(32), "PAIJU_STARTING_GRANT": str(10**9),
                "PAIJU_RELAY_SECONDS": "1", "PYTHONUNBUFFERED": "1",
                # Thousands of players log in from this one address: the per-address login limit
                # is for one abusive client, not for a load test's crowd.
                "PAIJU_LOGINS_PER_PEER": "512", "PAIJU_LOGINS_IN_FLIGHT": "512",
                "PAIJU_LOGIN_RATE_PER_PEER": "100000", "PAIJU_LOGIN_BURST_PER_PEER": "100000",
            }
            seeded = seed_idle_accounts(database_url, run_id, password, idle_total, 10**9)
            started = time.monotonic()
            deployment = start_servers(args, environment, folder, rooms)
            print(f"paiju load test, {'split services + Celery worker' if args.split else 'all-in-one paiju serve'}; "
                  f"run {run_id}: Redis {args.redis_url} prefix {prefix}, PostgreSQL schema load_{run_id}; "
                  f"{rooms} rooms per tier; servers ready in {time.monotonic() - started:.0f} s; "
                  f"{idle_total:,} idle accounts seeded in {seeded:.0f} s; logs in {folder}", flush=True)
            try:
                clients, targets = _start_clients(args, context, deployment, run_id, password, first_idle_room,
                                                  stop, reports)
                _ramp(args, deployment, clients, targets, reports, redis_client, idle_total)
            except KeyboardInterrupt:
                interrupted = True
                print("\ninterrupted: stopping every process of this run", flush=True)
            finally:
                _stop_clients(stop, clients)
                stop_processes(deployment.processes)
                deployment = None
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if deployment is not None:
            stop_processes(deployment.processes)
        _stop_clients(stop, clients)
        removed = drop_prefix(redis_client, prefix)
        print(f"cleaned up: every process of the run, {removed:,} Redis keys of {prefix}, schema load_{run_id}; "
              f"logs kept in {folder}")
        if not args.keep_logs and not interrupted:
            shutil.rmtree(folder, ignore_errors=True)
    return 130 if interrupted else 0


def _start_clients(args: argparse.Namespace, context: Any, deployment: Deployment, run_id: str, password: str,
                   first_idle_room: int, stop: Any, reports: Any) -> tuple[list[Any], list[Any]]:
    config = {"routes": deployment.routes, "password": password, "run_id": run_id,
              "first_idle_room": first_idle_room, "players_per_connection": args.players_per_connection}
    clients, targets = [], []
    kinds = ("sensible", "sensible", "random")
    names = [(f"ld-{run_id}-a{i}", kinds[i % 3]) for i in range(args.active)]
    per_process = args.threads_per_process // 3  # a play thread, a Watch thread, gRPC's own
    for start in range(0, len(names), max(1, per_process)):
        process = context.Process(target=active_process, args=(config, names[start:start + per_process], stop,
                                                                reports), daemon=True)
        process.start()
        clients.append(process)
    for share in range(args.idle_processes):
        value = context.Value("i", 0, lock=False)
        process = context.Process(target=idle_process, args=(config, share, args.idle_processes, value, stop, reports),
                                  daemon=True)
        process.start()
        clients.append(process)
        targets.append(value)
    return clients, targets


def _ramp(args: argparse.Namespace, deployment: Deployment, clients: list[Any], targets: list[Any], reports: Any,
          redis_client: Any, idle_total: int) -> None:
    whole = Tally()
    metrics_port = deployment.table_process.metrics_port
    pids = {p.name: p.process.pid for p in deployment.processes}
    best: tuple[int, float] = (0, 0.0)
    best_server = 0.0
    reason = ""
    measured_seconds = 0.0
    measured_actions = 0
    print(f"{args.active} active players ({len([c for c in clients]) - args.idle_processes} processes) playing "
          f"{GAME} {ACTIVE_TIER}; idle players holding Watch streams in {args.idle_processes} processes, "
          f"{args.players_per_connection} per connection", flush=True)
    for wanted in ramp_steps(args.target, args.step, args.active):
        idle_wanted = min(idle_total, max(0, wanted - args.active))
        for value in targets:
            value.value = idle_wanted
        step = Tally(connected=whole.connected)
        reach_began = time.monotonic()
        shown = reach_began
        while whole.open_streams < wanted and time.monotonic() - reach_began < args.step_timeout:
            _drain(reports, [whole, step], 1.0)
            if time.monotonic() - shown >= PROGRESS_SECONDS:
                shown = time.monotonic()
                print(f"  ramping to {wanted:,}: {whole.open_streams:,} open streams after "
                      f"{shown - reach_began:.0f} s, {sum(whole.errors.values())} errors so far", flush=True)
        reach_seconds = time.monotonic() - reach_began
        before_cpu = {name: read_process(pid).cpu_seconds for name, pid in pids.items()}
        redis_cpu_before = redis_cpu_seconds(redis_client)
        actions_before = step.actions
        window_began = time.monotonic()
        _drain(reports, [whole, step], args.hold)
        elapsed = time.monotonic() - window_began
        actions_rate = (step.actions - actions_before) / elapsed
        measured_seconds += elapsed
        measured_actions += step.actions - actions_before
        cpu = {name: (read_process(pid).cpu_seconds - before_cpu[name]) / elapsed for name, pid in pids.items()}
        redis_info = {"connected_clients": redis_client.info("clients")["connected_clients"],
                      "cpu": (redis_cpu_seconds(redis_client) - redis_cpu_before) / elapsed}
        server = scrape_metrics(metrics_port)
        print(_step_line(wanted, step, actions_rate, server, deployment, cpu, redis_info)
              + f" · reached in {reach_seconds:.0f} s", flush=True)
        if step.open_streams >= best[0]:
            best = (step.open_streams, actions_rate)
        best_server = max(best_server, server.get("watch_streams", 0.0))
        calls, failures = step.calls(), sum(step.errors.values())
        slow = {rpc: percentile(s, 0.99) * 1000 for rpc, s in step.samples.items() if rpc not in SLOW_BY_DESIGN}
        slow = {rpc: ms for rpc, ms in slow.items() if ms > args.max_p99_ms}
        dead = [p.name for p in deployment.processes if p.process.poll() is not None]
        if dead:
            reason = f"server process(es) {dead} exited"
        elif step.open_streams < wanted:
            reason = f"only {step.open_streams:,} of {wanted:,} streams open after {args.step_timeout:.0f} s"
        elif calls and failures / calls > args.max_error_rate:
            reason = f"{failures} of {calls} RPCs failed in the step"
        elif slow:
            reason = "p99 above the limit: " + ", ".join(f"{rpc} {ms:.0f} ms" for rpc, ms in slow.items())
        if reason:
            print(f"saturated at step {wanted:,}: {reason}", flush=True)
            break
    _summary(whole, best, best_server, measured_actions / max(measured_seconds, 1e-9), reason, deployment)


def _summary(whole: Tally, best: tuple[int, float], best_server: float, actions_rate: float, reason: str,
             deployment: Deployment) -> None:
    print("\nper RPC, timed by the clients over the whole run (setup included):")
    print(f"  {'rpc':<12} {'calls':>9} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}")
    for rpc, samples in sorted(whole.samples.items()):
        print(f"  {rpc:<12} {len(samples):>9,} {percentile(samples, 0.5) * 1000:>9.1f} "
              f"{percentile(samples, 0.99) * 1000:>9.1f} {max(samples) * 1000:>9.1f}")
    if whole.errors:
        print("errors by RPC and status code (ABORTED = stale view and FAILED_PRECONDITION = refused move are "
              "the game's ordinary answers to racing bots):")
        for (rpc, code), count in sorted(whole.errors.items(), key=lambda item: -item[1]):
            print(f"  {rpc:<12} {code:<22} {count:>8,}")
        for message, count in whole.messages.most_common(8):
            print(f"    e.g. ({count}x sampled) {message}")
    else:
        print("errors: none")
    print(f"throughput: {actions_rate:,.0f} successful Acts/s over the held windows of the steps "
          f"({best[1]:,.0f}/s at the highest step)")
    print(f"connected players reached: {best[0]:,} open Watch streams held by the clients, "
          f"{best_server:,.0f} counted by the {deployment.table_process.name} server"
          + (f"; stopped because {reason}" if reason else "; target reached"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", action="store_true", help="the services as separate processes + Celery worker")
    parser.add_argument("--target", type=int, default=10_000, help="connected players to reach (default 10,000)")
    parser.add_argument("--step", type=int, default=1_000, help="connected players added per step (default 1,000)")
    parser.add_argument("--hold", type=float, default=10.0, help="seconds each step is measured (default 10)")
    parser.add_argument("--step-timeout", type=float, default=120.0,
                        help="seconds a step may take to open its streams before it counts as saturated")
    parser.add_argument("--active", type=int, default=60, help="players that play with a bot (default 60)")
    parser.add_argument("--idle-processes", type=int, default=2, help="processes of idle players (default 2)")
    parser.add_argument("--threads-per-process", type=int, default=150,
                        help="cap on threads of an active-player process (3 per player; default 150)")
    parser.add_argument("--players-per-connection", type=int, default=1,
                        help="idle players sharing one TCP connection for their streams (default 1)")
    parser.add_argument("--grpc-workers", type=int, default=0,
                        help="PAIJU_GRPC_WORKERS of the stream-serving process (default 256; with "
                             "--grpc-server threads, target + 2*active + 256)")
    parser.add_argument("--grpc-server", choices=("loop", "threads"), default="loop",
                        help="PAIJU_GRPC_SERVER of the servers (default loop)")
    parser.add_argument("--max-p99-ms", type=float, default=2_000.0, help="saturated above this p99 (default 2000)")
    parser.add_argument("--max-error-rate", type=float, default=0.01, help="saturated above this share of failed RPCs")
    parser.add_argument("--startup-timeout", type=float, default=300.0, help="seconds the servers may take to start")
    parser.add_argument("--redis-url", default=os.environ.get("PAIJU_BENCH_REDIS_URL", DEFAULT_REDIS_URL))
    parser.add_argument("--postgres-url", default=os.environ.get("PAIJU_BENCH_POSTGRES_URL", DEFAULT_POSTGRES_URL))
    parser.add_argument("--keep-logs", action="store_true", help="keep the servers' logs after a clean run")
    args = parser.parse_args(argv)
    if args.target < 1 or args.step < 1 or args.hold <= 0 or args.active < 0 or args.idle_processes < 1 \
            or args.threads_per_process < 3 or args.players_per_connection < 1 or args.grpc_workers < 0:
        parser.error("--target, --step, --idle-processes, --players-per-connection must be at least 1, "
                     "--threads-per-process at least 3, --hold above 0, --active and --grpc-workers not negative")
    for url in (args.redis_url, args.postgres_url):
        host = url.split("@")[-1].split("//")[-1].split("/")[0].rsplit(":", 1)[0]
        if host not in ("127.0.0.1", "localhost", "[::1]"):
            parser.error(f"only loopback servers are a target of this load test, not {host!r}")
    # Every stream is a socket at each end, plus a Redis connection at the server: raise the
    # open-file limit for this process and the ones it starts (root may raise the hard limit).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, FILE_LIMIT), max(hard, FILE_LIMIT)))
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
