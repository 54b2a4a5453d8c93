"""A whole platform on loopback for end-to-end tests, in two shapes.

``embedded``: what ``make run`` runs — the in-process Redis emulation, a SQLite ledger, the
settlement relay in the server process. ``real``: real Redis (database 13, a key prefix of this
run), real PostgreSQL (a schema of this run) and a real Celery worker process that alone applies
settlements. Both serve every service through real gRPC on 127.0.0.1.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
import sqlalchemy as sa

from paiju.common.config import Settings
from paiju.platform import Platform, build
from paiju.rpc.server import RunningServer, start_from_settings
from paiju.table.record import TableRecord
from paiju.wallet.celery_app import WorkerOptions
from tests.patience import START_SECONDS, TIMER_SECONDS, wait_until

REDIS_DB = 13
SECRET = "the end-to-end test secret, 32 bytes"


@dataclass
class Deployment:
    platform: Platform
    server: RunningServer
    shape: str
    worker_log: Path | None = None

    @property
    def address(self) -> str:
        return self.server.address


@contextmanager
def serving(settings: Settings, shape: str, **build_options: Any) -> Iterator[Deployment]:
    """A platform built from ``settings`` (and ``build_options``), served on loopback with its
    settlement relay running, until the block ends."""
    platform = build(settings, **build_options)
    server = start_from_settings(settings, platform.bindings(), port=0)
    platform.start_background(relay=True)
    try:
        yield Deployment(platform, server, shape)
    finally:
        server.stop(grace=0.5)
        platform.close()


def without_turn_timer(deployment: Deployment, room: str) -> None:
    """Give ``room`` a turn of a day, so a hand the cases need on stays on however long they take."""
    store = deployment.platform.store
    snapshot = store.load(room)
    record = TableRecord.from_bytes(snapshot.state)
    record.turn_ms = 86_400_000
    store.commit(room, snapshot.version, record.to_bytes())


def _start_worker(environment: dict[str, str], folder: Path) -> tuple[subprocess.Popen, Path]:
    log = folder / "worker.log"
    command = [sys.executable, "-m", "celery", "-A", "paiju.wallet.celery_app", "worker", "-B",
               "--pool=solo", "--without-gossip", "--without-mingle", "--without-heartbeat",
               "--loglevel=INFO", f"--schedule={folder / 'beat-schedule'}"]
    with log.open("w") as output:
        worker = subprocess.Popen(command, env={**os.environ, **environment}, stdout=output,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    return worker, log


def _stop(worker: subprocess.Popen) -> None:
    worker.send_signal(signal.SIGTERM)
    try:
        worker.wait(timeout=15)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait(timeout=5)


@pytest.fixture(scope="module", params=["embedded", "real"])
def deployment(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    run = secrets.token_hex(4)
    folder = tmp_path_factory.mktemp(f"e2e-{request.param}")
    # Timers that run out only when a test shortens them (test_platform's reconnect window).
    environment = {"PAIJU_SECRET": SECRET, "PAIJU_REDIS_PREFIX": f"e2e-{run}", "PAIJU_RELAY_SECONDS": "0.2",
                   "PAIJU_STARTING_GRANT": "20000", "PAIJU_RECONNECT_SECONDS": str(TIMER_SECONDS),
                   "PAIJU_TURN_SECONDS": str(TIMER_SECONDS), "PAIJU_READY_KICK_SECONDS": str(TIMER_SECONDS),
                   # Holds no table owes are swept after a second: every hand played here must keep its own
                   # (a module that holds coins outside any table on purpose says how long they last).
                   "PAIJU_HOLD_SWEEP_SECONDS": getattr(request.module, "HOLD_SWEEP_SECONDS", "1")}
    worker = schema = database_url = None
    if request.param == "embedded":
        environment["DATABASE_URL"] = f"sqlite:///{folder / 'ledger.sqlite3'}"
    else:
        redis_url = request.getfixturevalue("redis_url")
        database_url = request.getfixturevalue("database_url")
        broker = sa.make_url(redis_url).set(database=str(REDIS_DB)).render_as_string(False)
        schema = f"e2e_{run}"
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        environment["REDIS_URL"] = broker
        environment["DATABASE_URL"] = sa.make_url(database_url).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    settings = Settings.from_env(environment)
    platform = build(settings, rooms_per_tier=5, options=WorkerOptions.from_env(environment))
    server = start_from_settings(settings, platform.bindings(), port=0)
    log = None
    # A module that sets RELAY_RUNS = False gets a platform whose settlements wait in the outbox
    # (no relay, no worker: a bad night), for an operator's hand to apply or void them.
    relay_runs = getattr(request.module, "RELAY_RUNS", True)
    if request.param == "real" and relay_runs:
        worker, log = _start_worker(environment, folder)
        wait_until("the worker to start", lambda: " ready." in log.read_text(), seconds=START_SECONDS,
                   explain=lambda: log.read_text()[-3000:])
    platform.start_background(relay=request.param == "embedded" and relay_runs)
    try:
        yield Deployment(platform, server, request.param, log)
    finally:
        server.stop(grace=0.5)
        if worker is not None:
            _stop(worker)
        platform.close()
        if request.param == "real":
            client = redis.Redis.from_url(environment["REDIS_URL"])
            stale = list(client.scan_iter(match=f"e2e-{run}:*", count=1000))
            if stale:
                client.delete(*stale)
            with psycopg.connect(database_url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
