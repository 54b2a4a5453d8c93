"""混战 on the platform: four bots sit, the paced deal runs on the table's clock, declarations
fly, 21 tricks are played, and the ledger books results and the house fee."""

from __future__ import annotations

import random
import threading

from paiju.client.bots import trick_bot
from paiju.client.play import play_bot
from tests.e2e.test_platform import everyone_settled, join_all, new_clients, wait_for
from tests.patience import TIMER_SECONDS


def test_four_bots_play_hunzhan_hands_and_the_house_takes_its_fee(deployment):
    table_id = f"hunzhan-e2e-{deployment.shape}"
    # A quick deal for the test; the rooms of the lobby keep the spec's 0.25 s and 5 s.
    deployment.platform.tables.open(table_id, "hunzhan", "stake10", rules={"deal_interval": 0.005, "declare_window": 0.3,
                                                                                  "turn_seconds": TIMER_SECONDS})
    clients = new_clients(deployment, 4)
    wallet = deployment.platform.wallet
    house_before = wallet.balance(wallet.house)
    stop = threading.Event()
    results, errors = [], []

    def run(client, seed):
        try:
            results.append(play_bot(client, "hunzhan", "stake10", trick_bot, hands=2, stop=stop,
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
    last = clients[0].view(table_id)["last_hand"]["state"]
    assert sum(p["points"] for p in last["players"]) == 240 or last["result"]["details"]["how"] == "escape"
    balances = [c.balance() for c in clients]
    house_gain = wallet.balance(wallet.house) - house_before
    assert house_gain >= 0  # winners pay the 2 % fee (0 when every win is too small to round up)
    assert sum(b.total for b in balances) + house_gain == 4 * 20_000
    assert wallet.total_coins() == wallet.grants_total()
    for client in clients:
        client.stand(table_id)
        client.close()
