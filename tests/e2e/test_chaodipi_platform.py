"""炒地皮 on the platform: four bots at a fortune table of each variant's rules play a hand
through the services; the match carries over and the ledger conserves every coin."""

from __future__ import annotations

import random
import threading

import pytest

from paiju.client.bots import trick_bot
from paiju.client.play import play_bot
from tests.e2e.test_platform import everyone_settled, join_all, new_clients, wait_for
from tests.patience import TIMER_SECONDS


@pytest.mark.parametrize("tier", ["yangzhou-fortune10", "yancheng-score"])
def test_four_bots_play_chaodipi_and_every_coin_is_accounted_for(deployment, tier):
    table_id = f"chaodipi-e2e-{deployment.shape}-{tier}"
    deployment.platform.tables.open(table_id, "chaodipi", tier, rules={"deal_interval": 0.002, "declare_window": 0.3,
                                                                              "turn_seconds": TIMER_SECONDS})
    clients = new_clients(deployment, 4)
    wallet = deployment.platform.wallet
    stop = threading.Event()
    results, errors = [], []

    def run(client, seed):
        try:
            results.append(play_bot(client, "chaodipi", tier, trick_bot, hands=2, stop=stop,
                                    rng=random.Random(seed), room_id=table_id))
        except Exception as error:  # noqa: BLE001 - reported below, with the others
            errors.append(error)

    threads = [threading.Thread(target=run, args=(client, seed)) for seed, client in enumerate(clients)]
    for thread in threads:
        thread.start()
    join_all(threads)
    stop.set()
    assert not errors, errors
    assert all(r.hands >= 2 for r in results), results
    wait_for("the settlements", everyone_settled(deployment), deployment)
    _, record = deployment.platform.tables.load(table_id)
    # The match goes on at the same seats: the next hand starts from where this one left it.
    assert record.carry is not None and record.carry["accounts"] == [seat.account for seat in record.seats]
    balances = [c.balance() for c in clients]
    assert sum(b.total for b in balances) == 4 * 20_000
    if tier.endswith("score"):
        assert all(b.total == 20_000 for b in balances)  # 积分: no coins move …
        # … the points are kept per account, each hand once.
        last = record.last_hand
        seats = last["seats"]
        expected = {int(record.seats[seats[s]].account): p for s, p in enumerate(last["state"]["result"]["scores"])}
        assert any(expected.values()) and wallet.hand_scores(last["hand_id"]) == expected
    assert wallet.total_coins() == wallet.grants_total()
    for client in clients:
        client.stand(table_id)
        client.close()
