"""What one client may ask of a server, so that no client can slow the others down.

Every call is admitted (or refused) before any work is done for it: by the event-loop server on
its loop, before the call takes a pool thread, so a refusal costs a few dictionary look-ups and a
flood never queues; by grpc's thread-pool server (``PAIJU_GRPC_SERVER=threads``) first thing in the
call's thread (:mod:`paiju.rpc.threads_admission`), with the same refusals:

* a request larger than its method allows is refused before it is parsed further (an action is
  short: ``TableService.Act``, and each request of a ``TableService.Play`` stream, take at most ``max_action_bytes``;
  every other method ``max_request_bytes``,
  which is also grpc's own limit, so anything larger never reaches Python at all);
* a player's calls draw on a token bucket (``calls_per_second``, bursts up to ``call_burst``);
* a player has at most ``streams_per_account`` streams open (Watch, Play and WatchRooms together);
* ``Login`` and ``Register`` (each an scrypt hash: tens of milliseconds of a core and 16 MiB)
  run at most ``logins_per_peer`` at a time per client address and ``logins_in_flight`` at a time
  in all, and one address makes at most ``login_rate_per_peer`` a second after a first
  ``login_burst_per_peer``; with Redis, the same budget per address is also shared by every
  replica (:mod:`paiju.rpc.shared_logins`); ``ChangePassword`` hashes too and counts as a login;
  the hashing itself is bounded by the wallet's :class:`~paiju.wallet.passwords.PasswordHasher`.

Each refusal is RESOURCE_EXHAUSTED with a short reason and a stable word in ``paiju-error-code``
and in the ``ErrorInfo`` of ``grpc-status-details-bin`` (:data:`TOO_LARGE`, :data:`RATE_LIMITED`,
:data:`TOO_MANY_STREAMS`, :data:`TOO_MANY_LOGINS`, :data:`SERVER_BUSY`), the ``ErrorInfo`` naming
the limit, and a ``RetryInfo`` with the wait when a rate refused (until its next token). Calls of Paiju's own services (tokens of the ``service`` role) are never
limited by rate or streams.

A refusal is decided at once but answered after ``refusal_pause_ms`` (at most
:data:`MOST_PAUSED_REFUSALS` wait at a time; beyond, they are answered at once): a client that
retries in a loop is slowed to a couple of refusals a second per thread, where each immediate
refusal would cost the loop a wake-up it shares with every honest call. Nothing is done for a
paused refusal but a timer.

>>> clock = FakeClock()
>>> bucket = TokenBucket(rate=2.0, burst=2, clock=clock)
>>> [bucket.take() for _ in range(3)]
[True, True, False]
>>> clock.now += 0.5
>>> bucket.take(), bucket.take()
(True, False)
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import grpc

from paiju.common.auth import TokenSigner
from paiju.common.config import Settings
from paiju.common.wire import SERVER_BUSY, TOO_MANY_LOGINS
from paiju.rpc.errors import Trailers, refusal_trailers
from paiju.rpc.interceptor import PUBLIC_METHODS, presented_caller
from paiju.rpc.shared_logins import SharedLoginBudget

Clock = Callable[[], float]


class CallContext(Protocol):
    """What admission reads of a call's context (grpc's, or grpc.aio's)."""

    def invocation_metadata(self) -> Sequence[tuple[str, Any]] | None: ...

    def peer(self) -> str: ...


ACT_METHOD = "/paiju.v1.TableService/Act"
PLAY_METHOD = "/paiju.v1.TableService/Play"
"""Its requests are moves (after the one that opens the stream): as short as ``Act``'s."""
CHANGE_PASSWORD_METHOD = "/paiju.v1.WalletService/ChangePassword"
PASSWORD_METHODS = PUBLIC_METHODS | {CHANGE_PASSWORD_METHOD}
"""Login, Register and ChangePassword: the calls that hash a password."""
MOST_PAUSED_REFUSALS = 1_000
"""Refusals waiting out their pause at a time: a flood of more is refused without a pause."""
IDLE_BUCKETS_KEPT = 10_000
"""Above this many accounts' buckets, the full (idle) ones are forgotten: they start full anyway."""

