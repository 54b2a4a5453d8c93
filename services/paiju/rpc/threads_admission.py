"""The limits of :mod:`paiju.rpc.limits` on grpc's thread-pool server (``PAIJU_GRPC_SERVER=threads``).

The event-loop server admits each call on its loop before the call takes a thread
(:mod:`paiju.rpc.aio_bridge`). The thread-pool server has no loop: :class:`AdmissionInterceptor`,
its outermost interceptor, admits each call first thing in the thread that serves it, with the same
:class:`~paiju.rpc.limits.Admission` and the same answers: the status and short reason of the
refusal, its word in ``paiju-error-code``, the refusal counted, and a request larger than its
method takes refused unparsed.

What it cannot do is refuse without a thread: a flood waits in the pool's queue for a thread that
refuses it, and a refusal's pause holds its thread. So at most ``most_paused`` refusals pause at
once (a quarter of the pool, from :func:`~paiju.rpc.server.start_server`) and the others are
answered at once, leaving the rest of the pool to the honest calls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from paiju.rpc.interceptor import behaviour_of, rebuilt_with
from paiju.rpc.limits import Admission, Refused


class AdmissionInterceptor(grpc.ServerInterceptor):
    """Admits or refuses every call against ``admission`` before anything else serves it.

    ``on_refused`` is told of every refusal (the full method, the refusal's error code), as the
    event-loop server tells it: the metrics count them. Client-streaming methods (server reflection
    only; none in ``paiju.v1``) pass unadmitted, as the event-loop server serves reflection itself.
    """

    def __init__(self, admission: Admission, most_paused: int,
                 on_refused: Callable[[str, str], None] = lambda method, reason: None) -> None:
        self._admission = admission
        self._on_refused = on_refused
        self._pause_seconds = admission.limits.refusal_pause_ms / 1000
        self._pauses = threading.BoundedSemaphore(most_paused) if most_paused > 0 else None

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None or handler.request_streaming:
            return handler
        method = handler_call_details.method
        behaviour = behaviour_of(handler)

        def serve_unary(request: Any, context: grpc.ServicerContext) -> Any:
            release = self._admit(method, request, context, streaming=False)
            try:
                return behaviour(request, context)
            finally:
                release()

        def serve_stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            release = self._admit(method, request, context, streaming=True)
            try:
                yield from behaviour(request, context)
            finally:
                release()  # ended, aborted, or closed because the client went away

        deserializer = self._admission.deserializer(method, handler.request_deserializer)
        return rebuilt_with(handler, serve_stream if handler.response_streaming else serve_unary, deserializer)

    def _admit(self, method: str, request: Any, context: grpc.ServicerContext,
               streaming: bool) -> Callable[[], None]:
        """What to call when the call ended; a call over the limits ends here, refused."""
        try:
            return self._admission.admit_call(method, request, context, streaming)
        except Refused as refused:
            self._on_refused(method, refused.error_code)
            self._pause_before_refusing()
            context.set_trailing_metadata(refused.trailing_metadata)
            context.abort(refused.code, refused.reason)
            raise AssertionError("grpc's context.abort returned") from None

    def _pause_before_refusing(self) -> None:
        if self._pause_seconds <= 0 or self._pauses is None or not self._pauses.acquire(blocking=False):
            return
        try:
            time.sleep(self._pause_seconds)  # slows a client that retries in a loop (see limits)
        finally:
            self._pauses.release()
