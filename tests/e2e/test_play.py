"""TableService.Play over real gRPC: a Watch stream whose later requests are moves, each answered on it."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator

import grpc
import pytest

from paiju.client.sdk import PaijuClient, PaijuError, StaleView
from paiju.proto.v1 import common_pb2, table_pb2, table_pb2_grpc
from paiju.rpc.errors import ERROR_CODE_KEY, trailer
from tests.e2e.test_platform import everyone_settled, finish_hand, new_clients, start_hand, wait_for
from tests.patience import PATIENCE_SECONDS, wait_until


class PlayStream:
    """One player's Play stream: requests sent from a queue, everything received kept in order."""

    def __init__(self, client: PaijuClient, room: str, first: table_pb2.PlayRequest | None = None) -> None:
        self._requests: queue.Queue[table_pb2.PlayRequest | None] = queue.Queue()
        self._requests.put(first or table_pb2.PlayRequest(open=table_pb2.WatchRequest(table_id=room, follow_view=True)))
        self.received: list[table_pb2.PlayResponse] = []
        self.ended: grpc.RpcError | None = None
        self._call = client.table.Play(self._sent())
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _sent(self) -> Iterator[table_pb2.PlayRequest]:
        while (request := self._requests.get()) is not None:
            yield request

    def _read(self) -> None:
        try:
            self.received.extend(self._call)
        except grpc.RpcError as error:
            self.ended = error

    def move(self, move_id: int, expected_version: int, action: str) -> None:
        self._requests.put(table_pb2.PlayRequest(move=table_pb2.PlayMove(
            move_id=move_id, expected_version=expected_version, action=action)))

    def send(self, request: table_pb2.PlayRequest) -> None:
        self._requests.put(request)

    def answers(self) -> list[table_pb2.MoveAnswer]:
        return [update.answer for update in list(self.received) if update.HasField("answer")]

    def answer_to(self, move_id: int) -> table_pb2.MoveAnswer:
        wait_for(f"the answer to move {move_id}", lambda: any(a.move_id == move_id for a in self.answers()))
        return next(a for a in self.answers() if a.move_id == move_id)

    def updates(self) -> list[table_pb2.WatchResponse]:
        return [update.update for update in list(self.received) if update.HasField("update")]

    def close(self) -> None:
        self._requests.put(None)
        self._call.cancel()
        self._reader.join(timeout=PATIENCE_SECONDS)


def _leave(clients: list[PaijuClient], room: str) -> None:
    """Each client stands up from ``room`` (if still seated) and closes."""
    for client in clients:
        with contextlib.suppress(PaijuError):
            client.stand(room)
        client.close()


def _seated_and_settled(deployment, room: str, count: int) -> list[PaijuClient]:
    """``count`` new players seated at ``room``, once its last hand's settlement landed."""
    clients = new_clients(deployment, count)
    for client in clients:
        client.sit(room)
    wait_for("the last settlement of the room", everyone_settled(deployment), deployment)
    return clients


def _actor(clients: list[PaijuClient], room: str, view: dict) -> PaijuClient:
    seat = view["hand"]["seats"][view["hand"]["state"]["to_act"]]
    return next(c for c in clients if c.view(room)["seat"] == seat)


def test_moves_are_answered_in_order_a_refusal_leaves_the_stream_open_and_own_moves_stay_off_it(deployment):
    room = "zhajinhua-free-03"
    clients = new_clients(deployment, 2)
    view = start_hand(deployment, clients, room)
    mover = _actor(clients, room, view)
    other = next(c for c in clients if c is not mover)
    stream = PlayStream(mover, room)
    try:
        wait_for("the first snapshot", lambda: any(u.HasField("snapshot") for u in stream.updates()))
        version = mover.view(room)["version"]
        stream.move(1, version, "compare 7")  # no such seat
        stream.move(2, version, "fold")
        refused, folded = stream.answer_to(1), stream.answer_to(2)
        assert [a.move_id for a in stream.answers()] == [1, 2]
        assert refused.WhichOneof("outcome") == "refused"
        assert refused.refused.code in (grpc.StatusCode.INVALID_ARGUMENT.value[0],
                                        grpc.StatusCode.FAILED_PRECONDITION.value[0])
        assert refused.refused.error_code and refused.refused.message
        assert folded.WhichOneof("outcome") == "accepted"
        mine = folded.accepted
        assert mine.events and mine.view.version == mine.version > version
        assert mover.view(room)["version"] >= mine.version  # it was applied, as Act applies it
        finish_hand(clients, room)
        # Someone else's event after the move: once the stream brings it, the mover's own move
        # would have come before it, had it been streamed.
        other.stand(room)
        wait_for("the other player leaving, on the stream",
                 lambda: any(e.type == "stood" for update in stream.updates() for e in update.events))
        streamed = {event.id for update in stream.updates() for event in update.events}
        assert not {event.id for event in mine.events} & streamed
        assert stream.ended is None
    finally:
        stream.close()
        _leave(clients, room)


