"""A bot's Play stream: moves and presses go on it, and calls take over where it cannot serve them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from paiju.client.sdk import IllegalMove, PaijuError, WatchResponse
from paiju.client.waiters import PlayWaiter
from tests.patience import PATIENCE_SECONDS as WAIT_SECONDS

UNSERVED = PaijuError(grpc.StatusCode.UNIMPLEMENTED, "Play is not served here", None)
GONE = PaijuError(grpc.StatusCode.UNAVAILABLE, "Socket closed", None)


class Session:
    """Stands in for a PlaySession: its views, then an ending; its moves answered as told."""

    def __init__(self, versions: list[int], ending: PaijuError | None, answer: Any) -> None:
        self.versions, self.ending, self.answer = versions, ending, answer
        self.ended: PaijuError | None = None
        self.cancelled = threading.Event()
        self.moves: list[str] = []

    def updates(self) -> Iterator[WatchResponse]:
        for version in self.versions:
            yield WatchResponse(view={"version": version})
        if self.ending is not None:
            self.ended = self.ending
            raise self.ending
        self.cancelled.wait(WAIT_SECONDS)

    def move(self, action: str, expected_version: int) -> dict[str, Any]:
        self.moves.append(action)
        if isinstance(self.answer, PaijuError):
            if self.answer is GONE:
                self.ended = GONE  # the stream ended with the move unanswered
            raise self.answer
        return self.answer

    def ready(self) -> bool:
        return self.move("ready", 0) is not None

    def cancel(self) -> None:
        self.cancelled.set()


class Client:
    """Stands in for a PaijuClient: one Play session, and the calls a bot falls back on."""

    def __init__(self, session: Session, watched: list[int] = ()) -> None:
        self.session, self.watched = session, list(watched)
        self.calls: list[tuple[str, str]] = []

    def play_stream(self, table_id: str, follow_view: bool = True) -> Session:
        return self.session

    def watch(self, table_id: str, after_event_id: str = "", follow_view: bool = False) -> Iterator[WatchResponse]:
        for version in self.watched:
            yield WatchResponse(view={"version": version})
        self.session.cancelled.wait(WAIT_SECONDS)

    def act(self, table_id: str, action: str, expected_version: int) -> dict[str, Any]:
        self.calls.append(("act", action))
        return {"version": expected_version + 1, "by": "act"}

    def ready(self, table_id: str) -> bool:
        self.calls.append(("ready", table_id))
        return True


@pytest.fixture
def waiters() -> Iterator[list[PlayWaiter]]:
    waiters: list[PlayWaiter] = []
    yield waiters
    for waiter in waiters:
        waiter.stop()


def test_moves_and_presses_go_on_the_stream_and_its_views_wake_the_bot(waiters) -> None:
    client = Client(Session([4, 6], None, answer={"version": 7, "by": "stream"}))
    waiter = PlayWaiter(client, "t1")  # type: ignore[arg-type]
    waiters.append(waiter)
    assert waiter.wait(newer_than=4, timeout=WAIT_SECONDS)["version"] == 6
    assert waiter.move("call", 6) == {"version": 7, "by": "stream"}
    assert waiter.ready() is True
    assert client.session.moves == ["call", "ready"] and client.calls == []


def test_a_moves_own_refusal_is_raised_not_tried_again_as_a_call(waiters) -> None:
    refused = IllegalMove(grpc.StatusCode.FAILED_PRECONDITION, "not your turn", "not_your_turn")
    client = Client(Session([1], None, answer=refused))
    waiter = PlayWaiter(client, "t1")  # type: ignore[arg-type]
    waiters.append(waiter)
    with pytest.raises(IllegalMove):
        waiter.move("call", 1)
    assert client.calls == []


def test_a_move_whose_stream_ended_before_answering_is_made_as_an_act_call(waiters) -> None:
    # Its expected version keeps a move that did land from being played twice.
    client = Client(Session([1], None, answer=GONE))
    waiter = PlayWaiter(client, "t1")  # type: ignore[arg-type]
    waiters.append(waiter)
    assert waiter.move("call", 1) == {"version": 2, "by": "act"}
    assert client.calls == [("act", "call")] and waiter.on_play_stream


def test_a_server_that_serves_no_play_is_watched_and_acted_on_with_calls(waiters) -> None:
    client = Client(Session([], UNSERVED, answer={"version": 0}), watched=[3])
    waiter = PlayWaiter(client, "t1")  # type: ignore[arg-type]
    waiters.append(waiter)
    assert waiter.wait(newer_than=0, timeout=WAIT_SECONDS)["version"] == 3
    assert not waiter.on_play_stream
    assert waiter.move("fold", 3) == {"version": 4, "by": "act"}
    assert waiter.ready() is True
    assert client.calls == [("act", "fold"), ("ready", "t1")] and client.session.moves == []
