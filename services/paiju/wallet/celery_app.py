"""The wallet's Celery app: settlement jobs on a Redis broker, and the beat that relays outboxes
and sweeps holds no table owes.

Run a worker, with the beat embedded (``-B``: run exactly one beat per deployment, with ``-B``
on one worker or as its own ``celery … beat`` process)::

    REDIS_URL=redis://127.0.0.1:6379/0 DATABASE_URL=postgresql://postgres@127.0.0.1/paiju \\
        celery -A paiju.wallet.celery_app worker -B --loglevel=info

The worker reads the settings of :mod:`paiju.common.config` (``REDIS_URL`` is the broker and
the table store, ``DATABASE_URL`` the ledger) and three of its own (the all-in-one server
reads the prefix and the sweep's bound too):

==============================  ==========  ======================================================
variable                        default     meaning
==============================  ==========  ======================================================
``PAIJU_REDIS_PREFIX``          ``paiju``   key prefix of the table store (the outbox), the
                                            leaderboards (``<prefix>:leaderboard``) and the
                                            broker's keys (``<prefix>:celery:``); the queue is
                                            ``<prefix>:wallet``
``PAIJU_RELAY_SECONDS``         ``5``       how often the beat relays pending settlements
``PAIJU_HOLD_SWEEP_SECONDS``    ``60``      a hold no table owes (its hand never started, or its
                                            table is gone) is released once it is this old; the
                                            beat sweeps for such holds this often
==============================  ==========  ======================================================

Without ``REDIS_URL`` (one machine, embedded defaults) tasks run eagerly in the calling process:
``settle_hand.delay(payload)`` applies the settlement before it returns, and the all-in-one
server relays its outbox and sweeps holds on threads of its own instead of a beat.

>>> embedded = make_celery(Settings.from_env({}), WorkerOptions.from_env({}))
>>> embedded.conf.task_always_eager, embedded.conf.task_default_queue
(True, 'paiju:wallet')
>>> WorkerOptions.from_env({"PAIJU_RELAY_SECONDS": "0"})
Traceback (most recent call last):
...
paiju.common.config.ConfigError: PAIJU_RELAY_SECONDS must be a number of seconds above zero, not '0'
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from celery import Celery
from celery.signals import worker_init

from paiju.common.config import ConfigError, Settings
from paiju.common.metrics import MetricsServerError, start_metrics_server

SETTLE_HAND = "paiju.wallet.settle_hand"
RELAY_OUTBOX = "paiju.wallet.relay_outbox"
SWEEP_HOLDS = "paiju.wallet.sweep_holds"
PRUNE_HANDS = "paiju.wallet.prune_hand_records"
DEFAULT_HAND_RETENTION_DAYS = 30
PRUNE_HANDS_SECONDS = 3600.0
DEFAULT_PREFIX = "paiju"
DEFAULT_RELAY_SECONDS = 5.0
DEFAULT_HOLD_SWEEP_SECONDS = 60.0
VISIBILITY_TIMEOUT_SECONDS = 600
"""An unacknowledged job (its worker died) is handed to another worker after this long."""

_PREFIX = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass(frozen=True, slots=True)
class WorkerOptions:
    """The worker's settings beyond :class:`~paiju.common.config.Settings`."""

    redis_prefix: str = DEFAULT_PREFIX
    relay_seconds: float = DEFAULT_RELAY_SECONDS
    hold_sweep_seconds: float = DEFAULT_HOLD_SWEEP_SECONDS
    hand_retention_days: int = DEFAULT_HAND_RETENTION_DAYS
    """How long finished hands are kept for their players' history (``PAIJU_HAND_RETENTION_DAYS``)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WorkerOptions:
        """Read ``PAIJU_REDIS_PREFIX``, ``PAIJU_RELAY_SECONDS`` and ``PAIJU_HOLD_SWEEP_SECONDS``;
        ``ConfigError`` names a bad one."""
        env = os.environ if environ is None else environ
        prefix = env.get("PAIJU_REDIS_PREFIX", "").strip() or DEFAULT_PREFIX
        if not _PREFIX.fullmatch(prefix):
            raise ConfigError(
                f"PAIJU_REDIS_PREFIX must be 1 to 64 letters, digits or _.-, not {prefix!r}"
            )
        relay = _seconds(env, "PAIJU_RELAY_SECONDS", DEFAULT_RELAY_SECONDS)
        raw_days = env.get("PAIJU_HAND_RETENTION_DAYS", "").strip()
        if raw_days and not (raw_days.isdigit() and 1 <= int(raw_days) <= 3650):
            raise ConfigError(f"PAIJU_HAND_RETENTION_DAYS must be a whole number of days, 1 to 3650, not {raw_days!r}")
        return cls(prefix, relay, _seconds(env, "PAIJU_HOLD_SWEEP_SECONDS", DEFAULT_HOLD_SWEEP_SECONDS),
                   int(raw_days) if raw_days else DEFAULT_HAND_RETENTION_DAYS)

    @property
    def queue(self) -> str:
        """The broker queue of the wallet's jobs."""
        return f"{self.redis_prefix}:wallet"

    @property
    def leaderboard_prefix(self) -> str:
        """The key prefix of the leaderboards."""
        return f"{self.redis_prefix}:leaderboard"


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    try:
        seconds = float(raw) if raw else default
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < 86_400:
        raise ConfigError(f"{name} must be a number of seconds above zero, not {raw!r}")
    return seconds


