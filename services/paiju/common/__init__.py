"""What every Paiju process shares, whatever carries its calls: settings, session tokens, the
metadata keys and refusal words client and server agree on, metrics, logs, Redis clients.

- ``paiju.common.config``: ``Settings.from_env()``, every knob with its documented default.
- ``paiju.common.auth``: HMAC-signed expiring session tokens (``TokenSigner``, ``Caller``).
- ``paiju.common.wire``: the metadata keys and stable refusal words (no dependency beyond grpc).
- ``paiju.common.error_details``: a refusal's word as the ``google.rpc.ErrorInfo`` of the
  standard status details, written by the servers and read by the SDK.
- ``paiju.common.metrics``: the Prometheus metrics and the ``/metrics`` endpoint.
- ``paiju.common.logs``: JSON log lines carrying the ids in scope.

The gRPC plumbing (servers, interceptors, channels, statuses) is :mod:`paiju.rpc`.
"""
