"""``TableService.Play``: a player's updates and moves on one stream, both ways.

The stream is a ``Watch`` whose requests after the first are moves and presses of start. Each
move is served by ``TableService.Act`` itself, and each press by ``LobbyService.Ready``, through a context
that turns what would end the call into the request's refusal, so a move is judged, applied and
refused exactly as ``Act`` would, and the stream goes on. A press that must wait for the ledger
(it starts the hand, whose holds the ledger places) is served in the thread pool, and the
requests after it wait for its answer.

Requests are answered in the order they came. A move is answered once the stream has sent what
it already had to send (what it held back included): no update the stream had when a move came
follows the move's answer. (A commit of another replica still on its way may, as beside ``Act``:
a client keeps events by id.) A press does not hurry what the stream holds back. The caller's own
moves never come back as updates; their answers carry their events and the view after them.

Why both ways: on this project's machine a request and its reply on an open stream cost the
server a third of what a unary call costs, and the client likewise (``bench/grpc_floor.py``), and
the call's admission, interceptors and context are paid once per stream instead of per move.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from typing import Any

import grpc

from paiju.common.logs import bind_log_context
from paiju.common.metrics import METRICS
from paiju.proto.v1 import lobby_pb2, table_pb2
from paiju.rpc.aio_bridge import WAITING, OffTheLoop
from paiju.rpc.errors import CURRENT_VERSION_KEY, ERROR_CODE_KEY, abort
from paiju.rpc.failures import answer_for

log = logging.getLogger(__name__)

SERVICE = "paiju.v1.TableService"
MOVE_METHOD = "Play.move"
"""How a move is timed in ``paiju_rpc_duration_seconds`` (kind ``unary``), beside ``Act``."""
READY_METHOD = "Play.ready"
"""How a press of start is timed in ``paiju_rpc_duration_seconds`` (kind ``unary``)."""

Wrap = Callable[..., Any]
"""Makes the message that carries a reply from the reply's fields (``table_pb2.WatchResponse``
itself, or a Play stream's message holding them): the reply is made in place, where a reply
made apart would be copied into its holder, each level again."""
Watching = Callable[[table_pb2.WatchRequest, Any, Callable[[], bool], Wrap], Iterator[Any]]
"""The Watch stream's body: a request, the stream's context, what says that it should send
what it holds back now (moves are waiting behind it), and how it makes each update."""
Acting = Callable[[table_pb2.ActRequest, Any, Wrap], Any]
"""``TableService.Act``'s body: a request, the context, and how it makes the reply from an
``ActResponse``'s fields."""
Readying = Callable[[lobby_pb2.ReadyRequest, Any], lobby_pb2.ReadyResponse]
"""``LobbyService.Ready``'s servicer method: it raises :class:`~paiju.rpc.aio_bridge.OffTheLoop`,
having changed nothing, when its context ``runs_on_loop`` and only the ledger can answer."""


class MoveRefused(Exception):
    """What ``Act`` would have ended its call with, for one move."""

    def __init__(self, code: grpc.StatusCode, message: str, trailers: Sequence[tuple[str, str]]) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.trailers = dict(trailers)


class MoveContext:
    """The context ``Act`` (or ``Ready``) sees when it serves a request of a stream: ending the
    call refuses the request instead. Everything else is the stream's."""

    def __init__(self, stream: Any, runs_on_loop: bool = True) -> None:
        self._stream = stream
        self._trailers: Sequence[tuple[str, str]] = ()
        self.runs_on_loop = runs_on_loop
        """Whether the request is served on the event loop, where it must not wait for the ledger."""

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise MoveRefused(code, details, self._trailers)

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, str]]) -> None:
        self._trailers = tuple(metadata)

    def invocation_metadata(self) -> Any:
        return self._stream.invocation_metadata()

    def peer(self) -> str:
        return self._stream.peer()

    def is_active(self) -> bool:
        return self._stream.is_active()


def play(requests: Any, context: Any, watch: Watching, act: Acting, ready: Readying | None = None) -> Iterator[Any]:
    """The ``Play`` stream of the caller: ``requests`` is the bridge's
    :class:`~paiju.rpc.aio_bridge.StreamRequests` (the stream lives on the event loop);
    ``ready`` serves presses of start (without it they are refused UNIMPLEMENTED)."""
    if not hasattr(requests, "take"):
        # grpc's thread-pool server (PAIJU_GRPC_SERVER=threads) hands a blocking iterator.
        abort(context, grpc.StatusCode.UNIMPLEMENTED,
              "Play is served by the event-loop server only: use Watch and Act", error_code="unimplemented")
    opening = requests.first
    if opening.WhichOneof("kind") != "open":
        abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a Play stream opens with `open`, a WatchRequest",
              error_code="invalid_argument")
    watching = table_pb2.WatchRequest()
    watching.CopyFrom(opening.open)
    watching.leave_out_own_acts = True  # each move's answer carries its events and view
    table_id = watching.table_id
    bind_log_context(table_id=table_id or None)  # in the stream's own scope: each of its steps
    answering = Answering(table_id, context, act, ready, watching.view_format)
    updates = watch(watching, context, lambda: answering.moves_wait(requests.waiting()), _as_update)
    try:
        for update in updates:
            if update is not WAITING:
                yield update
                continue
            answering.came(requests.take())
            answered = False
            for reply in answering.answers():
                answered = True
                yield reply
            if not answered:
                yield WAITING
    finally:
        updates.close()


