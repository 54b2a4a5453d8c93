"""Watchdog replicas as real processes on real Redis: one is killed with SIGKILL while it holds
claimed deadlines, and another replica fires them; every deadline takes effect exactly once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import uuid

import sqlalchemy as sa

from paiju.common.config import Settings
from paiju.platform import build
from paiju.rpc.server import start_from_settings
from paiju.table.service import TableInternalService
from paiju.wallet import PasswordHasher
from paiju.wallet.celery_app import WorkerOptions
from tests.patience import PATIENCE_SECONDS, START_SECONDS, wait_until

SECRET = "the watchdog process test secret, 32b"
TABLES = 8


class GatedTableInternal(TableInternalService):
    """Applies the first expiry at once and holds every later one until ``gate`` opens, so a
    watchdog can be killed while it holds a claimed deadline, however slow the machine."""

    def __init__(self, tables) -> None:
        super().__init__(tables)
        self.calls = 0
        self.finished = 0
        self.applied = 0
        self.lock = threading.Lock()
        self.gate = threading.Event()

    def ExpireDeadline(self, request, context):
        with self.lock:
            self.calls += 1
            held = self.calls > 1
        try:
            if held:
                assert self.gate.wait(PATIENCE_SECONDS), "the test never opened the gate"
            answer = super().ExpireDeadline(request, context)
            with self.lock:
                self.applied += answer.applied
        finally:
            with self.lock:
                self.finished += 1
        return answer


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_killed_watchdogs_claims_are_fired_by_another_replica_exactly_once(redis_url, tmp_path):
    run = uuid.uuid4().hex[:8]
    environment = {
        "PAIJU_SECRET": SECRET,
        "PAIJU_REDIS_PREFIX": f"wdkill-{run}",
        "REDIS_URL": sa.make_url(redis_url).set(database="13").render_as_string(False),
        "DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3",
        "PAIJU_TURN_SECONDS": "1",
        "PAIJU_WATCHDOG_LEASE_MS": "1500",
    }
    settings = Settings.from_env(environment)
    platform = build(settings, rooms_per_tier=1, options=WorkerOptions.from_env(environment),
                     services=["wallet", "lobby", "table"])
    platform.wallet.passwords = PasswordHasher(n=2**4)
    slow = GatedTableInternal(platform.tables)
    bindings = [b for b in platform.bindings() if b.name != "paiju.v1.TableInternalService"]
    from paiju.proto.v1 import table_pb2_grpc
    from paiju.rpc.server import ServiceBinding

    bindings.append(ServiceBinding("paiju.v1.TableInternalService", slow, table_pb2_grpc.add_TableInternalServiceServicer_to_server))
    server = start_from_settings(settings, bindings, port=0)
    platform.start_background(relay=True)  # settlements only: this process runs no watchdog
    watchdogs: list[subprocess.Popen] = []
    try:
        for number in range(TABLES):
            table_id = f"kill-{number}"
            platform.tables.open(table_id, "zhajinhua", "free")
            players = [str(platform.wallet.register(f"k{run}{number}{i}", "secret password")) for i in range(2)]
            for account in players:
                platform.tables.sit(table_id, account, account)
            for account in players:
                platform.tables.ready(table_id, account)
        child_env = {**os.environ, **environment, "PAIJU_TABLE_TARGET": server.address,
                     "PAIJU_WATCHDOG_PORT": str(free_port())}
        log = (tmp_path / "watchdog-a.log").open("w")
        first = subprocess.Popen([sys.executable, "-m", "paiju.cli", "serve", "watchdog"], env=child_env,
                                 stdout=log, stderr=subprocess.STDOUT)
        watchdogs.append(first)
        wait_until("the first watchdog to start firing", lambda: slow.calls >= 2, seconds=START_SECONDS)
        first.send_signal(signal.SIGKILL)  # mid-call: it holds a claimed deadline
        first.wait(timeout=PATIENCE_SECONDS)
        assert slow.applied == 1  # the others wait at the gate, or were never claimed
        slow.gate.set()

        child_env["PAIJU_WATCHDOG_PORT"] = str(free_port())
        second = subprocess.Popen([sys.executable, "-m", "paiju.cli", "serve", "watchdog"], env=child_env,
                                  stdout=(tmp_path / "watchdog-b.log").open("w"), stderr=subprocess.STDOUT)
        watchdogs.append(second)

        def all_hands_over() -> bool:
            """Every hand ended, and every expiry that ended one has been counted."""
            return (all(platform.tables.load(f"kill-{n}")[1].hand is None for n in range(TABLES))
                    and slow.finished == slow.calls)

        wait_until("every table's timeout", all_hands_over, seconds=START_SECONDS + PATIENCE_SECONDS)
        # Exactly one timeout per table took effect (each two-player hand ends with that fold):
        # none lost with the killed replica, none applied twice when its claim was fired again.
        assert slow.applied == TABLES, (slow.applied, slow.calls)
        for number in range(TABLES):
            last = platform.tables.load(f"kill-{number}")[1].last_hand
            assert last["state"]["result"]["details"]["how"] == "last_player"
    finally:
        slow.gate.set()
        for watchdog in watchdogs:
            if watchdog.poll() is None:
                watchdog.send_signal(signal.SIGTERM)
                try:
                    watchdog.wait(timeout=PATIENCE_SECONDS)
                except subprocess.TimeoutExpired:
                    watchdog.kill()
        server.stop(grace=0.2)
        platform.close()
        stale = list(platform.redis.scan_iter(match=f"wdkill-{run}:*", count=1000))
        if stale:
            platform.redis.delete(*stale)