TOO_LARGE = "request_too_large"
RECEIVE_CEILING_BYTES = 4 * 1024 * 1024
"""grpc's default receive limit, kept as the ceiling above every method's own limit."""
RATE_LIMITED = "rate_limited"
TOO_MANY_STREAMS = "too_many_streams"


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits of one server; the defaults are those of :class:`~paiju.common.config.Settings`."""

    max_request_bytes: int = 4_096
    max_action_bytes: int = 512
    streams_per_account: int = 16
    calls_per_second: int = 50
    call_burst: int = 200
    logins_per_peer: int = 2
    logins_in_flight: int = 8
    login_rate_per_peer: float = 2
    login_burst_per_peer: int = 60
    refusal_pause_ms: int = 500
    trusted_proxies: tuple[str, ...] = ("127.0.0.0/8", "::1/128")
    """Networks of the doors in front of the server (the web door, Envoy): a call from one of
    them counts against the address its ``x-forwarded-for`` names, not the door's."""

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            max_request_bytes=settings.max_request_bytes,
            max_action_bytes=settings.max_action_bytes,
            streams_per_account=settings.streams_per_account,
            calls_per_second=settings.calls_per_second,
            call_burst=settings.call_burst,
            logins_per_peer=settings.logins_per_peer,
            logins_in_flight=settings.logins_in_flight,
            login_rate_per_peer=settings.login_rate_per_peer,
            login_burst_per_peer=settings.login_burst_per_peer,
            refusal_pause_ms=settings.refusal_pause_ms,
            trusted_proxies=settings.trusted_proxies,
        )

    def request_bytes(self, method: str) -> int:
        """The largest request ``method`` takes, serialized."""
        return self.max_action_bytes if method in (ACT_METHOD, PLAY_METHOD) else self.max_request_bytes

    @property
    def largest_request(self) -> int:
        """grpc's own receive limit. Below it a request larger than its method takes is refused
        unparsed with the method's own reason (INVALID_ARGUMENT ``request_too_large``); only above
        it does grpc refuse, with a RESOURCE_EXHAUSTED of its own."""
        return max(self.max_request_bytes, self.max_action_bytes, RECEIVE_CEILING_BYTES)


class Refused(Exception):
    """A call the limits turn away: RESOURCE_EXHAUSTED (INVALID_ARGUMENT for a request no valid
    one is as large as) with ``reason`` and ``error_code``; ``retry_after``: the seconds after
    which the same call would be admitted, when the limit knows (a rate's next token)."""

    def __init__(self, reason: str, error_code: str,
                 code: grpc.StatusCode = grpc.StatusCode.RESOURCE_EXHAUSTED, *,
                 retry_after: float | None = None, limit: tuple[str, object] | None = None) -> None:
        """``limit``: the limit refused by, as (its setting's name, its value)."""
        super().__init__(reason)
        self.reason = reason
        self.error_code = error_code
        self.code = code
        self.retry_after = retry_after
        self.limit = limit

    @property
    def trailing_metadata(self) -> Trailers:
        """``paiju-error-code``, and the ``ErrorInfo`` (with the limit) and ``RetryInfo`` of
        ``grpc-status-details-bin``."""
        metadata = {} if self.limit is None else {self.limit[0]: str(self.limit[1])}
        return refusal_trailers(self.code, self.reason, self.error_code, metadata=metadata,
                                retry_after=self.retry_after)


class FakeClock:
    """A clock that moves only when told (``clock.now += seconds``), for tests."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; each call takes one."""

    __slots__ = ("_clock", "_last", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int, clock: Clock = time.monotonic) -> None:
        self.rate, self.burst, self._clock = rate, burst, clock
        self._tokens = float(burst)
        self._last = clock()

    def take(self) -> bool:
        """Take a token if there is one; False when the bucket is empty."""
        self._refill()
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True

    def is_full(self) -> bool:
        self._refill()
        return self._tokens >= self.burst

    def seconds_to_next(self) -> float | None:
        """How long until a token can be taken (0 when one can now; ``None``: never, no rate)."""
        self._refill()
        return max(0.0, (1.0 - self._tokens) / self.rate) if self.rate > 0 else None

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.rate)
        self._last = now


