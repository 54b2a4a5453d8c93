"""A three-master Redis Cluster on loopback for tests, made of ``redis-server`` processes in a
folder of the test's own, each with an append-only file synced on every write, so that a node
killed with SIGKILL comes back with everything it acknowledged."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

STARTUP_SECONDS = 60.0


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_cluster_ports(count: int) -> list[int]:
    """``count`` loopback ports whose cluster-bus ports (port + 10000) are free too."""
    found: list[int] = []
    while len(found) < count:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port + 10_000 <= 65_535 and port not in found and _port_free(port + 10_000):
            found.append(port)
    return found


@dataclass
class LocalCluster:
    """Three masters (no replicas) on loopback; ``url`` names the first node."""

    folder: Path
    ports: list[int] = field(default_factory=list)
    processes: dict[int, subprocess.Popen] = field(default_factory=dict)

    @staticmethod
    def available() -> bool:
        return shutil.which("redis-server") is not None and shutil.which("redis-cli") is not None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def start(self) -> LocalCluster:
        self.ports = free_cluster_ports(3)
        for port in self.ports:
            self._start_node(port)
        nodes = [f"127.0.0.1:{port}" for port in self.ports]
        subprocess.run(["redis-cli", "--cluster", "create", *nodes, "--cluster-replicas", "0", "--cluster-yes"],
                       check=True, capture_output=True, timeout=60)
        self.wait_until_ok()
        return self

    def _start_node(self, port: int) -> None:
        where = self.folder / str(port)
        where.mkdir(parents=True, exist_ok=True)
        command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                   "--cluster-enabled", "yes", "--cluster-config-file", str(where / "nodes.conf"),
                   # The other slots stay served while one node is down (no replicas to fail over to).
                   "--cluster-require-full-coverage", "no", "--cluster-node-timeout", "2000",
                   "--appendonly", "yes", "--appendfsync", "always", "--dir", str(where),
                   "--logfile", str(where / "redis.log")]
        self.processes[port] = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            try:
                if redis.Redis(port=port, socket_timeout=1).ping():
                    return
            except redis.exceptions.RedisError:
                pass  # still loading its append-only file, or not listening yet
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis-server on port {port} did not answer within {STARTUP_SECONDS:.0f} s")
            time.sleep(0.05)

    def wait_until_ok(self) -> None:
        """Until every node says the cluster is ok and agrees on all 16384 slots."""
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            states = []
            for port in self.ports:
                try:
                    states.append(redis.Redis(port=port, socket_timeout=1).cluster("info"))
                except redis.exceptions.RedisError:
                    states.append({})
            if all(state.get("cluster_state") == "ok" and int(state.get("cluster_slots_ok", 0)) == 16_384
                   for state in states):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster did not become ok within {STARTUP_SECONDS:.0f} s: {states}")
            time.sleep(0.1)

    def kill(self, port: int) -> None:
        """SIGKILL the node on ``port``, as a crash would."""
        process = self.processes.pop(port)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def restart(self, port: int) -> None:
        """Kill the node on ``port`` and start it again from its files; wait for the cluster."""
        self.kill(port)
        self._start_node(port)
        self.wait_until_ok()

    def stop(self) -> None:
        for port in list(self.processes):
            self.kill(port)
