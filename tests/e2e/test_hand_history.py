"""A player looks back at the hands they played: every finished hand is kept with its settlement,
listed newest first a page at a time, and replayed move by move as that player saw it — their own
cards all along, the others' only once shown; a hand of others is nobody's business."""

from __future__ import annotations

import json
import secrets

import grpc
import pytest

from paiju.client.sdk import PaijuError
from paiju.common.typed_views import game_view_dict
from paiju.proto.v1 import views_pb2
from tests.e2e.test_platform import everyone_settled, finish_hand, new_clients, start_hand, wait_for


def test_a_played_hand_is_listed_and_replays_as_each_player_saw_it(deployment) -> None:
    room = "zhajinhua-free-01"
    clients = new_clients(deployment, 3)
    outsider = new_clients(deployment, 1)[0]
    try:
        hands_ids = []
        started = start_hand(deployment, clients, room)
        hands_ids.append(started["hand"]["hand_id"])
        finish_hand(clients, room)
        wait_for("the settlement", everyone_settled(deployment), deployment)
        for client in clients:
            client.ready(room)
        wait_for("the second hand", lambda: clients[0].view(room)["hand"] is not None, deployment)
        hands_ids.append(clients[0].view(room)["hand"]["hand_id"])
        finish_hand(clients, room)
        wait_for("the settlement", everyone_settled(deployment), deployment)
        me = clients[0]
        wait_for("both hands in the history", lambda: len(me.hands().hands) >= 2, deployment)
        listed = me.hands()
        assert [hand.hand_id for hand in listed.hands][:2] == list(reversed(hands_ids)), "newest first"
        first_page = me.hands(limit=1)
        assert len(first_page.hands) == 1 and first_page.next_page_token
        second_page = me.hands(limit=1, page_token=first_page.next_page_token)
        assert second_page.hands[0].hand_id == hands_ids[0]
        with pytest.raises(PaijuError) as refused:
            me.hands(page_token="no-such-hand")
        assert refused.value.status == grpc.StatusCode.INVALID_ARGUMENT

        hand_id = hands_ids[-1]
        nets = {}
        for client in clients:
            replayed = client.replay_hand(hand_id)
            seat = replayed.seat
            views = [game_view_dict(step.state) for step in replayed.steps]
            assert not any(step.view_json for step in replayed.steps)  # JSON only for who asks
            as_json = client.replay_hand(hand_id, view_format=views_pb2.VIEW_FORMAT_JSON)
            assert [json.loads(step.view_json) for step in as_json.steps] == views  # the same views
            assert not any(step.HasField("state") for step in as_json.steps)
            assert replayed.game == "zhajinhua" and len(replayed.names) == 3 and client.username in replayed.names
            assert replayed.steps[0].seat == -1 and replayed.steps[0].move == ""
            assert [step.move for step in replayed.steps[1:]] and all(step.move for step in replayed.steps[1:])
            # Nobody's cards but possibly the viewer's own are shown before the end.
            for view in views[:-1]:
                shown = [p["seat"] for p in view["players"] if p["cards"] is not None]
                assert set(shown) <= {seat}, shown
            assert views[-1]["result"] is not None
            nets[client.account_id] = views[-1]["result"]["coins"][seat]
            line = next(hand for hand in client.hands().hands if hand.hand_id == hand_id)
            assert line.net == nets[client.account_id] and line.seat == seat
        assert sum(nets.values()) == 0
        with pytest.raises(PaijuError) as hidden:
            outsider.replay_hand(hand_id)
        assert hidden.value.status == grpc.StatusCode.NOT_FOUND
        assert outsider.hands().hands == []
    finally:
        for client in (*clients, outsider):
            client.close()


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_hands_older_than_the_retention_are_forgotten(deployment) -> None:
    from datetime import timedelta

    room = "zhajinhua-free-02"
    clients = new_clients(deployment, 2)
    try:
        start_hand(deployment, clients, room)
        finish_hand(clients, room)
        wait_for("the settlement", everyone_settled(deployment), deployment)
        wait_for("the hand in the history", lambda: len(clients[0].hands().hands) == 1, deployment)
        wallet = deployment.platform.wallet
        assert wallet.prune_hand_records(timedelta(days=1)) == 0, "a fresh hand stays"
        assert wallet.prune_hand_records(timedelta(seconds=-60)) >= 1
        assert clients[0].hands().hands == []
    finally:
        for client in clients:
            client.close()




