"""An operator ends a table stuck mid-hand on a running platform: the hand is voided (nothing
settled, every hold released, each player's coins as before it), the seats are cleared, a
watcher hears it, the audit log has it, and the table seats players and plays a new hand after.
A table with nothing to end is answered so; an unknown one is NOT_FOUND; a player's token is
refused; the command line does the same."""

from __future__ import annotations

import json
import threading

import grpc

from paiju.cli import main as paiju
from paiju.proto.v1 import admin_pb2
from tests.admin.conftest import OPERATOR, Admin
from tests.admin.test_players import audited, refused
from tests.e2e.conftest import SECRET
from tests.e2e.test_platform import everyone_settled, finish_hand, new_clients, start_hand, wait_for


def test_a_table_stuck_mid_hand_is_ended_with_its_holds_released_and_plays_again(deployment, admin: Admin) -> None:
    wallet = deployment.platform.wallet
    room = "zhajinhua-free-02"
    players = new_clients(deployment, 3)
    accounts = sorted(player.account_id for player in players)
    heard: list = []
    try:
        before = {account: wallet.available(int(account)) for account in accounts}
        hand_id = start_hand(deployment, players, room)["hand"]["hand_id"]
        stream = players[0].watch(room)
        threading.Thread(target=heard.extend, args=(stream,), daemon=True).start()  # each update as it comes
        wait_for("the stream to open", lambda: bool(heard))
        held = sum(wallet.holds(hand_id).values())
        assert held > 0 and all(wallet.available(int(account)) < before[account] for account in accounts)

        ended = admin.EndTable(admin_pb2.EndTableRequest(table_id=room, reason="the hand hung"))

        assert (ended.voided_hand_id, ended.released, sorted(ended.stood_account_ids)) == (hand_id, held, accounts)
        assert not ended.nothing_to_end and list(ended.outbox_left) == [] and "turn" in ended.deadlines_cleared
        assert wallet.holds(hand_id) == {} and wallet.settlement(hand_id) is None
        assert {account: wallet.available(int(account)) for account in accounts} == before
        assert wallet.total_coins() == wallet.grants_total()
        view = deployment.platform.tables.view(room, None)
        assert view["hand"] is None and view["table"]["seats"] == [None] * len(view["table"]["seats"])
        for account in accounts:
            assert admin.FindPlayer(admin_pb2.FindPlayerRequest(account_id=account)).player.table_id == ""
        wait_for("the watcher to hear every seat stood up",
                 lambda: sum(update.event_type == "stood" for update in list(heard)) == len(accounts))
        told = [(update.event_type, update.event) for update in list(heard)
                if update.event_type in ("hand_voided", "stood")]
        assert told[0] == ("hand_voided", {"hand_id": hand_id, "reason": "table_ended"})
        assert sorted(event["account"] for _, event in told[1:]) == accounts
        assert {event["reason"] for _, event in told[1:]} == {"table_ended"}
        [entry] = audited(admin, "end_table", room)
        assert (entry.operator, entry.reason) == (OPERATOR, "the hand hung")
        assert entry.result.startswith(f"done: voided hand {hand_id}; {held} held coins released")

        again = start_hand(deployment, players, room)["hand"]
        assert again["hand_id"] != hand_id
        finish_hand(players, room)
        wait_for("the new hand's settlement", everyone_settled(deployment), deployment)
        assert wallet.settlement(again["hand_id"]) is not None
        assert wallet.total_coins() == wallet.grants_total()
    finally:
        for client in players:
            client.close()


def test_an_empty_table_an_unknown_one_and_a_players_token_are_answered_plainly(
    deployment, admin: Admin, monkeypatch, capsys
) -> None:
    room = "zhajinhua-free-03"
    (player,) = new_clients(deployment, 1)
    try:
        idle = admin.EndTable(admin_pb2.EndTableRequest(table_id=room, reason="just in case"))
        assert idle.nothing_to_end and idle.outcome.startswith("nothing to end") and not idle.stood_account_ids
        [entry] = audited(admin, "end_table", room)
        assert entry.result == f"done: {idle.outcome}"
        assert refused(lambda: admin.EndTable(admin_pb2.EndTableRequest(table_id="no-such-room", reason="typo")),
                       grpc.StatusCode.NOT_FOUND) == "unknown_table"
        assert refused(lambda: admin.EndTable(admin_pb2.EndTableRequest(table_id=room)),
                       grpc.StatusCode.INVALID_ARGUMENT) == "invalid_argument"
        player.sit(room)
        with grpc.insecure_channel(deployment.address) as channel:
            assert refused(lambda: Admin(channel, player.token).EndTable(
                admin_pb2.EndTableRequest(table_id=room, reason="I want out")),
                grpc.StatusCode.PERMISSION_DENIED) == "operators_only"
        assert player.view(room)["seat"] is not None, "the refused call changed nothing"

        monkeypatch.setenv("PAIJU_SECRET", SECRET)
        monkeypatch.setenv("PAIJU_ADMIN_TOKEN", admin.token)
        assert paiju(["admin", "end-table", room, "--reason", "cli check", "--address", deployment.address]) == 0
        answer = json.loads(capsys.readouterr().out)
        assert answer["stood_account_ids"] == [player.account_id] and answer["nothing_to_end"] is False
        assert "1 player stood up" in answer["outcome"] and answer["voided_hand_id"] == ""
    finally:
        player.close()
