"""Wiring the platform together from settings: the composition root of every server command.

``build(settings)`` makes the shared parts once — Redis (real, or the in-process emulation when
``REDIS_URL`` is unset), the ledger (PostgreSQL, or a SQLite file), the table store, tables and
lobby — and ``Platform.bindings(...)`` gives the gRPC services to serve, all of them in one
process or one per process.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis

from paiju.common.auth import TokenSigner
from paiju.common.channels import ServiceTokenSource, authorized_channel
from paiju.common.config import Settings
from paiju.common.server import ServiceBinding
from paiju.lobby.rooms import Lobby
from paiju.table.deadlines import fire_due
from paiju.table.store import TableStore
from paiju.table.tables import Tables, Timers, WalletPort
from paiju.table.wallet_port import DirectWallet, RemoteWallet
from paiju.wallet import Wallet
from paiju.wallet.celery_app import WorkerOptions
from paiju.wallet.leaderboard import Leaderboard
from paiju.wallet.relay import Settler, relay_outbox
from paiju.wallet.service import open_wallet

log = logging.getLogger(__name__)
SERVICES = ("wallet", "lobby", "table")


def redis_client(settings: Settings) -> Any:
    """A bytes-returning client of ``REDIS_URL``, or of an in-process emulation without it."""
    if settings.redis_url:
        return redis.Redis.from_url(settings.redis_url)
    import fakeredis

    return fakeredis.FakeRedis(server=fakeredis.FakeServer())


@dataclass
class Platform:
    settings: Settings
    redis: Any
    store: TableStore
    wallet: Wallet | None
    """The ledger, in the process that serves the wallet; ``None`` where it is reached by gRPC."""
    tables: Tables
    lobby: Lobby
    signer: TokenSigner
    leaderboard: Leaderboard
    _threads: list[threading.Thread] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def bindings(self, services: Sequence[str] = SERVICES) -> list[ServiceBinding]:
        from paiju.lobby.service import LobbyService
        from paiju.proto.v1 import lobby_pb2_grpc, table_pb2_grpc
        from paiju.table.service import TableService
        from paiju.wallet.service import wallet_bindings

        available = {
            "wallet": [] if self.wallet is None else wallet_bindings(self.settings, self.wallet, self.leaderboard),
            "lobby": [ServiceBinding("paiju.v1.Lobby", LobbyService(self.lobby), lobby_pb2_grpc.add_LobbyServicer_to_server)],
            "table": [ServiceBinding("paiju.v1.Table", TableService(self.tables), table_pb2_grpc.add_TableServicer_to_server)],
        }
        unknown = set(services) - set(available)
        if unknown:
            raise ValueError(f"unknown services {sorted(unknown)}; there are {', '.join(SERVICES)}")
        if "wallet" in services and self.wallet is None:
            raise ValueError("this platform was built without the ledger: build it with the wallet service")
        return [binding for name in services for binding in available[name]]

    def _every(self, seconds: float, name: str, work: Callable[[], object]) -> None:
        def loop() -> None:
            while not self._stop.wait(seconds):
                try:
                    work()
                except Exception:
                    log.exception("%s failed; trying again in %.1f s", name, seconds)

        thread = threading.Thread(target=loop, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def start_background(self, relay: bool = True) -> None:
        """Fire due deadlines, and relay settlements, from this process (all-in-one mode).

        The relay does in-process what the Celery worker's beat does in production: it applies
        each pending settlement of the outbox exactly once, then acknowledges it. Running both
        is safe (a settlement is applied once however often it is delivered).
        """
        self._every(0.25, "deadlines", lambda: fire_due(self.tables, int(time.time() * 1000)))
        if relay and self.wallet is not None:
            settler = Settler(self.wallet, self.leaderboard)
            self._every(0.5, "settlement-relay", lambda: relay_outbox(self.store, settler))

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)
        if self.wallet is not None:
            self.wallet.close()


def build(
    settings: Settings,
    rooms_per_tier: int = 10,
    options: WorkerOptions | None = None,
    services: Sequence[str] = SERVICES,
) -> Platform:
    """Everything the ``services`` share, ready to serve; ``options`` default from the environment.

    A process that serves the wallet opens the ledger and the others call it directly; a lobby
    or table process without it reaches the wallet service at ``PAIJU_WALLET_TARGET``.
    """
    options = options or WorkerOptions.from_env()
    client = redis_client(settings)
    signer = TokenSigner(settings.secret)
    wallet = open_wallet(settings) if "wallet" in services else None
    if wallet is not None:
        port: WalletPort = DirectWallet(wallet)
    else:
        tokens = ServiceTokenSource(signer, "table")
        port = RemoteWallet(authorized_channel(settings.wallet_target, tokens))
    store = TableStore(client, prefix=options.redis_prefix)
    timers = Timers(turn_ms=settings.turn_seconds * 1000, ready_kick_ms=settings.ready_kick_seconds * 1000)
    tables = Tables(store, port, timers)
    lobby = Lobby(tables, rooms_per_tier=rooms_per_tier)
    lobby.ensure_rooms()
    leaderboard = Leaderboard(client, options.leaderboard_prefix)
    return Platform(settings, client, store, wallet, tables, lobby, signer, leaderboard)
