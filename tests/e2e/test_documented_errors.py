"""The contracts' documented errors, each triggered over real gRPC (issue 13, item 11).

Every RPC's comment in ``protos/paiju/v1/*.proto`` lists its errors (``Errors: NOT_FOUND (…)``).
:data:`CASES` holds at least one call per (RPC, documented code) that must end with that code,
and :func:`test_every_documented_error_has_a_case` reads the .proto files so that a code added
to a comment without a case here fails. Each refusal's word must arrive in its ErrorInfo too.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status

from paiju.client.sdk import PaijuClient
from paiju.common.auth import Role, TokenSigner
from paiju.common.error_details import error_info
from paiju.proto.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    common_pb2,
    lobby_pb2,
    table_pb2,
    table_pb2_grpc,
    wallet_pb2,
    wallet_pb2_grpc,
    watchdog_pb2,
    watchdog_pb2_grpc,
)
from paiju.rpc.channels import authorized_channel
from paiju.rpc.errors import CURRENT_VERSION_KEY, ERROR_CODE_KEY, trailer
from tests.e2e.conftest import SECRET, without_turn_timer
from tests.e2e.test_platform import everyone_settled, new_clients, wait_for

PROTOS = Path(__file__).resolve().parents[2] / "protos" / "paiju" / "v1"
IDLE_ROOM = "zhajinhua-free-01"
EXPERT_ROOM = "zhajinhua-expert-01"
PLAYING_ROOM = "zhajinhua-free-04"
FULL_TIER = ("hunzhan", "stake10")
ESCAPE_ROOM = "chaodipi-yancheng-score-01"
UNKNOWN_ROOM = "zhajinhua-free-99"
OUTBOX_ROOM = "zhajinhua-expert-02"
"""Where the Admin cases queue an outbox entry the relay refuses (and take it off again)."""
PASSWORD = "a long enough password"

HOLD_SWEEP_SECONDS = "3600"
"""The world holds a player's coins under a hand no table plays: the sweep must leave it alone."""


@dataclass
class World:
    """Players and stubs in the states the cases need, on one deployment."""

    deployment: Any
    seated: PaijuClient  # sits in IDLE_ROOM, no hand on
    outsider: PaijuClient  # sits nowhere
    poor: PaijuClient  # sits in EXPERT_ROOM, most of its coins then held
    playing: PaijuClient  # in the hand being played at PLAYING_ROOM
    anonymous: grpc.Channel
    internal: grpc.Channel
    settled_hand: str
    held_hand: str  # holds 15,000 of the poor player's coins
    closing: list[Any] = field(default_factory=list)

    def service(self, stub: Callable[[grpc.Channel], Any]) -> Any:
        return stub(self.internal)

    def unauthenticated(self, stub: Callable[[grpc.Channel], Any]) -> Any:
        return stub(self.anonymous)

    def view_version(self) -> int:
        return self.seated.view(IDLE_ROOM)["version"]

    @cached_property
    def operator(self) -> admin_pb2_grpc.AdminServiceStub:
        """``paiju.v1.AdminService`` with an operator's token."""
        token = TokenSigner(SECRET.encode()).issue("operator:contract-test", "contract-test", 600, Role.OPERATOR)
        channel = authorized_channel(self.deployment.address, lambda: token)
        self.closing.append(channel)
        return admin_pb2_grpc.AdminServiceStub(channel)


def service_channel(address: str) -> grpc.Channel:
    """A channel whose every call carries a ``service`` token."""
    token = TokenSigner(SECRET.encode()).issue_service_token("contract-test", ttl=600)
    return authorized_channel(address, lambda: token)


@pytest.fixture(scope="module")
def world(deployment) -> World:
    wallet = deployment.platform.wallet
    seated, outsider, poor, rich, playing, partner = new_clients(deployment, 6)
    seated.sit(IDLE_ROOM)
    without_turn_timer(deployment, PLAYING_ROOM)
    for player in (playing, partner):
        player.sit(PLAYING_ROOM)
    for player in (playing, partner):
        player.ready(PLAYING_ROOM)
    wait_for("the hand to start", lambda: playing.view(PLAYING_ROOM)["hand"] is not None)
    poor.sit(EXPERT_ROOM)
    # Most of the poor player's coins held by a hand elsewhere: below the expert tier's minimum.
    held = f"contract-hold-{secrets.token_hex(3)}"
    wallet.hold_hand(held, {int(poor.account_id): 15_000})
    settled = f"contract-settled-{secrets.token_hex(3)}"
    wallet.hold_hand(settled, {int(rich.account_id): 100, int(outsider.account_id): 100})
    wallet.settle(settled, "zhajinhua", [(int(rich.account_id), -100, "stake"), (int(outsider.account_id), 100, "pot")])
    game, tier = FULL_TIER
    fillers = new_clients(deployment, 4 * 5)  # every room of the tier full
    for filler in fillers:
        filler.quick_match(game, tier)
    built = World(deployment, seated, outsider, poor, playing, grpc.insecure_channel(deployment.address),
                  service_channel(deployment.address), settled, held, [*fillers, rich, partner])
    yield built
    for client in [seated, outsider, poor, *built.closing]:
        client.close()


