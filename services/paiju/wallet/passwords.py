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
from dataclasses import dataclass

SALT_BYTES = 16
DIGEST_BYTES = 32


@dataclass(frozen=True, slots=True)
class PasswordHasher:
    """scrypt with cost ``n`` (a power of two), block size ``r`` and parallelism ``p``.

    The default costs about 16 MiB and some tens of milliseconds per hash; tests may pass a
    smaller ``n`` to run fast.
    """

    n: int = 2**14
    r: int = 8
    p: int = 1

    def __post_init__(self) -> None:
        if self.n < 2 or self.n & (self.n - 1):
            raise ValueError(f"the scrypt cost n is a power of two above 1, got {self.n}")
        if self.r < 1 or self.p < 1:
            raise ValueError("the scrypt parameters r and p are at least 1")

    def hash(self, password: str) -> str:
        """A new salted hash of ``password``, parameters included."""
        salt = os.urandom(SALT_BYTES)
        digest = _scrypt(password, salt, self.n, self.r, self.p)
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
            actual = _scrypt(password, salt_bytes, int(n), int(r), int(p))
        except (ValueError, TypeError):
            return False
        return hmac.compare_digest(actual, expected)

    def waste_time(self, password: str) -> None:
        """Spend what a verification costs, so an unknown username takes as long as a known one."""
        _scrypt(password, b"\0" * SALT_BYTES, self.n, self.r, self.p)


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
