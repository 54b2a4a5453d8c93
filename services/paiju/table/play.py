"""``Table.Play``: a player's updates and moves on one stream, both ways.

The stream is a ``Watch`` whose requests after the first are moves. Each move is served by
``Table.Act`` itself, through a context that turns what would end the call into the move's
refusal, so a move is judged, applied and refused exactly as ``Act`` would, and the stream goes
on. Moves are answered in the order they came, each once the stream has sent what it already had
to send (what it held back included): no update the stream had when a move came follows the
move's answer. (A commit of another replica still on its way may be, as beside ``Act``: a client
keeps events by id.) The caller's own moves never come back as updates; their answers carry their
events and the view after them.

Why both ways: on this project's machine a request and its reply on an open stream cost the
server a third of what a unary call costs, and the client likewise (``bench/grpc_floor.py``), and
the call's admission, interceptors and context are paid once per stream instead of per move.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import grpc

from paiju.common.aio_bridge import WAITING
from paiju.common.errors import CURRENT_VERSION_KEY, ERROR_CODE_KEY, abort
from paiju.common.failures import answer_for
from paiju.common.logs import bind_log_context
from paiju.common.metrics import METRICS
from paiju.proto.v1 import table_pb2

log = logging.getLogger(__name__)

SERVICE = "paiju.v1.Table"
MOVE_METHOD = "Play.move"
"""How a move is timed in ``paiju_rpc_duration_seconds`` (kind ``unary``), beside ``Act``."""

Watching = Callable[[table_pb2.WatchRequest, Any, Callable[[], bool]], Iterator[Any]]
"""The Watch stream's body: a request, the stream's context, and what says that it should send
what it holds back now (moves are waiting behind it)."""
Acting = Callable[[table_pb2.ActRequest, Any], table_pb2.ActResponse]


class MoveRefused(Exception):
    """What ``Act`` would have ended its call with, for one move."""

    def __init__(self, code: grpc.StatusCode, message: str, trailers: Sequence[tuple[str, str]]) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.trailers = dict(trailers)


class MoveContext:
    """The context ``Act`` sees when it serves a move of a stream: ending the call refuses the
    move instead. Everything else is the stream's."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._trailers: Sequence[tuple[str, str]] = ()

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


def play(requests: Any, context: Any, watch: Watching, act: Acting) -> Iterator[Any]:
    """The ``Play`` stream of the caller: ``requests`` is the bridge's
    :class:`~paiju.common.aio_bridge.StreamRequests` (the stream lives on the event loop)."""
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
    updates = watch(watching, context, requests.has_come)
    try:
        for update in updates:
            if update is not WAITING:
                yield table_pb2.PlayUpdate(update=update)
                continue
            moves = requests.take()
            if not moves:
                yield WAITING
                continue
            for request, refusal in moves:
                yield answer(table_id, request, refusal, context, act)
    finally:
        updates.close()


def answer(table_id: str, request: Any, refusal: Any, context: Any, act: Acting) -> table_pb2.PlayUpdate:
    """The answer to one request after the first: a move served by ``act``, or refused."""
    if not isinstance(request, table_pb2.PlayRequest):
        # Too large to be read (the server's limits): there is no move to answer.
        abort(context, refusal.code, refusal.reason, error_code=refusal.error_code)
    if request.WhichOneof("kind") != "move":
        abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a Play stream's requests after the first are moves",
              error_code="invalid_argument")
    move = request.move
    if refusal is not None:
        return _refused(move.move_id, refusal.code, refusal.reason, {ERROR_CODE_KEY: refusal.error_code})
    started = time.perf_counter()
    code = grpc.StatusCode.OK
    try:
        reply = act(table_pb2.ActRequest(table_id=table_id, expected_version=move.expected_version,
                                         action=move.action), MoveContext(context))
    except MoveRefused as refused:
        code = refused.code
        return _refused(move.move_id, refused.code, refused.message, refused.trailers)
    except Exception as error:  # answered without internals, logged; the stream goes on
        unexpected = answer_for(error)
        code = unexpected.code
        log.error("a move failed: %s", unexpected.error_code, exc_info=error)
        return _refused(move.move_id, unexpected.code, unexpected.message, {ERROR_CODE_KEY: unexpected.error_code})
    finally:
        METRICS.rpc_duration.labels(SERVICE, MOVE_METHOD, "unary", code.name).observe(time.perf_counter() - started)
    return table_pb2.PlayUpdate(answer=table_pb2.MoveAnswer(move_id=move.move_id, accepted=reply))


def _refused(move_id: int, code: grpc.StatusCode, message: str, trailers: dict[str, str]) -> table_pb2.PlayUpdate:
    current = trailers.get(CURRENT_VERSION_KEY)
    refusal = table_pb2.MoveRefusal(code=code.value[0], message=message, error_code=trailers.get(ERROR_CODE_KEY, ""),
                                    current_version=int(current) if current else 0)
    return table_pb2.PlayUpdate(answer=table_pb2.MoveAnswer(move_id=move_id, refused=refusal))
