"""Table-path benchmark: 炸金花 tables played through raw gRPC stubs by a load generator that
costs little, beside the Colyseus peer doing the same table work, interleaved.

The server side is ``bot_tables.py``'s: whole-platform server processes on real Redis (a key prefix
of this run, removed at the end) and a ledger of this run. The players differ: instead of a
``play_bot`` thread per bot with its SDK client, each load-generator process runs one asyncio loop
over ``grpc.aio`` stubs, a connection per table and a Watch stream (following views) per seat;
a seat decodes only the views that hand it legal actions (the bot needs its cards to decide),
tokens are minted by this process instead of logging in, and nothing else is parsed. So the
machine's cores go to the server, which is what is measured.

Per run it prints actions/s (successful Acts), the Act round trip p50/p99 as the players see it,
server CPU per action, Redis round trips per action (requests the servers sent, a pipeline or a
script counting once) and commands per action (INFO commandstats, a script's inner commands
included), the load generator's and Redis's CPU per action. With ``--peer`` it runs the Colyseus
peer (``../shared/peers/colyseus``: a room per table, one Redis script per action) with the same
tables, seats and thought, alternating A B A B for ``--rounds``, and prints the ratios: the
server CPU ratio is the figure the machine's other load changes least.

Targets (issue 15), 200 five-seat tables on this 2-core machine with the load generator on it:
server CPU per action <= 4x the peer's (<= 1.5 ms as a guide), <= 2 Redis round trips per
action, >= 1,000 actions/s, Act p99 <= 25 ms at half the maximum offered load (``--think-ms``).

    .venv/bin/python bench/tablegen.py --tables 200 --seats 5 --seconds 30 --peer auto --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import multiprocessing
import os
import queue
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from paiju.client.bots import BOTS
from paiju.common.typed_views import view_of
from paiju.proto.v1 import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc, views_pb2
from runs import (
    RunQueue,
    cpu_seconds,
    drop_prefix,
    ledger,
    percentile,
    redis_cpu_seconds,
    with_connections,
)
from servers import (
    ACT_SERVED_WITHIN,
    DEADLINES_CLAIMED,
    GC_FULL_COLLECTIONS,
    GC_LONGEST_PAUSE,
    GC_PAUSE_SECONDS,
    HIGHEST_SINCE_START,
    LOOP_LATE_OVER,
    LOOP_LATENESS,
    LOOP_LONGEST_LATE,
    LOOP_STALL_AT,
    LOOP_STALLS,
    MOVE_METHODS,
    REDIS_ROUND_TRIPS,
    REDIS_TRIPS_FROM,
    REPORT_SECONDS,
    keep_to_cores,
    split_cores,
    start_servers,
    time_loop_lateness,
)

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
OWN_MOVES_ON_STREAM = "PAIJU_BENCH_OWN_MOVES_ON_STREAM"
"""Set by ``--own-moves-on-stream`` for the load-generator processes."""
ACT_CALLS = "PAIJU_BENCH_ACT_CALLS"
JSON_VIEWS = "PAIJU_BENCH_JSON_VIEWS"
"""Set by ``--json-views``: views and events asked for as JSON."""
"""Set by ``--act-calls`` for the load-generator processes: Watch and Act instead of Play."""
READY_CALLS = "PAIJU_BENCH_READY_CALLS"
"""Set by ``--ready-calls``: presses of start are LobbyService.Ready calls, not requests on the Play stream."""
PEER_REDIS_URL = "redis://127.0.0.1:6379/15"
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
PEER_SOURCE = Path(__file__).resolve().parents[1].parent / "shared" / "peers" / "colyseus"
TOKEN_TTL_SECONDS = 24 * 3600
BOT_KINDS = ("sensible", "sensible", "random")  # as bot_tables.py and the peer's bots


# --- the load generator -------------------------------------------------------------------


def view_format() -> int:
    """The form players ask views and events in: typed, or JSON with ``--json-views``."""
    return views_pb2.VIEW_FORMAT_JSON if os.environ.get(JSON_VIEWS) == "1" else views_pb2.VIEW_FORMAT_TYPED


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """One seat a load generator plays: its table, the account's token and the bot's kind."""

    table_id: str
    token: str
    bot: str
    counts_hands: bool


@dataclass
class LoadReport:
    """What one load-generator process did since its last report."""

    pid: int
    actions: int = 0
    stale: int = 0
    refused: int = 0
    readies: int = 0
    hands: int = 0
    seated: int = 0
    act_seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    messages: int = 0
    """Stream messages the seats received."""
    loop_lateness: dict[str, float] = field(default_factory=dict)
    """The process's event loop lateness since it started (``servers.time_loop_lateness``), when
    timed: a reply that came while the loop was late was timed late by as much."""

    def take(self) -> LoadReport:
        """This report, and a fresh one in its place (``seated`` carries over)."""
        taken = LoadReport(self.pid, self.actions, self.stale, self.refused, self.readies, self.hands,
                           self.seated, self.act_seconds, self.errors, self.messages, dict(self.loop_lateness))
        self.actions = self.stale = self.refused = self.readies = self.hands = self.messages = 0
        self.act_seconds, self.errors = [], []
        return taken


class Seat:
    """One player: sits, follows its view on a Play stream (moves and presses of start as its
    requests, answered on it) or, with ``--act-calls``, on a Watch stream with an Act call per
    move and a LobbyService.Ready call per press; readies between hands and acts on its turn."""

    def __init__(self, channel: Any, plan: SeatPlan, counters: LoadReport, think_seconds: float) -> None:
        self.plan = plan
        self.metadata = (("authorization", f"Bearer {plan.token}"),)
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        self.table = table_pb2_grpc.TableServiceStub(channel)
        self.decide = BOTS[plan.bot]
        self.counters = counters
        self.think_seconds = think_seconds
        self.rng = random.Random()
        self.known_version = -1
        self.ready = False
        self.hand_seen: str | None = None
        self.moves_on_stream = os.environ.get(ACT_CALLS) != "1" and os.environ.get(OWN_MOVES_ON_STREAM) != "1"
        self.playing: Any = None
        """The Play call, when moves go on the stream."""
        self.move_sent_at = 0.0
        self.moves_sent = 0
        self.presses: set[int] = set()
        """The ids of the presses of start on the Play stream not answered yet."""

    async def play(self, stopping: asyncio.Event) -> None:
        try:
            await self.lobby.Sit(lobby_pb2.SitRequest(room_id=self.plan.table_id), metadata=self.metadata)
        except grpc.aio.AioRpcError as error:
            if "already" not in (error.details() or ""):
                self.counters.errors.append(f"sit {self.plan.table_id}: {error.details()}")
                return
        self.counters.seated += 1
        # Its own moves come back in the Act reply (which it acts on): not again on the stream,
        # unless the run compares with clients that take them from the stream.
        request = table_pb2.WatchRequest(table_id=self.plan.table_id, follow_view=True,
                                         leave_out_own_acts=os.environ.get(OWN_MOVES_ON_STREAM) != "1",
                                         view_format=view_format())
        while not stopping.is_set():
            if self.moves_on_stream:
                stream = self.playing = self.table.Play(metadata=self.metadata)
                await stream.write(table_pb2.PlayRequest(open=request))
            else:
                stream = self.table.Watch(request, metadata=self.metadata)
            try:
                async for message in stream:
                    if self.moves_on_stream and message.HasField("answer"):
                        view = self.answered(message.answer)
                    else:
                        self.counters.messages += 1  # updates only: a move's answer is its reply
                        update = message.update if self.moves_on_stream else message
                        view = update.snapshot if update.HasField("snapshot") else None
                    while view is not None and view.version >= self.known_version and not stopping.is_set():
                        self.known_version = view.version
                        view = await self.step(view)
            except grpc.aio.AioRpcError as error:
                if stopping.is_set() or error.code() == grpc.StatusCode.CANCELLED:
                    return
                self.counters.errors.append(f"watch {self.plan.table_id}: {error.details()}")
                await asyncio.sleep(0.5)
            finally:
                stream.cancel()

    def answered(self, answer: Any) -> Any:
        """A move's answer on the Play stream, counted as an Act's reply; the view to go on from."""
        if answer.move_id in self.presses:
            self.presses.discard(answer.move_id)
            if answer.HasField("ready"):
                self.counters.readies += 1
            return None  # a refusal: already ready, or a hand started meanwhile
        self.counters.act_seconds.append(time.perf_counter() - self.move_sent_at)
        if answer.HasField("accepted"):
            self.counters.actions += 1
            return answer.accepted.view
        if answer.refused.code == grpc.StatusCode.ABORTED.value[0]:
            self.counters.stale += 1
        else:
            self.counters.refused += 1
        return None

    async def step(self, view: Any) -> Any:
        """Do what ``view`` calls for; the next view to act on (an Act's reply), or None."""
        if view.hand_id != self.hand_seen:
            if self.hand_seen is not None and self.plan.counts_hands:
                self.counters.hands += 1
            self.hand_seen = view.hand_id
        if view.hand_id:
            # A hand is on: the start pressed before it is spent, so press again once it ends.
            self.ready = False
        if view.legal_actions:
            action = self.decide(view_of(view)["hand"]["state"], self.rng)
            if action is None:
                return None
            if self.think_seconds:
                await asyncio.sleep(self.think_seconds * self.rng.uniform(0.5, 1.5))
            if self.moves_on_stream:
                # The answer comes on the stream: ``answered`` takes it up from there.
                self.moves_sent += 1
                self.move_sent_at = time.perf_counter()
                await self.playing.write(table_pb2.PlayRequest(move=table_pb2.PlayMove(
                    move_id=self.moves_sent, expected_version=view.version, action=action)))
                return None
            request = table_pb2.ActRequest(table_id=self.plan.table_id, expected_version=view.version, action=action,
                                           view_format=view_format())
            started = time.perf_counter()
            try:
                reply = await self.table.Act(request, metadata=self.metadata)
            except grpc.aio.AioRpcError as error:
                self.counters.act_seconds.append(time.perf_counter() - started)
                if error.code() == grpc.StatusCode.ABORTED:
                    self.counters.stale += 1
                else:
                    self.counters.refused += 1
                return None
            self.counters.act_seconds.append(time.perf_counter() - started)
            self.counters.actions += 1
            return reply.view
        if not view.hand_id and not self.ready:
            # No hand on (or the last one over) and not yet ready for the next: press start once.
            self.ready = True
            if self.moves_on_stream and os.environ.get(READY_CALLS) != "1":
                self.moves_sent += 1
                self.presses.add(self.moves_sent)
                await self.playing.write(table_pb2.PlayRequest(ready=table_pb2.PlayReady(move_id=self.moves_sent)))
                return None
            try:
                await self.lobby.Ready(lobby_pb2.ReadyRequest(room_id=self.plan.table_id), metadata=self.metadata)
                self.counters.readies += 1
            except grpc.aio.AioRpcError:
                pass  # already ready, or a hand started meanwhile: the stream says what comes next
        return None


async def _generate(address: str, plans: list[SeatPlan], think_seconds: float, stop: Any, reports: Any,
                    time_lateness: bool = False) -> None:
    counters = LoadReport(os.getpid())
    if time_lateness:
        counters.loop_lateness = time_loop_lateness(asyncio.get_running_loop())
    stopping = asyncio.Event()
    channels: dict[str, Any] = {}
    for plan in plans:
        if plan.table_id not in channels:
            # A connection per table, as its players' devices would have: server processes
            # sharing the port each take a share.
            channels[plan.table_id] = grpc.aio.insecure_channel(address, options=(("grpc.use_local_subchannel_pool", 1),))
    seats = [Seat(channels[plan.table_id], plan, counters, think_seconds) for plan in plans]
    tasks = [asyncio.create_task(seat.play(stopping)) for seat in seats]
    while not stop.is_set():
        await asyncio.sleep(REPORT_SECONDS)
        reports.put(counters.take())
    stopping.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    reports.put(counters.take())
    for channel in channels.values():
        await channel.close()


def load_generator(address: str, plans: list[SeatPlan], think_seconds: float, stop: Any, reports: Any,
                   time_lateness: bool = False, cores: str | None = None) -> None:
    """A load-generator process: play ``plans`` until ``stop``, reporting every REPORT_SECONDS;
    on ``cores`` when the run gives the servers cores of their own.

    Its garbage collector is set as the servers' is: with a thousand streams, its own full
    collections paused it 100 ms and more, time its players counted as the server's."""
    from paiju.common.collector import settle_after_start_up

    keep_to_cores(cores)
    settle_after_start_up()
    asyncio.run(_generate(address, plans, think_seconds, stop, reports, time_lateness))


# --- one run of each side -----------------------------------------------------------------


@dataclass
class Window:
    """The load generators' reports over one stretch of time."""

    actions: int = 0
    stale: int = 0
    refused: int = 0
    hands: int = 0
    messages: int = 0
    act_seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seated: dict[int, int] = field(default_factory=dict)
    loop_lateness: dict[int, dict[str, float]] = field(default_factory=dict)
    """Each load generator's last lateness figures (since its start)."""

    def add(self, report: LoadReport) -> None:
        self.actions += report.actions
        self.messages += report.messages
        self.stale += report.stale
        self.refused += report.refused
        self.hands += report.hands
        self.act_seconds += report.act_seconds
        self.errors += report.errors
        self.seated[report.pid] = report.seated
        if report.loop_lateness:
            self.loop_lateness[report.pid] = report.loop_lateness


def _drain(reports: Any, window: Window, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            window.add(reports.get(timeout=left))
        except queue.Empty:
            return


def command_calls(client: Any) -> dict[str, tuple[int, int]]:
    """Calls and µs spent per Redis command so far (INFO commandstats; a script's inner commands
    included in both its own line and the script's time)."""
    return {name.removeprefix("cmdstat_"): (int(stats["calls"]), int(stats["usec"]))
            for name, stats in client.info("commandstats").items()}


SCRIPT_COMMANDS = ("evalsha", "eval", "fcall")
"""Commands whose time holds the time of the commands they call."""


def plan_seats(platform: Any, tables: int, seats: int, run_id: str) -> list[SeatPlan]:
    """An account per seat, registered in-process with a cheap password hash, and its token
    minted here: the run measures tables, not logins."""
    from paiju.wallet.passwords import PasswordHasher

    platform.wallet.passwords = PasswordHasher(n=2**4)
    plans = []
    kinds = iter(BOT_KINDS * (tables * seats))
    for table in range(tables):
        for seat in range(seats):
            name = f"g{run_id}-{table}-{seat}"
            account = platform.wallet.register(name, secrets.token_hex(8))
            token = platform.signer.issue(str(account), name, TOKEN_TTL_SECONDS)
            plans.append(SeatPlan(f"zhajinhua-free-{table + 1:02d}", token, next(kinds), seat == 0))
    return plans


def run_paiju(args: argparse.Namespace) -> dict[str, Any]:
    """One measured run of Paiju's table path; its figures."""
    from paiju.common.config import Settings
    from paiju.platform import build
    from paiju.wallet.celery_app import WorkerOptions

    run_id = secrets.token_hex(4)
    prefix = f"bench-{run_id}"
    postgres = (args.postgres or DEFAULT_POSTGRES_URL) if args.postgres is not None else None
    with ledger(postgres, run_id) as database_url:
        seats = args.tables * args.seats
        environment = {
            "REDIS_URL": with_connections(args.redis_url, seats * 2 + 128),
            "DATABASE_URL": database_url,
            "PAIJU_REDIS_PREFIX": prefix,
            "PAIJU_SECRET": secrets.token_hex(32),
            "PAIJU_STARTING_GRANT": str(10**9),  # nobody goes broke within a run
            "PAIJU_GRPC_WORKERS": str(seats * 2 + 32),
            LOOP_LATENESS: "1" if args.loop_lateness else "0",
            LOOP_STALLS: "1" if args.loop_stalls else "0",
        }
        settings = Settings.from_env(environment)
        platform = build(settings, rooms_per_tier=args.tables, options=WorkerOptions.from_env(environment))
        plans = plan_seats(platform, args.tables, args.seats, run_id)
        context = multiprocessing.get_context("spawn")  # never fork a process that runs gRPC
        stop, server_stop, reports = context.Event(), context.Event(), context.Queue()
        servers = start_servers(context, environment, args, server_stop)
        address = f"127.0.0.1:{servers.port}"
        shares = [plans[i::args.loadgen_processes] for i in range(args.loadgen_processes)]
        split = split_cores(args.server_cores)
        generators = [context.Process(target=load_generator, daemon=True,
                                      args=(address, share, args.think_ms / 1000, stop, reports, args.loop_lateness,
                                            split[1] if split else None))
                      for share in shares if share]
        try:
            for process in generators:
                process.start()
            return _measure(args, platform.redis, servers, generators, reports, seats)
        finally:
            _stop(stop, generators)
            _stop(server_stop, servers.processes)
            if servers.ledger:
                _stop(servers.ledger_stop, [servers.ledger])
            platform.close()
            drop_prefix(platform.redis, prefix)


def _lateness(counts: dict[str, float], elapsed: float) -> dict[str, float]:
    """Lateness figures (``servers.time_loop_lateness``'s) as shown: counts per minute over the
    run, the longest lateness as it is."""
    return {**{f"over {bound * 1000:.0f} ms, per minute": counts.pop(key, 0.0) * 60 / elapsed
               for bound, key in LOOP_LATE_OVER.items()},
            "longest since start, ms": counts.pop(LOOP_LONGEST_LATE, 0.0) * 1000}


def _loadgen_lateness(warmup: Window, window: Window, elapsed: float) -> dict[str, float]:
    """The load generators' loop lateness over the measured window, all of them together."""
    counts = {key: sum(late.get(key, 0.0) - warmup.loop_lateness.get(pid, {}).get(key, 0.0)
                       for pid, late in window.loop_lateness.items()) for key in LOOP_LATE_OVER.values()}
    counts[LOOP_LONGEST_LATE] = max((late.get(LOOP_LONGEST_LATE, 0.0) for late in window.loop_lateness.values()),
                                    default=0.0)
    return _lateness(counts, elapsed)


def _measure(args: argparse.Namespace, redis_client: Any, servers: Any, generators: list[Any], reports: Any,
             seats: int) -> dict[str, Any]:
    warmup = Window()
    began = time.monotonic()
    playing_since: float | None = None
    while playing_since is None or time.monotonic() - playing_since < args.warmup:
        _drain(reports, warmup, 1.0)
        seated = sum(warmup.seated.values())
        if playing_since is None and seated >= seats and warmup.actions > 0:
            playing_since = time.monotonic()
        print(f"\r  paiju warm-up {time.monotonic() - began:4.0f} s · seated {seated}/{seats} · "
              f"{warmup.actions:,} actions".ljust(80), end="", flush=True)
        if time.monotonic() - began > args.warmup + 300:
            raise RuntimeError(f"the tables did not start playing: {warmup.errors[:3]}")
    server_pids, generator_pids = servers.pids, [process.pid for process in generators]
    ledger_pids = [servers.ledger.pid] if servers.ledger else []
    rpcs_before = servers.counts_reported_after(time.monotonic())
    before = (sum(map(cpu_seconds, server_pids)), sum(map(cpu_seconds, generator_pids)),
              redis_cpu_seconds(redis_client), command_calls(redis_client), rpcs_before,
              sum(map(cpu_seconds, ledger_pids)))
    window = Window()
    start = time.monotonic()
    with RunQueue() as run_queue:
        while (elapsed := time.monotonic() - start) < args.seconds:
            _drain(reports, window, min(1.0, args.seconds - elapsed))
            print(f"\r  paiju measuring {elapsed:4.0f}/{args.seconds:.0f} s · {window.actions:,} actions".ljust(80),
                  end="", flush=True)
    elapsed = time.monotonic() - start
    server_cpu = sum(map(cpu_seconds, server_pids)) - before[0]
    generator_cpu = sum(map(cpu_seconds, generator_pids)) - before[1]
    ledger_cpu = sum(map(cpu_seconds, ledger_pids)) - before[5]
    redis_cpu = redis_cpu_seconds(redis_client) - before[2]
    calls_after = command_calls(redis_client)
    commands = {name: count - before[3].get(name, (0, 0))[0] for name, (count, _) in calls_after.items()}
    command_us = {name: usec - before[3].get(name, (0, 0))[1] for name, (_, usec) in calls_after.items()}
    script_us = sum(command_us.get(name, 0) for name in SCRIPT_COMMANDS)
    after = servers.counts_reported_after(start + elapsed)
    rpcs = {name: count - before[4].get(name, 0.0) for name, count in after.items()}
    rpcs.update({key: after.get(key, 0.0) for key in HIGHEST_SINCE_START})
    print("\r".ljust(81), end="\r")
    per_action = max(window.actions, 1)
    return {
        "peer": "paiju", "tables": args.tables, "seats": args.seats, "think_ms": args.think_ms,
        "seconds": elapsed, "actions_per_s": window.actions / elapsed, "hands_per_s": window.hands / elapsed,
        "p50_ms": percentile(window.act_seconds, 0.50) * 1000, "p99_ms": percentile(window.act_seconds, 0.99) * 1000,
        "stale": window.stale, "refused": window.refused, "errors": window.errors[:3],
        "server_cpu_us_per_action": server_cpu / per_action * 1e6,
        "loadgen_cpu_us_per_action": generator_cpu / per_action * 1e6,
        "ledger_cpu_us_per_action": ledger_cpu / per_action * 1e6 if ledger_pids else None,
        "redis_cpu_us_per_action": redis_cpu / per_action * 1e6,
        "redis_round_trips_per_action": rpcs.pop(REDIS_ROUND_TRIPS, 0.0) / per_action,
        "round_trips_by_site": sorted(((name.removeprefix(REDIS_TRIPS_FROM), rpcs.pop(name) / per_action)
                                       for name in [n for n in rpcs if n.startswith(REDIS_TRIPS_FROM)]),
                                      key=lambda item: -item[1])[:10],
        "deadlines_per_action": {name.removeprefix(DEADLINES_CLAIMED): rpcs.pop(name) / per_action
                                 for name in [n for n in rpcs if n.startswith(DEADLINES_CLAIMED)]},
        "redis_commands_per_action": sum(commands.values()) / per_action,
        # Redis's own time in the scripts (their inner commands' included) and in every other
        # command (a script's inner ones too, so at most this much outside scripts); the rest of
        # its CPU is reading requests and writing replies and Pub/Sub deliveries.
        "redis_script_us_per_action": script_us / per_action,
        "redis_other_command_us_per_action": sum(
            usec for name, usec in command_us.items() if name not in SCRIPT_COMMANDS) / per_action,
        "top_commands": sorted(((name, count / per_action) for name, count in commands.items()
                                if count / per_action >= 0.05), key=lambda item: -item[1]),
        "acts_served_over": {bound: 1 - rpcs.pop(key, 0.0) / max(sum(rpcs.get(m, 0.0) for m in MOVE_METHODS), 1.0)
                             for bound, key in (("10 ms", ACT_SERVED_WITHIN["0.01"]), ("25 ms", ACT_SERVED_WITHIN["0.025"]))},
        "garbage_collection": {"full collections": rpcs.pop(GC_FULL_COLLECTIONS, 0.0),
                               "ms of pauses per second": rpcs.pop(GC_PAUSE_SECONDS, 0.0) * 1000 / elapsed,
                               "longest pause since start, ms": rpcs.pop(GC_LONGEST_PAUSE, 0.0) * 1000},
        "loop_stalls": sorted(((name.removeprefix(LOOP_STALL_AT), rpcs.pop(name) * 60 / elapsed)
                               for name in [n for n in rpcs if n.startswith(LOOP_STALL_AT)]),
                              key=lambda item: -item[1])[:8],
        "loop_lateness": _lateness(rpcs, elapsed) if args.loop_lateness else {},
        "loadgen_loop_lateness": _loadgen_lateness(warmup, window, elapsed) if args.loop_lateness else {},
        "runnable_threads": run_queue.summary(), "cores": os.cpu_count(),
        "rpcs_per_action": {name: count / per_action for name, count in rpcs.items() if count},
        "stream_messages_per_action": window.messages / per_action,
        "server_cores": server_cpu / elapsed, "loadgen_cores": generator_cpu / elapsed,
    }


def _stop(stop: Any, processes: list[Any]) -> None:
    stop.set()
    for process in processes:
        if process.pid is None:
            continue
        process.join(timeout=15)
        if process.is_alive():
            process.terminate()


def prepared_peer(where: str) -> Path:
    """The Colyseus peer ready to run: ``where`` itself, or with ``auto`` a copy of the shared
    peer with its packages installed (``npm ci``), kept in a cache folder between runs."""
    if where != "auto":
        return Path(where)
    if not PEER_SOURCE.exists() or shutil.which("node") is None:
        raise SystemExit(f"--peer auto needs Node and the peer at {PEER_SOURCE}")
    lock = (PEER_SOURCE / "package-lock.json").read_bytes()
    folder = Path(tempfile.gettempdir()) / f"paiju-colyseus-peer-{hashlib.sha256(lock).hexdigest()[:12]}"
    if not (folder / "node_modules").exists():
        shutil.copytree(PEER_SOURCE, folder, dirs_exist_ok=True)
        for path in folder.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        print(f"  preparing the Colyseus peer in {folder} (npm ci) …", flush=True)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=folder, check=True)
    return folder


def run_peer(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """One run of the Colyseus peer with the same tables, seats and thought; its figures."""
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as out:
        # The peer takes its slowest call with Math.max(...latencies): on a quiet machine a run
        # holds more calls than node's default stack has room for as arguments.
        command = ["node", "--stack-size=4000", "bench.js", "--tables", str(args.tables), "--seats", str(args.seats),
                   "--seconds", str(args.seconds), "--warmup", str(args.warmup), "--think-ms", str(args.think_ms),
                   "--redis", "lua", "--redis-url", args.peer_redis_url, "--out", out.name]
        finished = subprocess.run(command, check=False, cwd=folder, capture_output=True, text=True,
                                  timeout=args.seconds + args.warmup + 300)
        lines = Path(out.name).read_text().splitlines()
    if finished.returncode != 0 or not lines:
        raise RuntimeError(f"the peer failed ({finished.returncode}): {finished.stderr[-500:]}")
    return json.loads(lines[-1])


def show(result: dict[str, Any]) -> None:
    name = result["peer"]
    print(f"  {name:8} {result['actions_per_s']:8,.0f} actions/s · Act p50 {result['p50_ms']:6.2f} ms p99 "
          f"{result['p99_ms']:7.2f} ms · server CPU {result['server_cpu_us_per_action']:7,.0f} µs/action · "
          f"Redis {result['redis_commands_per_action']:5.1f} commands, {result['redis_cpu_us_per_action']:4.0f} µs/action"
          + (f" · {result['redis_round_trips_per_action']:.1f} round trips" if "redis_round_trips_per_action" in result
             else "")
          + (f" · load generator {result['loadgen_cpu_us_per_action']:,.0f} µs/action" if "loadgen_cpu_us_per_action"
             in result else f" · bots {result.get('bots_cores', 0):.2f} cores")
          + (f" · ledger process {result['ledger_cpu_us_per_action']:,.0f} µs/action"
             if result.get("ledger_cpu_us_per_action") is not None else ""))
    if name == "paiju":
        print("           commands/action: " + ", ".join(f"{c} {n:.1f}" for c, n in result["top_commands"])
              + " · RPCs/action: " + ", ".join(f"{m} {n:.2f}" for m, n in sorted(result["rpcs_per_action"].items(),
                                                                                  key=lambda item: -item[1]))
              + f" · stream messages/action {result['stream_messages_per_action']:.1f}")
        print(f"           Redis's time per action: scripts {result['redis_script_us_per_action']:.0f} µs, other commands "
              f"≤ {result['redis_other_command_us_per_action']:.0f} µs (scripts' inner ones included); the rest of its "
              "CPU reads requests and writes replies and Pub/Sub deliveries")
        if result.get("deadlines_per_action"):
            print("           deadlines claimed/action: " + ", ".join(
                f"{timer} {n:.3f}" for timer, n in sorted(result["deadlines_per_action"].items(), key=lambda item: -item[1])))
        if result.get("acts_served_over"):
            print("           Acts the servicer took over "
                  + ", ".join(f"{bound}: {share:.2%}" for bound, share in result["acts_served_over"].items())
                  + " (the server's own metrics: the rest of the players' tail is outside the servicer)")
        if result.get("garbage_collection"):
            print("           the servers' garbage collections: "
                  + ", ".join(f"{label} {value:,.1f}" for label, value in result["garbage_collection"].items()))
        for key, whose in (("loop_lateness", "the servers'"), ("loadgen_loop_lateness", "the load generators'")):
            if result.get(key):
                print(f"           {whose} event loop late: "
                      + ", ".join(f"{label} {value:,.1f}" for label, value in result[key].items()))
        if result.get("loop_stalls"):
            print("           where the servers' event loop thread stood when the loop stalled 15 ms or more, per minute:")
            for site, per_minute in result["loop_stalls"]:
                print(f"             {per_minute:6.1f}  {site}")
        if result.get("runnable_threads"):
            print(f"           runnable threads on the machine ({result['cores']} cores): "
                  + ", ".join(f"{label} {value:.0f}" for label, value in result["runnable_threads"].items())
                  + " (a call waits for a core whenever they outnumber the cores)")
        for site, trips in result.get("round_trips_by_site", []):
            print(f"           {trips:5.2f} round trips/action from {site}")
    if result.get("stale") or result.get("refused") or result.get("errors"):
        print(f"           stale {result.get('stale', 0)}, refused {result.get('refused', 0)}, "
              f"errors {result.get('errors', [])[:2]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="tables (default 200)")
    parser.add_argument("--seats", type=int, choices=(3, 5), default=5, help="players per table (default 5)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured time per run (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of play before measuring (default 5)")
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="mean thought before each move (default 0: flat out); a fixed offered load")
    parser.add_argument("--loadgen-processes", type=int, default=1, help="load-generator processes (default 1)")
    parser.add_argument("--server-processes", type=int, default=1, help="server processes on one port (default 1)")
    parser.add_argument("--server-cores", type=int, default=0, metavar="N",
                        help="keep the server processes to the first N cores and the load generators and the "
                             "ledger to the others, as a table server with cores of its own runs (default 0: "
                             "wherever the system puts them; Redis and PostgreSQL stay where they are)")
    parser.add_argument("--ledger-process", action="store_true",
                        help="the ledger (wallet service, settlement relay) in a process of its own, as production "
                             "deploys it; its CPU is reported apart from the servers'")
    parser.add_argument("--redis-url", default=os.environ.get("PAIJU_BENCH_REDIS_URL", DEFAULT_REDIS_URL),
                        help=f"real Redis for Paiju (default {DEFAULT_REDIS_URL})")
    parser.add_argument("--postgres", nargs="?", const="", default=None, metavar="URL",
                        help=f"ledger on PostgreSQL as in production, in a schema of this run (default URL "
                             f"{DEFAULT_POSTGRES_URL}); without it, a SQLite file of this run")
    parser.add_argument("--peer", default=None, metavar="DIR|auto",
                        help="also run the Colyseus peer, interleaved: a prepared copy, or 'auto' to prepare one")
    parser.add_argument("--peer-redis-url", default=PEER_REDIS_URL, help=f"Redis for the peer (default {PEER_REDIS_URL})")
    parser.add_argument("--rounds", type=int, default=1, help="A B rounds with --peer (default 1)")
    parser.add_argument("--loop-lateness", action="store_true",
                        help="time how late the event loops of the servers and the load generators wake (every 5 ms): "
                             "the pauses in the Act tail, on either side")
    parser.add_argument("--loop-stalls", action="store_true",
                        help="note where each server's event loop thread stands whenever the loop has not turned "
                             "for 15 ms (a thread looks every 3 ms): what the stalls in the tail wait on")
    parser.add_argument("--act-calls", action="store_true",
                        help="players call Act for each move and follow a Watch stream, as browsers do, instead of "
                             "moving on their Play stream")
    parser.add_argument("--ready-calls", action="store_true",
                        help="players on Play streams press start with a LobbyService.Ready call each, as before presses "
                             "went on the stream")
    parser.add_argument("--json-views", action="store_true",
                        help="players ask for views and events as JSON (view_json, payload_json) instead of typed "
                             "messages (the default, which the web client and the SDK use): the typed form's cost")
    parser.add_argument("--own-moves-on-stream", action="store_true",
                        help="players' streams bring their own moves too, as for a client that does not take them "
                             "from Act's reply (leave_out_own_acts off)")
    args = parser.parse_args(argv)
    if args.own_moves_on_stream:
        os.environ[OWN_MOVES_ON_STREAM] = "1"  # Play leaves own moves out: this implies --act-calls
    if args.act_calls:
        os.environ[ACT_CALLS] = "1"
    if args.ready_calls:
        os.environ[READY_CALLS] = "1"
    if args.json_views:
        os.environ[JSON_VIEWS] = "1"
    if args.tables < 1 or args.seconds <= 0 or args.loadgen_processes < 1 or args.rounds < 1:
        parser.error("--tables, --loadgen-processes and --rounds must be at least 1, --seconds above 0")
    split = split_cores(args.server_cores)
    peer = prepared_peer(args.peer) if args.peer else None
    print(f"table-path bench: {args.tables} tables x {args.seats} seats · {args.server_processes} server process(es), "
          f"{f'on cores {split[0]} (the rest on {split[1]}), ' if split else ''}"
          f"{args.loadgen_processes} load generator(s) · ledger on {'PostgreSQL' if args.postgres is not None else 'SQLite'}"
          f"{', in a process of its own' if args.ledger_process else ''}"
          f" · think {args.think_ms:g} ms · {args.seconds:g} s per run · "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
    results: list[dict[str, Any]] = []
    for round_ in range(args.rounds if peer else 1):
        for side in ("paiju", "peer") if peer else ("paiju",):
            result = run_paiju(args) if side == "paiju" else run_peer(args, peer)  # type: ignore[arg-type]
            results.append(result)
            print(f"round {round_ + 1}:", end="")
            show(result)
    if peer:
        ours = [r for r in results if r["peer"] == "paiju"]
        theirs = [r for r in results if r["peer"] != "paiju"]
        for key, label in (("server_cpu_us_per_action", "server CPU per action"), ("actions_per_s", "actions/s"),
                           ("p99_ms", "Act p99")):
            ratios = [a[key] / max(b[key], 1e-9) for a, b in zip(ours, theirs)]
            print(f"  paiju / peer, {label:22}: " + " · ".join(f"{ratio:.2f}x" for ratio in ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
