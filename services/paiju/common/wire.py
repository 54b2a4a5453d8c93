"""What server and clients agree on beyond the protos: the metadata keys a call carries and the
stable words of the refusals a client branches on. No dependency beyond grpc, so the SDK
(``paiju.client``) installs and imports without the server's.

>>> trailer(object(), ERROR_CODE_KEY) is None
True
"""

from __future__ import annotations

import grpc

AUTHORIZATION_KEY = "authorization"
"""The metadata (a header, in gRPC-Web) that carries ``Bearer <token>``."""
ERROR_CODE_KEY = "paiju-error-code"
"""The trailing metadata with a refusal's stable word, where a program must branch on it."""
CURRENT_VERSION_KEY = "paiju-current-version"
"""The trailing metadata of a stale move: the table's version now."""
TOO_MANY_LOGINS = "too_many_logins"
SERVER_BUSY = "server_busy"


def trailer(error: grpc.RpcError, key: str) -> str | None:
    """A trailing metadata value of a failed call, client side (``None`` when absent)."""
    trailing = getattr(error, "trailing_metadata", None)
    if trailing is None:
        return None
    for name, value in trailing() or ():
        if name == key:
            return value if isinstance(value, str) else value.decode("utf-8", "replace")
    return None
