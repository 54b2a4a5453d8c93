"""Service settings read from the environment, each with a documented default.

Every setting is an environment variable; an unset (or empty) variable takes the default. With
nothing set at all the services run on one machine: ``REDIS_URL`` unset means the in-process Redis
emulation, ``DATABASE_URL`` unset means a SQLite file, and ``PAIJU_SECRET`` unset means a random
secret for this process only (sessions do not survive a restart, and separate processes do not
accept each other's tokens — set it whenever services run in more than one process).

=============================  ===========================  =========================================
variable                       default                      meaning
=============================  ===========================  =========================================
``REDIS_URL``                  (unset: embedded emulation)  live tables, streams, deadlines
``PAIJU_REDIS_CLUSTER``        ``false``                    ``true``: ``REDIS_URL`` names a node of a Redis Cluster
``PAIJU_BROKER_URL``           (unset: ``REDIS_URL``)       Celery's broker; needed with a cluster (Celery cannot use one)
``DATABASE_URL``               ``sqlite:///paiju.sqlite3``  the ledger (SQLAlchemy URL)
``PAIJU_SECRET``               (unset: random per process)  HMAC key of session tokens, >= 16 bytes
``PAIJU_SESSION_TTL_SECONDS``  ``86400``                    how long a session token is accepted
``PAIJU_BIND_HOST``            ``127.0.0.1``                address the gRPC servers listen on
``PAIJU_PORT``                 ``50051``                    all services in one process
``PAIJU_WALLET_PORT``          ``50052``                    the wallet service alone
``PAIJU_LOBBY_PORT``           ``50053``                    the lobby service alone
``PAIJU_TABLE_PORT``           ``50054``                    the table service alone
``PAIJU_WATCHDOG_PORT``        ``50055``                    the watchdog service alone
``PAIJU_METRICS_PORT``         ``9100``                     Prometheus metrics (0: none)
``PAIJU_WEB_PORT``             ``8080``                     all in one: the web client and gRPC-Web; lobby alone: the client's files (0: a free port)
``PAIJU_WALLET_TARGET``        ``127.0.0.1:50052``          where the other services reach the wallet
``PAIJU_LOBBY_TARGET``         ``127.0.0.1:50053``          where the other services reach the lobby
``PAIJU_TABLE_TARGET``         ``127.0.0.1:50054``          where the other services reach the table
``PAIJU_WATCHDOG_TARGET``      ``127.0.0.1:50055``          where the other services reach the watchdog
``PAIJU_CALL_TIMEOUT_SECONDS`` ``5``                        how long a service waits for another (the wallet's holds, the table's deadlines) before giving up
``PAIJU_GRPC_SERVER``          ``loop``                     ``loop``: calls served from one asyncio loop (slow ones in threads); ``threads``: grpc's thread-pool server
``PAIJU_GRPC_WORKERS``         ``64``                       threads per server (for ``threads``, each stream holds one)
``PAIJU_TURN_SECONDS``         ``20``                       turn timer
``PAIJU_RECONNECT_SECONDS``    ``90``                       how long a disconnected seat is held
``PAIJU_READY_KICK_SECONDS``   ``20``                       ready kick: the last unready player's time
``PAIJU_WATCHDOG_LEASE_MS``   ``5000``                     a claimed deadline falls due again after this
``PAIJU_SHUTDOWN_GRACE_SECONDS`` ``10``                   on SIGTERM, time for calls in flight to finish
``PAIJU_STARTING_GRANT``       ``20000``                    coins credited to a new account
``PAIJU_MAX_REQUEST_BYTES``    ``4096``                     largest request of any other method (larger ones: INVALID_ARGUMENT, unparsed)
``PAIJU_MAX_ACTION_BYTES``     ``512``                      largest ``TableService.Act`` request: an action is short
``PAIJU_STREAMS_PER_ACCOUNT``  ``16``                       streams (Watch, WatchRooms) one player may have open
``PAIJU_CALLS_PER_SECOND``     ``50``                       calls a player may make per second, on average ...
``PAIJU_CALL_BURST``           ``200``                      ... and at once after a quiet spell (token bucket)
``PAIJU_LOGINS_PER_PEER``      ``2``                        Login/Register calls at a time from one client address
``PAIJU_LOGINS_IN_FLIGHT``     ``8``                        Login/Register calls at a time in all; more are refused, not queued
``PAIJU_LOGIN_RATE_PER_PEER``  ``2``                        Login/Register calls per second from one client address ...
``PAIJU_LOGIN_BURST_PER_PEER`` ``60``                       ... after a first burst of this many (token bucket)
``PAIJU_TRUSTED_PROXIES``      ``127.0.0.0/8,::1/128``      networks of the doors in front (web door, Envoy): their calls count against the address their ``x-forwarded-for`` names
``PAIJU_REFUSAL_PAUSE_MS``     ``500``                      a refusal by these limits is answered after this pause
``PAIJU_MIGRATE``              ``start``                    ``start``: migrate the ledger's schema at start; ``wait``: wait for ``paiju migrate`` (a deployment's Job)
``PAIJU_SCHEMA_WAIT_SECONDS``  ``300``                      with ``wait``: how long, before giving up with the reason
``PAIJU_HASHING_THREADS``      (cores - 1, at least 1)      password hashes (scrypt, 16 MiB each) computed at once
``PAIJU_PREVIOUS_SECRETS``     (none)                       comma-separated secrets that signed tokens before ``PAIJU_SECRET``: tokens they signed still verify (a rotation logs nobody out)
``PAIJU_PASSWORD_COST``        ``14``                       scrypt's cost as a power of two (17: OWASP's, 128 MiB a hash); a login rehashes a password stored at another cost
``PAIJU_REDIS_PREFIX``         ``paiju``                    key prefix of this deployment in Redis (sessions ended early, the shared login budget; read as the Celery worker reads it)
=============================  ===========================  =========================================

>>> settings = Settings.from_env({"PAIJU_SECRET": "correct horse battery staple"})
>>> settings.turn_seconds, settings.reconnect_seconds, settings.starting_grant
(20, 90, 20000)
>>> settings.uses_embedded_redis, settings.database_url
(True, 'sqlite:///paiju.sqlite3')
>>> settings.max_action_bytes, settings.streams_per_account, settings.logins_per_peer
(512, 16, 2)
>>> Settings.from_env({"PAIJU_TURN_SECONDS": "soon"})
Traceback (most recent call last):
...
paiju.common.config.ConfigError: PAIJU_TURN_SECONDS must be a whole number, not 'soon'
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_DATABASE_URL = "sqlite:///paiju.sqlite3"
MIN_SECRET_BYTES = 16
MAX_PORT = 65_535
DEFAULT_REDIS_PREFIX = "paiju"
REDIS_PREFIX_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class ConfigError(ValueError):
    """An environment variable holds a value the services cannot use; the message names it."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a service reads from its environment (see the module's table for defaults)."""

    redis_url: str | None
    """``None``: use the in-process Redis emulation."""
    redis_cluster: bool
    """Whether ``redis_url`` is a node of a Redis Cluster (every table's keys share a hash tag)."""
    broker_url: str | None
    """Celery's broker: ``PAIJU_BROKER_URL``, else ``redis_url`` (``None``: eager, in-process jobs)."""
    database_url: str
    secret: bytes
    secret_is_ephemeral: bool
    """True when ``PAIJU_SECRET`` was unset and ``secret`` was drawn at random for this process."""
    session_ttl_seconds: int
    bind_host: str
    port: int
    wallet_port: int
    lobby_port: int
    table_port: int
    watchdog_port: int
    metrics_port: int
    web_port: int
    """All in one: the HTTP port of the web client's files and gRPC-Web (see :mod:`paiju.gateway`)."""
    wallet_target: str
    lobby_target: str
    table_target: str
    watchdog_target: str
    call_timeout_seconds: float
    """How long one service waits for another's answer (services deployed apart)."""
    grpc_server: str
    """``loop`` (an asyncio server; see :mod:`paiju.rpc.aio_bridge`) or ``threads``."""
    grpc_workers: int
    turn_seconds: int
    reconnect_seconds: int
    ready_kick_seconds: int
    watchdog_lease_ms: int
    """How long a watchdog's claim on a due deadline lasts before another replica may fire it."""
    shutdown_grace_seconds: int
    """On SIGTERM, how long calls in flight may take to finish before the server stops."""
    starting_grant: int
    max_request_bytes: int
    max_action_bytes: int
    streams_per_account: int
    calls_per_second: int
    call_burst: int
    logins_per_peer: int
    logins_in_flight: int
    login_rate_per_peer: int
    login_burst_per_peer: int
    trusted_proxies: tuple[str, ...]
    refusal_pause_ms: int
    """Slows a client that retries refused calls in a loop (see :mod:`paiju.rpc.limits`)."""
    migrate: str
    """``start`` (migrate the ledger at start) or ``wait`` (for ``paiju migrate``, run once)."""
    schema_wait_seconds: int
    hashing_threads: int
    """Password hashes computed at once: each takes a core, and one is left to the event loop."""
    password_cost: int = 14
    """scrypt's cost N as a power of two (``PAIJU_PASSWORD_COST``)."""
    previous_secrets: tuple[bytes, ...] = ()
    """Secrets that signed tokens before ``secret`` (``PAIJU_PREVIOUS_SECRETS``): still verified."""
    redis_prefix: str = DEFAULT_REDIS_PREFIX
    """``PAIJU_REDIS_PREFIX``: what this deployment's keys start with, so that deployments sharing
    a Redis share no session stamps or login budgets."""

    @property
    def uses_embedded_redis(self) -> bool:
        """Whether live state goes to the in-process Redis emulation instead of a server."""
        return self.redis_url is None

    @property
    def uses_embedded_database(self) -> bool:
        """Whether the ledger is a local SQLite database."""
        return self.database_url.startswith("sqlite")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read the settings from ``environ`` (``os.environ`` by default).

        Raises ``ConfigError`` naming the variable when a value is malformed or out of range.
        """
        env = _Environment(os.environ if environ is None else environ)
        secret_text = env.text("PAIJU_SECRET")
        if secret_text is None:
            secret, ephemeral = secrets.token_bytes(32), True
        else:
            secret, ephemeral = secret_text.encode("utf-8"), False
            if len(secret) < MIN_SECRET_BYTES:
                raise ConfigError(f"PAIJU_SECRET must be at least {MIN_SECRET_BYTES} bytes long")
        redis_url = env.text("REDIS_URL")
        redis_cluster = env.flag("PAIJU_REDIS_CLUSTER", False)
        broker_url = env.text("PAIJU_BROKER_URL")
        if redis_cluster and redis_url is None:
            raise ConfigError("PAIJU_REDIS_CLUSTER needs REDIS_URL: the address of one node of the cluster")
        if redis_cluster and broker_url is None:
            raise ConfigError("PAIJU_REDIS_CLUSTER needs PAIJU_BROKER_URL: Celery's broker cannot be a Redis Cluster")
        return cls(
            redis_url=redis_url,
            redis_cluster=redis_cluster,
            broker_url=broker_url or redis_url,
            database_url=env.text("DATABASE_URL") or DEFAULT_DATABASE_URL,
            secret=secret,
            secret_is_ephemeral=ephemeral,
            previous_secrets=env.secrets("PAIJU_PREVIOUS_SECRETS"),
            session_ttl_seconds=env.integer("PAIJU_SESSION_TTL_SECONDS", 86_400, minimum=1),
            bind_host=env.text("PAIJU_BIND_HOST") or "127.0.0.1",
            port=env.port("PAIJU_PORT", 50_051),
            wallet_port=env.port("PAIJU_WALLET_PORT", 50_052),
            lobby_port=env.port("PAIJU_LOBBY_PORT", 50_053),
            table_port=env.port("PAIJU_TABLE_PORT", 50_054),
            watchdog_port=env.port("PAIJU_WATCHDOG_PORT", 50_055),
            metrics_port=env.port("PAIJU_METRICS_PORT", 9_100),
            web_port=env.port("PAIJU_WEB_PORT", 8_080),
            wallet_target=env.text("PAIJU_WALLET_TARGET") or "127.0.0.1:50052",
            lobby_target=env.text("PAIJU_LOBBY_TARGET") or "127.0.0.1:50053",
            table_target=env.text("PAIJU_TABLE_TARGET") or "127.0.0.1:50054",
            watchdog_target=env.text("PAIJU_WATCHDOG_TARGET") or "127.0.0.1:50055",
            call_timeout_seconds=env.integer("PAIJU_CALL_TIMEOUT_SECONDS", 5, minimum=1),
            grpc_server=env.choice("PAIJU_GRPC_SERVER", ("loop", "threads"), "loop"),
            grpc_workers=env.integer("PAIJU_GRPC_WORKERS", 64, minimum=1),
            turn_seconds=env.integer("PAIJU_TURN_SECONDS", 20, minimum=1),
            reconnect_seconds=env.integer("PAIJU_RECONNECT_SECONDS", 90, minimum=1),
            ready_kick_seconds=env.integer("PAIJU_READY_KICK_SECONDS", 20, minimum=1),
            watchdog_lease_ms=env.integer("PAIJU_WATCHDOG_LEASE_MS", 5_000, minimum=100),
            shutdown_grace_seconds=env.integer("PAIJU_SHUTDOWN_GRACE_SECONDS", 10, minimum=0),
            starting_grant=env.integer("PAIJU_STARTING_GRANT", 20_000, minimum=0),
            max_request_bytes=env.integer("PAIJU_MAX_REQUEST_BYTES", 4_096, minimum=256),
            max_action_bytes=env.integer("PAIJU_MAX_ACTION_BYTES", 512, minimum=64),
            migrate=env.choice("PAIJU_MIGRATE", ("start", "wait"), "start"),
            schema_wait_seconds=env.integer("PAIJU_SCHEMA_WAIT_SECONDS", 300, minimum=0),
            streams_per_account=env.integer("PAIJU_STREAMS_PER_ACCOUNT", 16, minimum=1),
            calls_per_second=env.integer("PAIJU_CALLS_PER_SECOND", 50, minimum=1),
            call_burst=env.integer("PAIJU_CALL_BURST", 200, minimum=1),
            logins_per_peer=env.integer("PAIJU_LOGINS_PER_PEER", 2, minimum=1),
            logins_in_flight=env.integer("PAIJU_LOGINS_IN_FLIGHT", 8, minimum=1),
            login_rate_per_peer=env.integer("PAIJU_LOGIN_RATE_PER_PEER", 2, minimum=1),
            login_burst_per_peer=env.integer("PAIJU_LOGIN_BURST_PER_PEER", 60, minimum=1),
            trusted_proxies=env.networks("PAIJU_TRUSTED_PROXIES", ("127.0.0.0/8", "::1/128")),
            refusal_pause_ms=env.integer("PAIJU_REFUSAL_PAUSE_MS", 500, minimum=0, maximum=10_000),
            hashing_threads=env.integer("PAIJU_HASHING_THREADS", max(1, (os.cpu_count() or 2) - 1), minimum=1),
            password_cost=env.integer("PAIJU_PASSWORD_COST", 14, minimum=4, maximum=20),
            redis_prefix=env.redis_prefix("PAIJU_REDIS_PREFIX"),
        )

    def __repr__(self) -> str:
        # The secret must never reach a log line through a repr.
        return f"Settings(redis_url={self.redis_url!r}, database_url=<hidden>, secret=<hidden>, …)"


@dataclass(frozen=True, slots=True)
class _Environment:
    values: Mapping[str, str]

    def text(self, name: str) -> str | None:
        value = self.values.get(name, "").strip()
        return value or None

    def redis_prefix(self, name: str) -> str:
        """A key prefix: 1 to 64 letters, digits or ``_.-`` (``paiju`` when unset), as
        :class:`paiju.wallet.celery_app.WorkerOptions` reads it."""
        prefix = self.text(name) or DEFAULT_REDIS_PREFIX
        if not REDIS_PREFIX_PATTERN.fullmatch(prefix):
            raise ConfigError(f"{name} must be 1 to 64 letters, digits or _.-, not {prefix!r}")
        return prefix

    def integer(self, name: str, default: int, *, minimum: int, maximum: int | None = None) -> int:
        raw = self.text(name)
        if raw is None:
            return default
        try:
            value = int(raw.replace("_", ""))
        except ValueError:
            raise ConfigError(f"{name} must be a whole number, not {raw!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bound = f"{minimum}..{maximum}" if maximum is not None else f"at least {minimum}"
            raise ConfigError(f"{name} must be {bound}, not {value}")
        return value

    def flag(self, name: str, default: bool) -> bool:
        raw = self.text(name)
        if raw is None:
            return default
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{name} must be true or false, not {raw!r}")

    def port(self, name: str, default: int) -> int:
        return self.integer(name, default, minimum=0, maximum=MAX_PORT)

    def secrets(self, name: str) -> tuple[bytes, ...]:
        """Comma-separated secrets, each at least :data:`MIN_SECRET_BYTES` long."""
        raw = self.text(name)
        found = tuple(part.strip().encode("utf-8") for part in (raw or "").split(",") if part.strip())
        for secret in found:
            if len(secret) < MIN_SECRET_BYTES:
                raise ConfigError(f"each of {name} is at least {MIN_SECRET_BYTES} bytes")
        return found

    def networks(self, name: str, default: tuple[str, ...]) -> tuple[str, ...]:
        """Comma-separated networks (``10.0.0.0/8,::1/128``), each checked."""
        raw = self.text(name)
        if raw is None:
            return default
        cidrs = tuple(part.strip() for part in raw.split(",") if part.strip())
        for cidr in cidrs:
            try:
                ipaddress.ip_network(cidr, strict=False)
            except ValueError:
                raise ConfigError(f"{name} must list networks like 10.0.0.0/8, not {cidr!r}") from None
        return cidrs

    def choice(self, name: str, choices: tuple[str, ...], default: str) -> str:
        value = (self.text(name) or default).lower()
        if value not in choices:
            raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
        return value
