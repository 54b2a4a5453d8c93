"""Abuse benchmark: what one abusive client does to honest players' latency, with the limits on.

One ``paiju serve`` process on loopback (real Redis under a key prefix of this run and a
PostgreSQL schema of this run, both removed at the end; ``--sqlite`` for a SQLite ledger). Honest
players (threads of this process, the SDK) sit at 炸金花 rooms and each, every ``--pace-ms``,
asks for their table's view (``GetView``, served on the event loop), their balance
(``GetBalance``, a pool thread and SQL) and the room list (``ListRooms``), timing every call.

Two phases of ``--seconds`` each, in one run, taken in alternating slices of ``--slice`` seconds
(so that the machine's other load, which drifts, falls on both alike): honest players alone, and
honest players beside one abusive client (a process of its own, first flooding for
``--abuse-warmup`` seconds so that the bursts the limits allow are spent, then pausing during the
"alone" slices) that at the same time

* floods calls: ``--flood-threads`` threads calling ``GetView`` as fast as they are answered;
* sends big messages: a 3.9 MB ``play …`` Act, over and over;
* opens streams: up to 1,000 Watch streams on its table, and room lists it opens and drops;
* floods logins: ``--login-threads`` threads logging in (a wrong password: a full scrypt hash
  each) as fast as they are answered, from the same address.

Then (unless ``--no-unlimited``) the same again against a server whose limits are opened wide,
as the server was before them, to show what they are worth. The abuser runs at nice 19: on one machine it stands in for a client on a machine of its own,
whose CPU is not the server's. It prints, per phase, the honest calls' p50/p99/max and failures,
then what the abuser got (answers and refusals by status) and the server's CPU and memory.
Loopback only, bounded in time.
Run: ``.venv/bin/python bench/abuse.py`` (about three minutes).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from runs import drop_prefix, ledger, percentile, process_stat, stat_cpu_seconds

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
PASSWORD = "an honest long password"
BIG_ACTION_BYTES = 3_900_000
HONEST_CALLS = ("GetView", "GetBalance", "ListRooms")
ABUSES = ("flood", "big", "streams", "logins")
MOST_SETTLE_SECONDS = 60.0
"""How long an "alone" slice waits at most for the abuser's calls in flight to come back."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(environment: dict[str, str], rooms: int, folder: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log = (folder / "serve.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "paiju.cli", "serve", "--rooms", str(rooms)],
                               env={**os.environ, **environment, "PAIJU_PORT": str(port), "PAIJU_METRICS_PORT": "0"},
                               stdout=log, stderr=subprocess.STDOUT)
    address = f"127.0.0.1:{port}"
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with grpc.insecure_channel(address) as channel:
                answer = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(service="paiju.v1.TableService"), timeout=1)
            if answer.status == health_pb2.HealthCheckResponse.SERVING:
                return process, address
        except grpc.RpcError:
            pass
        time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not come up:\n" + (folder / "serve.log").read_text()[-2000:])


