"""The floor under bench/bot_tables.py: what bare gRPC and Redis calls cost in Python on this machine.

No Paiju code runs here. An echo server on ``grpc.aio`` (the server bench/bot_tables.py uses) and
a client in another process measure the CPU, server side and client side, of:

- a unary call (the shape of ``Act`` and ``Ready``) with a 200-byte request and reply;
- one message of a server stream (the shape of what ``Watch`` sends), 50 per call;
- a request and its reply on a stream both ways, held open (the shape an ``Act`` would have on a
  player's one stream for everything, as a WebSocket game server's room connection carries it):
  what a unary call costs beyond the bytes it moves;
- a Redis round trip from redis-py: a GET of a 4 KB value and an EVALSHA of a trivial script
  (redis-py and the Redis server together);
- the same request and reply, and the same pushed messages, on a bare asyncio socket
  (length-prefixed frames, no HTTP/2, no per-message future): the least any transport written in
  Python could cost, as a WebSocket game server's room connection is close to it.

With these, an action's lowest possible cost is a sum the platform cannot go below however its
own code is written; the last lines print it for 炸金花 with 3 players (per action: 1 Act, 0.5
Ready, ~4 stream messages, ~3 Redis round trips), what it would be with the calls as requests on a
stream both ways, and the budget the issue's target implies (2 cores / 1,000 actions/s = 2 ms of
CPU per action, bots and Redis included).

Run: ``.venv/bin/python bench/grpc_floor.py`` (about 30 s).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import time
from typing import Any

import grpc

from runs import cpu_seconds, redis_cpu_seconds
from targets import beside

PAYLOAD = b"x" * 200
STREAM_MESSAGES = 50
CONCURRENCY = 16
TARGET_CPU_PER_ACTION_US = 2 * 1_000_000 / 1_000  # 2 cores at 1,000 actions/s


async def _serve(started: Any) -> None:
    server = grpc.aio.server()

    async def unary(request: bytes, context: Any) -> bytes:
        return request

    async def stream(request: bytes, context: Any) -> Any:
        for _ in range(STREAM_MESSAGES):
            yield request

    async def both_ways(requests: Any, context: Any) -> None:
        while (request := await context.read()) is not grpc.aio.EOF:
            await context.write(request)

    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("floor.Echo", {
        "Unary": grpc.unary_unary_rpc_method_handler(unary),
        "BothWays": grpc.stream_stream_rpc_method_handler(both_ways),
        "Stream": grpc.unary_stream_rpc_method_handler(stream),
    }),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    started.put(port)
    await server.wait_for_termination()


def server_main(started: Any) -> None:
    asyncio.run(_serve(started))


RAW_ECHO, RAW_PUSH = b"E", b"S"
"""A bare socket's frames: one byte of kind (answer once, or push ``STREAM_MESSAGES`` times), a
four-byte length, the bytes."""


class _RawEcho(asyncio.Protocol):
    """The bare socket's server side: each frame sent back once (``RAW_ECHO``) or
    ``STREAM_MESSAGES`` times (``RAW_PUSH``)."""

    def connection_made(self, transport: Any) -> None:
        self.transport, self.buffer = transport, bytearray()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 5:
            size = int.from_bytes(self.buffer[1:5], "big")
            if len(self.buffer) < 5 + size:
                return
            kind, frame = bytes(self.buffer[:1]), bytes(self.buffer[:5 + size])
            del self.buffer[:5 + size]
            for _ in range(STREAM_MESSAGES if kind == RAW_PUSH else 1):
                self.transport.write(frame)


def raw_server_main(started: Any) -> None:
    async def serve() -> None:
        server = await asyncio.get_running_loop().create_server(_RawEcho, "127.0.0.1", 0)
        started.put(server.sockets[0].getsockname()[1])
        await server.serve_forever()

    asyncio.run(serve())


def raw_client_main(port: int, kind: str, calls: int, spent: Any) -> None:
    """The bare socket's calls, ``CONCURRENCY`` connections at once, as :func:`client_main`."""
    request_kind = RAW_PUSH if kind == "stream" else RAW_ECHO
    frame = request_kind + len(PAYLOAD).to_bytes(4, "big") + PAYLOAD

    async def one_connection() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(calls // CONCURRENCY):
            writer.write(frame)
            for _ in range(STREAM_MESSAGES if request_kind == RAW_PUSH else 1):
                await reader.readexactly(len(frame))
        writer.close()
        await writer.wait_closed()

    async def run() -> None:
        await asyncio.gather(*(one_connection() for _ in range(CONCURRENCY)))

    cpu_before, wall_before = time.process_time(), time.monotonic()
    asyncio.run(run())
    spent.put((time.process_time() - cpu_before, time.monotonic() - wall_before))


def client_main(port: int, kind: str, calls: int, spent: Any) -> None:
    """Make ``calls`` calls of ``kind``; report the CPU and wall seconds they took here."""

    async def run() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            unary, stream = channel.unary_unary("/floor.Echo/Unary"), channel.unary_stream("/floor.Echo/Stream")

            async def one_caller() -> None:
                for _ in range(calls // CONCURRENCY):
                    if kind == "unary":
                        await unary(PAYLOAD)
                    else:
                        async for _ in stream(PAYLOAD):
                            pass

            both_ways = channel.stream_stream("/floor.Echo/BothWays")

            async def one_stream_caller() -> None:
                call = both_ways()
                for _ in range(calls // CONCURRENCY):
                    await call.write(PAYLOAD)
                    await call.read()
                await call.done_writing()
                await call.code()  # the server's status: the call has ended

            caller = one_stream_caller if kind == "both ways" else one_caller
            await asyncio.gather(*(caller() for _ in range(CONCURRENCY)))

    cpu_before, wall_before = time.process_time(), time.monotonic()
    asyncio.run(run())
    spent.put((time.process_time() - cpu_before, time.monotonic() - wall_before))


def measure_calls(context: Any, server_pid: int, port: int, kind: str, calls: int,
                  client: Any = client_main) -> tuple[float, float, float]:
    """Server and client CPU µs per call, and calls/s (the client's start-up not counted)."""
    spent = context.Queue()
    caller = context.Process(target=client, args=(port, kind, calls, spent))
    server_before = cpu_seconds(server_pid)  # idle while the client starts up
    caller.start()
    client_cpu, elapsed = spent.get(timeout=600)
    server_cpu = cpu_seconds(server_pid) - server_before
    caller.join()
    return server_cpu / calls * 1e6, client_cpu / calls * 1e6, calls / elapsed


def measure_redis(url: str, calls: int) -> tuple[float, float]:
    """CPU µs per GET of 4 KB and per EVALSHA round trip, this process's and Redis's together."""
    import redis

    client = redis.Redis.from_url(url)
    key = f"grpc-floor-{os.getpid()}"
    client.set(key, os.urandom(4096))
    script = client.register_script("return redis.call('STRLEN', KEYS[1])")
    figures = []
    try:
        for call in (lambda: client.get(key), lambda: script(keys=[key])):
            before, redis_before = time.process_time(), redis_cpu_seconds(client)
            for _ in range(calls):
                call()
            spent = time.process_time() - before + redis_cpu_seconds(client) - redis_before
            figures.append(spent / calls * 1e6)
    finally:
        client.delete(key)
    return figures[0], figures[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20_000, help="unary calls to time (default 20,000)")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    started = context.Queue()
    server = context.Process(target=server_main, args=(started,), daemon=True)
    server.start()
    port = started.get(timeout=60)
    measure_calls(context, server.pid, port, "unary", CONCURRENCY * 20)  # warm up
    unary_server, unary_client, unary_rate = measure_calls(context, server.pid, port, "unary", args.calls)
    print(f"unary call     : server {unary_server:6.0f} µs CPU · client {unary_client:6.0f} µs · "
          f"{unary_rate:,.0f} calls/s")
    stream_calls = max(args.calls // STREAM_MESSAGES * 5, CONCURRENCY)
    stream_server, stream_client, _ = measure_calls(context, server.pid, port, "stream", stream_calls)
    message_server, message_client = stream_server / STREAM_MESSAGES, stream_client / STREAM_MESSAGES
    print(f"stream message : server {message_server:6.0f} µs CPU · client {message_client:6.0f} µs")
    both_server, both_client, both_rate = measure_calls(context, server.pid, port, "both ways", args.calls)
    print(f"request and reply on an open stream both ways: server {both_server:6.0f} µs CPU · client {both_client:6.0f} µs"
          f" · {both_rate:,.0f}/s ({unary_server / both_server:.1f}x cheaper than a unary call on the server)")
    server.kill()
    raw_started = context.Queue()
    raw_server = context.Process(target=raw_server_main, args=(raw_started,), daemon=True)
    raw_server.start()
    raw_port = raw_started.get(timeout=60)
    measure_calls(context, raw_server.pid, raw_port, "both ways", CONCURRENCY * 20, raw_client_main)  # warm up
    raw_both_server, raw_both_client, _ = measure_calls(context, raw_server.pid, raw_port, "both ways", args.calls,
                                                       raw_client_main)
    raw_stream_server, raw_stream_client, _ = measure_calls(context, raw_server.pid, raw_port, "stream", stream_calls,
                                                           raw_client_main)
    raw_message_server = raw_stream_server / STREAM_MESSAGES
    raw_server.kill()
    print(f"bare asyncio socket: request and reply server {raw_both_server:5.0f} µs CPU · client {raw_both_client:5.0f} µs"
          f" · pushed message server {raw_message_server:5.0f} µs · client {raw_stream_client / STREAM_MESSAGES:5.0f} µs"
          f" ({both_server / raw_both_server:.1f}x and {message_server / raw_message_server:.1f}x less than gRPC's"
          f" on the server)")
    try:
        get_us, evalsha_us = measure_redis(args.redis_url, args.calls // 4)
    except Exception as error:  # noqa: BLE001 - a missing Redis only drops this line
        print(f"redis          : skipped ({error})")
        get_us = evalsha_us = 0.0
    else:
        print(f"redis round trip: GET 4 KB {get_us:5.0f} µs CPU · EVALSHA {evalsha_us:5.0f} µs (redis-py and Redis)")
    # 炸金花, 3 players: an Act, half a Ready, the event and the followed views reaching the three
    # watchers (~4 messages), and a load, a commit and a read after it.
    per_action = (1.5 * (unary_server + unary_client) + 4 * (message_server + message_client)
                   + 2 * get_us + evalsha_us)
    print(f"floor per action (1.5 unary calls, 4 stream messages, 3 Redis round trips, both ends): "
          f"{per_action:,.0f} µs of CPU, before any game, auth, view or ledger work")
    on_streams = (1.5 * (both_server + both_client) + 4 * (message_server + message_client)
                  + 2 * get_us + evalsha_us)
    print(f"the same with Act and Ready as requests on the player's open stream: {on_streams:,.0f} µs of CPU")
    # The table server's own side of a five-seat action on Play streams (bench/tablegen.py): the
    # move and ~0.45 presses of start, each a request and its reply; the move reaching the four
    # other players; the commit's round trip (its Redis CPU included).
    server_side = 1.45 * both_server + 4 * message_server + evalsha_us
    raw_side = 1.45 * raw_both_server + 4 * raw_message_server + evalsha_us
    print(f"a five-seat action's transport and commit on the table server: {server_side:,.0f} µs on gRPC, "
          f"{raw_side:,.0f} µs on a bare socket, before any of Paiju's own work")
    print(f"budget per action at the target (2 cores, 1,000 actions/s, bots and Redis included): "
          f"{TARGET_CPU_PER_ACTION_US:,.0f} µs · floor / budget = {per_action / TARGET_CPU_PER_ACTION_US:.0%} "
          f"{beside(per_action, TARGET_CPU_PER_ACTION_US, at_most=True, unit=' µs')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
