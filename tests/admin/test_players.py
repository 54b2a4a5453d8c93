"""An operator on a running platform: finding a player, suspending and restoring an account (no
login, no seat while suspended), adjusting coins against the house (the coins of all accounts
conserved), reading a played hand's record; the Admin service refuses every token but an
operator's; and every action is in the audit log."""

from __future__ import annotations

import functools
import json
import secrets

import grpc
import pytest

from paiju.cli import main as paiju
from paiju.client.sdk import PaijuClient, PaijuError
from paiju.common.auth import Role, TokenSigner
from paiju.proto.v1 import admin_pb2, admin_pb2_grpc
from tests.admin.conftest import OPERATOR, Admin
from tests.e2e.conftest import SECRET
from tests.e2e.test_platform import everyone_settled, finish_hand, new_clients, start_hand, wait_for

PASSWORD = "a long enough password"


def refused(call, code: grpc.StatusCode) -> str:
    """The error word of a call that must be refused with ``code``."""
    with pytest.raises(grpc.RpcError) as error:
        call()
    assert error.value.code() == code, error.value.details()
    return dict(error.value.trailing_metadata() or ()).get("paiju-error-code", "")


def audited(admin: Admin, action: str, target: str) -> list[admin_pb2.AuditEntry]:
    return [entry for entry in admin.ListAuditLog(admin_pb2.ListAuditLogRequest(limit=500)).entries
            if entry.action == action and entry.target == target]


def test_a_player_is_found_by_name_or_id_with_coins_and_table(deployment, admin: Admin) -> None:
    (player,) = new_clients(deployment, 1)
    room = "zhajinhua-free-04"
    try:
        found = admin.FindPlayer(admin_pb2.FindPlayerRequest(username=player.username.upper())).player
        assert (found.account_id, found.username, found.balance, found.held, found.suspended, found.table_id) == (
            player.account_id, player.username, 20_000, 0, False, "")
        player.sit(room)
        by_id = admin.FindPlayer(admin_pb2.FindPlayerRequest(account_id=player.account_id)).player
        assert by_id.username == player.username and by_id.table_id == room
        player.stand(room)
        assert refused(lambda: admin.FindPlayer(admin_pb2.FindPlayerRequest(username="nobody-" + secrets.token_hex(3))),
                       grpc.StatusCode.NOT_FOUND) == "unknown_account"
        assert refused(lambda: admin.FindPlayer(admin_pb2.FindPlayerRequest()),
                       grpc.StatusCode.INVALID_ARGUMENT) == "invalid_argument"
    finally:
        player.close()


def test_a_suspended_account_cannot_log_in_nor_sit_until_restored(deployment, admin: Admin) -> None:
    (player,) = new_clients(deployment, 1)  # logged in before the suspension: the token stays, the seat does not
    room = "zhajinhua-free-04"
    target = player.account_id
    try:
        assert refused(lambda: admin.SuspendAccount(admin_pb2.SuspendAccountRequest(account_id=target)),
                       grpc.StatusCode.INVALID_ARGUMENT) == "invalid_argument"  # an action says why
        suspended = admin.SuspendAccount(admin_pb2.SuspendAccountRequest(account_id=target, reason="chargeback")).player
        assert suspended.suspended and suspended.suspension_reason == "chargeback"
        with pytest.raises(PaijuError) as login:
            PaijuClient.connect(deployment.address, player.username, PASSWORD).close()
        assert (login.value.status, login.value.error_code) == (grpc.StatusCode.PERMISSION_DENIED, "account_suspended")
        with pytest.raises(PaijuError) as refresh:  # the session it has is not made any longer
            player.refresh()
        assert (refresh.value.status, refresh.value.error_code) == (grpc.StatusCode.PERMISSION_DENIED,
                                                                    "account_suspended")
        with pytest.raises(PaijuError) as sit:
            player.sit(room)
        assert (sit.value.status, sit.value.error_code) == (grpc.StatusCode.FAILED_PRECONDITION, "account_suspended")
        with pytest.raises(PaijuError) as wrong_password:  # a wrong password tells nothing of a suspension
            PaijuClient.connect(deployment.address, player.username, "not the password at all").close()
        assert wrong_password.value.status == grpc.StatusCode.UNAUTHENTICATED

        restored = admin.RestoreAccount(admin_pb2.RestoreAccountRequest(account_id=target, reason="cleared")).player
        assert not restored.suspended
        PaijuClient.connect(deployment.address, player.username, PASSWORD).close()
        player.sit(room)
        player.stand(room)
        [suspend] = audited(admin, "suspend", target)
        [restore] = audited(admin, "restore", target)
        assert (suspend.operator, suspend.reason, suspend.result) == (OPERATOR, "chargeback", "done: suspended")
        assert (restore.reason, restore.result) == ("cleared", "done: restored") and restore.id > suspend.id
    finally:
        player.close()