def stop_server(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


# --- honest players --------------------------------------------------------------------------


class Honest:
    """The honest players' timings, by phase and call."""

    def __init__(self) -> None:
        self.phase = "warm-up"
        self.lock = threading.Lock()
        self.timings: dict[tuple[str, str], list[float]] = defaultdict(list)
        self.failures: Counter[tuple[str, str]] = Counter()

    def timed(self, call: str, work: Any) -> None:
        from paiju.client.sdk import PaijuError

        began = time.perf_counter()
        try:
            work()
        except PaijuError as error:
            with self.lock:
                self.failures[(self.phase, f"{call} {error.status.name}")] += 1
            return
        with self.lock:
            self.timings[(self.phase, call)].append((time.perf_counter() - began) * 1000)


def seated_player(address: str, number: int, run: str) -> tuple[Any, str]:
    """An honest player, registered and sat at a room with two others; the room."""
    from paiju.client.sdk import PaijuClient

    client = PaijuClient.connect(address, f"honest-{run}-{number}", PASSWORD, own_connection=True, register=True)
    room = f"zhajinhua-free-{number // 3 + 1:02d}"
    client.sit(room)
    return client, room


def honest_player(client: Any, room: str, honest: Honest, stop: threading.Event, pace: float) -> None:
    try:
        while not stop.wait(pace):
            honest.timed("GetView", lambda: client.view(room))
            honest.timed("GetBalance", client.balance)
            honest.timed("ListRooms", lambda: client.rooms("zhajinhua", "free"))
    finally:
        client.close()


# --- the abuser (a process of its own) ---------------------------------------------------------


def abuser(address: str, run: str, room: str, go: Any, stop: Any, in_flight: Any, results: Any, flood_threads: int,
           login_threads: int, kinds: tuple[str, ...]) -> None:
    """Floods while ``go`` is set (it pauses while it is not), until ``stop``; ``in_flight`` counts
    its calls not answered yet."""
    import grpc

    from paiju.client.sdk import PaijuClient
    from paiju.proto.v1 import lobby_pb2, table_pb2, wallet_pb2, wallet_pb2_grpc

    # The abuser's own CPU would be another machine's: on one machine it must not take the
    # cores the server and the honest players need, or the figures measure the client.
    os.nice(19)
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    client = PaijuClient.connect(address, f"abuser-{run}", PASSWORD, register=True)
    client.sit(room)

    def flooding() -> bool:
        go.wait()
        return not stop.is_set()

    def count(kind: str, call: Any) -> Any:
        with in_flight.get_lock():
            in_flight.value += 1
        try:
            answer = call()
            outcome = "OK"
        except grpc.RpcError as error:
            answer, outcome = None, error.code().name
        finally:
            with in_flight.get_lock():
                in_flight.value -= 1
        with lock:
            outcomes[f"{kind} {outcome}"] += 1
        return answer

    def flood() -> None:
        while flooding():
            count("GetView", lambda: client.table.GetView(table_pb2.GetViewRequest(table_id=room), timeout=10))

    def big_messages() -> None:
        action = "play " + "5H " * (BIG_ACTION_BYTES // 3)
        while flooding():
            count("big Act", lambda: client.table.Act(
                table_pb2.ActRequest(table_id=room, expected_version=1, action=action), timeout=10))

    def streams() -> None:
        held = []
        for _ in range(1_000):
            if not flooding():
                break
            stream = client.table.Watch(table_pb2.WatchRequest(table_id=room))
            if count("Watch", partial(next, stream)) is not None:
                held.append(stream)
        while flooding():
            lists = client.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game="zhajinhua", tier="free"))
            count("WatchRooms", partial(next, lists))
            lists.cancel()
        for stream in held:
            stream.cancel()

    logins = wallet_pb2_grpc.WalletServiceStub(grpc.insecure_channel(address))

    def login_flood() -> None:
        request = wallet_pb2.LoginRequest(username=f"abuser-{run}", password="not the password")
        while flooding():
            count("Login", lambda: logins.Login(request, timeout=30))

    made = {"flood": [flood] * flood_threads, "big": [big_messages], "streams": [streams],
            "logins": [login_flood] * login_threads}
    threads = [threading.Thread(target=target) for kind in kinds for target in made[kind]]
    for thread in threads:
        thread.start()
    stop.wait()
    for thread in threads:
        thread.join(timeout=30)
    results.put(dict(outcomes))


# --- the run ---------------------------------------------------------------------------------


def server_sample(pid: int) -> tuple[float, int]:
    """CPU seconds and resident MB of the server so far."""
    fields = process_stat(pid)
    rss_mb = 0
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss_mb = int(line.split()[1]) // 1024
    return (stat_cpu_seconds(fields) if fields else 0.0), rss_mb


