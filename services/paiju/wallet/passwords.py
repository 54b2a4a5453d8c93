"""Password hashes with scrypt: a random salt per password and the cost stored with the hash.

A stored hash reads ``scrypt$<n>$<r>$<p>$<salt>$<digest>`` (salt and digest in base64), so
the cost can be raised later without breaking the passwords already stored.

>>> hasher = PasswordHasher(n=2**4)
>>> stored = hasher.hash("secret")
>>> stored.startswith("scrypt$16$8$1$"), hasher.verify("secret", stored), hasher.verify("x", stored)
(True, True, False)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

SALT_BYTES = 16
DIGEST_BYTES = 32


@dataclass(frozen=True, slots=True)
class PasswordHasher:
    """scrypt with cost ``n`` (a power of two), block size ``r`` and parallelism ``p``.

    The default costs about 16 MiB and some tens of milliseconds per hash; tests may pass a
    smaller ``n`` to run fast. Hashes are computed by ``concurrency`` threads of their own (the
    callers wait): a flood of logins then takes that many cores and that many times 16 MiB, no
    more; and those threads run at a lower priority (:data:`HASHING_NICENESS`), so that on a
    busy machine the event loop serving the players goes first.
    """

    n: int = 2**14
    r: int = 8
    p: int = 1
    concurrency: int = field(default=max(1, (os.cpu_count() or 2) - 1), compare=False)
    _hashing: ThreadPoolExecutor = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.n < 2 or self.n & (self.n - 1):
            raise ValueError(f"the scrypt cost n is a power of two above 1, got {self.n}")
        if self.r < 1 or self.p < 1:
            raise ValueError("the scrypt parameters r and p are at least 1")
        if self.concurrency < 1:
            raise ValueError(f"at least one hash must be computed at a time, not {self.concurrency}")
        hashing = ThreadPoolExecutor(self.concurrency, "password-hashing", initializer=_lower_priority)
        object.__setattr__(self, "_hashing", hashing)

    def hash(self, password: str) -> str:
        """A new salted hash of ``password``, parameters included."""
        salt = os.urandom(SALT_BYTES)
        digest = self._bounded_scrypt(password, salt, self.n, self.r, self.p)
        return "$".join(
            ("scrypt", str(self.n), str(self.r), str(self.p), _b64(salt), _b64(digest))
        )

    def verify(self, password: str, stored: str) -> bool:
        """Whether ``password`` matches ``stored``, compared in constant time.

        A malformed ``stored`` matches nothing.
        """
        try:
            scheme, n, r, p, salt, digest = stored.split("$")
            if scheme != "scrypt":
                return False
            expected = base64.b64decode(digest, validate=True)
            salt_bytes = base64.b64decode(salt, validate=True)
            actual = self._bounded_scrypt(password, salt_bytes, int(n), int(r), int(p))
        except (ValueError, TypeError):
            return False
        return hmac.compare_digest(actual, expected)

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with other parameters than this hasher's (a cost raised
        since): the next login that proves the password stores it again at today's cost.

        >>> PasswordHasher(n=2**5).needs_rehash(PasswordHasher(n=2**4).hash("secret"))
        True
        >>> PasswordHasher(n=2**4).needs_rehash(PasswordHasher(n=2**4).hash("secret"))
        False
        """
        try:
            scheme, n, r, p, _salt, _digest = stored.split("$")
        except ValueError:
            return True
        return (scheme, n, r, p) != ("scrypt", str(self.n), str(self.r), str(self.p))

    def waste_time(self, password: str) -> None:
        """Spend what a verification costs, so an unknown username takes as long as a known one."""
        self._bounded_scrypt(password, b"\0" * SALT_BYTES, self.n, self.r, self.p)

    def _bounded_scrypt(self, password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
        return self._hashing.submit(lambda: _scrypt(password, salt, n, r, p)).result()


HASHING_NICENESS = 10
"""How much lower than the server's other threads the hashing threads run (Linux: per thread)."""


def _lower_priority() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASHING_NICENESS)
    except (AttributeError, OSError):  # not Linux, or not allowed: hash at the usual priority
        pass


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"),
        salt=salt,
        n=n,
        r=r,
        p=p,
        # scrypt needs 128·n·r·p bytes; the default 32 MiB limit would refuse larger costs.
        maxmem=128 * n * r * p + 2**20,
        dklen=DIGEST_BYTES,
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
