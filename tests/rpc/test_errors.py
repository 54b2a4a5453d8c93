"""Ending RPCs: the message cap, required arguments, and what the last resort tells clients."""

from __future__ import annotations

import grpc
import pytest
import redis
import sqlalchemy as sa
from google.rpc import status_pb2

from paiju.common.error_details import DETAILS_KEY, error_info
from paiju.common.logs import log_context
from paiju.games.engine import IllegalAction
from paiju.rpc.errors import MAX_MESSAGE_CHARS, abort, refuse_illegal, required
from paiju.rpc.failures import answer_for


class Aborted(Exception):
    pass


class RecordingContext:
    """The bits of a ServicerContext ``abort`` uses, remembering what it was told."""

    def __init__(self) -> None:
        self.trailers: tuple = ()
        self.status: tuple[grpc.StatusCode, str] | None = None

    def set_trailing_metadata(self, trailers) -> None:
        self.trailers = trailers

    def abort(self, code: grpc.StatusCode, message: str) -> None:
        self.status = (code, message)
        raise Aborted


def status_in(context: RecordingContext) -> status_pb2.Status:
    """The ``google.rpc.Status`` of the ``grpc-status-details-bin`` trailer ``abort`` set."""
    return status_pb2.Status.FromString(dict(context.trailers)[DETAILS_KEY])


def reason_in(context: RecordingContext) -> str:
    return error_info(status_in(context)).reason


def test_a_message_over_the_cap_is_cut_so_the_status_fits_in_grpc_metadata():
    context = RecordingContext()
    with pytest.raises(Aborted):
        abort(context, grpc.StatusCode.INVALID_ARGUMENT, "x" * 1_000_000, error_code="malformed")
    code, message = context.status
    assert code is grpc.StatusCode.INVALID_ARGUMENT and len(message) == MAX_MESSAGE_CHARS and message.endswith("…")


def test_a_required_argument_that_is_empty_or_refused_by_its_check_is_invalid_argument():
    def no_braces(value: str) -> None:
        if "{" in value:
            raise ValueError("no braces")

    for value, reason in [("", "table_id is empty"), ("a{b}", "no braces")]:
        context = RecordingContext()
        with pytest.raises(Aborted):
            required(context, value, "table_id", no_braces)
        assert context.status == (grpc.StatusCode.INVALID_ARGUMENT, reason)
    assert required(RecordingContext(), "t1", "table_id", no_braces) == "t1"


@pytest.mark.parametrize("error", [
    redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory"),
    redis.exceptions.TimeoutError("Timeout reading from 127.0.0.1:6379"),
    sa.exc.OperationalError("SELECT 1", {}, OSError("server closed the connection")),
])
def test_a_backend_outage_is_unavailable_with_a_sentence_that_names_nothing_of_it(error):
    answer = answer_for(error)
    assert answer.code is grpc.StatusCode.UNAVAILABLE
    assert answer.message == "a backend is unavailable; try again shortly"


def test_any_other_exception_is_internal():
    assert answer_for(RuntimeError("SELECT * FROM wallet_accounts")).code is grpc.StatusCode.INTERNAL


def test_a_refusal_of_the_rules_is_answered_by_its_shape_without_common_knowing_a_game():
    for error, status in ((IllegalAction("no seat 9", "bad_seat"), grpc.StatusCode.INVALID_ARGUMENT),
                          (IllegalAction("wait your turn", "not_your_turn"), grpc.StatusCode.FAILED_PRECONDITION)):
        context = RecordingContext()
        with pytest.raises(Aborted):
            refuse_illegal(context, error)
        assert context.status == (status, error.reason)
        assert context.trailers[0] == ("paiju-error-code", error.code)
        assert reason_in(context) == error.code


def test_every_status_carries_its_word_in_an_error_info_with_the_status_code_and_message():
    context = RecordingContext()
    with pytest.raises(Aborted):
        abort(context, grpc.StatusCode.NOT_FOUND, "x" * 1_000)
    status = status_in(context)
    code, message = context.status
    # The same code and message as the call's status: libraries refuse details that differ.
    assert (status.code, status.message) == (code.value[0], message)
    # No particular word given: the status's own name, in the trailer and the ErrorInfo alike.
    assert reason_in(context) == dict(context.trailers)["paiju-error-code"] == "not_found"


def test_the_error_info_names_the_table_the_call_is_about_and_its_current_version():
    context = RecordingContext()
    with log_context(table_id="zhajinhua-free-01", player_id="7"), pytest.raises(Aborted):
        abort(context, grpc.StatusCode.ABORTED, "the table moved on", error_code="stale_version", current_version=12)
    info = error_info(status_in(context))
    assert dict(info.metadata) == {"table_id": "zhajinhua-free-01", "current_version": "12"}
    assert dict(context.trailers)["paiju-current-version"] == "12"
