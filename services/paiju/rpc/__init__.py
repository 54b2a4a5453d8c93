"""The gRPC plumbing every service is served and called through, apart from what the services
mean: the servers, the interceptors around every call, the client channels, and how an RPC ends.

- ``paiju.rpc.server``: ``start_server``, a gRPC server with health checking and reflection, on
  one asyncio event loop (``paiju.rpc.aio_bridge``) or grpc's thread pool.
- ``paiju.rpc.interceptor``: the auth interceptor and ``current_caller()``.
- ``paiju.rpc.limits``: what one client may ask (sizes, rates, streams, logins), admitted before
  any work; ``paiju.rpc.threads_admission`` does it on the thread-pool server.
- ``paiju.rpc.timing``: the interceptor that times every RPC into the metrics.
- ``paiju.rpc.errors``: ending an RPC with a status code and a stable error word (in
  ``paiju-error-code`` and the ``ErrorInfo`` of the status details);
  ``paiju.rpc.failures`` the last resort for an exception no servicer answered.
- ``paiju.rpc.channels``: client channels presenting a token (``authorized_channel``).

It builds on :mod:`paiju.common` and knows no service and no game.
"""
