"""Waking a bot when what it may do changed: :class:`TableWaiter` on a ``TableService.Watch`` stream
that follows views, :class:`PlayWaiter` on the player's ``TableService.Play`` stream, which carries the
bot's moves too.

>>> # waiter = PlayWaiter(client, room)
>>> # view = waiter.wait(view["version"], 10.0)      # the next view the server sends me
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc

from paiju.client.answers import PaijuError, WatchResponse
from paiju.client.sdk import PaijuClient
from paiju.client.session import PlaySession


class TableWaiter:
    """Wakes a bot when what it may do changed, from a background Watch stream that follows
    views: the server sends the bot's fresh view on its turn, when a hand starts or ends, when
    its seat or readiness changes, and the view comes with the wake-up, so the bot need not ask
    for it. Other players' moves do not wake it: a waiting player costs the server nothing."""

    REOPEN_SECONDS = 0.5
    FOR_GOOD = frozenset({grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.NOT_FOUND,
                          grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.INVALID_ARGUMENT})
    """How a stream ends that opening another would not mend (no longer seated there, …)."""

    def __init__(self, client: PaijuClient, table_id: str) -> None:
        self._changed = threading.Event()
        self._lock = threading.Lock()
        self._view: dict[str, Any] | None = None
        self._stopped = False
        self._ended = False
        self._thread = threading.Thread(target=self._run, args=(client, table_id), daemon=True)
        self._thread.start()

    def _updates(self, client: PaijuClient, table_id: str) -> Iterator[WatchResponse]:
        """One stream's updates, until it ends."""
        return client.watch(table_id, follow_view=True)

    def _run(self, client: PaijuClient, table_id: str) -> None:
        try:
            while not self._stopped:
                try:
                    for update in self._updates(client, table_id):
                        if update.view is not None:
                            with self._lock:
                                if self._view is None or update.view["version"] >= self._view["version"]:
                                    self._view = update.view
                            self._changed.set()
                        if self._stopped:
                            return
                except PaijuError as error:
                    if error.status in self.FOR_GOOD:
                        return
                except ValueError:
                    return  # grpc's "Channel closed!": the client was closed while this reopened
                # The stream ended (a server shutting down, a network blip): open another; its
                # first message is a fresh view.
                time.sleep(self.REOPEN_SECONDS)
        finally:
            self._ended = True  # no more views will come: waiting now only delays the caller
            self._changed.set()

    def wait(self, newer_than: int, timeout: float) -> dict[str, Any] | None:
        """The first view the server sent of a version after ``newer_than`` (what the caller
        knows), waiting at most ``timeout`` seconds for it; None if none came (look yourself)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if self._view is not None and self._view["version"] > newer_than:
                    return self._view
                self._changed.clear()
            left = deadline - time.monotonic()
            if left <= 0 or self._stopped or self._ended or not self._changed.wait(left):
                return None

    def stop(self) -> None:
        self._stopped = True
        self._changed.set()


class PlayWaiter(TableWaiter):
    """A :class:`TableWaiter` on the player's ``TableService.Play`` stream, which also
    carries the player's moves and presses of start: each is a message on the open stream, which
    costs the server about a third of an ``act`` call.

    A server that does not serve Play (grpc's thread-pool server answers UNIMPLEMENTED) is watched
    with ``Watch`` and acted on with ``act`` and ``ready`` calls instead. So is a move or press
    whose stream ended before answering it (the waiter opens another stream meanwhile): its
    ``expected_version`` keeps a move that did land from being played twice, and a press that
    did land is refused as already made.

    >>> # waiter = PlayWaiter(client, room)
    >>> # view = waiter.move("call", view["version"])    # my view after it, as ``act`` answers
    >>> # view = waiter.wait(view["version"], 10.0)      # the next view the server sends me
    """

    def __init__(self, client: PaijuClient, table_id: str) -> None:
        self._client = client
        self._table_id = table_id
        self._calls_only = False
        self._session: PlaySession | None = client.play_stream(table_id)
        super().__init__(client, table_id)

    @property
    def on_play_stream(self) -> bool:
        """False once the server answered that it does not serve Play."""
        return not self._calls_only

    def move(self, action: str, expected_version: int) -> dict[str, Any]:
        """Play ``action`` as ``PaijuClient.act`` does; my view after it."""
        session = self._live_session()
        if session is not None:
            try:
                return session.move(action, expected_version)
            except PaijuError:
                if not self._stream_ended(session):
                    raise  # the move's own refusal
        return self._client.act(self._table_id, action, expected_version)

    def ready(self) -> bool:
        """Press start as ``PaijuClient.ready`` does; True if this started the hand."""
        session = self._live_session()
        if session is not None:
            try:
                return session.ready()
            except PaijuError:
                if not self._stream_ended(session):
                    raise
        return self._client.ready(self._table_id)

    def _live_session(self) -> PlaySession | None:
        session = self._session
        return None if self._calls_only or session is None or session.ended is not None else session

    def _stream_ended(self, session: PlaySession) -> bool:
        """Whether ``session`` ended (rather than refused what was asked), noting a server
        that does not serve Play."""
        ended = session.ended
        if ended is not None and ended.status == grpc.StatusCode.UNIMPLEMENTED:
            self._calls_only = True
        return ended is not None

    def stop(self) -> None:
        super().stop()
        session = self._session
        if session is not None:
            session.cancel()  # a Watch's waiter ends its stream at the next update; this has its moves

    def _updates(self, client: PaijuClient, table_id: str) -> Iterator[WatchResponse]:
        if not self._calls_only:
            session = self._session
            if session is None or session.ended is not None:
                session = self._session = client.play_stream(table_id)
            try:
                yield from session.updates()
                return
            except PaijuError as error:
                if error.status != grpc.StatusCode.UNIMPLEMENTED:
                    raise
                self._calls_only = True
        yield from client.watch(table_id, follow_view=True)
