"""An operator at the settlement outbox of a platform whose relay is down (a bad night): the
pending entries of every table are listed; one is retried (applied now, exactly as the relay
would) or voided (acknowledged unapplied, its hand's holds released); a refused retry leaves it
pending. The coins of all accounts are conserved throughout, and each action is in the audit log."""

from __future__ import annotations

import json
import secrets

import grpc

from paiju.proto.v1 import admin_pb2
from tests.admin.conftest import Admin
from tests.admin.test_players import audited, refused
from tests.e2e.test_platform import new_clients

RELAY_RUNS = False
"""No relay, no worker: what the tables queue stays in the outbox for the operator."""
HOLD_STAKE = 300


def queue_settlement(deployment, table_id: str, lines: list[list]) -> tuple[str, str]:
    """A hand of ``table_id`` that ended with ``lines`` and a fee of 10 queued in the table's
    outbox, its players' coins held as a hand's start holds them; its hand id and outbox key."""
    store, wallet = deployment.platform.store, deployment.platform.wallet
    hand_id = f"{table_id}-{secrets.randbelow(10**6) + 1000}-{secrets.token_hex(4)}"
    key = f"settle:{hand_id}"
    payload = {"hand_id": hand_id, "table_id": table_id, "game": "zhajinhua", "lines": lines, "fee": 10}
    snapshot = store.load(table_id)
    store.commit(table_id, snapshot.version, snapshot.state, outbox=[(key, json.dumps(payload).encode())])
    wallet.hold_hand(hand_id, {int(account): HOLD_STAKE for account, _amount, _reason in lines})
    return hand_id, key


def pending(admin: Admin) -> set[tuple[str, str]]:
    return {(entry.table_id, entry.key) for entry in admin.ListOutbox(admin_pb2.ListOutboxRequest()).entries}


def test_a_pending_settlement_is_listed_and_retried_by_hand(deployment, admin: Admin) -> None:
    wallet = deployment.platform.wallet
    loser, winner = new_clients(deployment, 2)
    table = "zhajinhua-free-03"
    try:
        hand_id, key = queue_settlement(deployment, table, [[loser.account_id, -300, "stake"],
                                                            [winner.account_id, 290, "pot"]])
        [listed] = [e for e in admin.ListOutbox(admin_pb2.ListOutboxRequest()).entries if e.key == key]
        assert (listed.table_id, listed.kind, listed.hand_id) == (table, "settlement", hand_id)
        assert json.loads(listed.payload_json)["fee"] == 10
        house_before = wallet.balance(wallet.house)

        done = admin.RetrySettlement(admin_pb2.RetrySettlementRequest(table_id=table, key=key, reason="relay down"))
        assert done.outcome == "applied" and (table, key) not in pending(admin)
        assert wallet.balance(int(loser.account_id)) == 19_700 and wallet.balance(int(winner.account_id)) == 20_290
        assert wallet.balance(wallet.house) == house_before + 10
        assert wallet.holds(hand_id) == {} and wallet.total_coins() == wallet.grants_total()
        assert refused(lambda: admin.RetrySettlement(admin_pb2.RetrySettlementRequest(
            table_id=table, key=key, reason="twice")), grpc.StatusCode.NOT_FOUND) == "not_pending"
        results = [entry.result for entry in audited(admin, "retry", f"{table} {key}")]
        not_pending = f"no pending outbox entry {key!r} at table {table!r}: applied, voided, or never queued"
        assert results == [f"refused: {not_pending}", "done: applied"]
    finally:
        loser.close()
        winner.close()


def test_a_refused_settlement_stays_pending_until_voided_with_its_holds_released(deployment, admin: Admin) -> None:
    wallet = deployment.platform.wallet
    players = new_clients(deployment, 2)
    table = "zhajinhua-free-04"
    try:
        # Lines that do not add up: the ledger refuses them, however often they are tried.
        hand_id, key = queue_settlement(deployment, table, [[players[0].account_id, -300, "stake"],
                                                            [players[1].account_id, 500, "pot"]])
        assert all(wallet.held(int(p.account_id)) == HOLD_STAKE for p in players)
        assert refused(lambda: admin.RetrySettlement(admin_pb2.RetrySettlementRequest(
            table_id=table, key=key, reason="try once more")), grpc.StatusCode.FAILED_PRECONDITION) == "refused"
        assert (table, key) in pending(admin)
        assert refused(lambda: admin.VoidSettlement(admin_pb2.VoidSettlementRequest(table_id=table, key=key)),
                       grpc.StatusCode.INVALID_ARGUMENT) == "invalid_argument"

        voided = admin.VoidSettlement(admin_pb2.VoidSettlementRequest(table_id=table, key=key, reason="bad lines"))
        assert voided.released == 2 * HOLD_STAKE and (table, key) not in pending(admin)
        for player in players:
            account = int(player.account_id)
            assert (wallet.balance(account), wallet.held(account)) == (20_000, 0), "nobody won or lost"
        assert wallet.settlement(hand_id) is None and wallet.total_coins() == wallet.grants_total()
        [retry] = audited(admin, "retry", f"{table} {key}")
        [void] = audited(admin, "void", f"{table} {key}")
        assert retry.result.startswith("refused: the ledger refuses it") and retry.reason == "try once more"
        assert void.result == f"done: voided hand {hand_id}: {2 * HOLD_STAKE} held coins released"
    finally:
        for player in players:
            player.close()
