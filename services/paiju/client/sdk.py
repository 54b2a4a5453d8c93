"""A Python client of Paiju over its public gRPC API only (what any frontend could do).

The SDK's face: :class:`PaijuClient` and the refusals its calls raise (:class:`PaijuError`,
:class:`IllegalMove`, :class:`StaleView`, defined with the updates in :mod:`paiju.client.answers`).

>>> # client = PaijuClient.connect("127.0.0.1:50051", "ann", "a long password", register=True)
>>> # room, seat = client.quick_match("zhajinhua", "free"); client.ready(room)
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import grpc

from paiju.client.answers import (
    IllegalMove,
    PaijuError,
    StaleView,
    WatchResponse,
    refusal_of,
    updates_of,
)
from paiju.client.session import PlaySession
from paiju.common.typed_views import view_of
from paiju.common.wire import SERVER_BUSY, TOO_MANY_LOGINS
from paiju.proto.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
    wallet_pb2,
    wallet_pb2_grpc,
)
from paiju.rpc.channels import authorized_channel, is_loopback, open_channel

__all__ = ["DEFAULT_TIMEOUT_SECONDS", "IllegalMove", "PaijuClient", "PaijuError", "StaleView", "WatchResponse"]

DEFAULT_TIMEOUT_SECONDS = 10.0
"""The deadline of a call (not of a stream) unless the client is given another."""
LOGIN_TRIES = 20
LOGIN_RETRY_FIRST_PAUSE_S = 0.05
LOGIN_RETRY_LONGEST_PAUSE_S = 2.0
LOGIN_BUSY_CODES = frozenset({TOO_MANY_LOGINS, SERVER_BUSY})
"""The refusals of a login that say "not now" rather than "no"."""


class PaijuClient:
    """One player's session with a Paiju server."""

    def __init__(self, target: str, routes: dict[str, str] | None = None, *, own_connection: bool = False,
                 tls: bool | None = None, root_certificates: bytes | None = None,
                 timeout: float | None = DEFAULT_TIMEOUT_SECONDS) -> None:
        """``target`` serves every service (all-in-one, or a gateway); ``routes`` may send
        ``"wallet"``, ``"lobby"`` or ``"table"`` calls to other addresses. ``own_connection``
        opens connections of this client's own instead of sharing the process's (many players
        in one process, each as if on its own device).

        ``tls``: connect over TLS — by default for every address but loopback — trusting the
        system's roots, or ``root_certificates`` (PEM) when given. ``timeout``: the deadline of
        each call but the streams, in seconds (``None``: none), so that a server that stops
        answering is an error, not a client that waits for ever."""
        self.target = target
        self.routes = {name: (routes or {}).get(name, target) for name in ("wallet", "lobby", "table")}
        self.own_connection = own_connection
        self.timeout = timeout
        use_tls = (not is_loopback(target)) if tls is None else tls
        self._credentials = grpc.ssl_channel_credentials(root_certificates) if use_tls else None
        self._open_channel = open_channel(self.routes["wallet"], own_connection=own_connection,
                                          credentials=self._credentials)
        self._wallet_open = wallet_pb2_grpc.WalletServiceStub(self._open_channel)
        self.token = ""
        self.account_id = ""
        self.username = ""
        self._channels: list[grpc.Channel] = []
        self._streams: list[Any] = []

    @classmethod
    def connect(cls, target: str, username: str, password: str, routes: dict[str, str] | None = None, *,
                register: bool = False, own_connection: bool = False, **transport: Any) -> PaijuClient:
        """Log in to an existing account; with ``register``, create the account first (a name
        already taken is refused, ALREADY_EXISTS). A wrong password is UNAUTHENTICATED, never
        mistaken for a wish to register. ``transport``: ``tls``, ``root_certificates`` and
        ``timeout`` as for the constructor."""
        client = cls(target, routes, own_connection=own_connection, **transport)
        if register:
            client.register(username, password)
        else:
            client.login(username, password)
        return client

    @classmethod
    def from_session(cls, target: str, token: str, account_id: str, username: str,
                     routes: dict[str, str] | None = None, *, own_connection: bool = False,
                     **transport: Any) -> PaijuClient:
        """A client for a session already held (a token kept from an earlier login, or one the
        platform issued to its own players): no password is sent."""
        client = cls(target, routes, own_connection=own_connection, **transport)
        client._session(wallet_pb2.LoginResponse(token=token, account_id=account_id, username=username))
        return client

    def _call(self, method: Any, request: Any) -> Any:
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as error:
            raise refusal_of(error) from None

    def _session(self, response: wallet_pb2.RegisterResponse | wallet_pb2.LoginResponse) -> None:
        self.token, self.account_id, self.username = response.token, response.account_id, response.username
        for channel in self._channels:
            channel.close()
        channels = {
            address: authorized_channel(address, lambda: self.token, own_connection=self.own_connection,
                                        credentials=self._credentials)
            for address in set(self.routes.values())
        }
        self._channels = list(channels.values())
        self.wallet = wallet_pb2_grpc.WalletServiceStub(channels[self.routes["wallet"]])
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(channels[self.routes["lobby"]])
        self.table = table_pb2_grpc.TableServiceStub(channels[self.routes["table"]])

    def _call_when_admitted(self, method: Any, request: Any) -> Any:
        """A Login or Register, tried again a little later while the server has too many at once
        (it refuses those rather than queue them)."""
        pause = LOGIN_RETRY_FIRST_PAUSE_S
        for _ in range(LOGIN_TRIES - 1):
            try:
                return self._call(method, request)
            except PaijuError as error:
                if error.status != grpc.StatusCode.RESOURCE_EXHAUSTED or error.error_code not in LOGIN_BUSY_CODES:
                    raise
            time.sleep(pause * random.uniform(0.5, 1.5))
            pause = min(pause * 2, LOGIN_RETRY_LONGEST_PAUSE_S)
        return self._call(method, request)

    def register(self, username: str, password: str) -> None:
        request = wallet_pb2.RegisterRequest(username=username, password=password)
        self._session(self._call_when_admitted(self._wallet_open.Register, request))

    def login(self, username: str, password: str) -> None:
        request = wallet_pb2.LoginRequest(username=username, password=password)
        self._session(self._call_when_admitted(self._wallet_open.Login, request))

    def change_password(self, old_password: str, new_password: str) -> None:
        """Change this account's password; every other session of it ends, this one goes on
        with the fresh token the server answers (the channels read ``token`` at each call)."""
        request = wallet_pb2.ChangePasswordRequest(old_password=old_password, new_password=new_password)
        self.token = self._call(self.wallet.ChangePassword, request).token

    def refresh(self) -> wallet_pb2.RefreshSessionResponse:
        """Extend this session: a fresh token, expiring a whole session lifetime from now."""
        session = self._call(self.wallet.RefreshSession, wallet_pb2.RefreshSessionRequest())
        self.token = session.token
        return session

    # --- wallet -------------------------------------------------------------------------

    def balance(self) -> wallet_pb2.GetBalanceResponse:
        return self._call(self.wallet.GetBalance, wallet_pb2.GetBalanceRequest())

    def leaderboard(self, game: str, limit: int = 10) -> wallet_pb2.LeaderboardResponse:
        return self._call(self.wallet.Leaderboard, wallet_pb2.LeaderboardRequest(game=game, limit=limit))

    def hands(self, limit: int = 20, page_token: str = "") -> wallet_pb2.HandsResponse:
        """The hands this player played, newest first, a page at a time (``next_page_token``)."""
        return self._call(self.wallet.Hands, wallet_pb2.HandsRequest(limit=limit, page_token=page_token))

    def replay_hand(self, hand_id: str, view_format: int = 0) -> wallet_pb2.ReplayHandResponse:
        """One hand this player played, move by move as they saw it (each step's ``state``, typed;
        ``view_json`` instead when ``view_format`` is ``VIEW_FORMAT_JSON``)."""
        request = wallet_pb2.ReplayHandRequest(hand_id=hand_id, view_format=view_format)
        return self._call(self.wallet.ReplayHand, request)

    def history(self, limit: int = 50, page_token: str = "", game: str = "") -> wallet_pb2.HistoryResponse:
        """My ledger entries, newest first, one page (its ``next_page_token`` asks for the next)."""
        request = wallet_pb2.HistoryRequest(limit=limit, page_token=page_token, game=game)
        return self._call(self.wallet.History, request)

    def level(self, game: str, account_id: str = "") -> wallet_pb2.LevelResponse:
        """My level in ``game`` (another account's with ``account_id``)."""
        return self._call(self.wallet.Level, wallet_pb2.LevelRequest(game=game, account_id=account_id))

    # --- lobby --------------------------------------------------------------------------

    def tiers(self, game: str) -> list[common_pb2.Tier]:
        """The tiers of ``game``, in the order a frontend lists them."""
        return list(self._call(self.lobby.ListTiers, lobby_pb2.ListTiersRequest(game=game)).tiers)

    def rooms(self, game: str, tier: str) -> list[common_pb2.Room]:
        return list(self._call(self.lobby.ListRooms, lobby_pb2.ListRoomsRequest(game=game, tier=tier)).rooms)

    def watch_rooms(self, game: str, tier: str = "") -> Iterator[lobby_pb2.WatchRoomsResponse]:
        """The live room list of ``game`` (one ``tier``, or all): a snapshot, then each change,
        until the caller stops iterating."""
        return self._messages(self.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game=game, tier=tier)))

    def _messages(self, stream: Any) -> Iterator[Any]:
        """A server stream's messages, until the caller stops iterating or the server ends it;
        its refusal as a :class:`PaijuError`; cancelled when left."""
        self._streams.append(stream)
        try:
            yield from stream
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:  # type: ignore[attr-defined]
                raise refusal_of(error) from None
        finally:
            stream.cancel()
            self._forget(stream)

    def quick_match(self, game: str, tier: str) -> tuple[str, int]:
        """Seat me anywhere in this game and tier: the room id and my seat."""
        response = self._call(self.lobby.QuickMatch, lobby_pb2.QuickMatchRequest(game=game, tier=tier))
        return response.room.room_id, response.seat

    def sit(self, room_id: str, seat: int | None = None) -> int:
        request = lobby_pb2.SitRequest(room_id=room_id)
        if seat is not None:
            request.seat = seat
        return self._call(self.lobby.Sit, request).seat

    def stand(self, room_id: str, escape: bool = False) -> bool:
        """Leave my seat. During a hand I am in, leaving is an escape (the game's penalty), so it
        is refused unless ``escape``; True when it was one."""
        request = lobby_pb2.StandRequest(room_id=room_id, accept_escape=escape)
        return self._call(self.lobby.Stand, request).escaped

    def ready(self, room_id: str) -> bool:
        """Press start; True if this started the hand."""
        return self._call(self.lobby.Ready, lobby_pb2.ReadyRequest(room_id=room_id)).hand_started

    # --- table --------------------------------------------------------------------------

    def view(self, table_id: str) -> dict[str, Any]:
        """My view of the table: the table, my seat, and the hand as my seat may see it."""
        answer = self._call(self.table.GetView, table_pb2.GetViewRequest(table_id=table_id))
        return view_of(answer.view)

    def act(self, table_id: str, action: str, expected_version: int) -> dict[str, Any]:
        """Play ``action`` if the table is still at ``expected_version``; my new view."""
        request = table_pb2.ActRequest(table_id=table_id, expected_version=expected_version, action=action)
        return view_of(self._call(self.table.Act, request).view)

    def check(self, table_id: str, action: str) -> tuple[bool, str]:
        """Whether I may take ``action`` now (e.g. the cards I selected as a play), and the
        rule's reason when not; nothing changes at the table."""
        message = self._call(self.table.CheckAction, table_pb2.CheckActionRequest(table_id=table_id, action=action))
        return message.legal, message.reason

    def watch(self, table_id: str, after_event_id: str = "", follow_view: bool = False, *,
              resume: bool = False, resume_for: float = 60.0) -> Iterator[WatchResponse]:
        """My live stream of the table, until the caller stops iterating or the server ends;
        with ``follow_view``, a fresh view comes too whenever what I may do changed.

        With ``resume``, a stream that drops (the server went away, the network failed: an
        UNAVAILABLE) is opened again after the last event it delivered, so no event is missed
        and none comes twice; it gives up after ``resume_for`` seconds without getting through."""
        last = after_event_id
        while True:
            try:
                for update in self._watch_once(table_id, last, follow_view):
                    if update.event_id:
                        last = update.event_id
                    yield update
                return
            except PaijuError as error:
                if not resume or error.status != grpc.StatusCode.UNAVAILABLE:
                    raise
            deadline = time.monotonic() + resume_for
            pause = 0.2
            while True:  # wait until the table answers again, then reopen from ``last``
                try:
                    self.view(table_id)
                    break
                except PaijuError as error:
                    if error.status != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                        raise
                time.sleep(pause)
                pause = min(pause * 2, 2.0)

    def _watch_once(self, table_id: str, after_event_id: str, follow_view: bool) -> Iterator[WatchResponse]:
        request = table_pb2.WatchRequest(table_id=table_id, after_event_id=after_event_id, follow_view=follow_view)
        for update in self._messages(self.table.Watch(request)):
            yield from updates_of(update)

    def play_stream(self, table_id: str, follow_view: bool = True) -> PlaySession:
        """My updates and my moves on one ``TableService.Play`` stream (:mod:`paiju.client.session`):
        each move costs the server less than an ``act`` call and is answered on the stream."""
        session = PlaySession(self.table.Play, table_id, follow_view, on_end=self._forget)
        self._streams.append(session)
        if session.ended is not None:  # it ended before it was listed
            self._forget(session)
        return session

    @property
    def open_streams(self) -> int:
        """How many of this client's Watch and Play streams are open (``close`` ends them)."""
        return len(self._streams)

    def _forget(self, stream: Any) -> None:
        """A stream ended: ``close`` need not end it, and a long-lived client does not keep it."""
        try:
            self._streams.remove(stream)
        except ValueError:
            pass  # a session that ended before it was listed

    def close(self) -> None:
        for stream in list(self._streams):
            stream.cancel()
        for channel in self._channels:
            channel.close()
        self._open_channel.close()
