"""Session tokens: HMAC-SHA256 signed, expiring, checked in constant time.

A token is ``v2.<key id>.<payload>.<signature>``: the payload is base64url JSON naming the
account, its display name, its role, the expiry (whole Unix seconds) and when it was issued
(``iat``: Unix seconds to the millisecond, so that a password changed within a second still
tells the sessions before it from the one after; tokens issued before ``iat`` existed lack it
and stay valid until they expire); the signature is
base64url HMAC-SHA256 over ``v2.<key id>.<payload>`` with the secret the key id names. The server
keeps no session table: any replica holding the secret verifies any token.

The key id lets the secret be rotated without logging everyone out: a new ``PAIJU_SECRET`` signs
new tokens, and the old one, kept in ``PAIJU_PREVIOUS_SECRETS``, still verifies those it signed
until they expire. (``v1`` tokens, which name no key, are tried with every secret held.)

>>> now = [1_700_000_000.0]
>>> signer = TokenSigner(b"a secret of at least sixteen bytes", clock=lambda: now[0])
>>> token = signer.issue("42", "lihua", ttl=60)
>>> caller = signer.verify(token)
>>> caller.account_id, caller.username, caller.role, caller.expires_at, caller.issued_at_ms
('42', 'lihua', <Role.PLAYER: 'player'>, 1700000060, 1700000000000)
>>> now[0] += 60
>>> signer.verify(token)
Traceback (most recent call last):
...
paiju.common.auth.ExpiredTokenError: the session token expired at 1700000060; log in again
"""

from __future__ import annotations

import base64
import binascii
import enum
import hashlib
import hmac
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

TOKEN_VERSION = "v2"
UNKEYED_VERSION = "v1"
"""Tokens issued before they named their key."""
MIN_SECRET_BYTES = 16
MAX_TOKEN_CHARS = 4096
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")

Clock = Callable[[], float]
"""Seconds since the Unix epoch, like ``time.time``; tests pass their own."""


class TokenError(ValueError):
    """A session token was refused. The subclass says why; the message is safe to show."""


class MalformedTokenError(TokenError):
    """The text is not a session token of this service at all."""


class BadSignatureError(TokenError):
    """The token's signature does not match: forged, altered, or signed with another secret."""


class ExpiredTokenError(TokenError):
    """The token was genuine but its time is up."""


class Role(enum.StrEnum):
    """What a token's holder may do."""

    PLAYER = "player"
    """A person playing: public services, acting for their own account."""
    OPERATOR = "operator"
    """A person operating the platform: may also watch tables (public information only)."""
    SERVICE = "service"
    """Another Paiju service: may also call the internal services."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who made a call, as their verified session token says."""

    account_id: str
    username: str
    role: Role
    expires_at: int
    """Whole Unix seconds; the token is refused from this moment on."""
    issued_at_ms: int | None = None
    """Unix milliseconds of the token's ``iat``; ``None`` for a token issued before it had one."""

    @property
    def is_service(self) -> bool:
        """Whether the caller is another Paiju service."""
        return self.role is Role.SERVICE


VERIFIED_TOKENS_KEPT = 20_000
"""Tokens whose signature a signer remembers having checked (about one per connected player)."""


