"""The house's bots of `paiju serve --bots` sign in without the login door.

They come from the same address as a person playing on the same machine, and the door takes a
couple of logins at a time from one address: bots that logged in through it kept a person who
opened the page at start-up refused ("at most 2 logins at a time from one address") for up to a
minute. That was the cause of the whole-hand browser test failing now and then.
"""

from __future__ import annotations

import secrets

import pytest

from paiju.common.metrics import METRICS
from paiju.house_bots import house_sign_in
from tests.e2e.conftest import Deployment


def _password_calls() -> float:
    """Login and Register calls the server has answered so far, whatever their outcome."""
    return sum(sample.value for metric in METRICS.registry.collect() for sample in metric.samples
               if sample.name == "paiju_rpc_duration_seconds_count"
               and sample.labels.get("method") in ("Login", "Register"))


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_house_bots_never_queue_a_person_at_the_login_door(deployment: Deployment) -> None:
    sign_in = house_sign_in(deployment.platform, deployment.address)
    names = [f"bot-house-{secrets.token_hex(3)}-{seat}" for seat in range(4)]
    before = _password_calls()
    clients = [sign_in(name, secrets.token_hex(16)) for name in names]
    again = sign_in(names[0], "another password: the session is issued, not logged in to")
    try:
        grant = deployment.platform.settings.starting_grant
        for client, name in zip(clients, names):
            assert client.username == name
            balance = client.balance()
            assert (balance.account_id, balance.available) == (client.account_id, grant)
        assert again.account_id == clients[0].account_id, "a second sign-in is the same account"
        assert len({client.account_id for client in clients}) == len(names)
        assert _password_calls() == before, "no bot went through the login door"
    finally:
        for client in (*clients, again):
            client.close()


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_the_house_role_keeps_company_through_the_login_door_with_the_same_accounts_after_a_restart(
    deployment: Deployment,
) -> None:
    """`paiju bots ADDRESS` (a deployment's paiju-bots): bots that log in as players do, sit in
    each company tier's first room, and come back to their own accounts when the role restarts
    (new accounts at every start would each take a starting grant)."""
    import threading

    from paiju.client.sdk import PaijuClient
    from paiju.house_bots import COMPANY_TABLES, HOUSE_PREFIX, serve_house
    from tests.patience import wait_until

    wallet = deployment.platform.wallet
    assert wallet is not None
    secret = secrets.token_bytes(16)
    viewer = PaijuClient.connect(deployment.address, f"viewer-{secrets.token_hex(3)}", "a password of twelve", register=True)

    def seated() -> dict[str, set[str]]:
        return {game: {seat.username for room in viewer.rooms(game, tier) if room.room_id == f"{game}-{tier}-01"
                       for seat in room.seats if seat.account_id}
                for game, tier, _ in COMPANY_TABLES}

    def run_the_role() -> tuple[threading.Event, threading.Thread]:
        stop = threading.Event()
        role = threading.Thread(target=serve_house, args=(deployment.address, secret), kwargs={"stop": stop}, daemon=True)
        role.start()
        return stop, role

    wanted = {game: {f"{HOUSE_PREFIX}-company-{game[:3]}-{seat}" for seat in range(count)}
              for game, _, count in COMPANY_TABLES}
    try:
        stop, role = run_the_role()
        wait_until("the house's bots in every company room", lambda: seated() == wanted, seconds=90, poll_seconds=0.2)
        accounts = {name: wallet.account_id(name) for names in wanted.values() for name in names}
        assert all(accounts.values())
        stop.set()
        role.join(10)
        stop, role = run_the_role()
        wait_until("the bots back in their seats", lambda: seated() == wanted, seconds=90, poll_seconds=0.2)
        assert {name: wallet.account_id(name) for name in accounts} == accounts, "the same accounts, none made anew"
        stop.set()
        role.join(10)
    finally:
        viewer.close()