def first(stream: Any) -> Any:
    """A server stream's error arrives with its first message."""
    return next(iter(stream))


def on_refused_entry(w: World, hand_id: str, action: Callable[[Any], Any], request: Callable[..., Any]) -> Any:
    """``action`` (asked with a ``request`` naming it) on an entry ``settle:<hand_id>`` queued at OUTBOX_ROOM whose payload names
    another hand (the relay refuses it and leaves it pending), taken off again whatever came."""
    store, key = w.deployment.platform.store, f"settle:{hand_id}"
    snapshot = store.load(OUTBOX_ROOM)
    store.commit(OUTBOX_ROOM, snapshot.version, snapshot.state, outbox=[(key, b'{"hand_id": "another"}')])
    try:
        return action(request(table_id=OUTBOX_ROOM, key=key, reason="contract"))
    finally:
        store.outbox_ack(OUTBOX_ROOM, key)


Case = tuple[str, str, str, Callable[[World], Any]]
"""(RPC as Service.Method, documented code, what the case is, the call)."""

CASES: list[Case] = [
    # --- Lobby -------------------------------------------------------------------------------
    ("LobbyService.ListTiers", "INVALID_ARGUMENT", "empty game", lambda w: w.outsider.lobby.ListTiers(lobby_pb2.ListTiersRequest())),
    ("LobbyService.ListTiers", "NOT_FOUND", "unknown game", lambda w: w.outsider.lobby.ListTiers(lobby_pb2.ListTiersRequest(game="poker"))),
    ("LobbyService.ListRooms", "INVALID_ARGUMENT", "empty game", lambda w: w.outsider.lobby.ListRooms(lobby_pb2.ListRoomsRequest(tier="free"))),
    ("LobbyService.ListRooms", "NOT_FOUND", "unknown game", lambda w: w.outsider.lobby.ListRooms(lobby_pb2.ListRoomsRequest(game="poker"))),
    ("LobbyService.ListRooms", "NOT_FOUND", "unknown tier", lambda w: w.outsider.lobby.ListRooms(lobby_pb2.ListRoomsRequest(game="zhajinhua", tier="gold"))),
    ("LobbyService.WatchRooms", "INVALID_ARGUMENT", "empty game", lambda w: first(w.outsider.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest()))),
    ("LobbyService.WatchRooms", "NOT_FOUND", "unknown game", lambda w: first(w.outsider.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game="poker")))),
    ("LobbyService.WatchRooms", "NOT_FOUND", "unknown tier", lambda w: first(w.outsider.lobby.WatchRooms(lobby_pb2.WatchRoomsRequest(game="zhajinhua", tier="gold")))),
    ("LobbyService.Sit", "INVALID_ARGUMENT", "empty room_id", lambda w: w.outsider.lobby.Sit(lobby_pb2.SitRequest())),
    ("LobbyService.Sit", "INVALID_ARGUMENT", "seat outside the room", lambda w: w.outsider.lobby.Sit(lobby_pb2.SitRequest(room_id="zhajinhua-free-02", seat=9))),
    ("LobbyService.Sit", "INVALID_ARGUMENT", "negative seat", lambda w: w.outsider.lobby.Sit(lobby_pb2.SitRequest(room_id="zhajinhua-free-02", seat=-1))),
    ("LobbyService.Sit", "NOT_FOUND", "unknown room", lambda w: w.outsider.lobby.Sit(lobby_pb2.SitRequest(room_id=UNKNOWN_ROOM))),
    ("LobbyService.Sit", "FAILED_PRECONDITION", "already seated in another room", lambda w: w.seated.lobby.Sit(lobby_pb2.SitRequest(room_id="zhajinhua-free-02"))),
    ("LobbyService.Sit", "FAILED_PRECONDITION", "coins below the minimum", lambda w: w.outsider.lobby.Sit(lobby_pb2.SitRequest(room_id="hunzhan-stake1000-01"))),
    ("LobbyService.Stand", "INVALID_ARGUMENT", "empty room_id", lambda w: w.outsider.lobby.Stand(lobby_pb2.StandRequest())),
    ("LobbyService.Stand", "NOT_FOUND", "unknown room", lambda w: w.outsider.lobby.Stand(lobby_pb2.StandRequest(room_id=UNKNOWN_ROOM))),
    ("LobbyService.Stand", "FAILED_PRECONDITION", "in the hand, not accepting the escape", lambda w: w.playing.lobby.Stand(lobby_pb2.StandRequest(room_id=PLAYING_ROOM))),
    ("LobbyService.Ready", "FAILED_PRECONDITION", "a hand is on", lambda w: w.playing.lobby.Ready(lobby_pb2.ReadyRequest(room_id=PLAYING_ROOM))),
    ("LobbyService.Stand", "FAILED_PRECONDITION", "not seated here", lambda w: w.outsider.lobby.Stand(lobby_pb2.StandRequest(room_id=IDLE_ROOM))),
    ("LobbyService.Ready", "INVALID_ARGUMENT", "empty room_id", lambda w: w.seated.lobby.Ready(lobby_pb2.ReadyRequest())),
    ("LobbyService.Ready", "NOT_FOUND", "unknown room", lambda w: w.seated.lobby.Ready(lobby_pb2.ReadyRequest(room_id=UNKNOWN_ROOM))),
    ("LobbyService.Ready", "FAILED_PRECONDITION", "not seated here", lambda w: w.outsider.lobby.Ready(lobby_pb2.ReadyRequest(room_id=IDLE_ROOM))),
    ("LobbyService.Ready", "FAILED_PRECONDITION", "coins below the minimum", lambda w: w.poor.lobby.Ready(lobby_pb2.ReadyRequest(room_id=EXPERT_ROOM))),
    ("LobbyService.QuickMatch", "INVALID_ARGUMENT", "empty tier", lambda w: w.outsider.lobby.QuickMatch(lobby_pb2.QuickMatchRequest(game="zhajinhua"))),
    ("LobbyService.QuickMatch", "NOT_FOUND", "unknown game", lambda w: w.outsider.lobby.QuickMatch(lobby_pb2.QuickMatchRequest(game="poker", tier="free"))),
    ("LobbyService.QuickMatch", "NOT_FOUND", "unknown tier", lambda w: w.outsider.lobby.QuickMatch(lobby_pb2.QuickMatchRequest(game="zhajinhua", tier="gold"))),
    ("LobbyService.QuickMatch", "FAILED_PRECONDITION", "coins below the minimum", lambda w: w.outsider.lobby.QuickMatch(lobby_pb2.QuickMatchRequest(game="hunzhan", tier="stake1000"))),
    ("LobbyService.QuickMatch", "FAILED_PRECONDITION", "already seated", lambda w: w.seated.lobby.QuickMatch(lobby_pb2.QuickMatchRequest(game="zhajinhua", tier="free"))),
    ("LobbyService.QuickMatch", "RESOURCE_EXHAUSTED", "every room full", lambda w: w.outsider.lobby.QuickMatch(lobby_pb2.QuickMatchRequest(game=FULL_TIER[0], tier=FULL_TIER[1]))),
    # --- Table -------------------------------------------------------------------------------
    ("TableService.GetView", "INVALID_ARGUMENT", "empty table_id", lambda w: w.seated.table.GetView(table_pb2.GetViewRequest())),
    ("TableService.GetView", "NOT_FOUND", "unknown table", lambda w: w.seated.table.GetView(table_pb2.GetViewRequest(table_id=UNKNOWN_ROOM))),
    ("TableService.GetView", "PERMISSION_DENIED", "not seated", lambda w: w.outsider.table.GetView(table_pb2.GetViewRequest(table_id=IDLE_ROOM))),
    ("TableService.Act", "INVALID_ARGUMENT", "empty action", lambda w: w.seated.table.Act(table_pb2.ActRequest(table_id=IDLE_ROOM, expected_version=w.view_version()))),
    ("TableService.Act", "INVALID_ARGUMENT", "no action of this game", lambda w: w.playing.table.Act(table_pb2.ActRequest(table_id=PLAYING_ROOM, expected_version=w.playing.view(PLAYING_ROOM)["version"], action="raise --5"))),
    ("TableService.Act", "NOT_FOUND", "unknown table", lambda w: w.seated.table.Act(table_pb2.ActRequest(table_id=UNKNOWN_ROOM, action="look"))),
    ("TableService.Act", "PERMISSION_DENIED", "not seated", lambda w: w.outsider.table.Act(table_pb2.ActRequest(table_id=IDLE_ROOM, expected_version=w.view_version(), action="look"))),
    ("TableService.Act", "ABORTED", "stale version", lambda w: w.seated.table.Act(table_pb2.ActRequest(table_id=IDLE_ROOM, expected_version=w.view_version() - 1, action="look"))),
    ("TableService.Act", "FAILED_PRECONDITION", "no hand on", lambda w: w.seated.table.Act(table_pb2.ActRequest(table_id=IDLE_ROOM, expected_version=w.view_version(), action="look"))),
    ("TableService.CheckAction", "INVALID_ARGUMENT", "empty action", lambda w: w.seated.table.CheckAction(table_pb2.CheckActionRequest(table_id=IDLE_ROOM))),
    ("TableService.CheckAction", "NOT_FOUND", "unknown table", lambda w: w.seated.table.CheckAction(table_pb2.CheckActionRequest(table_id=UNKNOWN_ROOM, action="look"))),
    ("TableService.CheckAction", "PERMISSION_DENIED", "not seated", lambda w: w.outsider.table.CheckAction(table_pb2.CheckActionRequest(table_id=IDLE_ROOM, action="look"))),
    ("TableService.Watch", "INVALID_ARGUMENT", "malformed after_event_id", lambda w: first(w.seated.table.Watch(table_pb2.WatchRequest(table_id=IDLE_ROOM, after_event_id="bogus")))),
    ("TableService.Watch", "INVALID_ARGUMENT", "empty table_id", lambda w: first(w.seated.table.Watch(table_pb2.WatchRequest()))),
    ("TableService.Watch", "NOT_FOUND", "unknown table", lambda w: first(w.seated.table.Watch(table_pb2.WatchRequest(table_id=UNKNOWN_ROOM)))),
    ("TableService.Watch", "PERMISSION_DENIED", "not seated", lambda w: first(w.outsider.table.Watch(table_pb2.WatchRequest(table_id=IDLE_ROOM)))),
    ("TableService.Play", "INVALID_ARGUMENT", "opened with a move", lambda w: first(w.seated.table.Play(iter([table_pb2.PlayRequest(move=table_pb2.PlayMove(move_id=1, action="fold"))])))),
    ("TableService.Play", "INVALID_ARGUMENT", "empty table_id", lambda w: first(w.seated.table.Play(iter([table_pb2.PlayRequest(open=table_pb2.WatchRequest())])))),
    ("TableService.Play", "NOT_FOUND", "unknown table", lambda w: first(w.seated.table.Play(iter([table_pb2.PlayRequest(open=table_pb2.WatchRequest(table_id=UNKNOWN_ROOM))])))),
    ("TableService.Play", "PERMISSION_DENIED", "not seated", lambda w: first(w.outsider.table.Play(iter([table_pb2.PlayRequest(open=table_pb2.WatchRequest(table_id=IDLE_ROOM))])))),
    # --- TableInternal -----------------------------------------------------------------------
    ("TableInternalService.ExpireDeadline", "INVALID_ARGUMENT", "not the table's", lambda w: w.service(table_pb2_grpc.TableInternalServiceStub).ExpireDeadline(common_pb2.ExpireDeadlineRequest(deadline=common_pb2.Deadline(deadline_id="turn", target_id=IDLE_ROOM, owner=2)))),
    ("TableInternalService.ExpireDeadline", "INVALID_ARGUMENT", "empty name", lambda w: w.service(table_pb2_grpc.TableInternalServiceStub).ExpireDeadline(common_pb2.ExpireDeadlineRequest(deadline=common_pb2.Deadline(target_id=IDLE_ROOM)))),
    ("TableInternalService.ExpireDeadline", "NOT_FOUND", "unknown table", lambda w: w.service(table_pb2_grpc.TableInternalServiceStub).ExpireDeadline(common_pb2.ExpireDeadlineRequest(deadline=common_pb2.Deadline(deadline_id="turn", target_id=UNKNOWN_ROOM)))),
    ("TableInternalService.MarkDisconnected", "INVALID_ARGUMENT", "empty account", lambda w: w.service(table_pb2_grpc.TableInternalServiceStub).MarkDisconnected(table_pb2.MarkDisconnectedRequest(table_id=IDLE_ROOM))),
    ("TableInternalService.MarkDisconnected", "NOT_FOUND", "unknown table", lambda w: w.service(table_pb2_grpc.TableInternalServiceStub).MarkDisconnected(table_pb2.MarkDisconnectedRequest(table_id=UNKNOWN_ROOM, account_id="1"))),
    ("TableInternalService.MarkDisconnected", "PERMISSION_DENIED", "a player's token", lambda w: table_pb2_grpc.TableInternalServiceStub(authorized_channel(w.deployment.address, lambda: w.seated.token)).MarkDisconnected(table_pb2.MarkDisconnectedRequest(table_id=IDLE_ROOM, account_id="1"))),
    # --- Wallet ------------------------------------------------------------------------------
    ("WalletService.Register", "INVALID_ARGUMENT", "empty username", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Register(wallet_pb2.RegisterRequest(password=PASSWORD))),
    ("WalletService.Register", "INVALID_ARGUMENT", "short password", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Register(wallet_pb2.RegisterRequest(username=f"n{secrets.token_hex(3)}", password="short"))),
    ("WalletService.Register", "INVALID_ARGUMENT", "a 33-character name", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Register(wallet_pb2.RegisterRequest(username="x" * 33, password=PASSWORD))),
    ("WalletService.Register", "ALREADY_EXISTS", "taken", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Register(wallet_pb2.RegisterRequest(username=w.seated.username.upper(), password=PASSWORD))),
    ("WalletService.Register", "ALREADY_EXISTS", "looks like a taken name", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Register(wallet_pb2.RegisterRequest(username=w.seated.username.replace("p", "р"), password=PASSWORD))),
    ("WalletService.Login", "INVALID_ARGUMENT", "empty password", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Login(wallet_pb2.LoginRequest(username=w.seated.username))),
    ("WalletService.Login", "UNAUTHENTICATED", "wrong password", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Login(wallet_pb2.LoginRequest(username=w.seated.username, password="not the password"))),
    ("WalletService.GetBalance", "UNAUTHENTICATED", "no token", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).GetBalance(wallet_pb2.GetBalanceRequest())),
    ("WalletService.History", "UNAUTHENTICATED", "no token", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).History(wallet_pb2.HistoryRequest())),
    ("WalletService.History", "INVALID_ARGUMENT", "limit above 200", lambda w: w.seated.wallet.History(wallet_pb2.HistoryRequest(limit=500))),
    ("WalletService.History", "INVALID_ARGUMENT", "a page token of no one", lambda w: w.seated.wallet.History(wallet_pb2.HistoryRequest(page_token="12.forged"))),
    ("WalletService.Leaderboard", "UNAUTHENTICATED", "no token", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Leaderboard(wallet_pb2.LeaderboardRequest(game="zhajinhua"))),
    ("WalletService.Leaderboard", "INVALID_ARGUMENT", "limit above 100", lambda w: w.seated.wallet.Leaderboard(wallet_pb2.LeaderboardRequest(game="zhajinhua", limit=500))),
    ("WalletService.Leaderboard", "NOT_FOUND", "unknown game", lambda w: w.seated.wallet.Leaderboard(wallet_pb2.LeaderboardRequest(game="poker"))),
    ("WalletService.Hands", "UNAUTHENTICATED", "no token", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Hands(wallet_pb2.HandsRequest())),
    ("WalletService.Hands", "INVALID_ARGUMENT", "limit above 100", lambda w: w.seated.wallet.Hands(wallet_pb2.HandsRequest(limit=101))),
    ("WalletService.Hands", "INVALID_ARGUMENT", "a page token of no hand of the caller's", lambda w: w.seated.wallet.Hands(wallet_pb2.HandsRequest(page_token="zhajinhua-free-01-1-nope"))),
    ("WalletService.ReplayHand", "UNAUTHENTICATED", "no token", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).ReplayHand(wallet_pb2.ReplayHandRequest(hand_id="x"))),
    ("WalletService.ReplayHand", "INVALID_ARGUMENT", "empty hand_id", lambda w: w.seated.wallet.ReplayHand(wallet_pb2.ReplayHandRequest())),
    ("WalletService.ReplayHand", "NOT_FOUND", "a hand never kept", lambda w: w.seated.wallet.ReplayHand(wallet_pb2.ReplayHandRequest(hand_id="zhajinhua-free-01-1-nope"))),
    ("WalletService.Level", "UNAUTHENTICATED", "no token", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).Level(wallet_pb2.LevelRequest(game="zhajinhua"))),
    ("WalletService.Level", "NOT_FOUND", "a game without levels", lambda w: w.seated.wallet.Level(wallet_pb2.LevelRequest(game="hunzhan"))),
    ("WalletService.Level", "NOT_FOUND", "unknown account", lambda w: w.seated.wallet.Level(wallet_pb2.LevelRequest(game="zhajinhua", account_id="999999"))),
    ("WalletService.Level", "NOT_FOUND", "an id beyond the ledger", lambda w: w.seated.wallet.Level(wallet_pb2.LevelRequest(game="zhajinhua", account_id="2147483648"))),
    ("WalletService.ChangePassword", "UNAUTHENTICATED", "no token", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).ChangePassword(wallet_pb2.ChangePasswordRequest(old_password=PASSWORD, new_password=PASSWORD + "!"))),
    ("WalletService.ChangePassword", "INVALID_ARGUMENT", "a short new password", lambda w: w.seated.wallet.ChangePassword(wallet_pb2.ChangePasswordRequest(old_password=PASSWORD, new_password="short"))),
    ("WalletService.ChangePassword", "INVALID_ARGUMENT", "the old password again", lambda w: w.seated.wallet.ChangePassword(wallet_pb2.ChangePasswordRequest(old_password=PASSWORD, new_password=PASSWORD))),
    ("WalletService.ChangePassword", "PERMISSION_DENIED", "a wrong old password", lambda w: w.seated.wallet.ChangePassword(wallet_pb2.ChangePasswordRequest(old_password="not the password", new_password=PASSWORD + "!"))),
    ("WalletService.RefreshSession", "UNAUTHENTICATED", "no token", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletServiceStub).RefreshSession(wallet_pb2.RefreshSessionRequest())),
    # --- WalletInternal ----------------------------------------------------------------------
    ("WalletInternalService.HoldForHand", "INVALID_ARGUMENT", "empty hand_id", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).HoldForHand(wallet_pb2.HoldForHandRequest(holds=[wallet_pb2.Hold(account_id=w.seated.account_id, amount=1)]))),
    ("WalletInternalService.HoldForHand", "INVALID_ARGUMENT", "no holds", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).HoldForHand(wallet_pb2.HoldForHandRequest(hand_id="contract-none"))),
    ("WalletInternalService.HoldForHand", "INVALID_ARGUMENT", "below zero", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).HoldForHand(wallet_pb2.HoldForHandRequest(hand_id="contract-neg", holds=[wallet_pb2.Hold(account_id=w.seated.account_id, amount=-1)]))),
    ("WalletInternalService.HoldForHand", "INVALID_ARGUMENT", "an account twice", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).HoldForHand(wallet_pb2.HoldForHandRequest(hand_id="contract-twice", holds=[wallet_pb2.Hold(account_id=w.seated.account_id, amount=1)] * 2))),
    ("WalletInternalService.HoldForHand", "NOT_FOUND", "unknown account", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).HoldForHand(wallet_pb2.HoldForHandRequest(hand_id="contract-nobody", holds=[wallet_pb2.Hold(account_id="2147483648", amount=1)]))),
    ("WalletInternalService.HoldForHand", "FAILED_PRECONDITION", "more than available", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).HoldForHand(wallet_pb2.HoldForHandRequest(hand_id="contract-much", holds=[wallet_pb2.Hold(account_id=w.seated.account_id, amount=10**9)]))),
    ("WalletInternalService.HoldForHand", "ALREADY_EXISTS", "other amounts", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).HoldForHand(wallet_pb2.HoldForHandRequest(hand_id=w.held_hand, holds=[wallet_pb2.Hold(account_id=w.poor.account_id, amount=7)]))),
    ("WalletInternalService.ReleaseHand", "INVALID_ARGUMENT", "empty hand_id", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).ReleaseHand(wallet_pb2.ReleaseHandRequest())),
    ("WalletInternalService.ReleaseHand", "FAILED_PRECONDITION", "already settled", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).ReleaseHand(wallet_pb2.ReleaseHandRequest(hand_id=w.settled_hand))),
    ("WalletInternalService.GetBalances", "INVALID_ARGUMENT", "no account ids", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).GetBalances(wallet_pb2.GetBalancesRequest())),
    ("WalletInternalService.GetBalances", "NOT_FOUND", "unknown account", lambda w: w.service(wallet_pb2_grpc.WalletInternalServiceStub).GetBalances(wallet_pb2.GetBalancesRequest(account_ids=["999999"]))),
    ("WalletInternalService.GetBalances", "UNAUTHENTICATED", "no token", lambda w: w.unauthenticated(wallet_pb2_grpc.WalletInternalServiceStub).GetBalances(wallet_pb2.GetBalancesRequest(account_ids=["1"]))),
    # --- Admin -------------------------------------------------------------------------------
    ("AdminService.FindPlayer", "INVALID_ARGUMENT", "neither name nor id", lambda w: w.operator.FindPlayer(admin_pb2.FindPlayerRequest())),
    ("AdminService.FindPlayer", "NOT_FOUND", "unknown username", lambda w: w.operator.FindPlayer(admin_pb2.FindPlayerRequest(username="nobody-at-all"))),
    ("AdminService.SuspendAccount", "INVALID_ARGUMENT", "malformed account id", lambda w: w.operator.SuspendAccount(admin_pb2.SuspendAccountRequest(account_id="abc", reason="x"))),
    ("AdminService.SuspendAccount", "NOT_FOUND", "unknown account", lambda w: w.operator.SuspendAccount(admin_pb2.SuspendAccountRequest(account_id="999999", reason="x"))),
    ("AdminService.RestoreAccount", "INVALID_ARGUMENT", "no reason", lambda w: w.operator.RestoreAccount(admin_pb2.RestoreAccountRequest(account_id=w.outsider.account_id))),
    ("AdminService.RestoreAccount", "NOT_FOUND", "unknown account", lambda w: w.operator.RestoreAccount(admin_pb2.RestoreAccountRequest(account_id="999999", reason="x"))),
    ("AdminService.AdjustCoins", "INVALID_ARGUMENT", "an amount of 0", lambda w: w.operator.AdjustCoins(admin_pb2.AdjustCoinsRequest(account_id=w.outsider.account_id, reason="x", request_id="zero"))),
    ("AdminService.AdjustCoins", "NOT_FOUND", "unknown account", lambda w: w.operator.AdjustCoins(admin_pb2.AdjustCoinsRequest(account_id="999999", amount=5, reason="x", request_id="nobody"))),
    ("AdminService.AdjustCoins", "FAILED_PRECONDITION", "more than the account has", lambda w: w.operator.AdjustCoins(admin_pb2.AdjustCoinsRequest(account_id=w.outsider.account_id, amount=-10**9, reason="x", request_id="too-much"))),
    ("AdminService.ListOutbox", "INVALID_ARGUMENT", "limit below zero", lambda w: w.operator.ListOutbox(admin_pb2.ListOutboxRequest(limit=-1))),
    ("AdminService.RetrySettlement", "INVALID_ARGUMENT", "no reason", lambda w: w.operator.RetrySettlement(admin_pb2.RetrySettlementRequest(table_id=IDLE_ROOM, key="settle:x"))),
    ("AdminService.RetrySettlement", "NOT_FOUND", "no such entry", lambda w: w.operator.RetrySettlement(admin_pb2.RetrySettlementRequest(table_id=IDLE_ROOM, key="settle:x", reason="x"))),
    ("AdminService.RetrySettlement", "FAILED_PRECONDITION", "an entry the ledger refuses", lambda w: on_refused_entry(w, f"contract-retry-{secrets.token_hex(3)}", w.operator.RetrySettlement, admin_pb2.RetrySettlementRequest)),
    ("AdminService.VoidSettlement", "INVALID_ARGUMENT", "no reason", lambda w: w.operator.VoidSettlement(admin_pb2.VoidSettlementRequest(table_id=IDLE_ROOM, key="settle:x"))),
    ("AdminService.VoidSettlement", "NOT_FOUND", "no such entry", lambda w: w.operator.VoidSettlement(admin_pb2.VoidSettlementRequest(table_id=IDLE_ROOM, key="settle:x", reason="x"))),
    ("AdminService.VoidSettlement", "FAILED_PRECONDITION", "a settled hand", lambda w: on_refused_entry(w, w.settled_hand, w.operator.VoidSettlement, admin_pb2.VoidSettlementRequest)),
    ("AdminService.EndTable", "INVALID_ARGUMENT", "no reason", lambda w: w.operator.EndTable(admin_pb2.EndTableRequest(table_id=IDLE_ROOM))),
    ("AdminService.EndTable", "INVALID_ARGUMENT", "empty table id", lambda w: w.operator.EndTable(admin_pb2.EndTableRequest(reason="x"))),
    ("AdminService.EndTable", "NOT_FOUND", "unknown table", lambda w: w.operator.EndTable(admin_pb2.EndTableRequest(table_id=UNKNOWN_ROOM, reason="x"))),
    ("AdminService.GetHandRecord", "INVALID_ARGUMENT", "empty hand id", lambda w: w.operator.GetHandRecord(admin_pb2.GetHandRecordRequest())),
    ("AdminService.GetHandRecord", "NOT_FOUND", "no such hand", lambda w: w.operator.GetHandRecord(admin_pb2.GetHandRecordRequest(hand_id="zhajinhua-free-01-999-00"))),
    ("AdminService.ListAuditLog", "INVALID_ARGUMENT", "limit above the most", lambda w: w.operator.ListAuditLog(admin_pb2.ListAuditLogRequest(limit=501))),
    # --- Watchdog ----------------------------------------------------------------------------
    ("WatchdogService.ListDeadlines", "INVALID_ARGUMENT", "empty target", lambda w: w.service(watchdog_pb2_grpc.WatchdogServiceStub).ListDeadlines(watchdog_pb2.ListDeadlinesRequest())),
    ("WatchdogService.ListDeadlines", "INVALID_ARGUMENT", "malformed target", lambda w: w.service(watchdog_pb2_grpc.WatchdogServiceStub).ListDeadlines(watchdog_pb2.ListDeadlinesRequest(target_id="a{b}" * 100))),
    ("WatchdogService.ReportPresence", "INVALID_ARGUMENT", "unspecified owner", lambda w: w.service(watchdog_pb2_grpc.WatchdogServiceStub).ReportPresence(watchdog_pb2.ReportPresenceRequest(target_id=IDLE_ROOM, account_id="1"))),
    ("WatchdogService.ReportPresence", "INVALID_ARGUMENT", "seat below zero", lambda w: w.service(watchdog_pb2_grpc.WatchdogServiceStub).ReportPresence(watchdog_pb2.ReportPresenceRequest(owner=common_pb2.DEADLINE_OWNER_TABLE, target_id=IDLE_ROOM, account_id="1", seat=-1))),
    ("WatchdogService.GetPresence", "INVALID_ARGUMENT", "empty target", lambda w: w.service(watchdog_pb2_grpc.WatchdogServiceStub).GetPresence(watchdog_pb2.GetPresenceRequest())),
    ("WatchdogService.GetPresence", "NOT_FOUND", "unknown table", lambda w: w.service(watchdog_pb2_grpc.WatchdogServiceStub).GetPresence(watchdog_pb2.GetPresenceRequest(target_id=UNKNOWN_ROOM))),
]