class Answering:
    """The requests of a stream after the first, answered in the order they came: each as soon
    as it is taken, except behind a press of start that went to the thread pool."""

    def __init__(self, table_id: str, context: Any, act: Acting, ready: Readying | None, view_format: int = 0) -> None:
        """``view_format``: the stream's (its ``open``), which its moves' answers follow too."""
        self._table_id = table_id
        self._view_format = view_format
        self._context = context
        self._act = act
        self._ready = ready
        self._queue: deque[tuple[Any, Any]] = deque()
        self._in_thread: futures.Future[table_pb2.PlayResponse] | None = None

    def came(self, requests: list[tuple[Any, Any]]) -> None:
        """Requests taken from the stream, each with the server's limits' refusal (or ``None``)."""
        self._queue.extend(requests)

    def moves_wait(self, came: Sequence[Any]) -> bool:
        """Whether a move waits to be answered, here or among the requests that ``came``: the
        stream then sends what it holds back first. Presses alone do not hurry it: the events
        of the presses around a hand's start are worth one message, not one each."""
        return any(not _is_press(request) for request in came) or \
            any(not _is_press(request) for request, _ in self._queue)

    def answers(self) -> Iterator[table_pb2.PlayResponse]:
        """The answers that can go now, in order; ends at a press that went to a thread (its
        answer comes when a later step finds it done: it wakes the stream)."""
        if self._in_thread is not None:
            if not self._in_thread.done():
                return
            done, self._in_thread = self._in_thread, None
            yield done.result()
        while self._queue:
            request, refusal = self._queue.popleft()
            answer = self._answer(request, refusal)
            if isinstance(answer, futures.Future):
                self._in_thread = answer
                return
            yield answer

    def _answer(self, request: Any, refusal: Any) -> table_pb2.PlayResponse | futures.Future[table_pb2.PlayResponse]:
        if not isinstance(request, table_pb2.PlayRequest):
            # Too large to be read (the server's limits): there is no move to answer.
            abort(self._context, refusal.code, refusal.reason, error_code=refusal.error_code)
        kind = request.WhichOneof("kind")
        if kind not in ("move", "ready"):
            abort(self._context, grpc.StatusCode.INVALID_ARGUMENT,
                  "a Play stream's requests after the first are moves and presses of start",
                  error_code="invalid_argument")
        move_id = getattr(request, kind).move_id
        if refusal is not None:
            return _refused(move_id, refusal.code, refusal.reason, {ERROR_CODE_KEY: refusal.error_code})
        if kind == "move":
            move = request.move
            asked = table_pb2.ActRequest(table_id=self._table_id, expected_version=move.expected_version,
                                         action=move.action, view_format=self._view_format)
            return _served(move_id, MOVE_METHOD, lambda: self._act(asked, MoveContext(self._context), _accepted(move_id)))
        if self._ready is None:
            return _refused(move_id, grpc.StatusCode.UNIMPLEMENTED, "presses of start are not served here",
                            {ERROR_CODE_KEY: "unimplemented"})
        ready = self._ready
        try:
            return self._press(ready, move_id, on_loop=True)
        except OffTheLoop:
            return self._context.off_the_loop(lambda: self._press(ready, move_id, on_loop=False))

    def _press(self, ready: Readying, move_id: int, on_loop: bool) -> table_pb2.PlayResponse:
        pressed = lobby_pb2.ReadyRequest(room_id=self._table_id)
        return _served(move_id, READY_METHOD,
                       lambda: _started(move_id, ready(pressed, MoveContext(self._context, on_loop))))


def _is_press(request: Any) -> bool:
    return isinstance(request, table_pb2.PlayRequest) and request.HasField("ready")


def _served(move_id: int, method: str, serve: Callable[[], table_pb2.PlayResponse]) -> table_pb2.PlayResponse:
    """``serve``'s answer, or the refusal it ended with; timed as ``method``."""
    started = time.perf_counter()
    code: grpc.StatusCode | None = grpc.StatusCode.OK
    try:
        return serve()
    except MoveRefused as refused:
        code = refused.code
        return _refused(move_id, refused.code, refused.message, refused.trailers)
    except OffTheLoop:
        code = None  # not answered here: timed where it is, in the thread pool
        raise
    except Exception as error:  # answered without internals, logged; the stream goes on
        unexpected = answer_for(error)
        code = unexpected.code
        log.error("a move failed: %s", unexpected.error_code, exc_info=error)
        return _refused(move_id, unexpected.code, unexpected.message, {ERROR_CODE_KEY: unexpected.error_code})
    finally:
        if code is not None:
            METRICS.rpc_duration.labels(SERVICE, method, "unary", code.name).observe(time.perf_counter() - started)


def _as_update(**fields: Any) -> table_pb2.PlayResponse:
    return table_pb2.PlayResponse(update=fields)


def _accepted(move_id: int) -> Wrap:
    """How the answer to move ``move_id`` is made from the ``ActResponse``'s fields."""
    return lambda **fields: table_pb2.PlayResponse(answer={"move_id": move_id, "accepted": fields})


def _started(move_id: int, reply: lobby_pb2.ReadyResponse) -> table_pb2.PlayResponse:
    return table_pb2.PlayResponse(answer=table_pb2.MoveAnswer(move_id=move_id, ready=reply))


def _refused(move_id: int, code: grpc.StatusCode, message: str, trailers: dict[str, str]) -> table_pb2.PlayResponse:
    current = trailers.get(CURRENT_VERSION_KEY)
    refusal = table_pb2.MoveRefusal(code=code.value[0], message=message, error_code=trailers.get(ERROR_CODE_KEY, ""),
                                    current_version=int(current) if current else 0)
    return table_pb2.PlayResponse(answer=table_pb2.MoveAnswer(move_id=move_id, refused=refusal))
