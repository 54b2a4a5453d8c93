"""JSON logs carry the ids bound to the context, per thread and per nested scope."""

from __future__ import annotations

import io
import json
import logging
import threading
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paiju.common.logs import (
    bind_log_context,
    configure_logging,
    current_log_context,
    log_context,
    reset_log_context,
)

log = logging.getLogger("paiju.tests.ops")


@pytest.fixture()
def stream() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    level = root.level
    captured = io.StringIO()
    handler = configure_logging("DEBUG", stream=captured)
    try:
        yield captured
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_each_line_is_json_with_the_ids_bound_around_it(stream: io.StringIO) -> None:
    log.info("before")
    with log_context(table_id="t-1"):
        with log_context(hand_id="h-2", player_id="p-3"):
            log.warning("acted %s", "raise", extra={"amount": 200})
        log.info("between")
    log.info("after")
    before, acted, between, after = lines(stream)
    assert {"table_id", "hand_id", "player_id"}.isdisjoint(before)
    assert acted["level"] == "WARNING" and acted["logger"] == "paiju.tests.ops"
    assert acted["message"] == "acted raise" and acted["amount"] == 200
    assert (acted["table_id"], acted["hand_id"], acted["player_id"]) == ("t-1", "h-2", "p-3")
    assert between["table_id"] == "t-1" and "hand_id" not in between
    assert "table_id" not in after


def test_threads_do_not_see_each_others_ids(stream: io.StringIO) -> None:
    barrier = threading.Barrier(8)

    def play(number: int) -> None:
        with log_context(table_id=f"t-{number}", player_id=f"p-{number}"):
            barrier.wait()  # every thread has bound its ids before any logs
            log.info("tick %d", number)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seen = lines(stream)
    assert len(seen) == 8
    for line in seen:
        number = str(line["message"]).split()[1]
        assert line["table_id"] == f"t-{number}" and line["player_id"] == f"p-{number}"


def test_an_exception_is_logged_with_its_traceback_and_ids(stream: io.StringIO) -> None:
    with log_context(hand_id="h-9"):
        try:
            raise ValueError("a bad bet")
        except ValueError:
            log.exception("settle failed")
    (line,) = lines(stream)
    assert line["level"] == "ERROR" and line["hand_id"] == "h-9"
    assert "ValueError: a bad bet" in str(line["exception"])


def test_text_logs_show_the_ids_after_the_message() -> None:
    captured = io.StringIO()
    handler = configure_logging("INFO", json=False, stream=captured)
    try:
        with log_context(table_id="t-5"):
            log.info("opened")
        log.debug("hidden below INFO")
    finally:
        logging.getLogger().removeHandler(handler)
    (line,) = captured.getvalue().splitlines()
    assert line.endswith("paiju.tests.ops: opened [table_id=t-5]")


def test_binding_an_unknown_name_is_refused_and_none_unbinds() -> None:
    with pytest.raises(ValueError, match="seat"):
        bind_log_context(seat="3")  # type: ignore[arg-type]
    token = bind_log_context(table_id="t-1", hand_id="h-1")
    inner = bind_log_context(hand_id=None)
    assert current_log_context() == {"table_id": "t-1"}
    reset_log_context(inner)
    reset_log_context(token)
    assert current_log_context() == {}


@given(st.text(min_size=1, max_size=40), st.text(max_size=40))
def test_any_id_and_message_round_trip_through_json(table_id: str, message: str) -> None:
    captured = io.StringIO()
    handler = configure_logging("INFO", stream=captured)
    try:
        with log_context(table_id=table_id):
            log.info("%s", message)
    finally:
        logging.getLogger().removeHandler(handler)
    (line,) = [json.loads(text) for text in captured.getvalue().split("\n") if text]
    assert line["table_id"] == table_id and line["message"] == message
