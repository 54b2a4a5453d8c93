"""``paiju serve``: the services over gRPC, all in one process or one per process, and bot tables.

All in one (the default) runs wallet, lobby and table on one port and, in background threads,
the deadline pump and the settlement relay; its web port (``PAIJU_WEB_PORT``) serves the web
client and gRPC-Web for browsers (:mod:`paiju.gateway`). ``--bots N`` seats N tables of bots in
each game (:data:`paiju.house_bots.BOT_TABLES`) that play through the public API, and prints one live line: hands
per game, actions/s, the 炸金花 leaderboard top.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence

from paiju.common.collector import settle_after_start_up
from paiju.common.config import Settings
from paiju.common.metrics import MetricsServerError, start_metrics_server
from paiju.gateway.door import DoorStartError, WebDoor, start_web_door
from paiju.house_bots import LiveLine, house_sign_in, rooms_for_bots, start_bots
from paiju.lifecycle import service_port, shutdown_on_signals
from paiju.platform import SERVICES, build
from paiju.rpc.server import start_from_settings

log = logging.getLogger(__name__)


def serve(settings: Settings, services: Sequence[str] = SERVICES, bot_tables: int = 0, rooms_per_tier: int = 10,
          relay: bool = True, out=print, share_port: bool = False) -> int:  # type: ignore[no-untyped-def]
    """Serve from this process until SIGTERM or SIGINT, then the exit status (``--processes N``
    runs N copies of this under :func:`paiju.server_processes.serve_processes`)."""
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
        # Each step in the log (a warning: a server going away is news to an operator) as it
        # ends: a stop that outlives its grace shows where it stood
        # (stdout is buffered and lost when the process is killed; the log is not).
        began = time.monotonic()
        log.warning("shutting down: draining streams, finishing calls in flight")
        stop.set()
        platform.drain()
        server.stop(grace=settings.shutdown_grace_seconds)
        log.warning("calls finished after %.1f s", time.monotonic() - began)
        if door is not None:
            door.stop()
        platform.close()
        if metrics is not None:
            metrics.stop()
        log.warning("stopped after %.1f s", time.monotonic() - began)
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
