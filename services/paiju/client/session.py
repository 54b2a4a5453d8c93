"""A player's ``TableService.Play`` stream from Python: the table's updates and the player's moves on one
stream, each move answered on it (``PaijuClient.play_stream``).

>>> # with client.play_stream(room) as stream:
>>> #     view = stream.move("call", view["version"])      # my view after it, or IllegalMove / StaleView
>>> #     started = stream.ready()                          # press start: True if it started the hand
>>> #     for update in stream.updates(): ...               # everyone else's moves, and fresh views
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any, Self

import grpc

from paiju.client.answers import PaijuError, WatchResponse, refusal, updates_of
from paiju.common.typed_views import view_of
from paiju.proto.v1 import table_pb2

_ENDED = object()


class PlaySession:
    """One ``TableService.Play`` stream, opened on creation (a thread reads it); close it when done."""

    def __init__(self, play: Callable[[Iterator[table_pb2.PlayRequest]], Any], table_id: str,
                 follow_view: bool = True, on_end: Callable[[PlaySession], object] = lambda _: None) -> None:
        self.table_id = table_id
        self._on_end = on_end
        self._requests: queue.SimpleQueue[table_pb2.PlayRequest | None] = queue.SimpleQueue()
        self._requests.put(table_pb2.PlayRequest(open=table_pb2.WatchRequest(table_id=table_id, follow_view=follow_view)))
        self._call = play(iter(self._requests.get, None))
        self._move_ids = itertools.count(1)
        self._waiting: dict[int, Future[table_pb2.MoveAnswer]] = {}
        self._lock = threading.Lock()
        self._updates: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._ended: PaijuError | None = None
        self._reader = threading.Thread(target=self._read, name=f"play-{table_id}", daemon=True)
        self._reader.start()

    def move(self, action: str, expected_version: int, timeout: float | None = 30.0) -> dict[str, Any]:
        """Play ``action`` if what my seat may do has not changed since ``expected_version``; my
        view after it. Refusals raise as ``PaijuClient.act``'s do (IllegalMove, StaleView, …)."""
        outcome = self._asked(lambda move_id: table_pb2.PlayRequest(move=table_pb2.PlayMove(
            move_id=move_id, expected_version=expected_version, action=action)), timeout)
        return view_of(outcome.accepted.view)

    def ready(self, timeout: float | None = 30.0) -> bool:
        """Press start at this table, as ``PaijuClient.ready`` does; True if this started the
        hand (its events come on the stream). Refusals raise as ``ready``'s do."""
        outcome = self._asked(lambda move_id: table_pb2.PlayRequest(ready=table_pb2.PlayReady(move_id=move_id)),
                              timeout)
        return outcome.ready.hand_started

    def _asked(self, request: Callable[[int], table_pb2.PlayRequest], timeout: float | None) -> table_pb2.MoveAnswer:
        """The answer to ``request`` (made with its move id), or the refusal it got, raised."""
        move_id = next(self._move_ids)
        answer: Future[table_pb2.MoveAnswer] = Future()
        with self._lock:
            if self._ended is not None:
                raise self._ended
            self._waiting[move_id] = answer
        self._requests.put(request(move_id))
        outcome = answer.result(timeout)
        if outcome.HasField("refused"):
            refused = outcome.refused
            raise refusal(_status(refused.code), refused.message, refused.error_code or None, refused.current_version)
        return outcome

    @property
    def ended(self) -> PaijuError | None:
        """How the stream ended (``CANCELLED`` once closed here), or None while it is open."""
        with self._lock:
            return self._ended

    def updates(self) -> Iterator[WatchResponse]:
        """The stream's updates as ``PaijuClient.watch`` yields them (my own moves left out),
        until the stream ends: raises its refusal if it ended with one."""
        while (update := self._updates.get()) is not _ENDED:
            yield from updates_of(update)
        if self._ended is not None and self._ended.status != grpc.StatusCode.CANCELLED:
            raise self._ended

    def cancel(self) -> None:
        """End the stream now (``PaijuClient.close`` does); moves waiting for an answer fail."""
        self._requests.put(None)
        self._call.cancel()

    def close(self) -> None:
        """End the stream and wait for its reader."""
        self.cancel()
        self._reader.join(timeout=10)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _read(self) -> None:
        ended = PaijuError(grpc.StatusCode.CANCELLED, "the stream was closed", None)
        try:
            for message in self._call:
                if message.HasField("answer"):
                    with self._lock:
                        waiting = self._waiting.pop(message.answer.move_id, None)
                    if waiting is not None:
                        waiting.set_result(message.answer)
                else:
                    self._updates.put(message.update)
        except grpc.RpcError as error:
            ended = refusal(error.code(), error.details() or "", None)  # type: ignore[attr-defined]
        finally:
            with self._lock:
                self._ended = ended
                waiting_moves, self._waiting = list(self._waiting.values()), {}
            for waiting in waiting_moves:
                waiting.set_exception(ended)
            self._updates.put(_ENDED)
            self._on_end(self)


def _status(code: int) -> grpc.StatusCode:
    """The ``grpc.StatusCode`` of a numeric code (UNKNOWN for one grpc does not know)."""
    return next((status for status in grpc.StatusCode if status.value[0] == code), grpc.StatusCode.UNKNOWN)
