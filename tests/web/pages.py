"""What a person does in the web client, as selenium steps: log in, pick a game, sit, press
start, and play a move by clicking (the moves to choose from are the view's own legal actions,
which the page keeps on its action bar)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from tests.web.conftest import wait_until

PASSWORD = "a long password"

# Each part's box as drawn, and every pair of parts whose boxes share more than a pixel's width.
_OVERLAPS = """
const parts = [...document.querySelectorAll(['.panel', '.spot-tags', '.back-fan', '.zjh-cards', '[data-testid=trick-play]',
  '.pot', '.phase-banner', '.my-clock'].map((part) => `.felt-big ${part}`).join(', '))];
const name = (el) => `${el.className} of seat ${el.closest('[data-seat]')?.dataset.seat ?? el.dataset.handSeat ?? '?'}`;
const boxes = parts.map((el) => [el, el.getBoundingClientRect()]).filter(([, r]) => r.width && r.height);
const found = [];
for (let i = 0; i < boxes.length; i++) {
  for (let j = i + 1; j < boxes.length; j++) {
    const [a, r] = boxes[i], [b, q] = boxes[j];
    const wide = Math.min(r.right, q.right) - Math.max(r.left, q.left);
    const high = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
    if (wide > 1 && high > 1 && !a.contains(b) && !b.contains(a)) found.push(`${name(a)} / ${name(b)}`);
  }
}
return found;
"""


# Each text of the hands list (牌谱) that the row breaks onto more than one line, and a list
# wider than its window (a row that runs off the side instead).
_WRAPPED_HAND_ROWS = """
const found = [];
for (const row of document.querySelectorAll('[data-testid=hand-row]')) {
  const texts = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
  for (let text = texts.nextNode(); text; text = texts.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(text);
    const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    if (tops.size > 1) found.push(`"${text.textContent.trim()}" on ${tops.size} lines`);
  }
}
const list = document.querySelector('.hands-list'), frame = document.querySelector('[data-testid=hands]');
if (list && frame && list.getBoundingClientRect().right > frame.getBoundingClientRect().right + 1) found.push('the list is wider than its window');
return found;
"""


def css(driver: Any, selector: str) -> list[Any]:
    return driver.find_elements(By.CSS_SELECTOR, selector)


def one(driver: Any, selector: str) -> Any:
    found = css(driver, selector)
    return found[0] if found else None


class Player:
    """One person in one browser window."""

    def __init__(self, driver: Any, url: str, artifacts: Path, label: str, size: tuple[int, int] = (1280, 720)) -> None:
        """``size``: the window's size, as the browser was opened (phone_width comes back to it)."""
        self.driver, self.url, self.artifacts, self.label, self.size = driver, url, artifacts, label, size
        self.name = f"{label[:6]}{secrets.token_hex(3)}"

    def shot(self, screen: str) -> None:
        self.driver.save_screenshot(str(self.artifacts / f"{self.label}-{screen}.png"))

    @contextmanager
    def phone_width(self) -> Iterator[None]:
        """The page as a phone shows it (390×844), then back to the window's own size."""
        metrics = {"deviceScaleFactor": 1}
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "width": 390, "height": 844, "mobile": True})
        try:
            yield
        finally:
            width, height = self.size
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "width": width, "height": height, "mobile": False})

    def shot_at_phone_width(self, screen: str) -> None:
        with self.phone_width():
            self.shot(f"phone-{screen}")

    def shot_at_both_sizes(self, screen: str) -> None:
        self.shot(screen)
        self.shot_at_phone_width(screen)

    def overlaps_on_the_felt(self) -> list[str]:
        """The pairs of things on the felt drawn over one another: the players' panels, their
        badges (庄, points, status), their cards, the cards they put into the trick, the pot,
        the phase of the hand and the turn clock."""
        return self.driver.execute_script(_OVERLAPS)

    def wrapped_hand_rows(self) -> list[str]:
        """What in the hands list (牌谱) does not fit its row's one line: each text broken onto
        more lines, and a list running past the side of its window."""
        return self.driver.execute_script(_WRAPPED_HAND_ROWS)

    def set_network(self, online: bool) -> None:
        """Cut the page's network (a laptop off its wifi) or give it back, through the browser's
        own network conditions: new requests fail at once, open ones hear nothing more, and the
        page gets the browser's offline and online events."""
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": not online, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    def register(self) -> None:
        self.driver.get(self.url)
        wait_until("the login form", lambda: one(self.driver, "input[name=username]"))
        self.shot("login")
        one(self.driver, "input[name=username]").send_keys(self.name)
        one(self.driver, "input[name=password]").send_keys(PASSWORD)
        one(self.driver, "button[name=register]").click()
        wait_until("the lobby", lambda: css(self.driver, ".room"))

    def register_and_sit(self, game: str, tier: str, room: str) -> None:
        """A new account, straight to a seat at ``room`` of ``game`` and ``tier``."""
        self.register()
        self.choose(game, tier)
        self.sit(room)

    def choose(self, game: str, tier: str) -> None:
        one(self.driver, f"[data-game={game}]").click()
        wait_until(f"the {tier} tier", lambda: one(self.driver, f"[data-tier='{tier}']")).click()
        wait_until("its rooms", lambda: css(self.driver, f".room[data-room^='{game}-{tier}-']"))

    def free_seat(self, room: str) -> Any:
        return wait_until(f"a free seat in {room}", lambda: next(
            (b for b in css(self.driver, f".room[data-room='{room}'] .chair.free") if b.is_enabled()), None))

    def sit(self, room: str) -> None:
        self.free_seat(room).click()
        wait_until("the table", lambda: one(self.driver, "[data-testid=table]"))

    def press_start(self) -> None:
        wait_until("the start button", lambda: one(self.driver, "[data-testid=start]")).click()
        wait_until("the start button to go", lambda: one(self.driver, "[data-testid=start]") is None)

    def leave(self) -> None:
        """Leave the table from the settlement, back to the lobby."""
        one(self.driver, "[data-testid=settlement] button[name=leave]").click()
        wait_until("the lobby", lambda: css(self.driver, ".room"))
        self.shot("left")

    def legal(self) -> list[str]:
        bar = one(self.driver, "[data-testid=actions]")
        text = bar.get_attribute("data-legal") if bar is not None else ""
        return [action for action in (text or "").split("|") if action]

    def version(self) -> str:
        """The table version the page's controls were drawn from ("" when it shows none)."""
        bar = one(self.driver, "[data-testid=actions]")
        return (bar.get_attribute("data-version") if bar is not None else "") or ""

    def in_settlement(self) -> bool:
        return one(self.driver, "[data-testid=settlement]") is not None

    def hand_cards(self) -> list[Any]:
        return css(self.driver, "[data-testid=my-hand] .card")

    def select(self, codes: list[str]) -> None:
        """Click the cards of ``codes`` in the own hand (each code once per time it is named)."""
        for card in self.hand_cards():
            if "selected" in card.get_attribute("class"):
                card.click()
        wanted = list(codes)
        for card in self.hand_cards():
            code = card.get_attribute("data-card")
            if code in wanted:
                wanted.remove(code)
                card.click()
        assert not wanted, f"cards {wanted} are not in the hand"

    def play_button(self) -> Any:
        return one(self.driver, "button[name=play]")

    def play_selection(self, right_click: bool = False, version: str | None = None) -> bool:
        """The selection played (by 出牌, or a right click on the hand) once 出牌 lights up; with
        ``version``, False instead when the table moves on first (the turn ran out meanwhile)."""
        wait_until("出牌 to light up", lambda: self.play_button().is_enabled()
                   or (version is not None and self.version() != version), timeout=30)
        if not self.play_button().is_enabled():
            return False
        if right_click:
            ActionChains(self.driver).context_click(one(self.driver, "[data-testid=my-hand]")).perform()
        else:
            self.play_button().click()
        return True

    def click_action(self, action: str) -> None:
        """A move other than playing cards, by its button (the buttons carry the action's verb)."""
        verb = action.split(" ")[0]
        buttons = css(self.driver, f"[data-testid=actions] button[name='{verb}']")
        labels = [b.get_attribute("data-stake") for b in buttons]
        if verb == "raise":
            buttons[labels.index(action.split(" ")[1])].click()
        elif verb == "compare":
            buttons[0].click()
            wait_until("the seat to compare with", lambda: one(self.driver, f"[data-testid=compare-{action.split(' ')[1]}]")).click()
        else:
            enabled = [b for b in buttons if b.is_enabled()]
            enabled[0].click()

    def play_zhajinhua_to_the_settlement(self, timeout: float, shots: int = 0) -> None:
        """Click 炸金花 moves (look first, then open, call or fold: :func:`zhajinhua_click`)
        until the settlement shows, a screenshot of each of the first ``shots`` moves."""
        looked, taken = False, 0

        def hand_over() -> bool:
            nonlocal looked, taken
            if self.in_settlement():
                return True
            legal, version = self.legal(), self.version()
            if legal:
                move = zhajinhua_click(legal, looked)
                self.click_action(move)
                looked = looked or move == "look"
                if taken < shots:
                    taken += 1
                    self.shot(f"hand-{taken}")
                # The same choices can come back on the next turn: the version tells the moves apart.
                wait_until("the move to be taken", lambda: self.version() != version or self.in_settlement(), timeout=30)
            return False

        try:
            wait_until("the hand to end", hand_over, timeout=timeout)
        finally:
            self.shot("settlement")


    def click_trick_move(self, legal: list[str], right_click: bool = False) -> bool:
        """In 混战 or 炒地皮: the first listed play (or bury) selected and played, else a pass or a
        declaration (a stake multiple is optional and left as it is); False when no move of
        those is this player's to make."""
        plays = [a for a in legal if a.startswith(("play ", "bury "))]
        if plays:
            version = self.version()
            self.select(plays[0].split(" ")[1:])
            return self.play_selection(right_click=right_click, version=version)
        if any(not a.startswith("multiple ") for a in legal):
            self.click_action(next((a for a in legal if a == "pass"), next(a for a in legal if not a.startswith("multiple "))))
            return True
        return False

    def play_trick_hand_to_the_settlement(self, timeout: float) -> int:
        """Click 混战 or 炒地皮 moves (:meth:`click_trick_move`) until the settlement shows; the
        moves made."""
        moves = 0

        def hand_over() -> bool:
            nonlocal moves
            if self.in_settlement():
                return True
            version = self.version()
            if self.click_trick_move(self.legal()):
                moves += 1
                # A move the table refused as stale (it moved on meanwhile) is shown and tried again.
                wait_until("the move to be taken or refused", lambda: self.version() != version or self.in_settlement()
                           or one(self.driver, "[data-testid=table-message]"), timeout=60)
            return False

        try:
            wait_until("the hand to end", hand_over, timeout=timeout)
        finally:
            self.shot("settlement")
        return moves


def zhajinhua_click(legal: list[str], looked: bool) -> str:
    """Look first, then call while the stake allows, opening when that is possible."""
    for wanted in ("look" if not looked else "", "open", "call", "fold"):
        if wanted and wanted in legal:
            return wanted
    return legal[0]