UNLIMITED = {
    "PAIJU_MAX_REQUEST_BYTES": str(8 * 2**20), "PAIJU_MAX_ACTION_BYTES": str(8 * 2**20),
    "PAIJU_STREAMS_PER_ACCOUNT": "100000", "PAIJU_CALLS_PER_SECOND": "100000", "PAIJU_CALL_BURST": "100000",
    "PAIJU_LOGINS_PER_PEER": "100000", "PAIJU_LOGINS_IN_FLIGHT": "100000", "PAIJU_LOGIN_RATE_PER_PEER": "100000",
    "PAIJU_LOGIN_BURST_PER_PEER": "100000", "PAIJU_HASHING_THREADS": "64", "PAIJU_REFUSAL_PAUSE_MS": "0",
}
"""The limits opened wide: the server as it was before them, for comparison."""


@dataclass
class Measured:
    honest: Honest
    cpu_cores: dict[str, float]
    rss_mb: dict[str, int]
    abuser: dict[str, int]


def measure(args: argparse.Namespace, environment: dict[str, str], abuse_warmup: float, folder: Path) -> Measured:
    """Honest players alone, then beside the abuser, against a server of ``environment``."""
    run_id = secrets.token_hex(4)
    rooms = args.players // 3 + 2
    server, address = start_server(environment, rooms, folder)
    honest, stop = Honest(), threading.Event()
    context = multiprocessing.get_context("spawn")
    abuse_go, abuse_stop, in_flight, results = context.Event(), context.Event(), context.Value("i", 0), context.Queue()
    seated = [seated_player(address, n, run_id) for n in range(args.players)]  # one at a time: nobody refused
    players = [threading.Thread(target=honest_player, args=(client, room, honest, stop, args.pace_ms / 1000))
               for client, room in seated]
    bad = context.Process(target=abuser, daemon=True, args=(
        address, run_id, f"zhajinhua-free-{rooms:02d}", abuse_go, abuse_stop, in_flight, results, args.flood_threads,
        args.login_threads, tuple(args.abuse)))
    measured = Measured(honest, defaultdict(float), {}, {})
    try:
        for player in players:
            player.start()
        time.sleep(args.warmup)
        abuse_go.set()
        bad.start()
        time.sleep(abuse_warmup)
        # Slices of each phase in turn: the machine's other load drifts, and falls on both alike.
        slices = max(1, round(args.seconds / args.slice))
        for _ in range(slices):
            for phase in ("alone", "abused"):
                if phase == "alone":
                    abuse_go.clear()
                    settled_by = time.monotonic() + MOST_SETTLE_SECONDS
                    while in_flight.value > 0 and time.monotonic() < settled_by:
                        time.sleep(0.1)  # the abuser's calls in flight come back first
                else:
                    abuse_go.set()
                began_cpu, _ = server_sample(server.pid)
                began = time.monotonic()
                honest.phase = phase
                time.sleep(args.seconds / slices)
                honest.phase = "between"
                cpu, measured.rss_mb[phase] = server_sample(server.pid)
                measured.cpu_cores[phase] += (cpu - began_cpu) / (time.monotonic() - began) / slices
        abuse_stop.set()
        abuse_go.set()
        measured.abuser = results.get(timeout=60)
    finally:
        stop.set()
        abuse_stop.set()
        abuse_go.set()
        for player in players:
            player.join(timeout=30)
        if bad.pid is not None:
            bad.join(timeout=30)
            if bad.is_alive():
                bad.terminate()
        stop_server(server)
    return measured


