"""``paiju serve``: the services over gRPC, all in one process or one per process, and bot tables.

All in one (the default) runs wallet, lobby and table on one port and, in background threads,
the deadline pump and the settlement relay; its web port (``PAIJU_WEB_PORT``) serves the web
client and gRPC-Web for browsers (:mod:`paiju.gateway`). ``--bots N`` seats N tables of bots in
each game (:data:`paiju.house_bots.BOT_TABLES`) that play through the public API, and prints one live line: hands
per game, actions/s, the 炸金花 leaderboard top.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Sequence

from paiju.client.play import BotStats
from paiju.client.sdk import PaijuClient
from paiju.common.collector import settle_after_start_up
from paiju.common.config import Settings
from paiju.common.metrics import MetricsServerError, start_metrics_server
from paiju.common.server import start_from_settings
from paiju.gateway.door import DoorStartError, WebDoor, start_web_door
from paiju.house_bots import BOT_TABLES, SignIn, login_sign_in, rooms_for_bots, start_bots
from paiju.platform import SERVICES, Platform, build
from paiju.wallet.errors import DuplicateUsername

log = logging.getLogger(__name__)


def serve(settings: Settings, services: Sequence[str] = SERVICES, bot_tables: int = 0, rooms_per_tier: int = 10,
          relay: bool = True, out=print, processes: int = 1, share_port: bool = False) -> int:  # type: ignore[no-untyped-def]
    """Serve until SIGTERM or SIGINT, then the exit status; with ``processes`` > 1, from that
    many processes sharing the port (see :mod:`paiju.server_processes`)."""
    if processes > 1:
        from paiju.server_processes import serve_processes

        return serve_processes(settings, services, processes, bot_tables=bot_tables,
                               rooms_per_tier=rooms_per_tier, relay=relay, out=out)
    # Before anything serves: a signal that arrives while the server is still starting up (its
    # health already SERVING, the web door still opening) must shut it down cleanly, not kill it.
    shutdown = shutdown_on_signals()
    platform = build(settings, rooms_per_tier=max(rooms_per_tier, rooms_for_bots(bot_tables)), services=services)
    port = service_port(settings, services)
    server = start_from_settings(settings, platform.bindings(services), port=port, share_port=share_port)
    platform.start_background(relay=relay)
    settle_after_start_up()
    try:
        metrics = start_metrics_server(settings.metrics_port, settings.bind_host)
    except MetricsServerError as error:
        metrics = None
        out(f"metrics: {error} (set PAIJU_METRICS_PORT, or 0 for none); serving without them")
    redis_where = settings.redis_url or "in-process Redis emulation"
    ledger = settings.database_url if platform.wallet is not None else f"wallet service at {settings.wallet_target}"
    out(f"paiju {'+'.join(services)} listening on {server.address} (live state: {redis_where}; ledger: {ledger})")
    if metrics is not None:
        out(f"metrics: {metrics.url}")
    hint = connect_hint(services, server.address)
    if hint is not None:
        out(hint)
    door = None
    if set(services) == set(SERVICES):
        door = open_web_door(settings, f"{dial_host(server.host)}:{server.port}", share_port, out)
    elif list(services) == ["lobby"]:
        # Deployed apart, the lobby's pods serve the page: the door in front routes to them what
        # is not a gRPC call, so the client is served at the door's own origin.
        door = open_web_door(settings, f"{dial_host(server.host)}:{server.port}", share_port, out, relay=False)
    stop = threading.Event()
    stats = start_bots(server.address, bot_tables, stop, house_sign_in(platform, server.address)) if bot_tables else {}
    live = LiveLine(platform, stats, out)
    ready = None
    try:
        while not shutdown.wait(1.0):
            now_ready = platform.readiness()
            if now_ready != ready:
                for name, up in now_ready.items():
                    server.set_serving(name, up)
                if ready is not None:
                    out(f"\nreadiness: {now_ready}")
                ready = now_ready
            live.show()
    finally:
        # SIGTERM: stop taking calls, end the streams with a hint to reconnect elsewhere, let
        # the actions in flight finish (each is one atomic commit, so none is half done).
        out("\nshutting down: draining streams, finishing calls in flight")
        stop.set()
        platform.drain()
        server.stop(grace=settings.shutdown_grace_seconds)
        if door is not None:
            door.stop()
        platform.close()
        if metrics is not None:
            metrics.stop()
    return 0


PLAYER_SERVICES = ("wallet", "lobby", "table")
"""What a player's client calls: only a port serving all of them is one to connect to."""