def documented_errors() -> dict[str, set[str]]:
    """Every RPC's documented error codes, read from the .proto comments."""
    codes = {code.name for code in grpc.StatusCode}
    found: dict[str, set[str]] = {}
    for proto in sorted(PROTOS.glob("*.proto")):
        service = None
        comment: list[str] = []
        for line in proto.read_text().splitlines():
            stripped = line.strip()
            if match := re.match(r"service (\w+)", stripped):
                service = match.group(1)
            if stripped.startswith("//"):
                comment.append(stripped[2:])
                continue
            if match := re.match(r"rpc (\w+)\(", stripped):
                text = " ".join(comment)
                errors = text.partition("Errors:")[2]
                found[f"{service}.{match.group(1)}"] = set(re.findall(r"\b[A-Z_]{5,}\b", errors)) & codes
            comment = []
    return found


def test_every_documented_error_has_a_case():
    covered = {(rpc, code) for rpc, code, _, _ in CASES}
    missing = sorted((rpc, code) for rpc, codes in documented_errors().items() for code in codes
                     if (rpc, code) not in covered)
    assert not missing, f"documented errors no case triggers: {missing}"


@pytest.mark.parametrize(("rpc", "code", "what", "call"), CASES, ids=[f"{r}-{c}-{w}" for r, c, w, _ in CASES])
def test_each_documented_error_is_what_the_call_gets(world, rpc, code, what, call):
    with pytest.raises(grpc.RpcError) as refused:
        result = call(world)
        pytest.fail(f"{rpc} ({what}) answered {str(result)[:200]!r}")
    assert refused.value.code().name == code, (what, refused.value.details())
    assert len(refused.value.details()) < 300
    # Its stable word reaches any gRPC client: the ErrorInfo of the standard status details
    # (whose code and message from_call checks are the call's), the same as the older trailer.
    info = error_info(rpc_status.from_call(refused.value))
    assert info is not None and info.reason == trailer(refused.value, ERROR_CODE_KEY), (what, info)
    if code == "ABORTED":
        assert trailer(refused.value, CURRENT_VERSION_KEY) == str(world.view_version())
        assert info.metadata["current_version"] == str(world.view_version())


