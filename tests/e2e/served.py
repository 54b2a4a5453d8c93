"""`paiju serve` started as a process by a test: waiting for it to serve, and stopping it."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.patience import PATIENCE_SECONDS, START_SECONDS, wait_until


def serving(address: str) -> bool:
    """Whether the table service at ``address`` answers SERVING to a health check."""
    try:
        with grpc.insecure_channel(address) as channel:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="paiju.v1.TableService"), timeout=1)
            return answer.status == health_pb2.HealthCheckResponse.SERVING
    except grpc.RpcError:
        return False


def wait_until_serving(process: subprocess.Popen, address: str, log: Path,
                       ready: Callable[[], bool] = lambda: True) -> None:
    """Wait until ``process`` serves at ``address`` and ``ready()`` holds; kill it and fail,
    with the end of its ``log``, if it dies or never gets there."""
    try:
        wait_until("the server to come up", lambda: process.poll() is not None or (ready() and serving(address)),
                   seconds=START_SECONDS, explain=lambda: log.read_text()[-3000:])
        if process.poll() is not None:
            pytest.fail("the server died:\n" + log.read_text()[-3000:])
    except BaseException:
        stop(process)
        raise


def stop(process: subprocess.Popen) -> None:
    """Kill ``process`` if it still runs, and reap it."""
    if process.poll() is None:
        process.kill()
        process.wait(timeout=PATIENCE_SECONDS)
