"""A person changes their password from the page's header: a wrong old one is refused in both
languages; a right one keeps this page's session, ends the others and logs in from then on."""

from __future__ import annotations

import grpc
import pytest

from paiju.client.sdk import PaijuClient, PaijuError
from tests.web.conftest import wait_until
from tests.web.pages import PASSWORD, Player, one

NEW_PASSWORD = "a newer long password"


def fill_change_password(player: Player, old: str, new: str) -> None:
    one(player.driver, "[data-testid=open-change-password]").click()
    form = wait_until("the change-password form", lambda: one(player.driver, "[data-testid=change-password]"))
    for name, text in (("old-password", old), ("new-password", new), ("repeat-password", new)):
        form.find_element("css selector", f"input[name={name}]").send_keys(text)
    form.find_element("css selector", "button[name=change-password]").click()


def test_a_person_changes_their_password_and_stays_logged_in_here_only(web_server, browsers, artifacts):
    address = web_server.need_grpc()
    ann = Player(browsers.open(), web_server.url, artifacts, "password")
    ann.register()
    elsewhere = PaijuClient.connect(address, ann.name, PASSWORD)

    fill_change_password(ann, "not the password", NEW_PASSWORD)
    refusal = wait_until("the refusal", lambda: one(ann.driver, "[data-testid=password-error]"))
    assert "原密码不对" in refusal.text and "wrong" in refusal.text
    ann.driver.refresh()  # closes the form; the session is the one the page had

    fill_change_password(ann, PASSWORD, NEW_PASSWORD)
    notice = wait_until("the notice", lambda: one(ann.driver, "[data-testid=notice]"))
    assert "密码已修改" in notice.text
    ann.driver.refresh()
    wait_until("the balance, on the fresh session", lambda: one(ann.driver, "[data-testid=balance]"))

    with pytest.raises(PaijuError) as ended:
        elsewhere.balance()
    assert ended.value.status == grpc.StatusCode.UNAUTHENTICATED
    elsewhere.close()
    PaijuClient.connect(address, ann.name, NEW_PASSWORD).close()
