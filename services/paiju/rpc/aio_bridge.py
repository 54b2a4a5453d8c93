"""Serve the synchronous servicers from one asyncio event loop: no thread per call or stream.

With grpc's thread-pool server every open Watch stream holds a thread, and every call and every
streamed message hands work from thread to thread. On a 2-core machine those hand-offs (the GIL
passing between a hundred threads, the context switches) cost more than the games themselves:
``bench/bot_tables.py`` counted about 470 context switches per action at 20 tables.

This server runs the very same servicers and interceptors (auth, metrics) on one event-loop
thread of a ``grpc.aio`` server:

* a method a binding lists as ``inline`` (it only touches Redis: a millisecond or two) runs on
  the loop itself, one call after another, with no hand-off at all;
* any other method (SQL, password hashing, a call to another service) runs in a thread pool;
* a method a binding lists as ``loop_first`` (it usually needs Redis only, now and then more)
  runs on the loop; when it finds there that it must wait, it raises :class:`OffTheLoop`
  before changing anything, and runs again, in the thread pool;
* a stream whose servicer can wait without blocking (``TableService.Watch``) lives on the loop: when it
  has nothing to send it yields :data:`WAITING`, and the loop resumes it once its
  :meth:`BridgedContext.wake` is called (from any thread);
* a stream both ways (``TableService.Play``) lives on the loop the same way; its servicer gets the
  request that opened it and, at each step, the requests that came since
  (:class:`StreamRequests`), each of which wakes it; a step that must wait is handed to the
  thread pool (:meth:`BridgedContext.off_the_loop`) and wakes the stream when done;
* before any of that, on the loop, the call passes the server's limits
  (:class:`~paiju.rpc.limits.Admission`): a request too large, a player over their rate or
  streams, a login flood is refused at once and never waits for a thread (its answer is
  paused, on a timer, to slow a client that retries in a loop).

A servicer sees a :class:`BridgedContext`, which answers the synchronous ``ServicerContext``
calls the servicers make (``abort``, ``set_trailing_metadata``, ``is_active``, ``code`` …).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from typing import Any

import grpc

from paiju.rpc.errors import refusal_trailers
from paiju.rpc.failures import answer_for
from paiju.rpc.limits import MOST_PAUSED_REFUSALS, Admission, Refused

Continuation = Callable[[grpc.HandlerCallDetails], "grpc.RpcMethodHandler | None"]
"""What a server interceptor calls to go on: a call's details to its method handler."""

log = logging.getLogger(__name__)


class _Waiting:
    def __repr__(self) -> str:
        return "WAITING"


WAITING: Any = _Waiting()
"""Yielded by a stream served on the loop when it has nothing to send yet: the loop resumes it
after its context's :meth:`BridgedContext.wake`. Never sent to the client."""

_END = object()

MOST_WAITING_REQUESTS = 64
"""Requests of a stream both ways read but not yet taken by its servicer, at most."""


class OffTheLoop(BaseException):
    """Raised by a ``loop_first`` servicer run on the event loop that finds it must wait
    (SQL, another service), before it changed anything: the bridge runs the call again in its
    thread pool. A ``BaseException``, so that the interceptors' last resort for unexpected
    errors lets it through untouched."""