def connect_hint(services: Sequence[str], address: str) -> str | None:
    """How a player connects, for a port where a client can log in, sit and play; None for a
    port serving only some of that (one service alone, behind a gateway)."""
    if not set(PLAYER_SERVICES) <= set(services):
        return None
    return (f"connect: PaijuClient.connect('{address}', 'name', 'password', register=True) "
            f"or any gRPC client (reflection is on: grpcurl -plaintext {address} list)")


def open_web_door(settings: Settings, grpc_target: str, share_port: bool, out,  # type: ignore[no-untyped-def]
                  relay: bool = True) -> WebDoor | None:
    """The web port relaying to the all-in-one gRPC server at ``grpc_target`` (without
    ``relay``: the web client's files alone), or ``None`` (said) when it cannot listen."""
    try:
        door = start_web_door(grpc_target, settings.bind_host, settings.web_port, share_port=share_port,
                              relay=relay)
    except DoorStartError as error:
        out(f"web: {error} (set PAIJU_WEB_PORT, or 0 for a free port); serving without the web client")
        return None
    if relay:
        out(f"open http://{dial_host(door.host)}:{door.port} and play")
    else:
        out(f"web: the web client's files on port {door.port}, for the door in front (it speaks gRPC-Web)")
    return door


def dial_host(bind_host: str) -> str:
    """Where a local client reaches a server bound to ``bind_host``: loopback for "every address".

    >>> dial_host("0.0.0.0"), dial_host("::"), dial_host("10.0.0.7")
    ('127.0.0.1', '[::1]', '10.0.0.7')
    """
    if bind_host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if bind_host == "::":
        return "[::1]"
    return f"[{bind_host}]" if ":" in bind_host else bind_host


def service_port(settings: Settings, services: Sequence[str]) -> int:
    """The port ``services`` listen on: the all-in-one port, or the one service's own."""
    return settings.port if set(services) == set(SERVICES) else {
        "wallet": settings.wallet_port, "lobby": settings.lobby_port, "table": settings.table_port,
        "watchdog": settings.watchdog_port,
    }[services[0]]


def shutdown_on_signals() -> threading.Event:
    """An event set by SIGTERM or SIGINT (this must run in the main thread)."""
    shutdown = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: shutdown.set())
    return shutdown


class LiveLine:
    """The bots' one live line, redrawn each second: hands, actions/s, the 炸金花 top three."""

    def __init__(self, platform, stats: dict[str, list[BotStats]], out) -> None:  # type: ignore[no-untyped-def]
        self.platform, self.stats, self.out = platform, stats, out
        self.started, self.last_actions = time.monotonic(), 0

    def show(self) -> None:
        if not self.stats:
            return
        actions = sum(s.actions for game_stats in self.stats.values() for s in game_stats)
        line = _live_line(self.platform, self.stats, actions - self.last_actions, time.monotonic() - self.started)
        self.last_actions = actions
        if self.out is print:
            print(line, end="", flush=True)
        else:
            self.out(line)


def _live_line(platform, stats, actions_per_second, elapsed) -> str:  # type: ignore[no-untyped-def]
    per_table = {game: count for game, _, count, _ in BOT_TABLES}
    hands = " · ".join(
        f"{game} {sum(s.hands for s in game_stats) // per_table[game]:,} hands" for game, game_stats in stats.items()
    )
    platform.leaderboard.ensure("zhajinhua", platform.wallet)
    leaders = ", ".join(
        f"{platform.wallet.username(account)} {net:+,}" for account, net in platform.leaderboard.top("zhajinhua", 3)
    ) or "-"
    return f"\r{hands} · {actions_per_second:,} actions/s · {elapsed:,.0f} s · 炸金花 top: {leaders}".ljust(110)


def house_sign_in(platform: Platform, address: str) -> SignIn:
    """The house's bots sign in without the login door when the wallet is in this process: the
    account is made here and the session issued here. They come from the same address as a
    person playing on this machine, and a login door that takes a couple of logins at a time
    from one address would otherwise keep that person waiting behind a dozen bots."""
    wallet = platform.wallet
    if wallet is None:
        return login_sign_in(address)
    ttl = platform.settings.session_ttl_seconds

    def sign_in(name: str, password: str) -> PaijuClient:
        account = wallet.account_id(name)
        if account is None:
            try:
                account = wallet.register(name, password)
            except DuplicateUsername:
                account = wallet.account_id(name)
        token = platform.signer.issue(str(account), name, ttl=ttl)
        return PaijuClient.from_session(address, token, str(account), name, own_connection=True)

    return sign_in
