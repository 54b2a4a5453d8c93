"""The load bench's deployment: the platform's server processes it starts (several on one port,
a ledger process beside them), waits for, scrapes and stops, and the idle accounts it seeds.

Imported by ``load.py`` (``from load_deployment import …``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from runs import process_stat, stat_cpu_seconds, with_connections

PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


def idle_name(run_id: str, index: int) -> str:
    """The username of idle player ``index`` of run ``run_id``.

    >>> idle_name("ab12cd34", 7)
    'ld-ab12cd34-i7'
    """
    return f"ld-{run_id}-i{index}"


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class ServerProcess:
    """One process this run started (in a session of its own, so its children go with it)."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path
    metrics_port: int = 0

    def tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class Deployment:
    """The servers of one run and where the clients reach them."""

    routes: dict[str, str]
    processes: list[ServerProcess] = field(default_factory=list)

    @property
    def table_process(self) -> ServerProcess:
        return next(p for p in self.processes if p.name in ("all", "table"))


def stop_processes(processes: list[ServerProcess], grace: float = 10.0) -> None:
    """SIGTERM every process group this run started, then SIGKILL what is left after ``grace``."""
    for server in processes:
        if server.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.process.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for server in processes:
        try:
            server.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait(timeout=5)


def _paiju_command(*args: str) -> list[str]:
    script = Path(sys.executable).with_name("paiju")
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-c", "import sys; from paiju.cli import main; sys.exit(main())", *args]


def _launch(name: str, command: list[str], environment: dict[str, str], folder: Path,
            metrics_port: int = 0) -> ServerProcess:
    log = folder / f"{name}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(command, env={**os.environ, **environment}, stdout=output,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    return ServerProcess(name, process, log, metrics_port)


def wait_serving(address: str, processes: list[ServerProcess], timeout: float) -> None:
    """Block until ``address`` answers gRPC health checks with SERVING; fail if a process dies."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            for server in processes:
                if server.process.poll() is not None:
                    raise RuntimeError(f"{server.name} exited with {server.process.returncode}:\n{server.tail()}")
            try:
                answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=2)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.5)
    raise RuntimeError(f"{address} did not serve within {timeout:.0f} s")


def start_servers(args: argparse.Namespace, environment: dict[str, str], folder: Path, rooms: int) -> Deployment:
    """The services, as one process or as four plus a Celery worker; ready to take calls."""
    common = ["--rooms", str(rooms), "--log-level", "WARNING"]
    # The event-loop server holds no thread per stream: its threads serve only the calls that
    # may wait (logins, sits, SQL). The thread-pool server needs one per open stream.
    stream_workers = args.grpc_workers or (
        256 if args.grpc_server == "loop" else args.target + 2 * args.active + 256)
    # redis-py pools refuse a 101st connection unless the URL says otherwise, and every open
    # Watch stream holds one (blocked in XREAD) for as long as it lasts.
    # Celery's broker (kombu) refuses that query parameter: the worker keeps the plain URL.
    worker_environment = environment
    environment = {**environment, "REDIS_URL": with_connections(environment["REDIS_URL"], stream_workers + 256),
                   "PAIJU_GRPC_SERVER": args.grpc_server}
    if not args.split:
        port, metrics = free_port(), free_port()
        env = {**environment, "PAIJU_PORT": str(port), "PAIJU_METRICS_PORT": str(metrics),
               "PAIJU_GRPC_WORKERS": str(stream_workers)}
        address = f"127.0.0.1:{port}"
        deployment = Deployment({"wallet": address, "lobby": address, "table": address})
        deployment.processes.append(_launch("all", _paiju_command("serve", *common), env, folder, metrics))
        wait_serving(address, deployment.processes, args.startup_timeout)
        return deployment
    ports = {name: free_port() for name in ("wallet", "lobby", "table", "watchdog")}
    env = {**environment, **{f"PAIJU_{name.upper()}_PORT": str(port) for name, port in ports.items()},
           **{f"PAIJU_{name.upper()}_TARGET": f"127.0.0.1:{port}" for name, port in ports.items()}}
    deployment = Deployment({name: f"127.0.0.1:{ports[name]}" for name in ("wallet", "lobby", "table")})
    workers = {"wallet": 256, "lobby": 256, "table": stream_workers, "watchdog": 64}
    # The wallet first: it migrates the ledger, and the others call it.
    for name in ("wallet", "lobby", "table", "watchdog"):
        metrics = free_port()
        extra = ["--external-worker"] if name == "wallet" else []
        deployment.processes.append(_launch(
            name, _paiju_command("serve", name, *common, *extra),
            {**env, "PAIJU_METRICS_PORT": str(metrics), "PAIJU_GRPC_WORKERS": str(workers[name])}, folder, metrics))
        wait_serving(f"127.0.0.1:{ports[name]}", deployment.processes, args.startup_timeout)
    worker = [sys.executable, "-m", "celery", "-A", "paiju.wallet.celery_app", "worker", "-B", "--pool=solo",
              "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=WARNING",
              f"--schedule={folder / 'beat-schedule'}"]
    deployment.processes.append(_launch("celery", worker, {**env, "REDIS_URL": worker_environment["REDIS_URL"]},
                                        folder))
    return deployment


def seed_idle_accounts(database_url: str, run_id: str, password: str, count: int, grant: int) -> float:
    """Register the idle players straight into the ledger with a cheap hash; seconds taken.

    The server verifies a stored hash with the cost stored in it, so their logins are cheap too;
    the active players register over gRPC and pay the real cost.
    """
    from paiju.wallet import PasswordHasher, Wallet

    started = time.monotonic()
    wallet = Wallet(database_url, starting_grant=grant, password_hasher=PasswordHasher(n=2**4))
    try:
        wallet.migrate()
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda i: wallet.register(idle_name(run_id, i), password), range(count)))
    finally:
        wallet.close()
    return time.monotonic() - started


# --- server-side readings --------------------------------------------------------------


def scrape_metrics(port: int) -> dict[str, float]:
    """Open Watch streams and connected players as the server counts them (empty if unreachable)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            text = response.read().decode()
    except OSError:
        return {}
    found: dict[str, float] = defaultdict(float)
    for line in text.splitlines():
        if line.startswith("paiju_rpc_in_flight{") and 'method="Watch"' in line:
            found["watch_streams"] += float(line.rsplit(" ", 1)[1])
        elif line.startswith("paiju_connected_players{"):
            found["connected_players"] += float(line.rsplit(" ", 1)[1])
    return dict(found)


@dataclass(frozen=True, slots=True)
class ProcessReading:
    cpu_seconds: float
    rss_bytes: int
    threads: int


def read_process(pid: int) -> ProcessReading:
    """CPU seconds so far, resident memory and thread count of ``pid`` (zeros once it is gone)."""
    fields = process_stat(pid)
    if fields is None:
        return ProcessReading(0.0, 0, 0)
    return ProcessReading(stat_cpu_seconds(fields), int(fields[21]) * PAGE_BYTES,
                          int(fields[17]))