def test_a_move_on_a_view_whose_options_changed_is_refused_with_the_version_now(deployment):
    room = "zhajinhua-free-04"
    clients = new_clients(deployment, 2)
    view = start_hand(deployment, clients, room)
    mover = _actor(clients, room, view)
    stream = PlayStream(mover, room)
    try:
        stream.move(1, 1, "fold")  # decided on the table's first version, before this hand began
        answer = stream.answer_to(1)
        assert answer.WhichOneof("outcome") == "refused"
        assert answer.refused.code == grpc.StatusCode.ABORTED.value[0]
        assert answer.refused.error_code == "stale_version"
        assert answer.refused.current_version == mover.view(room)["version"]
        assert mover.view(room)["hand"] is not None  # nothing changed
    finally:
        stream.close()
        finish_hand(clients, room)
        _leave(clients, room)


def test_moves_over_the_players_rate_are_answered_rate_limited(deployment):
    room = "zhajinhua-expert-01"  # no other test here sits at it: its one player starts no hand
    client = new_clients(deployment, 1)[0]
    client.sit(room)
    version = client.view(room)["version"]
    stream = PlayStream(client, room)
    try:
        moves = 400  # above the default burst of 200 calls
        for move_id in range(1, moves + 1):
            stream.move(move_id, version, "fold")
        wait_for("every answer", lambda: len(stream.answers()) == moves)
        codes = {a.refused.error_code for a in stream.answers()}
        assert codes == {"no_hand", "rate_limited"}
        assert [a.move_id for a in stream.answers()] == list(range(1, moves + 1))
        assert stream.ended is None
    finally:
        stream.close()
        client.close()


@pytest.mark.parametrize("first", [
    table_pb2.PlayRequest(move=table_pb2.PlayMove(move_id=1, expected_version=1, action="fold")),
    table_pb2.PlayRequest(),
], ids=["a move", "nothing"])
def test_a_play_stream_that_does_not_open_with_open_ends_invalid_argument(deployment, first):
    client = new_clients(deployment, 1)[0]
    stream = PlayStream(client, "zhajinhua-free-01", first)
    try:
        wait_for("the stream to end", lambda: stream.ended is not None)
        assert stream.ended.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        stream.close()
        client.close()


def test_a_request_after_the_first_that_is_no_move_ends_the_stream(deployment):
    room = "zhajinhua-free-02"
    client = new_clients(deployment, 1)[0]
    client.sit(room)
    stream = PlayStream(client, room)
    try:
        wait_for("the first snapshot", lambda: bool(stream.updates()))
        stream.send(table_pb2.PlayRequest(open=table_pb2.WatchRequest(table_id=room)))
        wait_for("the stream to end", lambda: stream.ended is not None)
        assert stream.ended.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        stream.close()
        client.stand(room)
        client.close()


def test_a_move_larger_than_a_move_may_be_ends_the_stream_unread(deployment):
    room = "zhajinhua-free-02"
    client = new_clients(deployment, 1)[0]
    client.sit(room)
    stream = PlayStream(client, room)
    try:
        wait_for("the first snapshot", lambda: bool(stream.updates()))
        stream.move(1, 1, "raise " + "9" * 600)
        wait_for("the stream to end", lambda: stream.ended is not None)
        assert stream.ended.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert trailer(stream.ended, ERROR_CODE_KEY) == "request_too_large"
        assert not stream.answers()
    finally:
        stream.close()
        client.stand(room)
        client.close()


def test_play_needs_a_session_and_a_seat_or_the_operator_role(deployment):
    with grpc.insecure_channel(deployment.address) as channel:
        anonymous = table_pb2_grpc.TableServiceStub(channel).Play(
            iter([table_pb2.PlayRequest(open=table_pb2.WatchRequest(table_id="zhajinhua-free-01"))]))
        with pytest.raises(grpc.RpcError) as refused:
            list(anonymous)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    client = new_clients(deployment, 1)[0]
    stream = PlayStream(client, "zhajinhua-free-01")  # not seated there
    try:
        wait_for("the stream to end", lambda: stream.ended is not None)
        assert stream.ended.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        stream.close()
        client.close()


def test_closing_the_sending_side_stops_the_moves_not_the_updates(deployment):
    room = "zhajinhua-free-03"
    clients = new_clients(deployment, 2)
    view = start_hand(deployment, clients, room)
    # Not the one to act: the first fold ends the hand with the other's move, which the stream
    # brings (its own moves, through Act too, are left out of it).
    watcher = next(c for c in clients if c is not _actor(clients, room, view))
    stream = PlayStream(watcher, room)
    try:
        wait_for("the first snapshot", lambda: bool(stream.updates()))
        stream._requests.put(None)  # done sending
        before = len(stream.updates())
        finish_hand(clients, room)
        wait_for("the hand's end on the stream", lambda: len(stream.updates()) > before)
        assert stream.ended is None
    finally:
        with contextlib.suppress(Exception):
            stream.close()
        _leave(clients, room)


