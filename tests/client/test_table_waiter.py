"""The bots' waiter: the newest pushed view, and a stream that ends is opened again."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc

from paiju.client.answers import PaijuError, WatchResponse
from paiju.client.waiters import TableWaiter
from tests.patience import PATIENCE_SECONDS as WAIT_SECONDS


class Streams:
    """Stands in for a client: each Watch plays the next script (views, then an ending)."""

    def __init__(self, scripts: list[tuple[list[int], PaijuError | None]]) -> None:
        self.scripts = scripts
        self.opened = 0
        self.go_on = threading.Event()

    def watch(self, table_id: str, after_event_id: str = "", follow_view: bool = False) -> Iterator[WatchResponse]:
        assert follow_view, "the waiter follows views"
        versions, ending = self.scripts[min(self.opened, len(self.scripts) - 1)]
        self.opened += 1
        for version in versions:
            yield WatchResponse(view={"version": version})
        if ending is not None:
            raise ending
        if self.opened >= len(self.scripts):
            self.go_on.wait(WAIT_SECONDS)  # the last stream stays open


def test_a_waiter_gives_the_newest_view_after_what_the_caller_knows() -> None:
    streams = Streams([([3, 4], None)])
    waiter = TableWaiter(streams, "t1")  # type: ignore[arg-type]
    try:
        assert waiter.wait(newer_than=2, timeout=WAIT_SECONDS)["version"] == 4
        assert waiter.wait(newer_than=4, timeout=0.2) is None  # nothing newer: the safety net
    finally:
        waiter.stop()
        streams.go_on.set()


def test_a_stream_that_ends_is_opened_again_instead_of_leaving_the_caller_to_poll() -> None:
    # A server going away ends the stream; the next one's first message is a fresh view.
    streams = Streams([([5], None), ([7], None)])
    waiter = TableWaiter(streams, "t1")  # type: ignore[arg-type]
    try:
        assert waiter.wait(newer_than=5, timeout=WAIT_SECONDS)["version"] == 7
        assert streams.opened == 2
    finally:
        waiter.stop()
        streams.go_on.set()


def test_a_stream_refused_for_good_is_not_opened_again() -> None:
    refused = PaijuError(grpc.StatusCode.PERMISSION_DENIED, "you do not sit at table t1", None)
    streams = Streams([([], refused), ([9], None)])
    waiter = TableWaiter(streams, "t1")  # type: ignore[arg-type]
    try:
        assert waiter.wait(newer_than=0, timeout=WAIT_SECONDS) is None  # the caller looks for itself
        assert streams.opened == 1
    finally:
        waiter.stop()
        streams.go_on.set()


class ClosedClient:
    """A client closed while its waiter was about to open another stream."""

    def watch(self, table_id: str, after_event_id: str = "", follow_view: bool = False) -> Iterator[WatchResponse]:
        raise ValueError("Cannot invoke RPC: Channel closed!")
        yield  # a generator, like the client's


def test_bug_a_waiter_reopening_on_a_closed_client_died_with_a_traceback() -> None:
    # Seen at the end of bench runs: "Exception in thread ... ValueError: Cannot invoke RPC:
    # Channel closed!" from the waiter's thread once the bot had closed its client.
    escaped: list[BaseException] = []
    previous, threading.excepthook = threading.excepthook, lambda args: escaped.append(args.exc_value)
    try:
        waiter = TableWaiter(ClosedClient(), "t1")  # type: ignore[arg-type]
        assert waiter.wait(newer_than=0, timeout=WAIT_SECONDS) is None
        waiter._thread.join(WAIT_SECONDS)
        assert not waiter._thread.is_alive()
    finally:
        threading.excepthook = previous
    assert escaped == []
