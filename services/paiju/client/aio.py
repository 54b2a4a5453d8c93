"""The Python SDK for asyncio programs: :class:`AsyncPaijuClient`, the calls of
:class:`~paiju.client.sdk.PaijuClient` as coroutines and its streams as async iterators.

Same transport (TLS but to loopback, a deadline on every call but the streams), same refusals
(:class:`~paiju.client.answers.PaijuError` and its kinds), same views and updates::

    async def main() -> None:
        me = await AsyncPaijuClient.connect("127.0.0.1:50051", "ann", "a long password", register=True)
        room, seat = await me.quick_match("zhajinhua", "free")
        await me.ready(room)
        async for update in me.watch(room, follow_view=True):
            ...
        await me.close()
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any, Self

import grpc

from paiju.client.answers import PaijuError, WatchResponse, refusal_of, updates_of
from paiju.client.sdk import (
    DEFAULT_TIMEOUT_SECONDS,
    LOGIN_BUSY_CODES,
    LOGIN_RETRY_FIRST_PAUSE_S,
    LOGIN_RETRY_LONGEST_PAUSE_S,
    LOGIN_TRIES,
)
from paiju.common.typed_views import view_of
from paiju.common.wire import AUTHORIZATION_KEY
from paiju.proto.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
    wallet_pb2,
    wallet_pb2_grpc,
)
from paiju.rpc.channels import connection_options, is_loopback


class AsyncPaijuClient:
    """One player's session with a Paiju server, for asyncio; make it with :meth:`connect`."""

    def __init__(self, target: str, *, tls: bool | None = None, root_certificates: bytes | None = None,
                 timeout: float | None = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.target = target
        self.timeout = timeout
        use_tls = (not is_loopback(target)) if tls is None else tls
        options = connection_options(own_connection=False)
        self._channel = (grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(root_certificates), options=options)
                         if use_tls else grpc.aio.insecure_channel(target, options=options))
        self.wallet = wallet_pb2_grpc.WalletServiceStub(self._channel)
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self._channel)
        self.table = table_pb2_grpc.TableServiceStub(self._channel)
        self.token = self.account_id = self.username = ""

    @classmethod
    async def connect(cls, target: str, username: str, password: str, *, register: bool = False,
                      **transport: Any) -> AsyncPaijuClient:
        """Log in (with ``register``: create the account first); ``transport`` as for the
        constructor."""
        client = cls(target, **transport)
        try:
            if register:
                await client.register(username, password)
            else:
                await client.login(username, password)
        except BaseException:
            await client.close()
            raise
        return client

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        return ((AUTHORIZATION_KEY, f"Bearer {self.token}"),) if self.token else ()

    async def _call(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, timeout=self.timeout, metadata=self._metadata())
        except grpc.RpcError as error:
            raise refusal_of(error) from None

    async def _sign_in(self, method: Any, request: Any) -> None:
        """A Login or Register, tried again a little later while the server has too many."""
        pause = LOGIN_RETRY_FIRST_PAUSE_S
        for attempt in range(LOGIN_TRIES):
            try:
                response = await self._call(method, request)
                break
            except PaijuError as error:
                busy = error.status == grpc.StatusCode.RESOURCE_EXHAUSTED and error.error_code in LOGIN_BUSY_CODES
                if not busy or attempt == LOGIN_TRIES - 1:
                    raise
            await asyncio.sleep(pause * random.uniform(0.5, 1.5))
            pause = min(pause * 2, LOGIN_RETRY_LONGEST_PAUSE_S)
        self.token, self.account_id, self.username = response.token, response.account_id, response.username

    async def register(self, username: str, password: str) -> None:
        await self._sign_in(self.wallet.Register, wallet_pb2.RegisterRequest(username=username, password=password))

    async def login(self, username: str, password: str) -> None:
        await self._sign_in(self.wallet.Login, wallet_pb2.LoginRequest(username=username, password=password))

    async def change_password(self, old_password: str, new_password: str) -> None:
        """Change this account's password; every other session of it ends, this one goes on
        with the fresh token the server answers."""
        request = wallet_pb2.ChangePasswordRequest(old_password=old_password, new_password=new_password)
        self.token = (await self._call(self.wallet.ChangePassword, request)).token

    async def refresh(self) -> wallet_pb2.RefreshSessionResponse:
        """Extend this session: a fresh token, expiring a whole session lifetime from now."""
        session = await self._call(self.wallet.RefreshSession, wallet_pb2.RefreshSessionRequest())
        self.token = session.token
        return session

    # --- wallet -------------------------------------------------------------------------

    async def balance(self) -> wallet_pb2.GetBalanceResponse:
        return await self._call(self.wallet.GetBalance, wallet_pb2.GetBalanceRequest())

    async def hands(self, limit: int = 20, page_token: str = "") -> wallet_pb2.HandsResponse:
        return await self._call(self.wallet.Hands, wallet_pb2.HandsRequest(limit=limit, page_token=page_token))

    async def replay_hand(self, hand_id: str) -> wallet_pb2.ReplayHandResponse:
        return await self._call(self.wallet.ReplayHand, wallet_pb2.ReplayHandRequest(hand_id=hand_id))

    async def history(self, limit: int = 50, page_token: str = "", game: str = "") -> wallet_pb2.HistoryResponse:
        return await self._call(self.wallet.History, wallet_pb2.HistoryRequest(limit=limit, page_token=page_token, game=game))

    async def leaderboard(self, game: str, limit: int = 10) -> wallet_pb2.LeaderboardResponse:
        return await self._call(self.wallet.Leaderboard, wallet_pb2.LeaderboardRequest(game=game, limit=limit))

    async def level(self, game: str, account_id: str = "") -> wallet_pb2.LevelResponse:
        return await self._call(self.wallet.Level, wallet_pb2.LevelRequest(game=game, account_id=account_id))

    # --- lobby --------------------------------------------------------------------------

    async def tiers(self, game: str) -> list[common_pb2.Tier]:
        return list((await self._call(self.lobby.ListTiers, lobby_pb2.ListTiersRequest(game=game))).tiers)

    async def rooms(self, game: str, tier: str) -> list[common_pb2.Room]:
        return list((await self._call(self.lobby.ListRooms, lobby_pb2.ListRoomsRequest(game=game, tier=tier))).rooms)

    async def quick_match(self, game: str, tier: str) -> tuple[str, int]:
        response = await self._call(self.lobby.QuickMatch, lobby_pb2.QuickMatchRequest(game=game, tier=tier))
        return response.room.room_id, response.seat

    async def sit(self, room_id: str, seat: int | None = None) -> int:
        request = lobby_pb2.SitRequest(room_id=room_id)
        if seat is not None:
            request.seat = seat
        return (await self._call(self.lobby.Sit, request)).seat

    async def stand(self, room_id: str, escape: bool = False) -> bool:
        request = lobby_pb2.StandRequest(room_id=room_id, accept_escape=escape)
        return (await self._call(self.lobby.Stand, request)).escaped

    async def ready(self, room_id: str) -> bool:
        return (await self._call(self.lobby.Ready, lobby_pb2.ReadyRequest(room_id=room_id))).hand_started

    def watch_rooms(self, game: str, tier: str = "") -> AsyncIterator[lobby_pb2.WatchRoomsResponse]:
        return self._messages(self.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game=game, tier=tier),
                                                     metadata=self._metadata()))

    # --- table --------------------------------------------------------------------------

    async def view(self, table_id: str) -> dict[str, Any]:
        answer = await self._call(self.table.GetView, table_pb2.GetViewRequest(table_id=table_id))
        return view_of(answer.view)

    async def act(self, table_id: str, action: str, expected_version: int) -> dict[str, Any]:
        request = table_pb2.ActRequest(table_id=table_id, expected_version=expected_version, action=action)
        return view_of((await self._call(self.table.Act, request)).view)

    async def check(self, table_id: str, action: str) -> tuple[bool, str]:
        message = await self._call(self.table.CheckAction, table_pb2.CheckActionRequest(table_id=table_id, action=action))
        return message.legal, message.reason

    async def watch(self, table_id: str, after_event_id: str = "", follow_view: bool = False) -> AsyncIterator[WatchResponse]:
        """My live stream of the table: its events and (with ``follow_view``) fresh views."""
        request = table_pb2.WatchRequest(table_id=table_id, after_event_id=after_event_id, follow_view=follow_view)
        async for update in self._messages(self.table.Watch(request, metadata=self._metadata())):
            for item in updates_of(update):
                yield item

    async def _messages(self, call: Any) -> AsyncIterator[Any]:
        try:
            async for message in call:
                yield message
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:  # type: ignore[attr-defined]
                raise refusal_of(error) from None
        finally:
            call.cancel()

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()