def test_the_python_client_moves_on_one_stream_and_raises_refusals_as_act_does(deployment):
    room = "zhajinhua-free-04"
    clients = new_clients(deployment, 2)
    view = start_hand(deployment, clients, room)
    mover = _actor(clients, room, view)
    try:
        with mover.play_stream(room) as stream:
            first = next(stream.updates())
            assert first.view is not None and first.view["seat"] == mover.view(room)["seat"]
            mine = mover.view(room)
            with pytest.raises(PaijuError) as refused:
                stream.move("compare 7", mine["version"])
            assert refused.value.status in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION)
            with pytest.raises(StaleView) as stale:
                stream.move("fold", 1)
            assert stale.value.current_version == mine["version"]
            after = stream.move("fold", mine["version"])
            assert after["version"] > mine["version"] and after["seat"] == mine["seat"]
        with pytest.raises(PaijuError):
            stream.move("fold", after["version"])  # closed
    finally:
        finish_hand(clients, room)
        _leave(clients, room)


def test_presses_of_start_on_the_stream_start_the_hand_and_the_requests_after_them_wait_their_answer(deployment):
    room = "zhajinhua-free-05"
    clients = _seated_and_settled(deployment, room, 2)
    first, second = clients
    streams = [PlayStream(client, room) for client in clients]
    try:
        for stream in streams:
            wait_for("the first snapshot", lambda stream=stream: bool(stream.updates()))
        streams[0].send(table_pb2.PlayRequest(ready=table_pb2.PlayReady(move_id=1)))
        pressed = streams[0].answer_to(1)
        assert pressed.WhichOneof("outcome") == "ready"
        assert not pressed.ready.hand_started
        assert {seat.account_id: seat.ready for seat in pressed.ready.room.seats} == {
            first.account_id: True, second.account_id: False}
        # The last press starts the hand (its holds go to the ledger, off the event loop); the
        # move sent right behind it is judged after it, on the hand it started.
        streams[1].send(table_pb2.PlayRequest(ready=table_pb2.PlayReady(move_id=1)))
        streams[1].move(2, 1, "fold")
        started, behind = streams[1].answer_to(1), streams[1].answer_to(2)
        assert [a.move_id for a in streams[1].answers()] == [1, 2]
        assert started.WhichOneof("outcome") == "ready" and started.ready.hand_started
        assert started.ready.hand_id and started.ready.room.state == common_pb2.ROOM_STATE_PLAYING
        assert behind.refused.error_code == "stale_version"
        assert behind.refused.current_version >= started.ready.room.version
        # The start's events come on both streams, as anyone's.
        for stream in streams:
            wait_for("the hand's start on the stream", lambda stream=stream: any(
                event.hand_id == started.ready.hand_id for update in stream.updates() for event in update.events))
        # A press during the hand is refused as LobbyService.Ready refuses it, and the stream goes on.
        streams[0].send(table_pb2.PlayRequest(ready=table_pb2.PlayReady(move_id=2)))
        again = streams[0].answer_to(2)
        assert again.WhichOneof("outcome") == "refused" and again.refused.message
        with pytest.raises(PaijuError) as by_lobby:
            first.ready(room)
        assert (again.refused.code, again.refused.error_code) == (by_lobby.value.status.value[0],
                                                                  by_lobby.value.error_code or "")
        assert all(stream.ended is None for stream in streams)
    finally:
        for stream in streams:
            stream.close()
        finish_hand(clients, room)
        _leave(clients, room)


def test_the_python_client_presses_start_on_its_stream(deployment):
    room = "hunzhan-stake10-01"
    clients = _seated_and_settled(deployment, room, 4)
    sessions = [client.play_stream(room) for client in clients]
    try:
        started = [session.ready() for session in sessions]
        assert started == [False, False, False, True]
        assert clients[0].view(room)["hand"] is not None
    finally:
        for session in sessions:
            session.close()
        _leave(clients, room)


def test_bug_a_client_kept_every_stream_it_had_ever_opened(deployment):
    # A bot's waiter opens another stream after each one that ends (a server restarting, a
    # network blip): the client listed them all, for the life of the bot.
    room = "zhajinhua-free-04"
    client = new_clients(deployment, 1)[0]
    try:
        client.sit(room)
        for _ in range(3):
            with client.play_stream(room) as stream:
                assert next(stream.updates()).view is not None
            watch = client.watch(room, follow_view=True)
            assert next(watch).view is not None
            watch.close()  # the caller stops iterating
        wait_until("the ended streams to be forgotten", lambda: client.open_streams == 0)
        open_one = client.play_stream(room)
        assert client.open_streams == 1
        open_one.close()
        wait_until("the last to be forgotten", lambda: client.open_streams == 0)
    finally:
        _leave([client], room)
        client.close()