def run(args: argparse.Namespace) -> int:
    import redis

    run_id = secrets.token_hex(4)
    prefix = f"abuse-{run_id}"
    postgres = None if args.sqlite else args.postgres_url
    print(f"abuse bench: {args.players} honest players (GetView, GetBalance, ListRooms every {args.pace_ms:g} ms "
          f"each); ledger {'PostgreSQL' if postgres else 'SQLite'}; {args.seconds:g} s alone, then {args.seconds:g} s "
          f"beside one abusive client ({', '.join(args.abuse)}) after {args.abuse_warmup:g} s of its flooding; "
          f"{'then all again with the limits opened wide' if args.unlimited else 'limits on only'}", flush=True)
    shapes = [("limits on", {}, args.abuse_warmup)] + ([("limits off", UNLIMITED, 5.0)] if args.unlimited else [])
    prefixes = [f"{prefix}-{number}" for number in range(len(shapes))]  # rooms of their own each
    with ledger(postgres, run_id) as database_url, tempfile.TemporaryDirectory() as folder:
        environment = {"REDIS_URL": args.redis_url, "DATABASE_URL": database_url,
                       "PAIJU_SECRET": secrets.token_hex(32), "PAIJU_SHUTDOWN_GRACE_SECONDS": "2"}
        try:
            for (name, extra, abuse_warmup), own_prefix in zip(shapes, prefixes, strict=True):
                shape_environment = {**environment, **extra, "PAIJU_REDIS_PREFIX": own_prefix}
                report(name, measure(args, shape_environment, abuse_warmup, Path(folder)))
        finally:
            client = redis.Redis.from_url(args.redis_url)
            removed = sum(drop_prefix(client, own_prefix) for own_prefix in prefixes)
        print(f"cleaned up: {removed} Redis keys of {prefix}-*, the {'schema' if postgres else 'SQLite file'}")
    return 0


def report(shape: str, measured: Measured) -> None:
    print(f"\n{shape}\n{'honest calls':<12} {'phase':<7} {'calls':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for call in (*HONEST_CALLS, "all"):
        for phase in ("alone", "abused"):
            taken = [t for (p, c), ts in measured.honest.timings.items() if p == phase and call in (c, "all") for t in ts]
            print(f"{call:<12} {phase:<7} {len(taken):>7,} {percentile(taken, 0.5):>8.1f} "
                  f"{percentile(taken, 0.99):>8.1f} {max(taken, default=0.0):>8.1f}")
    failed = {key: n for key, n in measured.honest.failures.items() if key[0] in ("alone", "abused")}
    print(f"honest failures: {failed or 'none'}")
    for phase, cores in measured.cpu_cores.items():
        print(f"server {phase}: {cores:.2f} cores, {measured.rss_mb[phase]} MB resident")
    print("abuser's calls: " + ", ".join(f"{kind} {n:,}" for kind, n in sorted(measured.abuser.items())), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=9, help="honest players (default 9)")
    parser.add_argument("--pace-ms", type=float, default=100.0, help="an honest player's pause between rounds")
    parser.add_argument("--seconds", type=float, default=20.0, help="each phase's length (default 20)")
    parser.add_argument("--slice", type=float, default=5.0,
                        help="the phases alternate in slices of this many seconds (default 5)")
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds before the honest players are timed")
    parser.add_argument("--abuse-warmup", type=float, default=30.0,
                        help="seconds the abuser floods before it is measured, to spend its bursts (default 30)")
    parser.add_argument("--flood-threads", type=int, default=4)
    parser.add_argument("--login-threads", type=int, default=48)
    parser.add_argument("--abuse", nargs="+", choices=ABUSES, default=list(ABUSES),
                        help="what the abuser does (default: all of it at once)")
    parser.add_argument("--redis-url", default=os.environ.get("PAIJU_BENCH_REDIS_URL", DEFAULT_REDIS_URL))
    parser.add_argument("--postgres-url", default=os.environ.get("PAIJU_BENCH_POSTGRES_URL", DEFAULT_POSTGRES_URL))
    parser.add_argument("--sqlite", action="store_true", help="a SQLite ledger instead of PostgreSQL")
    parser.add_argument("--no-unlimited", dest="unlimited", action="store_false",
                        help="skip the second run, with the limits opened wide")
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
