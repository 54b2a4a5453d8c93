"""The sweep of holds no table owes, as deployed: the all-in-one server's thread (embedded) and
the Celery worker's beat (real), each sweeping every second here (see conftest)."""

from __future__ import annotations

from paiju.table.record import new_hand_id
from tests.e2e.test_platform import wait_for


def test_the_deployed_sweep_releases_a_crashed_starts_holds_and_keeps_a_live_hands(deployment) -> None:
    platform = deployment.platform
    wallet, tables = platform.wallet, platform.tables
    table_id = f"sweep-e2e-{deployment.shape}"
    tables.open(table_id, "zhajinhua", "free")
    ann, bo = (str(wallet.register(f"sweep-{deployment.shape}-{n}", "password-123")) for n in range(2))
    for account in (ann, bo):
        tables.sit(table_id, account, "sweep")
    crashed = new_hand_id(table_id, 1, "0badcafe")
    wallet.hold_hand(crashed, {int(ann): 700})  # a start that died between its holds and its commit

    wait_for("the sweep to release the crashed start's hold", lambda: wallet.holds(crashed) == {}, deployment)

    for account in (ann, bo):
        tables.ready(table_id, account)
    playing = tables.view(table_id, None)["hand"]["hand_id"]
    later = new_hand_id(table_id, 1, "0ddba11e")
    wallet.hold_hand(later, {int(bo): 300})  # another dead start, after the hand began
    # The sweep that releases it also looked at the hand in play, held for longer by then.
    wait_for("the sweep to release the later dead start's hold", lambda: wallet.holds(later) == {}, deployment)
    assert set(wallet.holds(playing)) == {int(ann), int(bo)}
    assert tables.view(table_id, None)["hand"]["hand_id"] == playing
    assert wallet.total_coins() == wallet.grants_total()
