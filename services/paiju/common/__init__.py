"""What every Paiju service shares: settings, session tokens, the auth interceptor, the server.

- ``paiju.common.config``: ``Settings.from_env()``, every knob with its documented default.
- ``paiju.common.auth``: HMAC-signed expiring session tokens (``TokenSigner``, ``Caller``).
- ``paiju.common.interceptor``: the gRPC auth interceptor and ``current_caller()``.
- ``paiju.common.channels``: client channels presenting a token (``authorized_channel``).
- ``paiju.common.errors``: aborting an RPC with a status code and a stable error word.
- ``paiju.common.server``: ``start_server``, a gRPC server with health checking and reflection.
"""