def test_list_rooms_with_an_empty_tier_lists_every_tier(world):
    rooms = world.outsider.lobby.ListRooms(lobby_pb2.ListRoomsRequest(game="zhajinhua"), timeout=10).rooms
    assert {room.tier.tier for room in rooms} == {"free", "expert"}
    assert len(rooms) == 2 * 5


def test_ready_below_the_minimum_is_failed_precondition_and_leaves_the_seat_unready(world):
    with pytest.raises(grpc.RpcError) as refused:
        world.poor.lobby.Ready(lobby_pb2.ReadyRequest(room_id=EXPERT_ROOM), timeout=10)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert trailer(refused.value, ERROR_CODE_KEY) == "not_enough_coins"
    seat = world.poor.view(EXPERT_ROOM)["seat"]
    assert world.poor.view(EXPERT_ROOM)["table"]["seats"][seat]["ready"] is False


def test_stand_accepting_the_escape_during_a_trick_game_hand_leaves_by_the_escape_rules(world):
    players = new_clients(world.deployment, 4)
    without_turn_timer(world.deployment, ESCAPE_ROOM)
    for player in players:
        player.sit(ESCAPE_ROOM)
    wait_for("the room's last settlement", everyone_settled(world.deployment), world.deployment)
    for player in players:
        player.ready(ESCAPE_ROOM)
    wait_for("the hand to start", lambda: players[0].view(ESCAPE_ROOM)["hand"] is not None)
    escaper = players[1]
    with pytest.raises(grpc.RpcError) as refused:
        escaper.lobby.Stand(lobby_pb2.StandRequest(room_id=ESCAPE_ROOM), timeout=10)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert trailer(refused.value, ERROR_CODE_KEY) == "in_hand"
    answer = escaper.lobby.Stand(lobby_pb2.StandRequest(room_id=ESCAPE_ROOM, accept_escape=True), timeout=10)
    assert answer.escaped
    # An escape before the first card is played voids a 炒地皮 hand: it ends, without the escaper.
    view = players[0].view(ESCAPE_ROOM)
    assert view["hand"] is None and view["last_hand"] is not None
    assert escaper.account_id not in {seat.account_id for seat in answer.room.seats}
    assert escaper.account_id not in {s["account"] for s in view["table"]["seats"] if s}
    escaper.sit("zhajinhua-free-03")  # free to sit elsewhere
    escaper.stand("zhajinhua-free-03")
    for player in players:
        player.close()


