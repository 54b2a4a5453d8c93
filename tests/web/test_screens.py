"""A screenshot of every screen at 1280×800 and at a phone's 390×844, in ``PAIJU_TEST_ARTIFACTS``
(``screens-*.png`` and ``screens-phone-*.png``): the login, the lobby, each game's rules, each
game's table mid-hand, the settlement, the hands played (牌谱) and a replay. People look at them;
the test asserts that each screen was reached, that nothing on a felt overlaps and that each
hand of 牌谱 is one line, on a phone too."""

from __future__ import annotations

import secrets
import threading
import time

import pytest

from paiju.client.sdk import PaijuClient, PaijuError
from tests.web.conftest import ROOMS, wait_until
from tests.web.pages import Player, css, one

PASSWORD = "a password for the screens"
DESKTOP = (1280, 800)
GAMES = {"zhajinhua": ("free", 3), "hunzhan": ("stake10", 4), "chaodipi": ("yangzhou-fortune10", 4)}
"""Each game's tier, and how many players its table deals in."""


def _sdk_move(legal: list[str], game: str, fold: bool) -> str | None:
    """A move of an SDK player: in 炸金花 a call (or, with ``fold``, a fold); in the trick games a
    declaration when one is offered (without one the cards are dealt again, and again), else a
    pass where one may pass, else the first (lowest) play or bury; never a stake multiple (optional)."""
    if game == "zhajinhua":
        wanted = "fold" if fold else "call"
        return wanted if wanted in legal else None
    declaration = next((a for a in legal if a.startswith("declare ")), None)
    if declaration:
        return declaration
    if "pass" in legal:
        return "pass"
    return next((a for a in legal if a.startswith(("play ", "bury "))), None)


class SdkTable:
    """SDK players beside the browser's person at ``room``: they play whenever asked (in 炸金花 they
    call until told to fold), so a hand goes on without the person's waiting on bots."""

    def __init__(self, address: str, room: str, game: str, count: int) -> None:
        tag = secrets.token_hex(3)
        self.room, self.game = room, game
        self.players = [PaijuClient.connect(address, f"scr{tag}{i}", PASSWORD, register=True) for i in range(count)]
        self.stop, self.fold = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._play, daemon=True)

    def sit_and_start(self) -> None:
        for player in self.players:
            player.sit(self.room)
        for player in self.players:  # once all sit: two who were ready would start without the rest
            player.ready(self.room)
        self.thread.start()

    def _play(self) -> None:
        while not self.stop.is_set():
            for player in self.players:
                try:
                    view = player.view(self.room)
                    hand = view["hand"]
                    move = hand and _sdk_move(hand["state"].get("legal_actions", []), self.game, self.fold.is_set())
                    if move:
                        player.act(self.room, move, view["version"])
                except PaijuError:
                    continue
            time.sleep(0.2)

    def close(self) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(timeout=10)
        for player in self.players:
            player.close()


@pytest.mark.parametrize("game", list(GAMES))
def test_every_screen_of_a_game_at_both_sizes(game, web_server, browsers, artifacts):
    tier, dealt = GAMES[game]
    room = f"{game}-{tier}-{ROOMS:02d}"
    others = SdkTable(web_server.need_grpc(), room, game, dealt - 1)
    try:
        ann = Player(browsers.open(*DESKTOP), web_server.url, artifacts, f"screens-{game}", size=DESKTOP)
        ann.driver.get(ann.url)
        wait_until("the login form", lambda: one(ann.driver, "input[name=username]"))
        ann.shot_at_both_sizes("login")
        ann.register()
        ann.shot_at_both_sizes("lobby")
        ann.choose(game, tier)
        one(ann.driver, "[data-testid=open-rules]").click()
        wait_until("the rules", lambda: one(ann.driver, f"[data-testid=rules][data-game={game}]"))
        ann.shot_at_both_sizes("rules")
        one(ann.driver, "[data-testid=rules-close]").click()
        ann.shot_at_both_sizes("rooms")
        ann.sit(room)
        ann.press_start()
        others.sit_and_start()
        # Mid-hand: the person's own turn, with what the others did before it on the felt.
        wait_until("the person's turn mid-hand", lambda: one(ann.driver, ".table-screen.my-turn") and ann.legal(), timeout=120)
        ann.shot_at_both_sizes("table")
        assert not ann.overlaps_on_the_felt()
        with ann.phone_width():
            assert not ann.overlaps_on_the_felt()
        if game == "zhajinhua":
            others.fold.set()
            ann.play_zhajinhua_to_the_settlement(120)
        else:
            ann.play_trick_hand_to_the_settlement(600)
        wait_until("the fairness check", lambda: one(ann.driver, "[data-testid=fair-ok]"))
        ann.shot_at_both_sizes("settlement")
        one(ann.driver, "[data-testid=view-table]").click()
        one(ann.driver, "[data-testid=open-hands]").click()
        row = wait_until("the hand in 牌谱", lambda: one(ann.driver, "[data-testid=hand-row]"), timeout=30)
        ann.shot_at_both_sizes("hands")
        assert not ann.wrapped_hand_rows()
        with ann.phone_width():
            assert not ann.wrapped_hand_rows()
        row.find_element("css selector", "[data-testid=replay]").click()
        wait_until("the replay", lambda: one(ann.driver, "[data-testid=replay-view]"))
        ann.shot_at_both_sizes("replay-start")
        one(ann.driver, "[data-testid=replay-end]").click()
        wait_until("the result at the end", lambda: one(ann.driver, "[data-testid=replay-result]"))
        ann.shot_at_both_sizes("replay-end")
        assert css(ann.driver, "[data-testid=replay-player]")
    finally:
        others.close()