def test_adjustments_move_coins_against_the_house_and_conserve_them(deployment, admin: Admin) -> None:
    (player,) = new_clients(deployment, 1)
    wallet = deployment.platform.wallet
    account = player.account_id
    try:
        taken = admin.AdjustCoins(admin_pb2.AdjustCoinsRequest(account_id=account, amount=-500, reason="bug refund",
                                                               request_id="take-" + account))
        assert taken.balance_after == 19_500 == wallet.balance(int(account))
        again = admin.AdjustCoins(admin_pb2.AdjustCoinsRequest(account_id=account, amount=-500, reason="bug refund",
                                                               request_id="take-" + account))
        assert again.entry_id == taken.entry_id and wallet.balance(int(account)) == 19_500  # made once
        given = admin.AdjustCoins(admin_pb2.AdjustCoinsRequest(account_id=account, amount=200, reason="goodwill",
                                                               request_id="give-" + account))
        assert given.balance_after == 19_700 == wallet.balance(int(account))
        assert wallet.total_coins() == wallet.grants_total(), "the house paid and kept: no coin made or lost"
        assert [entry.detail for entry in wallet.history(int(account), 2)] == ["adjustment: goodwill",
                                                                               "adjustment: bug refund"]
        assert refused(lambda: admin.AdjustCoins(admin_pb2.AdjustCoinsRequest(
            account_id=account, amount=-10**9, reason="too much", request_id="too-much-" + account)),
            grpc.StatusCode.FAILED_PRECONDITION) == "insufficient_funds"
        assert wallet.balance(int(account)) == 19_700 and wallet.total_coins() == wallet.grants_total()
        results = [entry.result for entry in audited(admin, "adjust", account)]
        assert len(results) == 4 and results[0].startswith("refused: ") and results[-1].startswith("done: -500")
    finally:
        player.close()


def test_a_played_hands_record_is_read_whole(deployment, admin: Admin) -> None:
    room = "zhajinhua-free-05"
    clients = new_clients(deployment, 2)
    try:
        hand_id = start_hand(deployment, clients, room)["hand"]["hand_id"]
        finish_hand(clients, room)
        wait_for("the settlement", everyone_settled(deployment), deployment)
        wait_for("the hand kept", lambda: deployment.platform.wallet.hand_record(hand_id) is not None, deployment)
        record = json.loads(admin.GetHandRecord(admin_pb2.GetHandRecordRequest(hand_id=hand_id)).record_json)
        assert record["hand_id"] == hand_id and record["table_id"] == room and record["moves"]
        assert sorted(p["account_id"] for p in record["players"]) == sorted(int(c.account_id) for c in clients)
        assert sum(p["net"] for p in record["players"]) <= 0  # what the players lost went to the winner and the fee
        assert refused(lambda: admin.GetHandRecord(admin_pb2.GetHandRecordRequest(hand_id=room + "-999-00")),
                       grpc.StatusCode.NOT_FOUND) == "unknown_hand"
    finally:
        for client in clients:
            client.close()


ALL_CALLS = {name: getattr(admin_pb2, method.input_type.name)()
             for name, method in admin_pb2.DESCRIPTOR.services_by_name["AdminService"].methods_by_name.items()}


def test_every_call_needs_an_operators_token(deployment) -> None:
    (player,) = new_clients(deployment, 1)
    service = TokenSigner(SECRET.encode()).issue_service_token("table", 600)
    assert set(ALL_CALLS) == {"FindPlayer", "SuspendAccount", "RestoreAccount", "AdjustCoins", "ListOutbox",
                              "RetrySettlement", "VoidSettlement", "EndTable", "GetHandRecord", "ListAuditLog"}
    try:
        with grpc.insecure_channel(deployment.address) as channel:
            stub = admin_pb2_grpc.AdminServiceStub(channel)
            for name, request in ALL_CALLS.items():
                anonymous = functools.partial(getattr(stub, name), request, timeout=60)
                assert refused(anonymous, grpc.StatusCode.UNAUTHENTICATED) == "unauthenticated", name
                for token in (player.token, service):
                    presented = functools.partial(getattr(Admin(channel, token), name), request)
                    assert refused(presented, grpc.StatusCode.PERMISSION_DENIED) == "operators_only", name
    finally:
        player.close()


def test_the_command_line_issues_a_token_and_calls_the_service(deployment, monkeypatch, capsys) -> None:
    (player,) = new_clients(deployment, 1)
    try:
        monkeypatch.setenv("PAIJU_SECRET", SECRET)
        assert paiju(["admin", "token", "--operator", "cli-night", "--ttl", "300"]) == 0
        token = capsys.readouterr().out.strip()
        caller = TokenSigner(SECRET.encode()).verify(token)
        assert (caller.role, caller.username) == (Role.OPERATOR, "cli-night")
        monkeypatch.setenv("PAIJU_ADMIN_TOKEN", token)
        where = ["--address", deployment.address]
        assert paiju(["admin", "find", "--username", player.username, *where]) == 0
        assert json.loads(capsys.readouterr().out)["player"]["account_id"] == player.account_id
        assert paiju(["admin", "adjust", player.account_id, "-25", "--reason", "cli check", *where]) == 0
        assert json.loads(capsys.readouterr().out)["balance_after"] == str(20_000 - 25)
        assert paiju(["admin", "audit", "--limit", "5", *where]) == 0
        newest = json.loads(capsys.readouterr().out)["entries"][0]
        assert (newest["operator"], newest["action"], newest["target"], newest["reason"]) == (
            "cli-night", "adjust", player.account_id, "cli check")
        assert paiju(["admin", "find", "--username", player.username, *where, "--token", player.token]) == 1
        assert "PERMISSION_DENIED" in capsys.readouterr().err
    finally:
        player.close()
