"""Start a gRPC server for one Paiju service or for all of them in one process.

The server checks session tokens on every call (``AuthInterceptor``), answers gRPC health
checking (``grpc.health.v1``, SERVING for ``""`` and for every registered service) and server
reflection, and listens on loopback unless told otherwise::

    running = start_server(
        [ServiceBinding("paiju.v1.TableService", TableServicer(...), table_pb2_grpc.add_TableServiceServicer_to_server)],
        signer=TokenSigner(settings.secret, previous=settings.previous_secrets),
        port=settings.table_port,
    )
    running.wait_for_termination()

For all services in one process, pass one binding per service to a single ``start_server``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

import grpc
from google.protobuf import descriptor_pool
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from paiju.common.auth import TokenSigner
from paiju.common.config import Settings
from paiju.common.metrics import METRICS
from paiju.rpc.aio_bridge import BridgeHandler, HandlerCollector, LoopServer
from paiju.rpc.failures import UnexpectedErrors
from paiju.rpc.interceptor import AuthInterceptor
from paiju.rpc.limits import Admission, Limits
from paiju.rpc.reflection import enable_reflection
from paiju.rpc.sessions import SessionStamps, session_stamps
from paiju.rpc.shared_logins import SharedLoginBudget, shared_login_budget
from paiju.rpc.threads_admission import AdmissionInterceptor
from paiju.rpc.timing import MetricsInterceptor
from paiju.rpc.unknown_methods import UnknownMethods, UnknownMethodsOnTheLoop

LOOPBACK = "127.0.0.1"
HEALTH_SERVICE_NAME = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name


class ServerStartError(RuntimeError):
    """The server could not be built or could not listen where it was asked to."""


@dataclass(frozen=True, slots=True)
class ServiceBinding:
    """One service to serve: its full proto name, the servicer and the stub's ``add_*`` function.

    ``name`` is the service's full name, e.g. ``"paiju.v1.TableService"``; it must be a service of an
    imported stub module (a typo is refused when the server starts).
    """

    name: str
    servicer: Any
    add_to_server: Callable[[Any, grpc.Server], None]
    inline: frozenset[str] = frozenset()
    """Methods (short names, e.g. ``"Act"``) that never wait long (Redis only, no SQL, no other
    service): the event-loop server runs them on its loop; every other method runs in a thread."""
    loop_first: frozenset[str] = frozenset()
    """Methods that usually need Redis only: the event-loop server runs them on its loop, and
    again in a thread when they raise :class:`~paiju.rpc.aio_bridge.OffTheLoop` there."""


@dataclass(slots=True)
class RunningServer:
    """A started server: where it listens, and how to stop it."""

    server: grpc.Server | LoopServer
    host: str
    port: int
    health: health.HealthServicer
    service_names: tuple[str, ...]
    _stopped: bool = field(default=False, repr=False)

    @property
    def address(self) -> str:
        """``host:port`` to dial, e.g. ``127.0.0.1:50051``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def set_serving(self, service: str, serving: bool) -> None:
        """Readiness: report ``paiju.v1.<Service>`` (by short name, e.g. ``"table"``) as SERVING
        or NOT_SERVING; the overall status ``""`` stays SERVING, so liveness probes pass."""
        status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
        for name in self.service_names:
            if name.split(".")[-1].lower().startswith(service.lower()):
                self.health.set(name, status)

    def stop(self, grace: float | None = 1.0) -> None:
        """Report NOT_SERVING, then stop, letting calls in flight finish within ``grace`` s."""
        if self._stopped:
            return
        self._stopped = True
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """Block until the server stops (or ``timeout`` passes); True if it stopped."""
        return bool(self.server.wait_for_termination(timeout))

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def start_server(
    bindings: Sequence[ServiceBinding],
    *,
    signer: TokenSigner,
    host: str = LOOPBACK,
    port: int = 0,
    max_workers: int = 64,
    extra_interceptors: Sequence[grpc.ServerInterceptor] = (),
    event_loop: bool = True,
    share_port: bool = False,
    limits: Limits | None = None,
    sessions: SessionStamps | None = None,
    shared_logins: SharedLoginBudget | None = None,
) -> RunningServer:
    """Build, bind and start a server for ``bindings``; ``port=0`` picks a free port.

    With ``event_loop`` (the default) the calls are served from one asyncio loop
    (:mod:`paiju.rpc.aio_bridge`): a binding's ``inline`` methods run on the loop (and its
    ``loop_first`` ones, until they find they must wait), the others in a pool of ``max_workers`` threads. Without, grpc's thread-pool server serves them, each
    streaming call holding one of the ``max_workers`` threads while it is open.

    ``share_port`` lets other processes of this user listen on the same port (SO_REUSEPORT), the
    kernel spreading new connections among them: how one machine serves from several processes.
    Off, a second server on a busy port fails to start instead of sharing it silently.

    ``limits`` (:mod:`paiju.rpc.limits`, its defaults when not given) bound what one client may
    ask: grpc refuses requests above the largest size any method takes, and either server admits
    every call against them before it does any work for it (the event-loop server on its loop,
    before the call takes a thread; the thread-pool server in the call's thread,
    :mod:`paiju.rpc.threads_admission`), with the same refusals; ``shared_logins`` is the login
    budget per address that all replicas share.

    ``sessions``: the accounts' "sessions valid after" stamps (:mod:`paiju.rpc.sessions`), so
    that a password change ends the account's other sessions here too.
    """
    limits = limits or Limits()
    if not bindings:
        raise ServerStartError("a server needs at least one service")
    names = tuple(binding.name for binding in bindings)
    _check_service_names(names)
    # Metrics first, so that calls refused by the auth check are counted too; the last resort
    # for unexpected exceptions last, so that metrics count the status it answers.
    interceptors = (MetricsInterceptor(), AuthInterceptor(signer, sessions=sessions), *extra_interceptors, UnexpectedErrors())
    health_servicer = health.HealthServicer()
    options = (*SERVER_OPTIONS, ("grpc.so_reuseport", int(share_port)),
               ("grpc.max_receive_message_length", limits.largest_request))
    if event_loop:
        server: grpc.Server | LoopServer = LoopServer(options, max_workers)
        collector = HandlerCollector()
        for binding in bindings:
            binding.add_to_server(binding.servicer, collector)  # type: ignore[arg-type]
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, collector)  # type: ignore[arg-type]
        inline = {f"/{b.name}/{method}" for b in bindings for method in b.inline}
        inline.add(f"/{HEALTH_SERVICE_NAME}/Check")
        loop_first = frozenset(f"/{b.name}/{method}" for b in bindings for method in b.loop_first)
        server.server.add_generic_rpc_handlers((
            BridgeHandler(collector.handlers, interceptors, frozenset(inline), server.pool, server.loop,
                          Admission(limits, signer, shared_logins=shared_logins), on_refused=METRICS.refused, loop_first=loop_first),
        ))
        enable_reflection((*names, HEALTH_SERVICE_NAME), server.server)
        server.server.add_generic_rpc_handlers((UnknownMethodsOnTheLoop(),))  # the last
    else:
        # Outermost, as on the loop: a refused call is neither timed nor checked for its token.
        admitting = AdmissionInterceptor(Admission(limits, signer, shared_logins=shared_logins), most_paused=max_workers // 4,
                                         on_refused=METRICS.refused)
        server = _threads_server(bindings, (admitting, *interceptors), health_servicer, max_workers, options)
        enable_reflection((*names, HEALTH_SERVICE_NAME), server)
        server.add_generic_rpc_handlers((UnknownMethods(),))  # the last
    for name in ("", *names):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    bound_port = _bind(server, host, port)
    server.start()
    return RunningServer(server, host, bound_port, health_servicer, names)


