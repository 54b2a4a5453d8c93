"""Client channels that present a session token on every call (service to service, bots, tests).

>>> import itertools
>>> now = itertools.count(1_700_000_000, 100)
>>> signer = TokenSigner(b"a secret of at least sixteen bytes", clock=lambda: next(now))
>>> tokens = ServiceTokenSource(signer, "lobby", ttl=300, clock=lambda: 1_700_000_000)
>>> tokens() == tokens()   # reused while far from expiry
True
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc

from paiju.common.auth import Clock, TokenSigner
from paiju.common.wire import AUTHORIZATION_KEY

TokenSource = Callable[[], str]
"""Returns the token to present now; called once per RPC."""


class ServiceTokenSource:
    """Tokens of the ``service`` role for one service, reissued when half their life is gone."""

    def __init__(
        self, signer: TokenSigner, service: str, *, ttl: int = 3600, clock: Clock = time.time
    ) -> None:
        self._signer = signer
        self._service = service
        self._ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._token = ""
        self._renew_at = float("-inf")

    def __call__(self) -> str:
        with self._lock:
            now = self._clock()
            if now >= self._renew_at:
                self._token = self._signer.issue_service_token(self._service, ttl=self._ttl)
                self._renew_at = now + self._ttl / 2
            return self._token


class _BearerInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    def __init__(self, tokens: TokenSource) -> None:
        self._tokens = tokens

    def _with_token(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        kept = [(key, value) for key, value in (details.metadata or ()) if key != AUTHORIZATION_KEY]
        return _CallDetails(
            details.method,
            details.timeout,
            (*kept, (AUTHORIZATION_KEY, f"Bearer {self._tokens()}")),
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with_token(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._with_token(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._with_token(details), requests)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._with_token(details), requests)


class _CallDetails(grpc.ClientCallDetails):
    def __init__(
        self,
        method: str,
        timeout: float | None,
        metadata: tuple[tuple[str, str | bytes], ...],
        credentials: grpc.CallCredentials | None,
        wait_for_ready: bool | None,
        compression: grpc.Compression | None,
    ) -> None:
        self.method = method
        self.timeout = timeout
        self.metadata = metadata
        self.credentials = credentials
        self.wait_for_ready = wait_for_ready
        self.compression = compression


def authorized_channel(target: str, tokens: TokenSource, *, own_connection: bool = False,
                       credentials: grpc.ChannelCredentials | None = None) -> grpc.Channel:
    """A channel to ``target`` whose every call carries ``Bearer <tokens()>``: over TLS with
    ``credentials``, else plain (loopback, and the services within a cluster).

    For a fixed token pass ``lambda: token``; for service calls a ``ServiceTokenSource``.
    Close it like any channel (it is a context manager). grpc shares one connection among a
    process's channels to the same target; ``own_connection`` gives this channel its own, as a
    separate device would have (so that server processes sharing a port each get some).
    """
    return grpc.intercept_channel(open_channel(target, own_connection=own_connection, credentials=credentials),
                                  _BearerInterceptor(tokens))


def open_channel(target: str, *, own_connection: bool = False,
                 credentials: grpc.ChannelCredentials | None = None) -> grpc.Channel:
    """A channel to ``target``: over TLS with ``credentials``, else plain."""
    options = connection_options(own_connection)
    if credentials is None:
        return grpc.insecure_channel(target, options=options)
    return grpc.secure_channel(target, credentials, options=options)


def is_loopback(target: str) -> bool:
    """Whether ``target`` (``host:port``) is this machine, where a plain connection is safe.

    >>> [is_loopback(t) for t in ("127.0.0.1:50051", "localhost:8080", "[::1]:443", "play.example.com:443")]
    [True, True, True, False]
    """
    host = target.rsplit(":", 1)[0].strip("[]") if ":" in target else target
    if host == "localhost" or host.startswith("unix"):
        return True
    try:
        address = ipaddress.ip_address(host)
        return address.is_loopback or address.is_unspecified  # 0.0.0.0 dials this machine
    except ValueError:
        return False


RECOVERY_OPTIONS: tuple[tuple[str, int | str], ...] = (
    # Every address a name resolves to gets a connection of its own, and calls go to the ones that
    # are up: with grpc's default (the first address only) one replica that does not answer held
    # every call until the deadline, even with two others serving (seen when a deployment starts).
    ("grpc.service_config", json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})),
    # A backend that went away is tried again within seconds, not after grpc's 2-minute backoff.
    ("grpc.initial_reconnect_backoff_ms", 250),
    ("grpc.max_reconnect_backoff_ms", 5_000),
    ("grpc.min_reconnect_backoff_ms", 5_000),
)


def connection_options(own_connection: bool) -> tuple[tuple[str, int | str], ...]:
    """Channel options for a connection of the channel's own, or the process's shared one."""
    return RECOVERY_OPTIONS + ((("grpc.use_local_subchannel_pool", 1),) if own_connection else ())