def test_every_case_is_named_once():
    assert len({(rpc, code, what) for rpc, code, what, _ in CASES}) == len(CASES)


def test_event_hand_id_names_the_hand_of_its_events_and_is_empty_for_table_events(deployment):
    room = "zhajinhua-free-05"
    first_player, second = new_clients(deployment, 2)
    without_turn_timer(deployment, room)
    for player in (first_player, second):
        player.sit(room)
    wait_for("the room's last settlement", everyone_settled(deployment), deployment)
    stream = first_player.table.Watch(table_pb2.WatchRequest(table_id=room))
    received: list[table_pb2.Event] = []

    def drain() -> None:
        with contextlib.suppress(grpc.RpcError):
            for update in stream:
                received.extend(update.events)

    threading.Thread(target=drain, daemon=True).start()
    for player in (first_player, second):
        player.ready(room)
    wait_for("the hand to start", lambda: first_player.view(room)["hand"] is not None)
    view = first_player.view(room)
    hand_id = view["hand"]["hand_id"]
    actor = first_player if view["hand"]["seats"][view["hand"]["state"]["to_act"]] == view["seat"] else second
    answer = actor.table.Act(table_pb2.ActRequest(table_id=room, expected_version=actor.view(room)["version"],
                                                  action="fold"), timeout=10)
    assert {event.hand_id for event in answer.events} == {hand_id}, answer.events
    wait_for("the hand's end on the stream", lambda: any(e.type == "hand_settled" for e in received))
    stream.cancel()
    by_type = {}
    for event in received:
        by_type.setdefault(event.type, set()).add(event.hand_id)
    assert by_type["ready"] == {""}
    assert by_type["hand_seats"] == by_type["hand_settled"] == {hand_id}
    assert {e.hand_id for e in received if e.type not in ("ready", "stood", "sat")} == {hand_id}
    for player in (first_player, second):
        player.close()
