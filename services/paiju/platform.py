"""Wiring the platform together from settings: the composition root of every server command.

``build(settings, services=...)`` makes the parts those services share once — Redis (real, or
the in-process emulation when ``REDIS_URL`` is unset), the ledger where the wallet is served
(PostgreSQL, or a SQLite file), the table store, tables, lobby and presence board — and
``Platform.bindings()`` gives their gRPC services (the wallet's process also serves the
operator's ``AdminService``, and refuses a suspended account's login). A process without the wallet reaches it at
``PAIJU_WALLET_TARGET``; a watchdog without the table service reaches it at
``PAIJU_TABLE_TARGET``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from paiju.admin.suspensions import Suspensions
from paiju.common.auth import TokenSigner
from paiju.common.config import Settings
from paiju.common.metrics import METRICS
from paiju.common.redis_clients import open_redis
from paiju.games import registry
from paiju.games.engine import IllegalAction
from paiju.games.levels import Levels
from paiju.lobby.rooms import Lobby
from paiju.rpc.channels import ServiceTokenSource, authorized_channel
from paiju.rpc.server import ServiceBinding, settings_session_stamps
from paiju.rpc.sessions import stamp_lifetime_seconds
from paiju.table.deadline_names import Timers
from paiju.table.fanout import StreamHub
from paiju.table.notices import GATHER_SECONDS, HandStarter, NoticedTables, NoticeListener
from paiju.table.ports import WalletPort
from paiju.table.store import TableStore, parse_settled_notice
from paiju.table.tables import Tables
from paiju.wallet import Wallet
from paiju.wallet.celery_app import DEFAULT_HOLD_SWEEP_SECONDS, WorkerOptions
from paiju.wallet.coins_board import AvailableCoinsBoard
from paiju.wallet.leaderboard import Leaderboard
from paiju.wallet.relay import Settler, relay_outbox
from paiju.wallet.service import open_wallet
from paiju.wallet.sweep import sweep_orphan_holds
from paiju.wallet.table_port import DirectWallet, RemoteWallet
from paiju.watchdog.owners import LocalTables, RemoteTables
from paiju.watchdog.presence import PresenceBoard, StreamPresence
from paiju.watchdog.replica import Replica

log = logging.getLogger(__name__)
SERVICES = ("wallet", "lobby", "table", "watchdog")
SESSION_STAMPS_RESTORED_EVERY_SECONDS = 60.0
"""How often the process holding the ledger gives Redis back the session stamps it lost: how
long a Redis that lost its data lets sessions a password change ended back in, at most."""
RELAY_SWEEP_SECONDS = 0.5
"""How often the relay reads every table's pending entries (the outbox index) whatever notices
it hears: a pass woken by notices reads only the tables they name."""


def redis_client(settings: Settings) -> Any:
    """A bytes-returning client of ``REDIS_URL``, or of an in-process emulation without it."""
    if settings.redis_url:
        return open_redis(settings.redis_url, cluster=settings.redis_cluster,
                          max_connections=settings.grpc_workers + 64)
    try:
        import fakeredis
    except ImportError as missing:  # the production image leaves the emulation out
        raise SystemExit(
            "no REDIS_URL is set, and the in-process Redis emulation is not installed: set "
            "REDIS_URL (and DATABASE_URL) to run as deployed, or install paiju[embedded]"
        ) from missing
    return fakeredis.FakeRedis(server=fakeredis.FakeServer())


def game_levels() -> dict[str, Levels]:
    """The ladder of levels of each registered game that keeps them, by name, as its registry
    entry reads them by the game's own rules: the wallet serves them knowing no game.

    >>> levels = game_levels()
    >>> levels["zhajinhua"].read(1_700_000), levels["chaodipi"].read(800).title
    (Level(level=15, title='副总裁', next_at=3276800), '财富勋章 3')
    """
    return {name: spec.levels for name in registry.game_names() if (spec := registry.game_spec(name)).levels}


@dataclass
class Platform:
    settings: Settings
    services: tuple[str, ...]
    redis: Any
    store: TableStore
    wallet: Wallet | None
    """The ledger, in the process that serves the wallet; ``None`` where it is reached by gRPC."""
    tables: Tables
    lobby: Lobby
    signer: TokenSigner
    leaderboard: Leaderboard
    presence: PresenceBoard
    watchdog: Replica | None = None
    hold_sweep_seconds: float = DEFAULT_HOLD_SWEEP_SECONDS
    """How old a hold no table owes is when the sweep releases it (and how often it sweeps)."""
    coins_board: AvailableCoinsBoard | None = None
    """The tables' board of available coins, which the ledger keeps (where it is in this process)."""
    draining: threading.Event = field(default_factory=threading.Event)
    hub: StreamHub = field(init=False)

    def __post_init__(self) -> None:
        self.hub = StreamHub(self.store, StreamPresence(self.presence, self.tables.reconnect).beat, self.tables.clock_ms)
    _threads: list[threading.Thread] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def bindings(self, services: Sequence[str] | None = None) -> list[ServiceBinding]:
        from paiju.lobby.service import LobbyService
        from paiju.proto.v1 import lobby_pb2_grpc, table_pb2_grpc, watchdog_pb2_grpc
        from paiju.table.service import TableInternalService, TableService
        from paiju.wallet.service import wallet_bindings
        from paiju.watchdog.service import WatchdogService

        services = self.services if services is None else tuple(services)
        unknown = set(services) - set(SERVICES)
        if unknown:
            raise ValueError(f"unknown services {sorted(unknown)}; there are {', '.join(SERVICES)}")
        if "wallet" in services and self.wallet is None:
            raise ValueError("this platform was built without the ledger: build it with the wallet service")
        made: dict[str, Callable[[], list[ServiceBinding]]] = {
            "wallet": lambda: self._wallet_and_admin(wallet_bindings(self.settings, self.wallet, self.leaderboard,  # type: ignore[arg-type]
                                                                     levels=game_levels())),
            "lobby": lambda: [
                ServiceBinding("paiju.v1.LobbyService", LobbyService(self.lobby, self.hub), lobby_pb2_grpc.add_LobbyServiceServicer_to_server,
                               LobbyService.NON_BLOCKING, LobbyService.LOOP_FIRST)
            ],
            "table": lambda: [
                ServiceBinding("paiju.v1.TableService",
                               TableService(self.tables, self.presence, self.draining, self.hub,
                                            ready=LobbyService(self.lobby, self.hub).Ready),
                               table_pb2_grpc.add_TableServiceServicer_to_server, TableService.NON_BLOCKING),
                ServiceBinding("paiju.v1.TableInternalService", TableInternalService(self.tables),
                               table_pb2_grpc.add_TableInternalServiceServicer_to_server, TableInternalService.NON_BLOCKING),
            ],
            "watchdog": lambda: [
                ServiceBinding("paiju.v1.WatchdogService", WatchdogService(self.tables, self.presence),
                               watchdog_pb2_grpc.add_WatchdogServiceServicer_to_server)
            ],
        }
        return [binding for name in services for binding in made[name]()]

    def _wallet_and_admin(self, wallet: list[ServiceBinding]) -> list[ServiceBinding]:
        """The wallet's services with a suspended account's logins refused, and the operator's
        service beside them (it needs the ledger, which only this process holds)."""
        from paiju.admin.login_gate import gate_logins
        from paiju.admin.operations import Operations
        from paiju.admin.service import admin_binding

        assert self.wallet is not None
        suspensions = self.suspensions()
        table_here = "table" in self.services
        operations = Operations(self.wallet, self.store, suspensions, Settler(self.wallet, self.leaderboard, self.coins_board),
                                self.tables.directory.table_of,
                                settled=self._start_after_settlement if table_here else lambda _table: None,
                                end_table=self.tables.end_table)
        return [*gate_logins(wallet, suspensions), admin_binding(operations)]

    def suspensions(self) -> Suspensions:
        """The accounts operators suspended, in the ledger (this process holds it) and the tables' copy."""
        assert self.wallet is not None
        return Suspensions(self.wallet.database, self.tables.suspended)

    def _every(self, seconds: float, name: str, work: Callable[[], object]) -> None:
        def loop() -> None:
            while not self._stop.wait(seconds):
                try:
                    work()
                except Exception:  # a background duty must outlive one failure
                    log.exception("%s failed; trying again in %.1f s", name, seconds)

        thread = threading.Thread(target=loop, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def start_background(self, relay: bool = True) -> None:
        """This process's background duties: a watchdog replica if it serves the watchdog, and
        the settlement relay if it serves the wallet (unless ``relay`` is off).

        The relay does in-process what the Celery worker's beat does in production: it applies
        each pending settlement of the outbox exactly once, then acknowledges it. Running both
        is safe (a settlement is applied once however often it is delivered). So does the sweep
        of holds no table owes, beside it.
        """
        if "watchdog" in self.services:
            if "table" in self.services:
                owner: Any = LocalTables(self.tables)
            else:
                tokens = ServiceTokenSource(self.signer, "watchdog")
                owner = RemoteTables(authorized_channel(self.settings.table_target, tokens),
                                     timeout=self.settings.call_timeout_seconds)
            self.watchdog = Replica(self.store, self.presence, owner, lease_ms=self.settings.watchdog_lease_ms).start()
        if self.wallet is not None:
            self._restore_session_stamps()  # a Redis that came back empty: at once
            self._every(SESSION_STAMPS_RESTORED_EVERY_SECONDS, "session-stamps", self._restore_session_stamps)
        relays_here = relay and self.wallet is not None
        if "table" in self.services and not relays_here:
            self._start_hands_after_settlements()
        if relays_here:
            self._start_relay()
            age = timedelta(seconds=self.hold_sweep_seconds)
            self._every(self.hold_sweep_seconds, "hold-sweep",
                        lambda: sweep_orphan_holds(self.wallet, self.store, age))  # type: ignore[arg-type]
        if "table" in self.services:
            self._every(5.0, "table-gauges", self.sample_gauges)

    def _restore_session_stamps(self) -> None:
        """Give Redis back the session stamps (password changes) it lost; from the ledger."""
        assert self.wallet is not None
        lifetime = stamp_lifetime_seconds(self.settings.session_ttl_seconds)
        now_ms = int(time.time() * 1000)
        try:
            stamps = self.wallet.session_stamps_after(now_ms - lifetime * 1000)
            settings_session_stamps(self.settings).restore(stamps, lifetime, now_ms)
        except Exception:  # a background duty: the next pass tries again
            log.exception("giving back the session stamps failed; trying again in %.0f s",
                          SESSION_STAMPS_RESTORED_EVERY_SECONDS)

    def _start_relay(self) -> None:
        """Settle each hand as soon as it is queued (and every half second as a safety net),
        then start the table's next hand if everyone is ready."""
        settler = Settler(self.wallet, self.leaderboard, self.coins_board)  # type: ignore[arg-type]
        noticed = NoticedTables(sweep_seconds=RELAY_SWEEP_SECONDS, clock=time.monotonic)
        # Every commit that queues a settlement, this process's or another's, tells the store.
        listener = NoticeListener(self.store, self.store.outbox_channel, noticed.heard, "outbox-notices",
                                  self._stop).start()
        self._closers.append(listener.stop)

        def loop() -> None:
            while not self._stop.is_set():
                if noticed.woken.wait(RELAY_SWEEP_SECONDS):
                    self._stop.wait(GATHER_SECONDS)  # the hands ending meanwhile: the same pass
                noticed.woken.clear()
                try:
                    report = relay_outbox(self.store, settler, record_scores=settler.record_scores,
                                          release=settler.release, table_ids=noticed.take())
                except Exception:  # a background duty must outlive one failure
                    log.exception("settlement relay failed; trying again")
                    self._stop.wait(1.0)
                    continue
                if "table" in self.services:
                    for table_id in report.settled_tables:
                        self._start_after_settlement(table_id)

        thread = threading.Thread(target=loop, name="settlement-relay", daemon=True)
        thread.start()
        self._threads.append(thread)

    def _start_hands_after_settlements(self) -> None:
        """Where the relay runs elsewhere (the ledger's process, the Celery worker), start a
        table's next hand as soon as its settlement is acknowledged, if this process plays the
        table (it remembers its state, with everyone ready) and is the first of the servers that
        heard the notice to claim its start; other tables, and a lost notice, wait for their start
        timer."""
        starter = HandStarter(self._start_after_settlement)

        def heard(notice: str) -> None:
            table_id, key = parse_settled_notice(notice)
            # The start, or the last press, then knows the settlement landed without a read.
            self.store.note_acknowledged(table_id, key)
            # Most settlements land before the last player presses start: nothing to claim, and
            # no start to try and then confirm by a read (two round trips a hand).
            if self.tables.remembered_ready_to_start(table_id) and self.store.claim_start(table_id):
                starter.start_soon(table_id)

        listener = NoticeListener(self.store, self.store.settled_channel, heard, "settled-notices", self._stop).start()
        self._closers += [listener.stop, starter.close]

    def _start_after_settlement(self, table_id: str) -> None:
        """Start the table's next hand if everyone is ready; one table's failure to start (a
        player short of coins) is logged and holds up none of the others (its start timer
        tries again)."""
        try:
            self.tables.start_if_ready(table_id)
        except IllegalAction as refused:
            log.warning("table %s did not start its next hand: %s", table_id, refused.reason)
        except Exception:
            log.exception("starting table %s after its settlement failed", table_id)

    def readiness(self) -> dict[str, bool]:
        """Whether each served service can reach what it needs: Redis, and the ledger's SQL."""
        try:
            redis_up = bool(self.redis.ping())
        except Exception:  # noqa: BLE001 - any failure to answer means not ready
            redis_up = False
        sql_up = True
        if self.wallet is not None:
            try:
                with self.wallet.database.read() as connection:
                    connection.exec_driver_sql("SELECT 1")
            except Exception:  # noqa: BLE001 - any failure to answer means not ready
                sql_up = False
        needs = {"wallet": redis_up and sql_up, "lobby": redis_up, "table": redis_up, "watchdog": redis_up}
        return {service: needs[service] for service in self.services}

    def drain(self) -> None:
        """Before a shutdown: end the open Watch streams with a hint to reconnect elsewhere."""
        self.draining.set()
        self.hub.interrupt()

    def sample_gauges(self) -> None:
        """Live tables, hands and connected players per game, for the tables this process
        streams (each replica reports its own; Prometheus sums them). Reads those tables in one
        pipeline, not every room of every tier."""
        watched = self.hub.watched()
        counts: dict[str, list[int]] = {}
        for table_id, snapshot in self.store.load_many(sorted(watched)).items():
            record = self.tables.records.decode(table_id, snapshot.state)
            tables, hands, players = counts.setdefault(record.game, [0, 0, 0])
            counts[record.game] = [tables + 1, hands + (record.hand is not None), players + len(watched[table_id])]
        for game in self.lobby.games:
            tables, hands, players = counts.get(game, (0, 0, 0))
            METRICS.set_table_counts(game, tables=tables, hands=hands, players=players)

    def close(self) -> None:
        self._stop.set()
        self.hub.stop()
        if self.watchdog is not None:
            self.watchdog.stop()
        for thread in self._threads:
            thread.join(timeout=5)
        for close in self._closers:
            close()
        if self.wallet is not None:
            self.wallet.close()


def build(
    settings: Settings,
    rooms_per_tier: int = 10,
    options: WorkerOptions | None = None,
    services: Sequence[str] = SERVICES,
) -> Platform:
    """Everything the ``services`` share, ready to serve; ``options`` default from the environment."""
    options = options or WorkerOptions.from_env()
    client = redis_client(settings)
    signer = TokenSigner(settings.secret, previous=settings.previous_secrets)
    wallet = open_wallet(settings) if "wallet" in services else None
    if wallet is not None:
        port: WalletPort = DirectWallet(wallet)
    else:
        port = RemoteWallet(authorized_channel(settings.wallet_target, ServiceTokenSource(signer, "table")),
                            timeout=settings.call_timeout_seconds)
    store = TableStore(client, prefix=options.redis_prefix)
    board = AvailableCoinsBoard(client, options.redis_prefix)
    if wallet is not None:
        wallet.on_available = board.publish
    timers = Timers(
        turn_ms=settings.turn_seconds * 1000,
        ready_kick_ms=settings.ready_kick_seconds * 1000,
        reconnect_ms=settings.reconnect_seconds * 1000,
    )
    tables = Tables(store, port, timers, coins_board=board)
    lobby = Lobby(tables, rooms_per_tier=rooms_per_tier)
    if "lobby" in services or "table" in services:
        lobby.ensure_rooms()
    leaderboard = Leaderboard(client, options.leaderboard_prefix)
    presence = PresenceBoard(client, options.redis_prefix)
    platform = Platform(settings, tuple(services), client, store, wallet, tables, lobby, signer, leaderboard, presence,
                        hold_sweep_seconds=options.hold_sweep_seconds,
                        coins_board=board if wallet is not None else None)
    if wallet is not None:
        platform.suspensions().publish()  # the tables' copy, as the ledger has it (Redis may have lost it)
    return platform
