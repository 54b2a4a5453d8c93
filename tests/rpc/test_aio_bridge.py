"""The event-loop server: streams that wait on the loop hold no thread, and end cleanly."""

from __future__ import annotations

import asyncio
import gc
import json
import queue
import threading
import types
from collections.abc import Iterator

import grpc
import pytest
from prometheus_client import CollectorRegistry

from paiju.common.auth import TokenSigner
from paiju.common.metrics import PaijuMetrics
from paiju.proto.v1 import table_pb2, table_pb2_grpc
from paiju.rpc.aio_bridge import MOST_WAITING_REQUESTS, WAITING, OffTheLoop, StreamRequests
from paiju.rpc.interceptor import bearer_metadata, current_caller
from paiju.rpc.server import ServiceBinding, start_server
from paiju.rpc.timing import MetricsInterceptor
from tests.patience import PATIENCE_SECONDS, wait_until

SECRET = b"the aio bridge test secret, 32 bytes!"
STREAMS = 40


class Mailboxes(table_pb2_grpc.TableServiceServicer):
    """Watch sends what is posted to the table's mailbox; it waits on the loop in between."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open: dict[str, list[tuple[queue.SimpleQueue, object]]] = {}
        self.cleaned_up: list[str] = []
        self.blocking_streams = 0

    def post(self, table_id: str, text: str) -> None:
        with self.lock:
            boxes = list(self.open.get(table_id, ()))
        for box, context in boxes:
            box.put(text)
            context.wake()  # type: ignore[attr-defined]

    def Act(self, request: table_pb2.ActRequest, context: grpc.ServicerContext) -> table_pb2.ActResponse:
        self.post(request.table_id, request.action)  # on the loop: the wakes come from its own thread
        return table_pb2.ActResponse(version=request.expected_version + 1)

    def Watch(self, request: table_pb2.WatchRequest, context: grpc.ServicerContext) -> Iterator[table_pb2.WatchResponse]:
        if not getattr(context, "waits_on_loop", False):
            self.blocking_streams += 1
            return
        box: queue.SimpleQueue = queue.SimpleQueue()
        with self.lock:
            self.open.setdefault(request.table_id, []).append((box, context))
        try:
            while True:
                try:
                    text = box.get_nowait()
                except queue.Empty:
                    yield WAITING
                    continue
                event = table_pb2.Event(type=text, payload_json=json.dumps(current_caller().account_id))
                yield table_pb2.WatchResponse(events=[event])
        finally:
            self.cleaned_up.append(current_caller().account_id)
            with self.lock:
                self.open[request.table_id].remove((box, context))


@pytest.fixture
def served() -> Iterator[tuple[Mailboxes, grpc.Channel, TokenSigner]]:
    servicer = Mailboxes()
    signer = TokenSigner(SECRET)
    binding = ServiceBinding("paiju.v1.TableService", servicer, table_pb2_grpc.add_TableServiceServicer_to_server,
                             inline=frozenset({"Watch", "Act"}))
    # One worker thread: were a waiting stream to hold one, the second stream would starve.
    with start_server([binding], signer=signer, max_workers=1) as running, \
            grpc.insecure_channel(running.address) as channel:
        yield servicer, channel, signer


def test_many_streams_wait_on_the_loop_with_one_worker_thread_and_each_gets_its_own_messages(served) -> None:
    servicer, channel, signer = served
    stub = table_pb2_grpc.TableServiceStub(channel)
    streams = [stub.Watch(table_pb2.WatchRequest(table_id="t1"), timeout=PATIENCE_SECONDS,
                          metadata=bearer_metadata(signer.issue(f"acct-{n}", f"p{n}", ttl=3600)))
               for n in range(STREAMS)]
    wait_until("every stream open", lambda: len(servicer.open.get("t1", ())) == STREAMS)
    for text in ("first", "second"):
        servicer.post("t1", text)
    for number, stream in enumerate(streams):
        received = [next(stream).events[0] for _ in range(2)]
        assert [e.type for e in received] == ["first", "second"]
        assert {json.loads(e.payload_json) for e in received} == {f"acct-{number}"}  # its caller, not another's
    assert servicer.blocking_streams == 0
    for stream in streams:
        stream.cancel()
    wait_until("every stream's cleanup", lambda: len(servicer.cleaned_up) == STREAMS)
    assert sorted(servicer.cleaned_up) == sorted(f"acct-{n}" for n in range(STREAMS))


def test_a_stream_refused_by_the_auth_check_never_reaches_the_servicer(served) -> None:
    servicer, channel, _ = served
    stream = table_pb2_grpc.TableServiceStub(channel).Watch(table_pb2.WatchRequest(table_id="t1"), timeout=PATIENCE_SECONDS)
    with pytest.raises(grpc.RpcError) as refused:
        next(stream)
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert not servicer.open and not servicer.cleaned_up


def test_streams_woken_by_a_call_served_on_the_loop_itself_get_its_message(served) -> None:
    servicer, channel, signer = served
    stub = table_pb2_grpc.TableServiceStub(channel)
    metadata = bearer_metadata(signer.issue("acct-actor", "actor", ttl=3600))
    streams = [stub.Watch(table_pb2.WatchRequest(table_id="t2"), timeout=PATIENCE_SECONDS, metadata=metadata)
               for _ in range(3)]
    wait_until("every stream open", lambda: len(servicer.open.get("t2", ())) == 3)
    for number, text in enumerate(("raise 300", "look")):
        reply = stub.Act(table_pb2.ActRequest(table_id="t2", expected_version=number, action=text),
                         timeout=PATIENCE_SECONDS, metadata=metadata)
        assert reply.version == number + 1
    for stream in streams:
        assert [next(stream).events[0].type for _ in range(2)] == ["raise 300", "look"]
        stream.cancel()


class Checker(table_pb2_grpc.TableServiceServicer):
    """CheckAction, tried on the loop first: an action named ``needs a thread`` leaves the loop."""

    def __init__(self) -> None:
        self.ran_on: list[tuple[str, bool]] = []

    def CheckAction(self, request: table_pb2.CheckActionRequest,
                    context: grpc.ServicerContext) -> table_pb2.CheckActionResponse:
        on_loop = getattr(context, "runs_on_loop", False)
        self.ran_on.append((threading.current_thread().name, on_loop))
        if (on_loop and request.action == "needs a thread") or request.action == "leaves every place":
            raise OffTheLoop
        return table_pb2.CheckActionResponse(legal=True, reason=current_caller().account_id)


def test_a_loop_first_call_runs_on_the_loop_and_again_in_a_thread_only_when_it_must_wait() -> None:
    servicer, metrics = Checker(), PaijuMetrics(CollectorRegistry())
    signer = TokenSigner(SECRET)
    binding = ServiceBinding("paiju.v1.TableService", servicer, table_pb2_grpc.add_TableServiceServicer_to_server,
                             loop_first=frozenset({"CheckAction"}))
    with start_server([binding], signer=signer, extra_interceptors=[MetricsInterceptor(metrics)]) as running, \
            grpc.insecure_channel(running.address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        metadata = bearer_metadata(signer.issue("acct-checker", "checker", ttl=3600))
        for action in ("fold", "needs a thread"):
            reply = stub.CheckAction(table_pb2.CheckActionRequest(table_id="t1", action=action),
                                     timeout=PATIENCE_SECONDS, metadata=metadata)
            assert reply.legal and reply.reason == "acct-checker"  # the caller is known in both places
        with pytest.raises(grpc.RpcError) as failed:  # a servicer's bug: answered, never hung
            stub.CheckAction(table_pb2.CheckActionRequest(table_id="t1", action="leaves every place"),
                             timeout=PATIENCE_SECONDS, metadata=metadata)
        assert failed.value.code() is grpc.StatusCode.INTERNAL
    (loop, on_loop), (again_loop, again_on_loop), (pool, on_pool) = servicer.ran_on[:3]
    assert loop == again_loop == "grpc-loop" and on_loop and again_on_loop
    assert pool.startswith("paiju-grpc") and not on_pool
    labels = {"service": "paiju.v1.TableService", "method": "CheckAction", "kind": "unary"}
    assert metrics.sample("paiju_rpc_duration_seconds_count", code="OK", **labels) == 2  # each call once
    assert metrics.sample("paiju_rpc_duration_seconds_count", code="UNKNOWN", **labels) is None


def test_calls_through_the_interceptors_leave_no_reference_cycles_of_ours(served) -> None:
    """Regression: a continuation built per call named itself, so every call left a cycle (the
    function and its cells) that only a garbage collection freed; full collections are the event
    loop's longest pauses. (grpc's own lookup of the handler still leaves one cycle per call.)"""
    _, channel, signer = served
    stub = table_pb2_grpc.TableServiceStub(channel)
    metadata = bearer_metadata(signer.issue("acct-gc", "gc", ttl=3600))

    def act(version: int) -> None:
        stub.Act(table_pb2.ActRequest(table_id="t3", expected_version=version, action="look"),
                 timeout=PATIENCE_SECONDS, metadata=metadata)

    act(0)  # whatever the first call sets up for good is not the calls' garbage
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for version in range(1, 21):
            act(version)
        control: list[object] = []
        control.append(control)  # a cycle of the test's own: the collector must report it
        control_id = id(control)
        del control
        gc.collect()
        ours = [garbage for garbage in gc.garbage if isinstance(garbage, types.CellType)
                or (isinstance(garbage, types.FunctionType) and (garbage.__module__ or "").startswith("paiju"))]
        control_seen = any(id(garbage) == control_id for garbage in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert control_seen, "the collector reported no garbage: this test would see no cycle of ours either"
    assert ours == [], [(type(g).__name__, getattr(g, "__qualname__", None) or repr(g)[:120]) for g in ours][:20]


def test_a_stream_woken_before_it_waits_goes_on_at_once_and_a_wait_ends_at_the_next_wake() -> None:
    """The wait of a stream on the loop is a bare future (fewer objects for every collection to
    walk than an ``asyncio.Event``'s wait): no wake may be lost, from the loop or a thread."""
    import asyncio

    from paiju.rpc.aio_bridge import BridgedContext

    async def scenario() -> list[str]:
        loop = asyncio.get_running_loop()
        bridged = BridgedContext(types.SimpleNamespace(), loop, on_loop=True)  # type: ignore[arg-type]
        seen = []
        bridged.wake()  # before any wait: the next one ends at once
        seen.append("at once" if bridged._until_woken() is None else "waits")
        waiting = bridged._until_woken()
        seen.append("at once" if waiting is None else "waits")
        threading.Thread(target=bridged.wake).start()  # from another thread, through the loop
        await asyncio.wait_for(waiting, PATIENCE_SECONDS)
        seen.append("woken")
        bridged.wake()
        bridged.wake()  # extra wakes are harmless: one wait ends at once, the next waits
        seen.append("at once" if bridged._until_woken() is None else "waits")
        later = bridged._until_woken()
        seen.append("at once" if later is None else "waits")
        bridged.wake_later(0.001)
        await asyncio.wait_for(later, PATIENCE_SECONDS)
        seen.append("woken later")
        return seen

    assert asyncio.run(scenario()) == ["at once", "waits", "woken", "at once", "waits", "woken later"]


def test_a_stream_both_ways_reads_no_further_ahead_than_its_servicer_takes():
    requests = StreamRequests("the opening request")
    for number in range(MOST_WAITING_REQUESTS):
        requests._came_in(number, None)
    assert requests.has_come()

    async def room_within(seconds: float) -> None:
        await asyncio.wait_for(requests._until_room(), seconds)

    with pytest.raises(TimeoutError):
        asyncio.run(room_within(0.05))  # full: the next request stays unread
    assert [request for request, _ in requests.take()] == list(range(MOST_WAITING_REQUESTS))
    assert not requests.has_come()
    asyncio.run(room_within(30))  # taken: room again