class Buckets:
    """A token bucket per key (an account, an address), made full on first use."""

    def __init__(self, rate: float, burst: int, clock: Clock) -> None:
        self.rate, self.burst, self._clock = rate, burst, clock
        self._buckets: dict[str, TokenBucket] = {}

    def take(self, key: str) -> bool:
        """Take one of ``key``'s tokens; False when it has none left."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= IDLE_BUCKETS_KEPT:
                self._buckets = {kept: b for kept, b in self._buckets.items() if not b.is_full()}
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self._clock)
        return bucket.take()

    def seconds_to_next(self, key: str) -> float | None:
        """How long until one of ``key``'s tokens can be taken (``None``: never)."""
        bucket = self._buckets.get(key)
        return 0.0 if bucket is None else bucket.seconds_to_next()


class Counts:
    """How many of something each key holds at once, up to ``most`` each."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._held: dict[str, int] = {}

    def acquire(self, key: str) -> bool:
        held = self._held.get(key, 0)
        if held >= self.most:
            return False
        self._held[key] = held + 1
        return True

    def release(self, key: str) -> None:
        held = self._held.get(key, 0) - 1
        if held > 0:
            self._held[key] = held
        else:
            self._held.pop(key, None)

    def held(self, key: str) -> int:
        return self._held.get(key, 0)


def peer_address(peer: str) -> str:
    """The client's address without its port: the unit of the per-peer limits.

    >>> peer_address("ipv4:127.0.0.1:51234"), peer_address("ipv6:[::1]:51234"), peer_address("unix:/s")
    ('127.0.0.1', '[::1]', 'unix:/s')
    """
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        return rest.rpartition(":")[0] or rest
    return peer


def client_address(peer: str, metadata: Sequence[tuple[str, Any]], trusted: Sequence[Any]) -> str:
    """The address a call counts against: its peer's, or, when the peer is a door in ``trusted``
    (networks), the last address before the trusted hops in ``x-forwarded-for``. Addresses a
    client wrote into the header itself come before its real one, which the door appends, and
    are passed over.

    >>> doors = trusted_networks(("127.0.0.0/8",))
    >>> client_address("ipv4:127.0.0.1:5", [("x-forwarded-for", "6.6.6.6, 203.0.113.7")], doors)
    '203.0.113.7'
    >>> client_address("ipv4:198.51.100.2:5", [("x-forwarded-for", "6.6.6.6")], doors)
    '198.51.100.2'
    """
    address = peer_address(peer)
    if not _within(address, trusted):
        return address
    hops = [hop.strip() for key, value in metadata if key == "x-forwarded-for"
            for hop in (value.decode() if isinstance(value, bytes) else str(value)).split(",")]
    for hop in reversed(hops):
        if hop and not _within(hop, trusted):
            return hop
    return address


def trusted_networks(cidrs: Sequence[str]) -> list[Any]:
    """``cidrs`` parsed (e.g. ``"10.0.0.0/8"``); a malformed one is refused with its text."""
    try:
        return [ipaddress.ip_network(cidr.strip(), strict=False) for cidr in cidrs if cidr.strip()]
    except ValueError as error:
        raise ValueError(f"a trusted proxy network is malformed: {error}") from None


def _within(address: str, networks: Sequence[Any]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return False
    return any(ip in network for network in networks)


class Admission:
    """Admits or refuses each call before any work is done for it (see the module's doc).

    ``admit`` returns what to call, once, when the call ended (whatever its outcome), or raises
    :class:`Refused`. Safe from any thread: the event-loop server calls it from its loop, the
    thread-pool server (:mod:`paiju.rpc.threads_admission`) from the thread serving the call.
    """

    def __init__(self, limits: Limits, signer: TokenSigner, clock: Clock = time.monotonic,
                 shared_logins: SharedLoginBudget | None = None) -> None:
        """``shared_logins``: the deployment's per-address login budget, asked after this
        process's own admits a login."""
        self.limits = limits
        self._shared_logins = shared_logins
        self._signer = signer
        self._lock = threading.Lock()
        self._calls = Buckets(limits.calls_per_second, limits.call_burst, clock)
        self._logins_from = Buckets(limits.login_rate_per_peer, limits.login_burst_per_peer, clock)
        self._streams = Counts(limits.streams_per_account)
        self._logins_of = Counts(limits.logins_per_peer)
        self._logins_in_flight = 0
        self._doors = trusted_networks(limits.trusted_proxies)

    def admit(self, method: str, metadata: Sequence[tuple[str, Any]], peer: str, streaming: bool) -> Callable[[], None]:
        if method in PASSWORD_METHODS:
            return self._admit_login(client_address(peer, metadata, self._doors))
        caller = presented_caller(self._signer, metadata)
        if caller is None or caller.is_service:
            return _nothing  # the auth check refuses the first; Paiju's own calls are not limited
        account = caller.account_id
        with self._lock:
            if not self._calls.take(account):
                raise Refused(f"more than {self.limits.calls_per_second} calls a second: slow down", RATE_LIMITED,
                              retry_after=self._calls.seconds_to_next(account),
                              limit=("calls_per_second", self.limits.calls_per_second))
            if not streaming:
                return _nothing
            if not self._streams.acquire(account):
                raise Refused(f"at most {self.limits.streams_per_account} open streams per player; "
                              "close one first", TOO_MANY_STREAMS,
                              limit=("streams_per_account", self.limits.streams_per_account))

        def release() -> None:
            with self._lock:
                self._streams.release(account)

        return release

    def admit_call(self, method: str, request: Any, context: CallContext, streaming: bool) -> Callable[[], None]:
        """``admit`` for a call of either server whose request was read through
        :meth:`deserializer`: a request larger than its method takes is refused first, whoever
        sends it."""
        if isinstance(request, Oversized):
            raise too_large(method, request, self.limits.request_bytes(method))
        return self.admit(method, context.invocation_metadata() or (), context.peer(), streaming)

    def deserializer(self, method: str, deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any]:
        """``method``'s request deserializer, handing on a request too large for it unparsed."""
        return bounded(deserialize, self.limits.request_bytes(method))

    def _admit_login(self, address: str) -> Callable[[], None]:
        with self._lock:
            if self._logins_of.held(address) >= self._logins_of.most:
                raise Refused(f"at most {self.limits.logins_per_peer} logins at a time from one address",
                              TOO_MANY_LOGINS, limit=("logins_per_peer", self.limits.logins_per_peer))
            if self._logins_in_flight >= self.limits.logins_in_flight:
                raise Refused("too many logins at once: try again in a moment", SERVER_BUSY,
                              limit=("logins_in_flight", self.limits.logins_in_flight))
            if not self._logins_from.take(address):
                raise self._login_rate_refusal(self._logins_from.seconds_to_next(address))
            self._logins_of.acquire(address)
            self._logins_in_flight += 1
        # Outside the lock: a Redis round trip must not hold up the other calls' admission.
        if self._shared_logins is not None and not self._shared_logins.take(address):
            self._release_login(address)
            # The shared bucket says only "empty": its next token is a rate's step away at most.
            raise self._login_rate_refusal(1 / self.limits.login_rate_per_peer if self.limits.login_rate_per_peer > 0
                                           else None)
        return lambda: self._release_login(address)

    def _login_rate_refusal(self, retry_after: float | None) -> Refused:
        return Refused(f"more than {self.limits.login_rate_per_peer} logins a second from one address",
                       TOO_MANY_LOGINS, retry_after=retry_after,
                       limit=("login_rate_per_peer", self.limits.login_rate_per_peer))

    def _release_login(self, address: str) -> None:
        with self._lock:
            self._logins_of.release(address)
            self._logins_in_flight -= 1


class Oversized:
    """What a bounded deserializer hands on instead of a request that was too large to parse."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size


def bounded(deserialize: Callable[[bytes], Any] | None, most: int) -> Callable[[bytes], Any]:
    """``deserialize``, refusing (as an :class:`Oversized`) input longer than ``most`` bytes unparsed."""

    def deserialize_bounded(data: bytes) -> Any:
        if len(data) > most:
            return Oversized(len(data))
        return data if deserialize is None else deserialize(data)

    return deserialize_bounded


def too_large(method: str, oversized: Oversized, most: int) -> Refused:
    name = method.rpartition("/")[2]
    # Malformed, not a lack of capacity: no valid request of the method is that large.
    return Refused(f"a {name} request is at most {most} bytes, not {oversized.size}", TOO_LARGE,
                   grpc.StatusCode.INVALID_ARGUMENT, limit=("most_bytes", most))


def _nothing() -> None:
    """Nothing to release."""

