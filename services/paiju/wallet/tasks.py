"""The wallet's Celery jobs: apply one hand's settlement, and relay every pending outbox entry.

Both are safe to run twice: :meth:`paiju.wallet.Wallet.settle` applies a hand once and the
leaderboard counts it once. A settlement job is acknowledged only when it ends (``acks_late``),
and a failure of the database or of Redis is retried with a growing, jittered delay; a refusal
(a malformed or unbalanced settlement, a conflicting repeat) is not, and leaves the hand in its
table's outbox, where an operator sees it.

A worker builds what the jobs use (:class:`WorkerResources`) from the environment on the first
job; a process that runs jobs eagerly (the all-in-one server) hands in its own objects with
:func:`use_resources`.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from celery import Task

from paiju.common.config import Settings
from paiju.common.redis_clients import open_redis
from paiju.rpc.failures import BACKEND_OUTAGES
from paiju.table.store import TableStore
from paiju.wallet.celery_app import (
    DEFAULT_HAND_RETENTION_DAYS,
    DEFAULT_HOLD_SWEEP_SECONDS,
    PRUNE_HANDS,
    RELAY_OUTBOX,
    SETTLE_HAND,
    SWEEP_HOLDS,
    WorkerOptions,
    app,
)
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.leaderboard import Leaderboard
from paiju.wallet.relay import SettlementOrder, Settler, relay_outbox
from paiju.wallet.store import Wallet
from paiju.wallet.sweep import sweep_orphan_holds

log = logging.getLogger(__name__)

TRANSIENT_ERRORS: tuple[type[Exception], ...] = BACKEND_OUTAGES
"""Failures of the database or of Redis that a later try may not meet: these are retried."""
MAX_RETRIES = 12
RETRY_BACKOFF_MAX_SECONDS = 120


@dataclass(frozen=True, slots=True)
class WorkerResources:
    """The ledger, the leaderboards and the table outboxes the jobs work on."""

    wallet: Wallet
    leaderboard: Leaderboard | None = None
    outbox: TableStore | None = None
    """``None`` when no outbox is reachable: settlements are applied but acknowledged by
    nobody (the relay acknowledges them when it finds them applied)."""
    hold_sweep_seconds: float = DEFAULT_HOLD_SWEEP_SECONDS
    """How old a hold no table owes is when the sweep releases it."""
    hand_retention_days: int = DEFAULT_HAND_RETENTION_DAYS
    """How long finished hands are kept for their players' history."""
    board: AvailableCoinsBoard | None = None
    """The tables' board of available coins, which :attr:`wallet` tells of its changes."""

    @property
    def settler(self) -> Settler:
        """Applies settlement orders to :attr:`wallet` and :attr:`leaderboard`."""
        return Settler(self.wallet, self.leaderboard, self.board)

    @classmethod
    def from_env(cls) -> WorkerResources:
        """Open the ledger of ``DATABASE_URL`` (at this release's schema: ``PAIJU_MIGRATE``) and,
        when ``REDIS_URL`` is set, the leaderboards and table store on that Redis."""
        settings = Settings.from_env()
        options = WorkerOptions.from_env()
        wallet = Wallet(settings.database_url, starting_grant=settings.starting_grant)
        wallet.prepare_schema(settings.migrate, settings.schema_wait_seconds)
        if settings.redis_url is None:
            return cls(wallet, hand_retention_days=options.hand_retention_days)
        client = open_redis(settings.redis_url, cluster=settings.redis_cluster)
        board = AvailableCoinsBoard(client, options.redis_prefix)
        wallet.on_available = board.publish
        return cls(
            wallet,
            Leaderboard(client, options.leaderboard_prefix),
            TableStore(client, options.redis_prefix),
            options.hold_sweep_seconds,
            options.hand_retention_days,
            board,
        )


_lock = threading.Lock()
_resources: WorkerResources | None = None


def use_resources(resources: WorkerResources | None) -> None:
    """Make the jobs of this process use ``resources`` (``None``: build them from the
    environment on the next job)."""
    global _resources
    with _lock:
        _resources = resources


def resources() -> WorkerResources:
    """What the jobs of this process use, built from the environment the first time."""
    global _resources
    with _lock:
        if _resources is None:
            _resources = WorkerResources.from_env()
        return _resources


@app.task(
    bind=True,
    name=SETTLE_HAND,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=1,
    retry_backoff_max=RETRY_BACKOFF_MAX_SECONDS,
    retry_jitter=True,
    max_retries=MAX_RETRIES,
)
def settle_hand(self: Task, payload_json: str) -> dict[str, Any]:
    """Apply the settlement ``payload_json`` (an outbox payload) and acknowledge its outbox
    entry; a repeat changes nothing. Returns the hand id and whether it was a repeat."""
    order = SettlementOrder.from_json(payload_json)
    working = resources()
    settlement = working.settler(order)
    if working.outbox is not None:
        working.outbox.outbox_ack(order.table_id, order.outbox_key)
    log.info("hand %s settled%s", order.hand_id, " (repeat)" if settlement.replayed else "")
    return {"hand_id": order.hand_id, "replayed": settlement.replayed}


@app.task(name=RELAY_OUTBOX, ignore_result=True)
def relay_outbox_task(limit: int = 100) -> dict[str, int]:
    """Apply and acknowledge up to ``limit`` pending settlements of every table (the beat
    runs it every few seconds); what it did."""
    working = resources()
    if working.outbox is None:
        return {"applied": 0, "replayed": 0, "refused": 0}
    settler = working.settler
    report = relay_outbox(working.outbox, settler, limit, record_scores=settler.record_scores, release=settler.release)
    if report.applied or report.replayed or report.refused or report.released:
        log.info(
            "relay: %d applied, %d repeats, %d released, %d refused",
            report.applied,
            report.replayed,
            report.released,
            len(report.refused),
        )
    return {"applied": report.applied, "replayed": report.replayed, "refused": len(report.refused)}


@app.task(name=SWEEP_HOLDS, ignore_result=True)
def sweep_holds_task() -> dict[str, int]:
    """Release the holds no table owes (a start that crashed after its holds, a table that is
    gone) once they are older than the bound (the beat runs it); how many hands it released."""
    working = resources()
    if working.outbox is None:
        return {"released": 0, "kept": 0}
    report = sweep_orphan_holds(working.wallet, working.outbox, timedelta(seconds=working.hold_sweep_seconds))
    return {"released": len(report.released), "kept": report.kept}


@app.task(name=PRUNE_HANDS, ignore_result=True)
def prune_hand_records_task() -> dict[str, int]:
    """Forget the finished hands older than the retention period (the beat runs it hourly)."""
    working = resources()
    pruned = working.wallet.prune_hand_records(timedelta(days=working.hand_retention_days))
    if pruned:
        log.info("hand history: forgot %d hand(s) older than %d days", pruned, working.hand_retention_days)
    return {"pruned": pruned}
