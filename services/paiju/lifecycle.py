"""What the server commands share about a process's life: the port its services listen on and
stopping on SIGTERM or SIGINT (``paiju serve``, its supervisor of copies, ``paiju bots``)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Sequence

from paiju.common.config import Settings
from paiju.platform import SERVICES


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
