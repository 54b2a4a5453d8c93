"""The platform on a three-master Redis Cluster: hands of every game, and a node killed and
restarted while a table plays, with nothing lost and every table playable after.

The cluster is made by the test (``redis-server`` in cluster mode on free loopback ports); the
broker is the machine's ordinary Redis (Celery cannot use a cluster), and settlements are relayed
in the server process, as ``make run`` does.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import threading
import time
from collections.abc import Iterator

import pytest
import redis
import sqlalchemy as sa

from paiju.client.bots import sensible_bot
from paiju.client.play import play_bot
from paiju.client.sdk import PaijuError
from paiju.common.config import Settings
from paiju.wallet.celery_app import WorkerOptions
from paiju.wallet.relay import SettlementOrder, Settler
from tests.e2e import test_chaodipi_platform, test_hunzhan_platform, test_platform
from tests.e2e.conftest import SECRET, Deployment, serving
from tests.e2e.test_platform import everyone_settled, new_clients, wait_for
from tests.redis_cluster import LocalCluster

BROKER_DB = 12


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    if not LocalCluster.available():
        message = "redis-server and redis-cli are needed to make a local Redis Cluster"
        if os.environ.get("PAIJU_REQUIRE_SERVICES") == "1":
            pytest.fail(f"{message}, and PAIJU_REQUIRE_SERVICES=1 makes it mandatory")
        pytest.skip(f"SKIPPED real-server test: {message}")
    made = LocalCluster(tmp_path_factory.mktemp("redis-cluster")).start()
    try:
        yield made
    finally:
        made.stop()


@pytest.fixture(scope="module")
def cluster_deployment(cluster: LocalCluster, redis_url: str, tmp_path_factory) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("e2e-cluster")
    environment = {
        "REDIS_URL": cluster.url,
        "PAIJU_REDIS_CLUSTER": "true",
        "PAIJU_BROKER_URL": sa.make_url(redis_url).set(database=str(BROKER_DB)).render_as_string(False),
        "PAIJU_REDIS_PREFIX": f"e2e-cluster-{secrets.token_hex(4)}",
        "DATABASE_URL": f"sqlite:///{folder / 'ledger.sqlite3'}",
        "PAIJU_SECRET": SECRET,
        "PAIJU_RELAY_SECONDS": "0.2",
        "PAIJU_STARTING_GRANT": "20000",
    }
    with serving(Settings.from_env(environment), "cluster", rooms_per_tier=5,
                 options=WorkerOptions.from_env(environment)) as deployment:
        yield deployment


def test_a_cluster_client_is_what_the_platform_uses(cluster_deployment):
    assert isinstance(cluster_deployment.platform.redis, redis.cluster.RedisCluster)
    # The tables are spread over the masters: their keys land on more than one node.
    client = cluster_deployment.platform.redis
    assert len({node_of(client, f"zhajinhua-free-0{n}") for n in range(1, 6)}) > 1


def test_zhajinhua_hands_on_a_redis_cluster(cluster_deployment):
    test_platform.test_bots_play_whole_hands_and_every_coin_is_accounted_for(cluster_deployment, "loop", "Play.move")


def test_hunzhan_hands_on_a_redis_cluster(cluster_deployment):
    test_hunzhan_platform.test_four_bots_play_hunzhan_hands_and_the_house_takes_its_fee(cluster_deployment)


def test_chaodipi_hands_on_a_redis_cluster(cluster_deployment):
    test_chaodipi_platform.test_four_bots_play_chaodipi_and_every_coin_is_accounted_for(
        cluster_deployment, "yangzhou-fortune10")


def test_bug_the_stream_hub_read_tables_on_several_nodes_in_one_xread_which_a_cluster_refuses(cluster_deployment):
    # The hub reads every table it must catch up on in one round trip. It sent one XREAD naming
    # all their streams, and a cluster refuses a command whose keys lie in different slots
    # ("stream hub read failed", over a hundred times in two minutes of `paiju serve --bots 3`).
    client = cluster_deployment.platform.redis
    rooms = [f"zhajinhua-expert-0{n}" for n in range(1, 6)]  # a tier the other tests leave alone
    tables = [rooms[0], next(room for room in rooms if node_of(client, room) != node_of(client, rooms[0]))]
    for player, table_id in zip(new_clients(cluster_deployment, 2), tables, strict=True):
        player.sit(table_id)
    found, marks = cluster_deployment.platform.store.read_with_marks(dict.fromkeys(tables, "0-0"))
    assert sorted(found) == tables and all(events[0].type == "sat" for events in found.values())
    assert set(marks) <= set(tables)
    assert cluster_deployment.platform.store.read_many(dict.fromkeys(tables, "0-0")).keys() == found.keys()


def test_bug_a_settlement_s_scripts_went_in_one_cluster_pipeline_which_redis_py_refused(cluster_deployment):
    # The ledger told the board of coins, the leaderboard and the outbox in one pipeline; redis-py
    # before 8.2 refuses a script in a cluster's pipeline ("evalsha is blocked"), so no hand
    # settled on a cluster: the relay failed at every pass and the next hands never started.
    platform = cluster_deployment.platform
    wallet, tag = platform.wallet, secrets.token_hex(3)
    loser, winner = wallet.register(f"cl-loser-{tag}", "password-1"), wallet.register(f"cl-winner-{tag}", "password-2")
    hand_id = f"cluster-bug-{tag}-1"
    wallet.hold_hand(hand_id, {loser: 300, winner: 300})
    lines = [[str(loser), -300, "stake"], [str(winner), -300, "stake"], [str(winner), 600, "pot"]]
    order = SettlementOrder.from_json(json.dumps(
        {"hand_id": hand_id, "table_id": "cluster-bug", "game": "zhajinhua", "lines": lines, "fee": 0}).encode())
    settled = Settler(wallet, platform.leaderboard, platform.coins_board)(order)
    assert not settled.replayed
    before = wallet.available(loser) + 300
    assert platform.coins_board.available_many([str(loser), str(winner)]) == [before - 300, before + 300]


def node_of(client: redis.cluster.RedisCluster, table_id: str) -> int:
    """The port of the master that holds ``table_id``'s keys."""
    node = client.get_node_from_key(f"{{{table_id}}}")
    return int(node.port)


