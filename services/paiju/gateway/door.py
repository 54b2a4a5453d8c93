"""The all-in-one front door: one HTTP port with the web client's files and gRPC-Web.

``paiju serve`` starts it beside the gRPC server (``PAIJU_WEB_PORT``, 8080)::

    door = start_web_door(grpc_target="127.0.0.1:50051", host="127.0.0.1", port=8080)
    print(f"open {door.url} and play")
    ...
    door.stop()

It runs on an event loop of its own thread, so it serves the same whichever gRPC server
(``loop`` or ``threads``) the process runs. Browsers from other origins (a client under
development on its own dev server) may call it: calls carry their session in the
``authorization`` header, never in cookies, so answering any origin gives no page a power it
would not have anyway.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from aiohttp import web

from paiju.gateway.grpc_web import GrpcWebRelay
from paiju.gateway.static import STATIC_ROOT, StaticFiles

EXPOSED_HEADERS = "grpc-status, grpc-message, grpc-status-details-bin, paiju-error-code, paiju-current-version"
ALLOWED_HEADERS = "authorization, content-type, grpc-timeout, x-grpc-web, x-user-agent"
PREFLIGHT_MAX_AGE_SECONDS = 86_400
STOP_GRACE_SECONDS = 1.0
"""The door stops after the gRPC server, whose own grace has let calls finish or ended them."""


class DoorStartError(RuntimeError):
    """The front door could not listen where it was asked to."""


def build_app(channel: grpc.aio.Channel, target: str, static_root: Path = STATIC_ROOT, *,
              relay: bool = True) -> web.Application:
    """The routes: gRPC-Web POSTs by service and method (relayed over ``channel`` to
    ``target``), CORS preflights, the client's files; only the files without ``relay`` (behind
    a door that speaks gRPC-Web itself, as Kubernetes' Envoy does)."""
    app = web.Application()
    if relay:
        app.router.add_post("/{service}/{method}", GrpcWebRelay(channel, target).handle)
        app.router.add_route("OPTIONS", "/{path:.*}", _preflight)
    app.router.add_get("/{path:.*}", StaticFiles(static_root).handle)
    app.on_response_prepare.append(_allow_other_origins)
    return app


async def _preflight(request: web.Request) -> web.Response:
    requested = request.headers.get("Access-Control-Request-Headers")
    return web.Response(status=204, headers={
        "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
        "Access-Control-Allow-Headers": requested or ALLOWED_HEADERS,
        "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE_SECONDS),
    })


async def _allow_other_origins(request: web.Request, response: web.StreamResponse) -> None:
    response.headers["Access-Control-Allow-Origin"] = "*"
    response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS


@dataclass(slots=True)
class WebDoor:
    """A started front door: where it listens, and how to stop it."""

    host: str
    port: int
    _loop: asyncio.AbstractEventLoop
    _thread: threading.Thread
    _runner: web.AppRunner
    _channel: grpc.aio.Channel

    @property
    def url(self) -> str:
        """The address a browser opens, e.g. ``http://127.0.0.1:8080``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def stop(self) -> None:
        """Stop listening, give calls in flight :data:`STOP_GRACE_SECONDS`, cancel the rest
        (their relayed calls with them), end the thread."""
        if not self._thread.is_alive():
            return

        async def close() -> None:
            await self._runner.cleanup()
            await self._channel.close()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(STOP_GRACE_SECONDS + 30.0)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


def start_web_door(grpc_target: str, host: str, port: int, *, share_port: bool = False,
                   static_root: Path = STATIC_ROOT, relay: bool = True) -> WebDoor:
    """Listen on ``host:port`` (0: a free port) and relay gRPC-Web to ``grpc_target`` (with
    ``relay``; without it, serve the web client's files alone).

    ``share_port`` lets other processes of this user listen on the same port, as the gRPC
    server's does. Raises :class:`DoorStartError` when the port cannot be had.
    """
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="web-door", daemon=True)
    thread.start()

    async def open_door() -> tuple[web.AppRunner, grpc.aio.Channel, int]:
        channel = grpc.aio.insecure_channel(grpc_target)
        # Cancelling a call's handler when its browser goes away is what cancels the call.
        runner = web.AppRunner(build_app(channel, grpc_target, static_root, relay=relay), handler_cancellation=True,
                               access_log=None, shutdown_timeout=STOP_GRACE_SECONDS)
        await runner.setup()
        site = web.TCPSite(runner, host, port, reuse_port=share_port or None)
        try:
            await site.start()
        except OSError as error:
            await runner.cleanup()
            await channel.close()
            raise DoorStartError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
        return runner, channel, _bound_port(runner)

    try:
        runner, channel, bound = asyncio.run_coroutine_threadsafe(open_door(), loop).result(30.0)
    except BaseException:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
        raise
    return WebDoor(host, bound, loop, thread, runner, channel)


def _bound_port(runner: web.AppRunner) -> int:
    address: Any = runner.addresses[0]
    return int(address[1])
