"""``paiju serve --processes N``: one machine's services from N processes sharing one port.

One Python process runs its Python on one core at a time. The services keep no state of their
own between calls (tables live in Redis, the ledger in SQL, deadlines are claimed, settlements
are applied once per hand and account), so N copies of the same server are N replicas: each
listens on the same port (SO_REUSEPORT) and the kernel gives each a share of the connections.
A player's calls and streams ride one connection, so they stay with one process, though any
process could serve any of them.

This process only supervises: it starts the copies, runs the bot tables (``--bots``) and their
live line, and stops everything on SIGTERM/SIGINT or when a copy dies (the platform around it,
systemd or Kubernetes, restarts the whole). Copy ``i`` serves metrics on ``PAIJU_METRICS_PORT +
i`` and logs as this process was set up to (``--log-level``, JSON lines or text). The embedded
Redis lives inside one process, so N > 1 needs ``REDIS_URL``.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import threading
import time
from collections.abc import Sequence
from typing import Any

from paiju.common.config import ConfigError, Settings
from paiju.common.logs import configure_logging, current_logging
from paiju.house_bots import LiveLine, house_sign_in, rooms_for_bots, start_bots
from paiju.lifecycle import service_port, shutdown_on_signals
from paiju.platform import build
from paiju.serve import serve
from paiju.wallet.database import in_memory, normalize_url

STOP_SECONDS = 30.0
"""How long a copy may take to drain and stop after SIGTERM before it is killed."""
START_SECONDS = 120.0
"""How long the copies may take to answer health checks as serving."""


def check_processes(settings: Settings, processes: int) -> None:
    """Raise ``ConfigError`` saying why ``processes`` copies cannot share this configuration."""
    if processes < 1:
        raise ConfigError(f"--processes must be at least 1, not {processes}")
    if processes == 1:
        return
    if settings.uses_embedded_redis:
        raise ConfigError("--processes above 1 needs REDIS_URL: the embedded Redis lives inside one process")
    if in_memory(normalize_url(settings.database_url)):
        raise ConfigError("--processes above 1 needs a ledger the processes share: a SQLite file or PostgreSQL")


def serve_processes(settings: Settings, services: Sequence[str], processes: int, *, bot_tables: int = 0,
                    rooms_per_tier: int = 10, relay: bool = True, out=print) -> int:  # type: ignore[no-untyped-def]
    """Run ``processes`` copies of ``services`` until a signal or a copy's death; the exit status."""
    check_processes(settings, processes)
    port = service_port(settings, services)
    if port == 0:
        raise ConfigError("--processes above 1 needs a fixed port: each copy must listen on the same one")
    shutdown = shutdown_on_signals()
    context = multiprocessing.get_context("spawn")  # never fork a process that has started gRPC
    copies = []
    for index in range(processes):
        copy = context.Process(target=_serve_copy, name=f"paiju-serve-{index}",
                               args=(_copy_settings(settings, index), tuple(services), rooms_per_tier, relay, index,
                                     current_logging()))
        copy.start()
        copies.append(copy)
    out(f"paiju: {processes} server processes {[copy.pid for copy in copies]} sharing port {port}")
    stop = threading.Event()
    status = 0
    try:
        live = None
        if bot_tables:
            address = f"{settings.bind_host}:{port}"
            if not _wait_serving(address, copies, shutdown):
                return 1 if not shutdown.is_set() else 0
            platform = build(settings, rooms_per_tier=max(rooms_per_tier, rooms_for_bots(bot_tables)), services=services)
            live = LiveLine(platform, start_bots(address, bot_tables, stop, house_sign_in(platform, address)), out)
        while not shutdown.wait(1.0):
            dead = [copy for copy in copies if not copy.is_alive()]
            if dead:
                out(f"\npaiju: server process {dead[0].pid} ended (exit status {dead[0].exitcode}); stopping the others")
                status = 1
                break
            if live is not None:
                live.show()
    finally:
        stop.set()
        _stop_copies(copies)
    return status


def _wait_serving(address: str, copies: list[Any], shutdown: threading.Event) -> bool:
    """Whether the server at ``address`` answers as serving before a copy dies, a signal or
    START_SECONDS (the bots' first calls would fail before)."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + START_SECONDS
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline and all(copy.is_alive() for copy in copies) and not shutdown.is_set():
            try:
                answer = health.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.RpcError:
                pass
            shutdown.wait(0.2)
    return False


def _copy_settings(settings: Settings, index: int) -> Settings:
    metrics_port = settings.metrics_port + index if settings.metrics_port else 0
    return dataclasses.replace(settings, metrics_port=metrics_port)


def _serve_copy(settings: Settings, services: tuple[str, ...], rooms_per_tier: int, relay: bool, index: int,
                logs: tuple[int, bool] | None) -> None:
    if logs is not None:  # a spawned process starts without the parent's logging: it logs alike
        level, json = logs
        configure_logging(level, json=json)

    def out(*parts: Any, **_: Any) -> None:
        print(f"[{index}]", *parts, flush=True)

    serve(settings, services, rooms_per_tier=rooms_per_tier, relay=relay, out=out, share_port=True)


def _stop_copies(copies: list[Any]) -> None:
    for copy in copies:
        if copy.is_alive():
            copy.terminate()  # SIGTERM: the copy drains its streams and finishes calls in flight
    for copy in copies:
        copy.join(timeout=STOP_SECONDS)
        if copy.is_alive():
            copy.kill()
            copy.join()
