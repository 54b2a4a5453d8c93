"""Whole-platform server processes on one shared port, started by a test that kills one of them.

``paiju serve --processes N`` stops every copy when one dies (the platform around it restarts
the whole), so a test of what one replica's death leaves to the others starts the copies itself.
Each serves every service on the port (SO_REUSEPORT: the kernel hands each new connection to one
of the processes listening at that moment) and runs what a copy runs beside: the settlement
relay, the sweep of holds and a watchdog replica.

Each process gets its own pipe, counter and stop event: a process killed with SIGKILL may die
holding the lock of anything it shares, and must not take the others' reports with it.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.patience import PATIENCE_SECONDS, START_SECONDS

REPORT_SECONDS = 0.2


def finished_calls(method: str) -> int:
    """How many ``method`` calls this process has finished, from its own metrics."""
    from paiju.common.metrics import METRICS

    return int(sum(sample.value for metric in METRICS.registry.collect() for sample in metric.samples
                   if sample.name == "paiju_rpc_duration_seconds_count" and sample.labels.get("method") == method))


def serve_platform(environment: dict[str, str], rooms_per_tier: int, port: int, started: Any, acts: Any,
                   stop: Any) -> None:
    """A spawned server process: the whole platform on ``port`` (0: a free one) until ``stop``.

    Once serving it sends ``port`` through ``started``; it keeps ``acts`` at the number of moves
    it has served (Act calls, and moves on Play streams, as bots make them)."""
    from paiju.common.config import Settings
    from paiju.platform import build
    from paiju.rpc.server import start_from_settings
    from paiju.wallet.celery_app import WorkerOptions

    settings = Settings.from_env(environment)
    platform = build(settings, rooms_per_tier=rooms_per_tier, options=WorkerOptions.from_env(environment))
    server = start_from_settings(settings, platform.bindings(), port=port, share_port=True)
    platform.start_background(relay=True)
    started.send(server.port)
    try:
        while not stop.wait(REPORT_SECONDS):
            acts.value = finished_calls("Act") + finished_calls("Play.move")
    finally:
        server.stop(grace=1.0)
        platform.close()


@dataclass
class ServerProcess:
    process: Any
    acts: Any
    stop: Any

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def acts_served(self) -> int:
        """Moves it had served when it last counted them."""
        return int(self.acts.value)


@dataclass
class SharedPortServers:
    """Server processes sharing one port, started one at a time: the first picks the port."""

    environment: dict[str, str]
    rooms_per_tier: int
    port: int = 0
    running: list[ServerProcess] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")  # never fork a process that has started gRPC

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        """One more process on the port, once it serves; fail with its exit status if it dies first."""
        receiving, sending = self._context.Pipe(duplex=False)
        acts, stop = self._context.RawValue("q", 0), self._context.Event()
        process = self._context.Process(target=serve_platform, daemon=True,
                                        args=(self.environment, self.rooms_per_tier, self.port, sending, acts, stop))
        process.start()
        started = ServerProcess(process, acts, stop)
        self.running.append(started)
        deadline = time.monotonic() + START_SECONDS
        while not receiving.poll(0.1):
            if not process.is_alive():
                pytest.fail(f"a server process died while starting (exit status {process.exitcode})")
            if time.monotonic() > deadline:
                pytest.fail(f"a server process did not serve within {START_SECONDS:.0f} s")
        self.port = receiving.recv()
        return started

    def kill(self, server: ServerProcess) -> None:
        """SIGKILL: no drain, no goodbye, its connections cut mid-call."""
        os.kill(server.pid, signal.SIGKILL)
        server.process.join(PATIENCE_SECONDS)
        self.running.remove(server)

    def stop_all(self) -> None:
        """Stop every process left (killing any that does not stop in time)."""
        for server in self.running:
            server.stop.set()
        for server in self.running:
            server.process.join(PATIENCE_SECONDS)
            if server.process.is_alive():
                server.process.kill()
                server.process.join(PATIENCE_SECONDS)
        self.running.clear()
