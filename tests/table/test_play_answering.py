"""The order a Play stream's requests are answered in, without a server: a press of start that
must wait for the ledger goes to a thread, and what came after it waits for its answer."""

from __future__ import annotations

import threading
from concurrent import futures
from typing import Any

import grpc
import pytest

from paiju.proto.v1 import lobby_pb2, table_pb2
from paiju.rpc.aio_bridge import OffTheLoop
from paiju.table.play import Answering
from tests.patience import PATIENCE_SECONDS


class StreamContext:
    """The stream's context as the bridge gives it: a thread pool for steps that must wait."""

    def __init__(self, pool: futures.Executor) -> None:
        self.pool = pool
        self.woken = threading.Event()

    def off_the_loop(self, work: Any) -> futures.Future[Any]:
        done = self.pool.submit(work)
        done.add_done_callback(lambda _: self.woken.set())
        return done

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise AssertionError(f"the stream ended: {code.name}: {details}")


def act(request: table_pb2.ActRequest, _context: Any, wrap: Any) -> Any:
    return wrap(version=request.expected_version + 1)


def move(move_id: int) -> tuple[table_pb2.PlayRequest, None]:
    return table_pb2.PlayRequest(move=table_pb2.PlayMove(move_id=move_id, expected_version=move_id, action="fold")), None


def press(move_id: int) -> tuple[table_pb2.PlayRequest, None]:
    return table_pb2.PlayRequest(ready=table_pb2.PlayReady(move_id=move_id)), None


@pytest.fixture
def pool() -> Any:
    with futures.ThreadPoolExecutor(1) as executor:
        yield executor


def test_a_press_that_needs_the_ledger_goes_to_a_thread_and_the_moves_behind_it_wait_for_its_answer(pool):
    ledger = threading.Event()
    on_loop: list[bool] = []

    def ready(request: lobby_pb2.ReadyRequest, context: Any) -> lobby_pb2.ReadyResponse:
        on_loop.append(context.runs_on_loop)
        if context.runs_on_loop:
            raise OffTheLoop
        assert ledger.wait(PATIENCE_SECONDS)
        return lobby_pb2.ReadyResponse(hand_started=True, hand_id=f"{request.room_id}:1")

    context = StreamContext(pool)
    answering = Answering("t1", context, act, ready)
    answering.came([move(1), press(2), move(3)])
    assert [a.answer.move_id for a in answering.answers()] == [1]
    assert not list(answering.answers())  # the ledger has not answered
    answering.came([move(4)])
    assert not list(answering.answers())
    ledger.set()
    assert context.woken.wait(PATIENCE_SECONDS)  # the stream is woken once the press is answered
    answers = [update.answer for update in answering.answers()]
    assert [a.move_id for a in answers] == [2, 3, 4]
    assert answers[0].ready.hand_id == "t1:1" and answers[1].accepted.version == 4
    assert on_loop == [True, False]
    assert not list(answering.answers())


def test_a_press_answered_on_the_loop_is_answered_in_its_place(pool):
    def ready(_request: lobby_pb2.ReadyRequest, _context: Any) -> lobby_pb2.ReadyResponse:
        return lobby_pb2.ReadyResponse(hand_started=False)

    answering = Answering("t1", StreamContext(pool), act, ready)
    answering.came([move(1), press(2), move(3)])
    answers = [update.answer for update in answering.answers()]
    assert [(a.move_id, a.WhichOneof("outcome")) for a in answers] == [(1, "accepted"), (2, "ready"), (3, "accepted")]


def test_a_refused_press_in_a_thread_is_answered_refused_and_the_stream_goes_on(pool):
    def ready(_request: lobby_pb2.ReadyRequest, context: Any) -> lobby_pb2.ReadyResponse:
        if context.runs_on_loop:
            raise OffTheLoop
        context.set_trailing_metadata((("paiju-error-code", "not_enough_coins"),))
        context.abort(grpc.StatusCode.FAILED_PRECONDITION, "too few coins for this room")
        raise AssertionError("abort returned")

    context = StreamContext(pool)
    answering = Answering("t1", context, act, ready)
    answering.came([press(1), move(2)])
    assert not list(answering.answers())
    assert context.woken.wait(PATIENCE_SECONDS)
    refused, after = [update.answer for update in answering.answers()]
    assert refused.refused.error_code == "not_enough_coins"
    assert refused.refused.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert after.WhichOneof("outcome") == "accepted"


def test_without_a_lobby_a_press_is_refused_unimplemented(pool):
    answering = Answering("t1", StreamContext(pool), act, None)
    answering.came([press(1)])
    (answer,) = [update.answer for update in answering.answers()]
    assert answer.refused.code == grpc.StatusCode.UNIMPLEMENTED.value[0]
    assert answer.refused.error_code == "unimplemented"


def test_moves_hurry_what_the_stream_holds_back_and_presses_alone_do_not(pool):
    answering = Answering("t1", StreamContext(pool), act, None)
    assert not answering.moves_wait([press(1)[0], press(2)[0]])
    assert answering.moves_wait([press(1)[0], move(2)[0]])
    answering.came([move(3)])  # taken, not yet answered
    assert answering.moves_wait([])