class _Aborted(Exception):
    """A servicer ended its call with a status (``context.abort``)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class BridgedContext:
    """The synchronous ``grpc.ServicerContext`` a servicer sees, over an aio call's context."""

    def __init__(self, context: grpc.aio.ServicerContext, loop: asyncio.AbstractEventLoop, on_loop: bool,
                 runs_on_loop: bool | None = None, pool: futures.Executor | None = None) -> None:
        self._context = context
        self._loop = loop
        self._pool = pool
        self.runs_on_loop = on_loop if runs_on_loop is None else runs_on_loop
        """True while the servicer runs on the event loop: it must not block (a ``loop_first``
        method raises :class:`OffTheLoop` instead)."""
        self._code: grpc.StatusCode | None = None
        self._details = ""
        self._waits_on_loop = on_loop
        self._woken_meanwhile = False
        """A wake came while the stream was not waiting: its next wait ends at once."""
        self._waiter: asyncio.Future[None] | None = None
        self._ended = False
        """Set when the call's coroutine ends: a cancelled call never reports ``done()``."""

    # --- what the servicers and interceptors call -----------------------------------------

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details
        raise _Aborted(code, details)

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code
        self._context.set_code(code)

    def set_details(self, details: str) -> None:
        self._details = details
        self._context.set_details(details)

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str:
        return self._details

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, str | bytes]]) -> None:
        self._context.set_trailing_metadata(tuple(metadata))

    def invocation_metadata(self) -> Any:
        return self._context.invocation_metadata()

    def peer(self) -> str:
        return self._context.peer()

    def time_remaining(self) -> float | None:
        return self._context.time_remaining()

    def is_active(self) -> bool:
        # grpc.aio's done() turns true only once a status was sent, never for a call the
        # client cancelled: a servicer looping on is_active would then loop forever.
        return not (self._ended or self._context.done())

    # --- streams that wait on the loop ----------------------------------------------------

    @property
    def waits_on_loop(self) -> bool:
        """True when the stream runs on the event loop: it must yield :data:`WAITING` instead
        of blocking, and have :meth:`wake` called when it has something to send."""
        return self._waits_on_loop

    def wake(self) -> None:
        """Resume a stream waiting on the loop (thread-safe; extra wakes are harmless)."""
        if not self._waits_on_loop:
            return
        if _running_loop() is self._loop:
            # A commit made on the loop wakes its table's streams: set at once, rather than
            # through the loop's wake-up pipe (a system call and another turn of the loop each).
            self._set_woken()
        else:
            self._loop.call_soon_threadsafe(self._set_woken)

    def off_the_loop(self, work: Callable[[], Any]) -> futures.Future[Any]:
        """Run ``work`` in the server's thread pool, in the servicer's scope (its caller, its log
        context), and wake the stream once it is done: how a stream served on the loop has one
        step that must wait (SQL, another service) done without holding the loop up."""
        if self._pool is None:
            raise RuntimeError("this call was given no thread pool: it may not leave the event loop")
        done = self._pool.submit(contextvars.copy_context().run, work)
        done.add_done_callback(lambda _: self.wake())
        return done

    def wake_later(self, seconds: float) -> None:
        """Resume a stream waiting on the loop after ``seconds`` (called from the loop)."""
        if self._waits_on_loop:
            self._loop.call_later(seconds, self._set_woken)

    def _set_woken(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is None:
            self._woken_meanwhile = True
        elif not waiter.done():  # a cancelled call cancelled it
            waiter.set_result(None)

    def _until_woken(self) -> asyncio.Future[None] | None:
        """What the stream awaits until its next wake, or None when one came meanwhile.

        A bare future, not an ``asyncio.Event``: a parked stream's wait is what lives until
        its table's next commit, and every garbage collection until then walks it; an event's
        wait is two coroutines more."""
        if self._woken_meanwhile:
            self._woken_meanwhile = False
            return None
        self._waiter = self._loop.create_future()
        return self._waiter


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a thread without a running loop
        return None


class StreamRequests:
    """The requests of a stream both ways, as its servicer on the event loop takes them: the one
    that opened the stream, then at each step those that came since, never waiting for one.

    At most :data:`MOST_WAITING_REQUESTS` wait to be taken: until the servicer takes them, the
    next is not read, so a client that sends faster than its requests are served is held back
    by the transport's flow control instead of filling the server's memory."""

    def __init__(self, first: Any) -> None:
        self.first = first
        self._came: deque[tuple[Any, Refused | None]] = deque()
        self._room = asyncio.Event()
        self._room.set()

    def take(self) -> list[tuple[Any, Refused | None]]:
        """The requests that came since the last take, oldest first, each with the server's
        limits' refusal of it (``None``: admitted). A refused request was not served: the
        servicer answers it with the refusal, or ends the stream with it."""
        taken = list(self._came)
        self._came.clear()
        self._room.set()
        return taken

    def has_come(self) -> bool:
        """Whether a request came since the last take."""
        return bool(self._came)

    def waiting(self) -> tuple[Any, ...]:
        """The requests that came since the last take, left where they are."""
        return tuple(request for request, _ in self._came)

    def _came_in(self, request: Any, refusal: Refused | None) -> None:
        self._came.append((request, refusal))
        if len(self._came) >= MOST_WAITING_REQUESTS:
            self._room.clear()

    async def _until_room(self) -> None:
        await self._room.wait()


class _Steps:
    """A synchronous response iterator advanced one step at a time (on the loop, or in worker
    threads) and closed only between steps: a generator cannot be closed while a thread runs it."""

    def __init__(self, responses: Iterator[Any]) -> None:
        self._responses = responses
        self._lock = threading.Lock()

    def step(self) -> Any:
        with self._lock:
            return next(self._responses, _END)

    def close(self) -> None:
        with self._lock:
            close = getattr(self._responses, "close", None)
            if close is not None:
                close()


class BridgeHandler(grpc.GenericRpcHandler):
    """Finds a method's synchronous handler, runs the interceptors over it as a thread-pool
    server would, and serves the result from the event loop."""

    def __init__(
        self,
        handlers: dict[str, grpc.RpcMethodHandler],
        interceptors: Sequence[grpc.ServerInterceptor],
        inline: frozenset[str],
        pool: futures.ThreadPoolExecutor,
        loop: asyncio.AbstractEventLoop,
        admission: Admission,
        on_refused: Callable[[str, str], None] = lambda method, reason: None,
        loop_first: frozenset[str] = frozenset(),
    ) -> None:
        self._handlers = handlers
        self._intercepted = _chained(tuple(interceptors), lambda call: self._handlers.get(call.method))
        self._inline = inline
        self._loop_first = loop_first
        self._pool = pool
        self._loop = loop
        self._admission = admission
        self._on_refused = on_refused
        """Told of every refusal (the method, the refusal's error code): the metrics count them."""
        self._paused_refusals = 0

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        method = handler_call_details.method
        if method not in self._handlers:
            return None
        handler = self._intercepted(handler_call_details)
        if handler is None:
            return None
        on_loop = method in self._inline
        if handler.request_streaming:
            if not (handler.response_streaming and on_loop):
                return _unbridged(method, handler)
            behaviour = self._both_ways(method, handler.stream_stream)
            factory = grpc.stream_stream_rpc_method_handler
        elif handler.response_streaming:
            behaviour = self._stream(method, handler.unary_stream, on_loop)
            factory = grpc.unary_stream_rpc_method_handler
        else:
            behaviour = self._unary(method, handler.unary_unary, on_loop, method in self._loop_first)
            factory = grpc.unary_unary_rpc_method_handler
        deserializer = self._admission.deserializer(method, handler.request_deserializer)
        return factory(behaviour, request_deserializer=deserializer, response_serializer=handler.response_serializer)

    async def _admit(self, method: str, request: Any, context: grpc.aio.ServicerContext,
                     streaming: bool) -> Callable[[], None]:
        """What to call when the call ended; a call over the limits ends here, refused."""
        try:
            return self._admission.admit_call(method, request, context, streaming)
        except Refused as refused:
            self._on_refused(method, refused.error_code)
            await self._pause_before_refusing()
            context.set_trailing_metadata(refused.trailing_metadata)
            await context.abort(refused.code, refused.reason)
            raise AssertionError("grpc's context.abort returned") from None

    async def _pause_before_refusing(self) -> None:
        pause = self._admission.limits.refusal_pause_ms / 1000
        if pause <= 0 or self._paused_refusals >= MOST_PAUSED_REFUSALS:
            return
        self._paused_refusals += 1
        try:
            await asyncio.sleep(pause)
        finally:
            self._paused_refusals -= 1

    def _unary(self, method: str, behaviour: Callable[..., Any], on_loop: bool,
               loop_first: bool = False) -> Callable[..., Any]:
        async def serve(request: Any, context: grpc.aio.ServicerContext) -> Any:
            release = await self._admit(method, request, context, streaming=False)
            bridged = BridgedContext(context, self._loop, on_loop=False, runs_on_loop=on_loop or loop_first)
            try:
                if on_loop or loop_first:
                    try:
                        return behaviour(request, bridged)
                    except OffTheLoop:
                        if on_loop:
                            raise
                    bridged = BridgedContext(context, self._loop, on_loop=False)
                return await self._loop.run_in_executor(self._pool, behaviour, request, bridged)
            except OffTheLoop as error:
                await _failed(context, bridged, RuntimeError(f"{method} may not leave the event loop here"))
                raise AssertionError("grpc's context.abort returned") from error
            except _Aborted as aborted:
                await context.abort(aborted.code, aborted.details)
            except Exception as error:  # noqa: BLE001 - answered without internals, logged
                await _failed(context, bridged, error)
            finally:
                bridged._ended = True
                release()

        return serve

    def _stream(self, method: str, behaviour: Callable[..., Any], on_loop: bool) -> Callable[..., Any]:
        async def serve(request: Any, context: grpc.aio.ServicerContext) -> None:
            release = await self._admit(method, request, context, streaming=True)
            bridged = BridgedContext(context, self._loop, on_loop=on_loop)
            try:
                await self._send(_Steps(iter(behaviour(request, bridged))), bridged, context)
            finally:
                release()

        return serve

    def _both_ways(self, method: str, behaviour: Callable[..., Any]) -> Callable[..., Any]:
        async def serve(_requests: Any, context: grpc.aio.ServicerContext) -> None:
            first = await context.read()
            if first is grpc.aio.EOF:
                return  # closed before it opened: nothing was asked
            release = await self._admit(method, first, context, streaming=True)
            bridged = BridgedContext(context, self._loop, on_loop=True, pool=self._pool)
            requests = StreamRequests(first)
            reading = self._loop.create_task(self._read_requests(method, context, requests, bridged))
            try:
                await self._send(_Steps(iter(behaviour(requests, bridged))), bridged, context)
            finally:
                reading.cancel()
                release()

        return serve

    async def _read_requests(self, method: str, context: grpc.aio.ServicerContext, requests: StreamRequests,
                             bridged: BridgedContext) -> None:
        """Hand each later request of a stream both ways to its servicer, admitted as a call of
        its own (a request too large, or a player over their rate, comes with its refusal)."""
        try:
            while True:
                await requests._until_room()
                request = await context.read()
                if request is grpc.aio.EOF:
                    break
                refusal = None
                try:
                    self._admission.admit_call(method, request, context, streaming=False)
                except Refused as refused:
                    self._on_refused(method, refused.error_code)
                    refusal = refused
                requests._came_in(request, refusal)
                bridged.wake()
        except Exception as error:  # noqa: BLE001 - grpc's own (usage, abort) when the call ended
            log.debug("%s: reading requests ended: %r", method, error)

    async def _send(self, responses: _Steps, bridged: BridgedContext, context: grpc.aio.ServicerContext) -> None:
        """Step a stream's servicer and write what it yields until it ends, fails or is cancelled."""
        on_loop = bridged.waits_on_loop
        step: futures.Future[Any] | None = None
        try:
            while True:
                if on_loop:
                    response = responses.step()
                else:
                    step = self._pool.submit(responses.step)
                    response = await asyncio.wrap_future(step)
                if response is _END:
                    return
                if response is WAITING:
                    woken = bridged._until_woken()
                    if woken is not None:
                        await woken
                    continue
                await context.write(response)
        except _Aborted as aborted:
            await context.abort(aborted.code, aborted.details)
        except Exception as error:  # noqa: BLE001 - answered without internals, logged
            await _failed(context, bridged, error)
        finally:
            # Cancelled or ended: run the servicer's cleanup (its ``finally``) as it would run
            # under the thread-pool server; off the loop if it ran off the loop, once the step in
            # flight (if any) returned, so that no second thread waits for it.
            bridged._ended = True
            if on_loop:
                responses.close()
            elif step is None or step.done():
                self._pool.submit(responses.close)
            else:
                step.add_done_callback(lambda _: self._pool.submit(responses.close))


def _unbridged(method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
    """A client stream the bridge cannot serve (only streams both ways that live on the loop):
    answered UNIMPLEMENTED, as grpc answers a method nobody serves."""

    async def refuse(_requests: Any, context: grpc.aio.ServicerContext) -> None:
        code, message = grpc.StatusCode.UNIMPLEMENTED, f"{method.rpartition('/')[2]} is not served here"
        context.set_trailing_metadata(refusal_trailers(code, message))
        await context.abort(code, message)

    factory = grpc.stream_stream_rpc_method_handler if handler.response_streaming else grpc.stream_unary_rpc_method_handler
    return factory(refuse, request_deserializer=handler.request_deserializer,
                   response_serializer=handler.response_serializer)


def _chained(
    interceptors: Sequence[grpc.ServerInterceptor], handler_of: Continuation
) -> Continuation:
    """The method handler of a call through ``interceptors``, each given the next as its
    continuation and the last ``handler_of``.

    Built once per server: a continuation that named itself, built per call, left every call
    a reference cycle (~10 objects) that only a garbage collection frees, and full collections
    are what pause the event loop longest.
    """
    continuation = handler_of
    for interceptor in reversed(interceptors):
        continuation = functools.partial(interceptor.intercept_service, continuation)
    return continuation


async def _failed(context: grpc.aio.ServicerContext, bridged: BridgedContext, error: Exception) -> None:
    """A servicer raised past every interceptor: the code it set before raising (e.g.
    UNIMPLEMENTED), else what :func:`~paiju.rpc.failures.answer_for` says; never the
    exception's text."""
    code = bridged.code()
    answer = answer_for(error)
    if code is None or code is grpc.StatusCode.OK:
        log.error("the servicer failed: %s", answer.error_code, exc_info=error)
        context.set_trailing_metadata(refusal_trailers(answer.code, answer.message, answer.error_code))
        await context.abort(answer.code, answer.message)
    message = bridged.details() or answer.message
    context.set_trailing_metadata(refusal_trailers(code, message))
    await context.abort(code, message)


class HandlerCollector:
    """Stands in for a ``grpc.Server`` to the generated ``add_*Servicer_to_server`` functions and
    keeps the method handlers they register, by full method name."""

    def __init__(self) -> None:
        self.handlers: dict[str, grpc.RpcMethodHandler] = {}

    def add_generic_rpc_handlers(self, generic_handlers: Sequence[Any]) -> None:
        """The registered handlers below carry the same methods."""

    def add_registered_method_handlers(self, service: str, method_handlers: dict[str, Any]) -> None:
        for name, handler in method_handlers.items():
            self.handlers[f"/{service}/{name}"] = handler


class LoopServer:
    """A ``grpc.aio`` server on an event loop of its own thread, with the synchronous
    ``grpc.Server``'s ``stop`` and ``wait_for_termination``, so callers need not know."""

    def __init__(self, options: Sequence[tuple[str, Any]], max_workers: int) -> None:
        self.loop = asyncio.new_event_loop()
        self.pool = futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="paiju-grpc")
        self._thread = threading.Thread(target=self.loop.run_forever, name="grpc-loop", daemon=True)
        self._thread.start()
        self._terminated = threading.Event()
        self.server: grpc.aio.Server = self.call(self._create(options))

    async def _create(self, options: Sequence[tuple[str, Any]]) -> grpc.aio.Server:
        return grpc.aio.server(options=options)

    def call(self, coroutine: Any, timeout: float | None = 30.0) -> Any:
        """Run ``coroutine`` on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def add_insecure_port(self, address: str) -> int:
        return self.server.add_insecure_port(address)

    def start(self) -> None:
        self.call(self.server.start())

    def stop(self, grace: float | None) -> threading.Event:
        """Stop taking calls, let those in flight finish within ``grace`` s; the returned event
        is set once the server has stopped."""
        if self._terminated.is_set():
            return self._terminated
        stopping = asyncio.run_coroutine_threadsafe(self.server.stop(grace), self.loop)

        def stopped(_: Any) -> None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._terminated.set()

        stopping.add_done_callback(stopped)
        return self._terminated

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        return self._terminated.wait(timeout)