SERVER_OPTIONS = (
    # Ping idle connections so that a peer that vanished (no FIN: a dead phone, a cut cable) is
    # noticed within ~30 s and its Watch streams end, which ends its presence.
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.http2.max_pings_without_data", 0),
)


def _threads_server(
    bindings: Sequence[ServiceBinding],
    interceptors: Sequence[grpc.ServerInterceptor],
    health_servicer: health.HealthServicer,
    max_workers: int,
    options: Sequence[tuple[str, Any]],
) -> grpc.Server:
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="paiju-grpc"),
        interceptors=interceptors,
        options=options,
    )
    for binding in bindings:
        binding.add_to_server(binding.servicer, server)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    return server


def start_from_settings(
    settings: Settings, bindings: Sequence[ServiceBinding], *, port: int, share_port: bool = False
) -> RunningServer:
    """``start_server`` with the host, secret and worker count of ``settings``."""
    return start_server(
        bindings,
        signer=TokenSigner(settings.secret, previous=settings.previous_secrets),
        host=settings.bind_host,
        port=port,
        max_workers=settings.grpc_workers,
        event_loop=settings.grpc_server == "loop",
        share_port=share_port,
        limits=Limits.of(settings),
        sessions=settings_session_stamps(settings),
        shared_logins=shared_login_budget(settings.redis_url, settings.redis_prefix, settings.login_rate_per_peer,
                                          settings.login_burst_per_peer, cluster=settings.redis_cluster),
    )


def settings_session_stamps(settings: Settings) -> SessionStamps:
    """The "sessions valid after" stamps of the deployment ``settings`` describe, shared in this
    process by the wallet that writes them and every server that checks them."""
    return session_stamps(settings.redis_url, settings.redis_prefix, cluster=settings.redis_cluster,
                          scope=settings.database_url)


def _check_service_names(names: Sequence[str]) -> None:
    if len(set(names)) != len(names):
        raise ServerStartError(f"a service is bound twice: {sorted(names)}")
    pool = descriptor_pool.Default()
    for name in names:
        try:
            pool.FindServiceByName(name)
        except KeyError:
            raise ServerStartError(
                f"unknown service {name!r}: not in any imported stub module"
            ) from None


def _bind(server: grpc.Server | LoopServer, host: str, port: int) -> int:
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        bound = server.add_insecure_port(address)
    except RuntimeError as error:
        raise ServerStartError(f"cannot listen on {address}: {error}") from None
    if bound == 0:
        raise ServerStartError(f"cannot listen on {address} (address in use or not local?)")
    return bound
