"""Soak: one abusive client floods a server for a while; the honest players never notice a refusal.

Every flood of issue 13's proof at once, against the embedded platform with its default limits:
calls as fast as they are answered, 3.9 MB actions, a thousand Watch streams and room lists
opened and dropped, and logins from many threads. The honest players' calls must all succeed,
each flood must have met its refusal, and afterwards the server still logs in and seats players.
Outcomes only: the latency figures are ``bench/abuse.py``'s.
"""

from __future__ import annotations

import secrets
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial

import grpc
import pytest

from paiju.client.sdk import PaijuClient, PaijuError
from paiju.common.config import Settings
from paiju.platform import build
from paiju.proto.v1 import lobby_pb2, table_pb2, wallet_pb2, wallet_pb2_grpc
from paiju.rpc.errors import ERROR_CODE_KEY, trailer
from paiju.rpc.server import RunningServer, start_from_settings

pytestmark = pytest.mark.soak

ABUSE_SECONDS = 20.0
PASSWORD = "a long enough password"


@pytest.fixture
def server(tmp_path) -> Iterator[RunningServer]:
    settings = Settings.from_env({"PAIJU_SECRET": "the abuse soak secret, 32 bytes long",
                                  "DATABASE_URL": f"sqlite:///{tmp_path / 'ledger.sqlite3'}"})
    platform = build(settings, rooms_per_tier=3)
    running = start_from_settings(settings, platform.bindings(), port=0)
    platform.start_background()
    try:
        yield running
    finally:
        running.stop(grace=0.5)
        platform.close()


class Abuser:
    """The floods, each in threads of its own, and what the server answered them."""

    def __init__(self, address: str, room: str, stop: threading.Event) -> None:
        self.client = PaijuClient.connect(address, f"abuser{secrets.token_hex(3)}", PASSWORD, register=True)
        self.client.sit(room)
        self.room, self.stop = room, stop
        self.logins = wallet_pb2_grpc.WalletServiceStub(grpc.insecure_channel(address))
        self.answers: Counter[str] = Counter()
        self.lock = threading.Lock()

    def count(self, kind: str, call: Callable[[], object]) -> object:
        try:
            answer, outcome = call(), "ok"
        except grpc.RpcError as error:
            answer, outcome = None, trailer(error, ERROR_CODE_KEY) or error.code().name
        with self.lock:
            self.answers[f"{kind} {outcome}"] += 1
        return answer

    def flood(self) -> None:
        while not self.stop.is_set():
            self.count("GetView", lambda: self.client.table.GetView(table_pb2.GetViewRequest(table_id=self.room)))

    def big(self) -> None:
        action = "play " + "5H " * 1_300_000
        while not self.stop.is_set():
            self.count("Act", lambda: self.client.table.Act(table_pb2.ActRequest(table_id=self.room, action=action)))

    def streams(self) -> None:
        held = []
        for _ in range(1_000):
            if self.stop.is_set():
                break
            stream = self.client.table.Watch(table_pb2.WatchRequest(table_id=self.room))
            if self.count("Watch", partial(next, stream)) is not None:
                held.append(stream)
        while not self.stop.is_set():
            rooms = self.client.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game="zhajinhua", tier="free"))
            self.count("WatchRooms", partial(next, rooms))
            rooms.cancel()
        for stream in held:
            stream.cancel()

    def login(self) -> None:
        request = wallet_pb2.LoginRequest(username=self.client.username, password="not the password")
        while not self.stop.is_set():
            self.count("Login", lambda: self.logins.Login(request))


def test_one_abusive_client_meets_every_limit_and_the_honest_players_are_never_refused(server) -> None:
    honest = [PaijuClient.connect(server.address, f"honest{secrets.token_hex(3)}", PASSWORD, register=True) for _ in range(3)]
    for client in honest:
        client.sit("zhajinhua-free-01")
    stop = threading.Event()
    abuser = Abuser(server.address, "zhajinhua-free-03", stop)
    threads = [threading.Thread(target=work) for work in
               [abuser.flood] * 4 + [abuser.big, abuser.streams] + [abuser.login] * 24]
    for thread in threads:
        thread.start()
    refused: list[PaijuError] = []
    answered = 0
    try:
        ends = threading.Timer(ABUSE_SECONDS, stop.set)
        ends.start()
        while not stop.wait(0.1):  # a player's pace: well under their calls per second
            for client in honest:
                try:
                    client.view("zhajinhua-free-01")
                    client.balance()
                    client.rooms("zhajinhua", "free")
                    answered += 3
                except PaijuError as error:
                    refused.append(error)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    assert not refused, refused[:3]
    assert answered > 0
    for met in ("GetView rate_limited", "Act RESOURCE_EXHAUSTED", "Watch too_many_streams", "Login too_many_logins"):
        assert abuser.answers[met] > 0, (met, abuser.answers)
    assert abuser.answers["Watch ok"] == 16  # the default streams per player
    later = PaijuClient(server.address)
    later.login(honest[0].username, PASSWORD)
    later.stand("zhajinhua-free-01")
    assert later.sit("zhajinhua-free-02") >= 0