class TokenSigner:
    """Issues and verifies session tokens with one secret.

    ``clock`` gives the current time in Unix seconds (``time.time`` by default).
    """

    def __init__(self, secret: bytes, *, previous: tuple[bytes, ...] = (), clock: Clock = time.time) -> None:
        for held in (secret, *previous):
            if not isinstance(held, bytes) or len(held) < MIN_SECRET_BYTES:
                raise ValueError(f"the token secret must be at least {MIN_SECRET_BYTES} bytes")
        self._secret = secret
        self._key_id = key_id(secret)
        self._keys = {key_id(held): held for held in (*previous, secret)}
        """Every secret this signer verifies with, by its key id (the current one signs)."""
        self._clock = clock
        self._verified: dict[str, Caller] = {}

    def issue(self, account_id: str, username: str, ttl: int, role: Role = Role.PLAYER, *,
              issued_at_ms: int | None = None) -> str:
        """A token for ``account_id`` that is accepted for the next ``ttl`` seconds.

        ``issued_at_ms`` (Unix milliseconds, the clock's now by default) is its ``iat``: a session
        that must outlive a "sessions valid after" stamp is issued at that stamp."""
        if not isinstance(account_id, str) or not account_id:
            raise ValueError("a token names a non-empty account_id")
        if not isinstance(username, str):
            raise TypeError(f"the username of a token is text, not {type(username).__name__}")
        if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl <= 0:
            raise ValueError(f"a token lives a positive whole number of seconds, not {ttl!r}")
        now = self._clock()
        issued = math.floor(now * 1000) if issued_at_ms is None else issued_at_ms
        claims = {
            "sub": account_id,
            "name": username,
            "role": Role(role).value,
            "exp": math.floor(now) + ttl,
            "iat": issued / 1000,
        }
        payload = _encode(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
        signed = f"{TOKEN_VERSION}.{self._key_id}.{payload}"
        return f"{signed}.{_signature(self._secret, signed)}"

    def issue_service_token(self, service: str, ttl: int) -> str:
        """A token of the ``service`` role for one Paiju service, e.g. ``"lobby"``.

        Services send it on their calls to each other's internal services.
        """
        if not service:
            raise ValueError("a service token names its service")
        return self.issue(f"service:{service}", service, ttl, Role.SERVICE)

    def verify(self, token: str) -> Caller:
        """The caller a token stands for.

        Raises ``MalformedTokenError``, ``BadSignatureError`` or ``ExpiredTokenError``.
        """
        if not isinstance(token, str) or not token:
            raise MalformedTokenError("no session token given")
        known = self._verified.get(token)
        if known is not None:
            # A player sends the same token with every call; its signature was checked once.
            if self._clock() >= known.expires_at:
                raise ExpiredTokenError(f"the session token expired at {known.expires_at}; log in again")
            return known
        if len(token) > MAX_TOKEN_CHARS:
            raise MalformedTokenError("the session token is too long")
        parts = token.split(".")
        if len(parts) == 4 and parts[0] == TOKEN_VERSION:
            _, kid, payload, signature = parts
            secret = self._keys.get(kid)
            if secret is None:
                raise BadSignatureError("the session token was signed with a key this server does not hold")
            candidates = [secret]
        elif len(parts) == 3 and parts[0] == UNKEYED_VERSION:
            _, payload, signature = parts
            candidates = list(self._keys.values())
        else:
            raise MalformedTokenError("the session token is malformed")
        if not (_BASE64URL.fullmatch(payload) and _BASE64URL.fullmatch(signature)):
            raise MalformedTokenError("the session token is malformed")
        signed = token[: len(token) - len(signature) - 1]
        # The signature is compared as text so that a non-canonical base64 spelling of the right
        # bytes is refused too; every altered token fails.
        if not any(hmac.compare_digest(_signature(held, signed).encode("ascii"), signature.encode("ascii"))
                   for held in candidates):
            raise BadSignatureError("the session token's signature is not valid")
        caller = _caller_from_claims(_decode_claims(payload))
        if self._clock() >= caller.expires_at:
            raise ExpiredTokenError(
                f"the session token expired at {caller.expires_at}; log in again"
            )
        if len(self._verified) >= VERIFIED_TOKENS_KEPT:
            self._verified.clear()  # simpler than LRU order, and refilled within a round of calls
        self._verified[token] = caller
        return caller



def key_id(secret: bytes) -> str:
    """The name of a secret in the tokens it signs: a short digest that tells nothing of it.

    >>> key_id(b"a secret of at least sixteen bytes")
    'AN1Lj2eA'
    """
    return _encode(hashlib.blake2b(secret, digest_size=6, person=b"paiju-token-kid").digest())


def _signature(secret: bytes, signed: str) -> str:
    return _encode(hmac.new(secret, signed.encode("ascii"), hashlib.sha256).digest())


def _encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _decode_claims(payload: str) -> dict[str, Any]:
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        claims = json.loads(raw)
    except (binascii.Error, ValueError):
        raise MalformedTokenError("the session token's payload is malformed") from None
    if not isinstance(claims, dict):
        raise MalformedTokenError("the session token's payload is malformed")
    return claims


def _caller_from_claims(claims: dict[str, Any]) -> Caller:
    account_id, username = claims.get("sub"), claims.get("name")
    role, expires_at = claims.get("role"), claims.get("exp")
    issued_at = claims.get("iat")
    if (
        not isinstance(account_id, str)
        or not account_id
        or not isinstance(username, str)
        or role not in Role._value2member_map_
        or isinstance(expires_at, bool)
        or not isinstance(expires_at, int)
        or isinstance(issued_at, bool)
        or not isinstance(issued_at, int | float | None)
        or (isinstance(issued_at, float) and not math.isfinite(issued_at))
    ):
        raise MalformedTokenError("the session token's payload is malformed")
    issued_at_ms = None if issued_at is None else round(issued_at * 1000)
    return Caller(account_id, username, Role(role), expires_at, issued_at_ms)
