"""A loopback relay between the browser and the web door that can hold up a table's Watch stream.

A person on a poor network can have a move of theirs reach the server after their turn ran
out, while the page still shows the turn: the stream that would have told the page was held up
on the way. This relay makes that happen on purpose. The page is opened through it; every
request goes on to the door and its answer comes back unchanged, except that, once armed with
:meth:`WatchHold.hold_after_own_turn`, the Watch streams pass their messages only until one
shows the viewer that it is their turn, and keep everything after that in the relay. The
server's side of the stream stays open and read (the seat is not counted away), and requests
other than Watch (Act, GetView) go through as usual. :meth:`WatchHold.release` lets the held
messages through, in order, and those after them.

::

    with WatchHold(server.url) as hold:
        driver.get(hold.url)
        ...
        hold.hold_after_own_turn()
"""

from __future__ import annotations

import asyncio
import struct
import threading
from typing import Any, Self

from aiohttp import ClientSession, ClientTimeout, web

from paiju.proto.v1 import table_pb2

_FRAME_HEADER = struct.Struct(">BI")
"""A gRPC-Web frame's flag byte and big-endian length."""
_TRAILER_FLAG = 0x80
_NOT_RELAYED = {"host", "content-length", "transfer-encoding", "connection", "keep-alive"}


def _own_turn(frame: bytes) -> bool:
    """Whether a Watch stream's frame is a view showing its viewer that it is their turn."""
    flag, _ = _FRAME_HEADER.unpack_from(frame)
    if flag & _TRAILER_FLAG:
        return False
    update = table_pb2.WatchResponse.FromString(frame[_FRAME_HEADER.size:])
    view = update.snapshot
    return (update.HasField("snapshot") and view.HasField("seat") and view.HasField("turn")
            and view.turn.seat == view.seat)


class WatchHold:
    """The relay, on a free loopback port and an event loop of its own thread."""

    def __init__(self, door_url: str) -> None:
        self.door = door_url.rstrip("/")
        self.url = ""
        self.held_messages = 0
        """Messages of Watch streams kept back so far."""
        self._armed = False
        self._holding = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="watch-hold", daemon=True)
        self._released: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self._session: ClientSession | None = None

    def __enter__(self) -> Self:
        self._thread.start()
        self.url = self._run(self._open())
        return self

    def __exit__(self, *_: object) -> None:
        self.release()
        self._run(self._close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()

    def hold_after_own_turn(self) -> None:
        """From the next Watch message that shows the viewer their own turn, hold the rest."""
        self._armed = True

    @property
    def holding(self) -> bool:
        """Whether the page has been shown its turn and hears nothing more of the table."""
        return self._holding.is_set()

    def release(self) -> None:
        """Let the held messages through, and all later ones."""
        self._armed = False
        if self._released is not None:
            self._loop.call_soon_threadsafe(self._released.set)

    def _run(self, work: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(60)

    async def _open(self) -> str:
        self._released = asyncio.Event()
        # No total timeout: a Watch stream is meant to stay open; bodies pass as they came.
        self._session = ClientSession(timeout=ClientTimeout(total=None), auto_decompress=False)
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", self._relay)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        return f"http://127.0.0.1:{port}/"

    async def _close(self) -> None:
        assert self._runner is not None and self._session is not None
        await self._runner.cleanup()
        await self._session.close()

    async def _relay(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _NOT_RELAYED}
        body = await request.read()
        async with self._session.request(request.method, self.door + request.path_qs, headers=headers,
                                         data=body, allow_redirects=False) as answer:
            response = web.StreamResponse(status=answer.status, reason=answer.reason, headers={
                k: v for k, v in answer.headers.items() if k.lower() not in _NOT_RELAYED})
            await response.prepare(request)
            if request.method == "POST" and request.path.endswith("/Watch"):
                await self._relay_watch(answer.content, response)
            else:
                async for chunk in answer.content.iter_any():
                    await response.write(chunk)
            await response.write_eof()
            return response

    async def _relay_watch(self, upstream: Any, response: web.StreamResponse) -> None:
        """Frame by frame: the door's side is read as it comes, so the server sees a reader
        that keeps up, while the page gets each frame only as the hold allows."""
        frames: asyncio.Queue[bytes | None] = asyncio.Queue()
        released = self._released
        assert released is not None

        async def read() -> None:
            pending = b""
            try:
                async for chunk in upstream.iter_any():
                    pending += chunk
                    while len(pending) >= _FRAME_HEADER.size:
                        _, length = _FRAME_HEADER.unpack_from(pending)
                        end = _FRAME_HEADER.size + length
                        if len(pending) < end:
                            break
                        if self._holding.is_set() and not released.is_set():
                            self.held_messages += 1
                        await frames.put(pending[:end])
                        pending = pending[end:]
            finally:
                await frames.put(None)

        reader = asyncio.create_task(read())
        try:
            while (frame := await frames.get()) is not None:
                if self._holding.is_set():
                    await released.wait()
                await response.write(frame)
                if self._armed and _own_turn(frame):
                    self._holding.set()
        finally:
            reader.cancel()
