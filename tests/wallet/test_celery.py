"""Settlement by Celery: a REAL worker process (``celery -A paiju.wallet.celery_app worker -B
--pool=solo``) on the real Redis as broker and table store, and the real PostgreSQL as ledger
(a fresh schema). Plus the configuration and the retry of a job, in process.

Isolation: the worker's Redis keys (broker, outboxes, leaderboards) are all under a prefix of
this run, in Redis database 12; its ledger is a schema of this run. Both are removed at the end,
and the worker is always terminated.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
import sqlalchemy as sa
from celery import Celery

from paiju.common.config import Settings
from paiju.table.store import TableStore
from paiju.wallet import PasswordHasher, Wallet
from paiju.wallet.celery_app import (
    RELAY_OUTBOX,
    SETTLE_HAND,
    WorkerOptions,
    celery_config,
    make_celery,
)
from paiju.wallet.leaderboard import Leaderboard
from paiju.wallet.tasks import WorkerResources, settle_hand, use_resources
from tests.patience import PATIENCE_SECONDS, START_SECONDS, wait_until

REDIS_DB = 12


def hand_payload(
    hand_id: str, table_id: str, loser: int, winner: int, stake: int, fee: int = 0
) -> str:
    """The outbox payload of a two-player hand that ``winner`` won, paying ``fee``."""
    lines: list[list[Any]] = [
        [str(loser), -stake, "stake"],
        [str(winner), -stake, "stake"],
        [str(winner), 2 * stake, "pot"],
    ]
    if fee:
        lines.append([str(winner), -fee, "fee"])
    return json.dumps({"hand_id": hand_id, "table_id": table_id, "game": "zhajinhua",
                       "lines": lines, "fee": fee})


def wait_for(what: str, done: Callable[[], bool], log: Path | None = None,
             seconds: float = PATIENCE_SECONDS) -> None:
    def worker_log() -> str:
        tail = log.read_text()[-4000:] if log is not None and log.exists() else ""
        return f"--- worker log ---\n{tail}"

    wait_until(what, done, seconds=seconds, explain=worker_log)


# -- in process ---------------------------------------------------------------------------------


def test_without_redis_jobs_run_eagerly_and_with_it_on_the_broker() -> None:
    options = WorkerOptions("paiju-x", 2.5)
    embedded = celery_config(Settings.from_env({}), options)
    assert embedded["task_always_eager"] is True and embedded["broker_url"] == "memory://"
    real = celery_config(Settings.from_env({"REDIS_URL": "redis://127.0.0.1:6379/3"}), options)
    assert real["broker_url"] == "redis://127.0.0.1:6379/3" and "task_always_eager" not in real
    assert real["broker_transport_options"]["global_keyprefix"] == "paiju-x:celery:"
    assert real["task_default_queue"] == "paiju-x:wallet" and real["task_acks_late"] is True
    schedule = real["beat_schedule"]["relay-settlement-outbox"]
    assert (schedule["task"], schedule["schedule"]) == (RELAY_OUTBOX, 2.5)
    assert settle_hand.acks_late is True and settle_hand.name == SETTLE_HAND
    assert settle_hand.max_retries and settle_hand.retry_backoff


class FlakyWallet(Wallet):
    """A wallet whose database drops the first ``failures`` settlements."""

    failures = 2
    attempts = 0

    def settle_many(self, *args: Any, **kwargs: Any) -> Any:  # what settle and the relay both call
        self.attempts += 1
        if self.attempts <= self.failures:
            raise sa.exc.OperationalError("COMMIT", {}, OSError("server closed the connection"))
        return super().settle_many(*args, **kwargs)


def test_a_database_failure_is_retried_and_the_hand_applied_once() -> None:
    wallet = FlakyWallet("sqlite://", password_hasher=PasswordHasher(n=2**4))
    wallet.migrate()
    alice, bob = wallet.register("alice", "password-1"), wallet.register("bob", "password-2")
    wallet.hold_hand("t1-1", {alice: 100, bob: 100})
    use_resources(WorkerResources(wallet))
    try:
        payload = hand_payload("t1-1", "t1", alice, bob, 100, fee=2)
        first = settle_hand.apply(args=[payload], throw=False)  # retries run inline
        assert first.successful(), first.traceback
        assert first.get() == {"hand_id": "t1-1", "replayed": False}
        assert wallet.attempts == 3
        assert settle_hand.apply(args=[payload], throw=False).get() == {"hand_id": "t1-1", "replayed": True}
        assert (wallet.balance(alice), wallet.balance(bob), wallet.balance(wallet.house)) == (
            19_900, 20_098, 2)
        refused = settle_hand.apply(args=["{not json"], throw=False)
        assert refused.failed() and wallet.attempts == 4  # a refusal is not retried
    finally:
        use_resources(None)
        wallet.close()


# -- a real worker ------------------------------------------------------------------------------


@dataclass
class Deployment:
    """A worker process, the ledger it writes and the Redis it reads, seen from the test."""

    wallet: Wallet
    store: TableStore
    board: Leaderboard
    client: Celery
    log: Path

    def send(self, payload: str) -> None:
        self.client.send_task(SETTLE_HAND, args=[payload])

    def settled(self, *hand_ids: str) -> Callable[[], bool]:
        return lambda: all(self.wallet.settlement(hand) is not None for hand in hand_ids)

    def queue(self, table_id: str, hand_id: str, payload: str) -> None:
        snapshot = self.store.load(table_id)
        version = self.store.create(table_id, b"s") if snapshot is None else snapshot.version
        self.store.commit(table_id, version, b"s", outbox=[(f"settle:{hand_id}", payload.encode())])


@contextlib.contextmanager
def worker_deployment(redis_url: str, database_url: str, folder: Path, relay_seconds: float) -> Iterator[Deployment]:
    """A worker process with its beat relaying every ``relay_seconds``, on a ledger schema and a
    Redis prefix of its own, removed at the end."""
    run = secrets.token_hex(4)
    prefix = f"paiju-celery-test-{run}"
    broker_url = sa.make_url(redis_url).set(database=str(REDIS_DB)).render_as_string(False)
    schema = f"wallet_celery_test_{run}"
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    ledger_url = sa.make_url(database_url).update_query_dict(
        {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    wallet = Wallet(ledger_url, password_hasher=PasswordHasher(n=2**4))
    wallet.migrate()
    redis_client = redis.Redis.from_url(broker_url)
    options = WorkerOptions(prefix, relay_seconds=relay_seconds)
    log = folder / "worker.log"
    environment = {
        **os.environ,
        "REDIS_URL": broker_url,
        "DATABASE_URL": ledger_url,
        "PAIJU_REDIS_PREFIX": prefix,
        "PAIJU_RELAY_SECONDS": str(options.relay_seconds),
        "PAIJU_SECRET": "the celery test secret ..........",
    }
    command = [sys.executable, "-m", "celery", "-A", "paiju.wallet.celery_app", "worker", "-B",
               "--pool=solo", "--without-gossip", "--without-mingle", "--without-heartbeat",
               "--loglevel=INFO", f"--schedule={folder / 'beat-schedule'}"]
    with log.open("w") as output:
        worker = subprocess.Popen(command, env=environment, stdout=output,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    client = make_celery(Settings.from_env({"REDIS_URL": broker_url}), options)
    try:
        wait_for("the worker to start", lambda: " ready." in log.read_text(), log, seconds=START_SECONDS)
        yield Deployment(
            wallet,
            TableStore(redis_client, prefix),
            Leaderboard(redis_client, options.leaderboard_prefix),
            client,
            log,
        )
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=5)
        client.close()
        wallet.close()
        stale = list(redis_client.scan_iter(match=f"{prefix}:*", count=1000))
        if stale:
            redis_client.delete(*stale)
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(scope="module")
def deployment(
    redis_url: str, database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    with worker_deployment(redis_url, database_url, tmp_path_factory.mktemp("celery"), relay_seconds=0.3) as deployed:
        yield deployed


def test_a_hands_settlement_is_relayed_as_the_hand_ends_not_at_the_beats_next_pass(
    redis_url: str, database_url: str, tmp_path: Path,
) -> None:
    with worker_deployment(redis_url, database_url, tmp_path, relay_seconds=3600) as deployed:
        wallet = deployed.wallet
        erin, finn = wallet.register("early-erin", "password-1"), wallet.register("early-finn", "password-2")
        wallet.hold_hand("early-1", {erin: 100, finn: 100})
        store = deployed.store
        wait_until("the worker to listen", lambda: store.client.pubsub_numsub(store.outbox_channel)[0][1] >= 1)
        settled = store.notices(store.settled_channel)
        try:
            deployed.queue("early-table", "early-1", hand_payload("early-1", "early-table", erin, finn, 100))
            # The beat's first pass is an hour away: only the commit's notice can have relayed it.
            wait_for("the settlement", deployed.settled("early-1"), deployed.log)
            wait_for("its acknowledgement", lambda: deployed.store.outbox_pending() == [], deployed.log)
            wait_until("the settled notice", lambda: settled.get_message(timeout=0.5) is not None)
        finally:
            settled.close()
        assert wallet.total_coins() == wallet.grants_total()


def test_a_settlement_delivered_twice_is_applied_once(deployment: Deployment) -> None:
    wallet = deployment.wallet
    alice, bob = wallet.register("dup-alice", "password-1"), wallet.register("dup-bob", "pw-12345")
    wallet.hold_hand("dup-1", {alice: 500, bob: 500})
    payload = hand_payload("dup-1", "dup-table", alice, bob, 500, fee=10)
    deployment.send(payload)
    deployment.send(payload)
    # The solo worker takes jobs in order: once a later hand is in, both copies are done.
    wallet.hold_hand("dup-2", {alice: 1, bob: 1})
    deployment.send(hand_payload("dup-2", "dup-table", bob, alice, 1))
    wait_for("both deliveries and the hand after them", deployment.settled("dup-2"),
             deployment.log)
    assert (wallet.balance(alice), wallet.balance(bob)) == (20_000 - 500 + 1, 20_000 + 490 - 1)
    assert len(wallet.history(bob, game="zhajinhua")) == 4  # stake, pot, fee; then a stake
    assert wallet.held(alice) == wallet.held(bob) == 0
    assert wallet.total_coins() == wallet.grants_total()


def test_the_beat_relays_outboxes_and_acks_only_what_it_applied(deployment: Deployment) -> None:
    wallet, store = deployment.wallet, deployment.store
    carol, dave = wallet.register("relay-carol", "password-1"), wallet.register("relay-dave",
                                                                                 "password-2")
    for number in range(1, 4):
        wallet.hold_hand(f"relay-{number}", {carol: 100, dave: 100})
        deployment.queue("relay-table", f"relay-{number}",
                         hand_payload(f"relay-{number}", "relay-table", carol, dave, 100, fee=2))
    # Never held: the wallet refuses it, so it must stay in the outbox.
    deployment.queue("relay-table", "relay-unheld",
                     hand_payload("relay-unheld", "relay-table", carol, dave, 100))

    def only_the_refused_one_left() -> bool:
        return [e.key for e in store.outbox_pending()] == ["settle:relay-unheld"]

    wait_for("the relay to apply and acknowledge", only_the_refused_one_left, deployment.log)
    assert deployment.settled("relay-1", "relay-2", "relay-3")()
    assert wallet.settlement("relay-unheld") is None
    assert (wallet.balance(carol), wallet.balance(dave)) == (19_700, 20_294)
    # Once its coins are held the hand goes through on a later pass.
    wallet.hold_hand("relay-unheld", {carol: 100, dave: 100})
    wait_for("the held hand to be relayed", lambda: store.outbox_pending() == [], deployment.log)
    assert wallet.balance(dave) == 20_394 and wallet.total_coins() == wallet.grants_total()


def test_conservation_and_leaderboard_after_many_settlements(deployment: Deployment) -> None:
    wallet, board = deployment.wallet, deployment.board
    board.replace("zhajinhua", ((row.account, row.net) for row in wallet.top("zhajinhua", 10**6)))
    players = [wallet.register(f"many-{n}", "password-1") for n in range(6)]
    chance = random.Random(20240607)
    hands: list[str] = []
    for number in range(60):
        loser, winner = chance.sample(players, 2)
        stake = chance.randint(1, 400)
        fee = stake * chance.randint(0, 5) // 100
        hand_id = f"many-{number}"
        wallet.hold_hand(hand_id, {loser: stake, winner: stake})
        payload = hand_payload(hand_id, f"many-table-{number % 3}", loser, winner, stake, fee)
        route = chance.randrange(3)
        if route == 0:
            deployment.send(payload)
        elif route == 1:
            deployment.queue(f"many-table-{number % 3}", hand_id, payload)
        else:  # both: the job and the relay race for it
            deployment.send(payload)
            deployment.queue(f"many-table-{number % 3}", hand_id, payload)
        hands.append(hand_id)
    wait_for("every hand to be applied", deployment.settled(*hands), deployment.log)
    wait_for("the outboxes to drain", lambda: deployment.store.outbox_pending() == [],
             deployment.log)
    assert wallet.total_coins() == wallet.grants_total()
    assert wallet.check_balances() == []
    assert all(wallet.held(player) == 0 for player in players)
    incremental = board.nets("zhajinhua")
    board.rebuild("zhajinhua", wallet)
    assert board.nets("zhajinhua") == incremental
    assert sum(incremental.get(p, 0) for p in players) == sum(wallet.balance(p) - 20_000 for p in players)