def test_the_beat_prunes_hands_past_the_retention_set_in_days() -> None:
    from paiju.common.config import ConfigError, Settings
    from paiju.wallet.celery_app import PRUNE_HANDS, WorkerOptions, celery_config

    options = WorkerOptions.from_env({"PAIJU_HAND_RETENTION_DAYS": "7"})
    assert options.hand_retention_days == 7
    assert WorkerOptions.from_env({}).hand_retention_days == 30
    with pytest.raises(ConfigError, match="PAIJU_HAND_RETENTION_DAYS"):
        WorkerOptions.from_env({"PAIJU_HAND_RETENTION_DAYS": "forever"})
    schedule = celery_config(Settings.from_env({}), options)["beat_schedule"]
    assert any(entry["task"] == PRUNE_HANDS for entry in schedule.values())


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_an_operator_exports_a_kept_hand_as_json(deployment, capsys, monkeypatch) -> None:
    from paiju.cli import main
    from paiju.games.replays import replay_start
    from paiju.wallet.hand_export import export_hand

    room = "zhajinhua-free-03"
    clients = new_clients(deployment, 2)
    try:
        hand_id = start_hand(deployment, clients, room)["hand"]["hand_id"]
        finish_hand(clients, room)
        wait_for("the settlement", everyone_settled(deployment), deployment)
        wallet = deployment.platform.wallet
        wait_for("the hand kept", lambda: wallet.hand_record(hand_id) is not None, deployment)
        document = export_hand(wallet, hand_id)
        assert document is not None and json.loads(json.dumps(document)) == document
        assert {p["account_id"] for p in document["players"]} == {int(c.account_id) for c in clients}
        assert sum(p["net"] for p in document["players"]) == 0
        assert document["moves"] and document["start"]["seed"] and document["end"]["result"]["coins"]
        steps = replay_start("zhajinhua", wallet.hand_record(hand_id).record["start"], None)
        assert len(steps) == len(document["moves"]) + 1
        assert export_hand(wallet, "zhajinhua-free-03-999-nope") is None
        monkeypatch.setenv("DATABASE_URL", deployment.platform.settings.database_url)
        assert main(["hand", "export", hand_id]) == 0
        assert json.loads(capsys.readouterr().out)["hand_id"] == hand_id
        assert main(["hand", "export", "no-such-hand"]) == 1
    finally:
        for client in clients:
            client.close()


def test_bug_two_deliveries_of_one_hand_at_once_both_tried_to_keep_it_and_one_failed(deployment) -> None:
    """The worker's job and the relay can deliver one settlement together: both looked, found
    no record and inserted, and the second hit the primary key (seen in the deployment run)."""
    import threading
    from datetime import UTC, datetime

    from paiju.wallet import hand_history

    wallet = deployment.platform.wallet
    accounts = [int(c.account_id) for c in new_clients(deployment, 2)]
    record = hand_history.HandRecord(f"zhajinhua-free-09-1-{secrets.token_hex(4)}", "zhajinhua", "zhajinhua-free-09",
                                     datetime.now(UTC), {"accounts": [str(a) for a in accounts], "names": ["a", "b"],
                                                         "tier": "free", "start": {}}, {accounts[0]: 5, accounts[1]: -5})
    results: list[int] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def deliver() -> None:
        barrier.wait()
        try:
            with wallet.database.write() as conn:
                results.append(hand_history.keep(conn, [record]))
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    threads = [threading.Thread(target=deliver) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and sorted(results) == [0, 0, 0, 1]
    assert [hand.hand_id for hand in wallet.hands_of(accounts[0])] == [record.hand_id]
