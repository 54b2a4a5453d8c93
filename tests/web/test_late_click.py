"""A click that reaches the server after the player's turn ran out: the page says that the
default move was made for them, not that the table moved on (as if someone else had moved).

The page's Watch stream is held up on the way (:mod:`tests.web.watch_hold`) from the moment it
shows the player their turn, so the page still offers the moves when the server has already
folded the seat for the timeout; the click that follows is the late one. The seat stays
connected all along: the server's side of the stream is open and read. A server of its own
with a short turn timer; two players at a 炸金花 table, the browser's and one on the SDK who
calls at every turn of hers.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from paiju.client.sdk import PaijuClient
from tests.web.conftest import (
    ROOMS,
    WebServer,
    _need_browser,
    move_whenever_asked,
    paiju_serve,
    wait_until,
)
from tests.web.pages import Player, one
from tests.web.watch_hold import WatchHold

TURN_SECONDS = 4
"""Short, so the test waits little for the timeout; long enough for the SDK player to call in time."""
YOUR_TIME_RAN_OUT = "你已超时 Your time ran out: the default move was made for you."
PASSWORD = "a password for a late click"

_TOPMOST = """
const el = arguments[0], box = el.getBoundingClientRect();
const there = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
return there !== null && el.contains(there);
"""


@pytest.fixture(scope="module")
def quick_turn_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    _need_browser()
    settings = {"PAIJU_TURN_SECONDS": str(TURN_SECONDS)}
    with paiju_serve(tmp_path_factory.mktemp("late-click-serve"), settings, bots=0) as server:
        yield server


def folded_in_the_last_hand(view: dict[str, Any], name: str) -> bool:
    """Whether the player called ``name`` folded in the table's last finished hand."""
    last = view.get("last_hand")
    if view.get("hand") or not last:
        return False
    seats = view["table"]["seats"]
    for hand_seat, table_seat in enumerate(last["seats"]):
        if seats[table_seat] and seats[table_seat]["name"] == name:
            return last["state"]["players"][hand_seat]["status"] == "folded"
    return False


def test_a_click_after_the_turn_ran_out_says_the_default_move_was_made(quick_turn_server, browsers, artifacts):
    room = f"zhajinhua-free-{ROOMS:02d}"
    bea = PaijuClient.connect(quick_turn_server.need_grpc(), f"late{secrets.token_hex(3)}", PASSWORD, register=True)
    stop = threading.Event()
    calling = threading.Thread(target=move_whenever_asked, args=([bea], room, "call", stop), daemon=True)
    try:
        with WatchHold(quick_turn_server.url) as hold:
            bea.sit(room)
            ann = Player(browsers.open(), hold.url, artifacts, "late-click")
            ann.register_and_sit("zhajinhua", "free", room)
            hold.hold_after_own_turn()
            ann.press_start()
            calling.start()
            bea.ready(room)

            wait_until("the page to be shown its turn, and nothing after it", lambda: hold.holding
                       and one(ann.driver, "[data-testid=my-countdown]") and "call" in ann.legal())
            # The server runs the turn out meanwhile: the seat folds (炸金花's default move),
            # which ends a hand of two.
            wait_until("the turn to run out at the server", lambda: folded_in_the_last_hand(bea.view(room), ann.name))
            assert hold.held_messages > 0, "the server told the page of the timeout, and the page has not heard it"
            assert one(ann.driver, "[data-testid=my-countdown]") and "call" in ann.legal(), "the page still offers the moves"
            assert not bea.view(room)["reconnect_by_ms"], "the seat was never counted away"
            ann.shot("before-the-late-click")

            ann.click_action("call")
            message = wait_until("the page's answer to the click", lambda: one(ann.driver, "[data-testid=table-message]"))
            ann.shot("late-click")
            assert message.text == YOUR_TIME_RAN_OUT
            assert message.is_displayed() and ann.driver.execute_script(_TOPMOST, message), "the message is in sight, not under another window"

            hold.release()
            wait_until("the page to catch up with the table", ann.in_settlement)
            assert "connected" in one(ann.driver, "[data-testid=connection]").text
    finally:
        stop.set()
        if calling.is_alive():
            calling.join(timeout=10)
        bea.close()
