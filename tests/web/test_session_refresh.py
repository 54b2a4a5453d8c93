"""A page kept open, or opened again, extends its session halfway through the session's life
(``WalletService.RefreshSession``): a player is never sent to the login screen at the table
because a token they could have renewed ran out."""

from __future__ import annotations

import json

from paiju.client.sdk import PaijuClient
from tests.web.conftest import wait_until
from tests.web.pages import Player, css

SESSION_KEY = "paiju.session"


def saved_session(player: Player) -> dict:
    return json.loads(player.driver.execute_script(f"return localStorage.getItem('{SESSION_KEY}')"))


def test_a_session_past_half_its_life_is_extended_and_the_page_goes_on_with_the_fresh_token(web_server, browsers, artifacts):
    address = web_server.need_grpc()
    ann = Player(browsers.open(), web_server.url, artifacts, "refresh")
    ann.register()
    issued = saved_session(ann)
    assert issued["issuedAtMs"] <= issued["expiresAtMs"]

    # The same session as if the page had been opened most of a lifetime later: past its halfway point.
    lifetime = issued["expiresAtMs"] - issued["issuedAtMs"]
    aged = {**issued, "issuedAtMs": issued["issuedAtMs"] - lifetime}
    ann.driver.execute_script(f"localStorage.setItem('{SESSION_KEY}', arguments[0])", json.dumps(aged))
    ann.driver.refresh()

    extended = wait_until("the session extended", lambda: (s := saved_session(ann))["token"] != issued["token"] and s)
    assert extended["accountId"] == issued["accountId"] and extended["username"] == issued["username"]
    assert extended["expiresAtMs"] >= issued["expiresAtMs"]
    assert extended["issuedAtMs"] >= issued["issuedAtMs"]
    # Extended once: the fresh session's own halfway point is a lifetime away.
    assert saved_session(ann)["token"] == extended["token"]

    ann.driver.refresh()
    wait_until("the lobby, on the fresh session", lambda: css(ann.driver, ".room"))
    fresh = PaijuClient.from_session(address, extended["token"], extended["accountId"], extended["username"])
    try:
        assert fresh.balance().account_id == extended["accountId"]
    finally:
        fresh.close()
