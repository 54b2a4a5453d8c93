"""A network that drops mid-hand: the page says at once that it lost touch with the table, and
when the network is back it carries on at the same seat in the same hand, with the whole view
and the turn's time left, without a reload.

Two people at a room of their own (no bots: nobody moves while the network is down), 炸金花.
"""

from __future__ import annotations

from typing import Any

from tests.web.conftest import BOT_TABLES, wait_until
from tests.web.pages import Player, css, one


def what_the_page_shows(person: Player) -> dict[str, Any]:
    """The seat, the hand and the own cards the page shows."""
    driver = person.driver
    return {
        "seat": one(driver, "[data-testid=my-seat]").get_attribute("data-seat"),
        "hand": one(driver, "[data-testid=table]").get_attribute("data-hand-id"),
        "cards": sorted(c.get_attribute("data-card") for c in css(driver, "[data-testid=my-cards] .card[data-card]")),
        "commitment": one(driver, "[data-testid=commitment]").text,
    }


def turn_holder(person: Player) -> str | None:
    """Whose turn the page shows: "me", or the table seat of the player to act."""
    if one(person.driver, "[data-testid=my-countdown]") is not None:
        return "me"
    panel = one(person.driver, ".panel.turn")
    return panel.get_attribute("data-seat") if panel is not None else None


def pot(person: Player) -> str:
    return one(person.driver, "[data-testid=pot] .pot-amount").text


def turn_seconds_shown(person: Player) -> int | None:
    """The turn's time left as the page counts it down (its own turn, or another player's)."""
    clock = one(person.driver, "[data-testid=my-countdown]") or one(person.driver, "[data-testid=countdown]")
    digits = "".join(ch for ch in clock.text if ch.isdigit()) if clock is not None else ""
    return int(digits) if digits else None


def test_a_dropped_network_mid_hand_resumes_the_same_seat_and_hand_without_a_reload(web_server, browsers, artifacts):
    room = f"zhajinhua-expert-{BOT_TABLES + 2:02d}"  # a room of its own, without bots
    ann, bea = (Player(browsers.open(), web_server.url, artifacts, label) for label in ("drop-a", "drop-b"))
    for person in (ann, bea):
        person.register()
        person.choose("zhajinhua", "expert")
        person.sit(room)
    for person in (ann, bea):
        person.press_start()
    for person in (ann, bea):
        wait_until("the hand", lambda p=person: one(p.driver, "[data-testid=pot]"))
    wait_until("look to be possible", lambda: "look" in ann.legal())
    ann.click_action("look")
    wait_until("the own cards face up", lambda: len(css(ann.driver, "[data-testid=my-cards] .card[data-card]")) == 3)
    before = what_the_page_shows(ann)
    to_act = wait_until("the turn", lambda: turn_holder(ann))
    assert before["hand"] and before["seat"] is not None
    ann_seat = before["seat"]
    ann.driver.execute_script("window.paijuSamePage = true")  # gone if the page were loaded again

    ann.set_network(online=False)
    banner = wait_until("the page to say it lost touch", lambda: one(ann.driver, "[data-testid=connection-lost]"))
    assert banner.is_displayed() and "reconnecting" in banner.text
    assert "reconnecting" in one(ann.driver, "[data-testid=connection]").text
    # The server noticed too: the other player sees the seat away, held for its reconnect window.
    wait_until("the other player to see the seat away",
               lambda: one(bea.driver, f".panel[data-seat='{ann_seat}'] [data-testid=away]"))
    ann.shot("network-down")
    ann.shot_at_phone_width("network-down")

    ann.set_network(online=True)
    wait_until("the page to be back in touch", lambda: one(ann.driver, "[data-testid=connection-lost]") is None)
    assert "connected" in one(ann.driver, "[data-testid=connection]").text
    wait_until("the other player to see the seat back",
               lambda: one(bea.driver, f".panel[data-seat='{ann_seat}'] [data-testid=away]") is None)
    ann.shot("network-back")
    assert ann.driver.execute_script("return window.paijuSamePage === true"), "the page was not reloaded"
    assert what_the_page_shows(ann) == before, "the same seat, hand and cards"
    assert not ann.in_settlement()
    assert turn_holder(ann) == to_act
    assert wait_until("the turn's time left", lambda: turn_seconds_shown(ann)) > 0
    # The page follows the table again: the other player's move reaches it without a click.
    if to_act == "me":
        ann.click_action("call")
    wait_until("the other player's turn", lambda: "call" in bea.legal())
    pot_before = pot(ann)
    bea.click_action("call")
    wait_until("the other player's move to show", lambda: pot(ann) != pot_before)
    ann.shot("followed")