def test_a_node_killed_and_restarted_mid_play_loses_no_hand_and_no_coin(cluster, cluster_deployment):
    room = "zhajinhua-free-03"
    platform = cluster_deployment.platform
    clients = new_clients(cluster_deployment, 3)
    for client in clients:
        client.sit(room)
    stop = threading.Event()
    hands = [0] * len(clients)
    refusals: list[str] = []

    def run(index: int) -> None:
        # Calls fail while the table's node is down; a player tries again, as a person would.
        rng = random.Random(index)
        while not stop.is_set() and hands[index] < 4:
            try:
                hands[index] += play_bot(clients[index], "zhajinhua", "free", sensible_bot, hands=1, stop=stop,
                                         rng=rng, room_id=room).hands
            except PaijuError as error:
                refusals.append(f"{error.status.name}: {error.reason}")
                time.sleep(0.2)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    wait_for("a first hand", lambda: platform.tables.load(room)[1].hands_played >= 1)
    cluster.restart(node_of(platform.redis, room))
    for thread in threads:
        thread.join(timeout=180)
    stop.set()
    assert all(count >= 4 for count in hands), (hands, refusals[:5])
    wait_for("the settlements", everyone_settled(cluster_deployment))
    wallet = platform.wallet
    assert wallet.total_coins() == wallet.grants_total()
    balances = [client.balance() for client in clients]
    assert sum(b.total for b in balances) == 3 * 20_000 and all(b.held == 0 for b in balances)
    # Every table is still playable: the other rooms' nodes never went away, this one came back.
    assert platform.tables.load(room)[1].hands_played >= 4
    for client in clients:
        client.stand(room)
        client.close()