def celery_config(settings: Settings, options: WorkerOptions) -> dict[str, Any]:
    """The Celery configuration for ``settings``: a Redis broker, or eager jobs without one."""
    config: dict[str, Any] = {
        "task_default_queue": options.queue,
        "task_ignore_result": True,
        # A job is acknowledged when it ends, so a worker that dies halfway leaves it to another;
        # applying a settlement twice is harmless.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "worker_hijack_root_logger": False,
        "broker_connection_retry_on_startup": True,
        "beat_schedule": {
            "relay-settlement-outbox": {
                "task": RELAY_OUTBOX,
                "schedule": options.relay_seconds,
                # A pass queued while no worker ran is useless once the next one is due.
                "options": {"expires": options.relay_seconds},
            },
            "sweep-orphan-holds": {
                "task": SWEEP_HOLDS,
                "schedule": options.hold_sweep_seconds,
                "options": {"expires": options.hold_sweep_seconds},
            },
            "prune-hand-records": {
                "task": PRUNE_HANDS,
                "schedule": PRUNE_HANDS_SECONDS,
                "options": {"expires": PRUNE_HANDS_SECONDS},
            },
        },
    }
    if settings.broker_url is None:
        config |= {
            "broker_url": "memory://",
            "task_always_eager": True,
            # Propagating would stop eager retries after the first; a failure is logged and
            # the hand stays in its outbox for the relay.
            "task_eager_propagates": False,
        }
    else:
        config |= {
            "broker_url": settings.broker_url,
            "broker_transport_options": {
                "global_keyprefix": f"{options.redis_prefix}:celery:",
                "visibility_timeout": VISIBILITY_TIMEOUT_SECONDS,
            },
        }
    return config


def make_celery(settings: Settings | None = None, options: WorkerOptions | None = None) -> Celery:
    """A Celery app configured from ``settings`` and ``options`` (the environment by default)."""
    settings = settings if settings is not None else Settings.from_env()
    options = options if options is not None else WorkerOptions.from_env()
    celery = Celery("paiju.wallet", include=["paiju.wallet.tasks"])
    celery.conf.update(celery_config(settings, options))
    return celery


options = WorkerOptions.from_env()
app = make_celery(Settings.from_env(), options)
"""The app ``celery -A paiju.wallet.celery_app`` runs, configured from the environment."""


@worker_init.connect
def _serve_worker_metrics(**_: object) -> None:
    """A worker serves its metrics (settlement lag, ledger entries, outbox depth) on
    ``PAIJU_METRICS_PORT`` like every other process; a busy port is logged, not fatal."""
    settings = Settings.from_env()
    try:
        start_metrics_server(settings.metrics_port, settings.bind_host)
    except MetricsServerError as error:
        logging.getLogger(__name__).warning("worker metrics not served: %s", error)


@worker_init.connect
def _relay_as_hands_end(**_: object) -> None:
    """A worker relays a hand's settlement as the hand ends, told by the table store's
    ``outbox`` notice (a relay task, sent at once), not only at the beat's next pass: a table
    whose players all pressed start waits for that settlement. The beat stays the safety net
    for a notice lost while this worker was away."""
    settings = Settings.from_env()
    if settings.redis_url is None:
        return  # embedded: the server relays in its own process
    from paiju.common.redis_clients import open_redis
    from paiju.table.notices import GATHER_SECONDS, Coalesced, NoticeListener
    from paiju.table.store import TableStore

    client = open_redis(settings.redis_url, cluster=settings.redis_cluster)
    store = TableStore(client, options.redis_prefix)
    asked = f"{options.redis_prefix}:relay-asked"

    def ask_for_a_pass() -> None:
        # Every worker hears the notice; the first to take this short-lived key sends the one
        # task any worker then runs, so N workers do not make N passes for one hand.
        if client.set(asked, b"1", nx=True, px=max(1, int(GATHER_SECONDS * 1000))):
            app.send_task(RELAY_OUTBOX, expires=options.relay_seconds)

    relay = Coalesced(ask_for_a_pass, "relay-as-hands-end")
    NoticeListener(store, store.outbox_channel, lambda _table_id: relay.wake(), "outbox-notices").start()

