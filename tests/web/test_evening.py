"""A player's evening in Chromium: what once surprised a person at the table, each pinned by what
the page shows now."""

from __future__ import annotations

import secrets
import threading

from paiju.client.sdk import PaijuClient
from tests.web.conftest import ROOMS, move_whenever_asked, wait_until
from tests.web.pages import Player, css, one

PASSWORD = "a password for the evening"
EVENING_ROOM = ROOMS - 1
"""The evening's rooms of its own (the last, ROOMS, is test_screens.py's)."""


def test_the_settlement_counts_down_to_the_ready_kick_once_the_others_are_ready(web_server, browsers, artifacts):
    """Reading the 炸金花 settlement for 20 s once stood a person up without a word: the window
    now says the others are ready and counts down, and pressing Next hand ends the count."""
    address = web_server.need_grpc()
    room = f"zhajinhua-free-{EVENING_ROOM:02d}"
    tag = secrets.token_hex(3)
    others = [PaijuClient.connect(address, f"eve{tag}{i}", PASSWORD, register=True) for i in range(2)]
    stop = threading.Event()
    folding = threading.Thread(target=move_whenever_asked, args=(others, room, "fold", stop), daemon=True)
    try:
        for other in others:
            other.sit(room)
        ann = Player(browsers.open(), web_server.url, artifacts, "kick")
        ann.register_and_sit("zhajinhua", "free", room)
        ann.press_start()
        for other in others:
            other.ready(room)
        # The free room's ante of 10 floats to 100 when everyone holds 10,100 or more: the table
        # says so (a player once lost 700 in a "stake 10" room without a word). The others fold
        # only after this is read, so the hand is still on.
        rule = wait_until("the ante's reason", lambda: one(ann.driver, "[data-testid=ante-rule]"))
        assert "10,100" in rule.text and "100" in rule.text.split("ante is")[-1], rule.text
        ann.shot("ante-rule")
        folding.start()
        ann.play_zhajinhua_to_the_settlement(120)
        # One balance: the header's total comes to the seat's coins once the hand is settled
        # (it read "6,591 (+14,599 held)" beside a seat of 21,190, and stayed stale).
        wait_until("the header's balance to match the seat's", lambda: header_total(ann) == seat_coins(ann))
        assert header_total(ann) != 20_000, "the hand cost or won something, and the header shows it"
        assert not css(ann.driver, "[data-testid=settlement-kick]"), "no count while the others have not pressed start"
        for other in others:
            other.ready(room)
        warning = wait_until("the count-down on the settlement", lambda: one(ann.driver, "[data-testid=settlement-kick]"))
        seconds = [int(word.rstrip("s")) for word in warning.text.split() if word.rstrip("s").isdigit()]
        # 20 s from the others' start, counted in whole seconds up (a browser's clock a little
        # behind the server's can show 21 for a moment).
        assert seconds and 0 < seconds[0] <= 21, warning.text
        ann.shot("settlement-kick")
        one(ann.driver, "[data-testid=again]").click()
        wait_until("the count to end once Next hand is pressed",
                   lambda: not css(ann.driver, "[data-testid=settlement-kick]") and not css(ann.driver, "[data-testid=my-kick]"))
    finally:
        stop.set()
        if folding.is_alive():  # done with its last call before its players' channels close
            folding.join(timeout=10)
        for other in others:
            other.close()


def header_total(player: Player) -> int:
    balance = one(player.driver, "[data-testid=balance]")
    return int(balance.get_attribute("data-available")) + int(balance.get_attribute("data-held"))


def seat_coins(player: Player) -> int:
    return int("".join(ch for ch in one(player.driver, "[data-testid=my-coins]").text if ch.isdigit()))


RULE_HEADINGS = {
    "zhajinhua": ("牌型 Hands, high to low", "底注 The ante in force"),
    "hunzhan": ("叫主 Trump", "出牌 What may be played", "计分 Points and coins"),
    "chaodipi": ("级牌与主 Level and trump", "地区玩法 The four variants"),
}


def test_each_games_rules_open_from_the_lobby_and_from_the_table(web_server, browsers, artifacts):
    """Nothing in the client explained any game: each now has its rules, illustrated with cards,
    from the lobby and from the table, at both sizes."""
    ann = Player(browsers.open(), web_server.url, artifacts, "rules")
    ann.register()
    for game, headings in RULE_HEADINGS.items():
        one(ann.driver, f"[data-game={game}]").click()
        one(ann.driver, "[data-testid=open-rules]").click()
        rules = wait_until("the rules", lambda g=game: one(ann.driver, f"[data-testid=rules][data-game={g}]"))
        shown = [h.text for h in css(ann.driver, "[data-testid=rules] h3")]
        assert all(heading in shown for heading in headings), shown
        assert css(ann.driver, "[data-testid=rules] .card"), "the rules show cards as the table draws them"
        assert "No rules written" not in rules.text
        ann.shot(f"rules-{game}")
        with ann.phone_width():
            ann.shot(f"phone-rules-{game}")
        one(ann.driver, "[data-testid=rules-close]").click()
        wait_until("the rules to close", lambda: not css(ann.driver, "[data-testid=rules]"))
    room = f"hunzhan-stake10-{EVENING_ROOM:02d}"
    ann.choose("hunzhan", "stake10")
    ann.sit(room)
    one(ann.driver, "[data-testid=open-rules]").click()
    wait_until("the rules at the table", lambda: one(ann.driver, "[data-testid=rules][data-game=hunzhan]"))
    ann.shot("rules-at-the-table")
    one(ann.driver, "[data-testid=rules-close]").click()
    one(ann.driver, "[data-testid=leave]").click()
    wait_until("the lobby again", lambda: css(ann.driver, ".room"))


def test_a_person_sits_at_a_bot_table_on_the_first_click_while_a_hand_is_played(web_server, browsers, artifacts):
    """Bot tables end a hand every second or so, and "+" was refused 2 times in 5 ("a hand is
    being played here"): a free seat is now taken mid-hand, dealt in from the next hand."""
    room = "zhajinhua-free-01"  # the bots' own table: three bots, two free seats
    ann = Player(browsers.open(), web_server.url, artifacts, "midhand")
    ann.register()
    ann.choose("zhajinhua", "free")
    wait_until("the bots' table to be playing", lambda: one(ann.driver, f".room[data-room='{room}'][data-state=playing]"))
    chair = ann.free_seat(room)
    chair.click()
    wait_until("the table, on the first click", lambda: one(ann.driver, "[data-testid=table]"), timeout=15)
    assert not css(ann.driver, "[data-testid=notice]"), "no refusal"
    ann.shot("seated-mid-hand")
    ann.press_start()
    wait_until("a hand dealt to the newcomer", lambda: len(css(ann.driver, "[data-testid=my-cards] .card")) == 3, timeout=60)
    ann.shot("dealt-in-next-hand")


def test_bug_a_long_log_stretched_the_table_and_pushed_the_reason_below_the_fold(web_server, browsers, artifacts):
    """At 1280×800 (657 px of page) with 25 cards in hand, an illegal selection's reason was below
    the fold: the side panel's log stretched the table's one row, and the felt with it."""
    from tests.web.conftest import company_room

    bob = Player(browsers.open(1280, 657), web_server.url, artifacts, "fold")
    bob.register()
    bob.choose("chaodipi", "yangzhou-fortune10")
    bob.sit(company_room("chaodipi", "yangzhou-fortune10"))
    bob.press_start()

    def my_play_turn() -> bool:
        legal = bob.legal()
        if any(a.startswith("play ") for a in legal):
            return True
        if legal and not all(a.startswith("multiple ") for a in legal):
            bob.click_action(next((a for a in legal if a == "pass"), legal[0]))
        return False

    wait_until("a turn to play", my_play_turn, timeout=120, pause=0.5)
    legal = bob.legal()
    hand = [card.get_attribute("data-card") for card in bob.hand_cards()]
    used = {card for action in legal if action.startswith("play ") for card in action.split(" ")[1:]}
    wrong = next((card for card in hand if card not in used), None)
    if wrong is not None:
        bob.select([wrong])
        below = wait_until("the reason", lambda: one(bob.driver, "[data-testid=reason]"))
    else:  # leading: every card may be played, and the hint takes the reason's place
        below = one(bob.driver, ".hint-line")
    bob.shot("reason-in-view")
    height = bob.driver.execute_script("return window.innerHeight")
    assert len(hand) >= 25
    for element in (below, bob.play_button()):
        assert element.rect["y"] + element.rect["height"] <= height, (element.rect, height)


def test_a_person_looks_back_at_a_hand_and_replays_it_move_by_move(web_server, browsers, artifacts):
    """A player could not look back at the hands they played: 牌谱 lists them, and a replay steps
    through one as they saw it — their own cards only, until the end shows the result."""
    address = web_server.need_grpc()
    room = f"zhajinhua-expert-{EVENING_ROOM:02d}"
    other = PaijuClient.connect(address, f"hist{secrets.token_hex(3)}", PASSWORD, register=True)
    stop = threading.Event()
    folding = threading.Thread(target=move_whenever_asked, args=([other], room, "fold", stop), daemon=True)
    try:
        other.sit(room)
        ann = Player(browsers.open(), web_server.url, artifacts, "history")
        ann.register_and_sit("zhajinhua", "expert", room)
        ann.press_start()
        other.ready(room)
        folding.start()
        ann.play_zhajinhua_to_the_settlement(120)
        one(ann.driver, "[data-testid=view-table]").click()
        one(ann.driver, "[data-testid=open-hands]").click()
        row = wait_until("the hand in 牌谱", lambda: one(ann.driver, "[data-testid=hand-row]"), timeout=30)
        ann.shot("hands")
        row.find_element("css selector", "[data-testid=replay]").click()
        view = wait_until("the replay", lambda: one(ann.driver, "[data-testid=replay-view]"))
        steps = int(view.get_attribute("data-steps"))
        assert steps >= 2
        _mine, theirs = sorted(css(ann.driver, "[data-testid=replay-player]"), key=lambda p: "(you)" not in p.text)
        assert not theirs.find_elements("css selector", ".card[data-card]"), "the other's cards are hidden at the start"
        ann.shot("replay-start")
        one(ann.driver, "[data-testid=replay-end]").click()
        result = wait_until("the result at the end", lambda: one(ann.driver, "[data-testid=replay-result]"))
        assert "+" in result.text and "-" in result.text
        ann.shot("replay-end")
        with ann.phone_width():
            ann.shot("phone-replay-end")
    finally:
        stop.set()
        if folding.is_alive():
            folding.join(timeout=10)
        other.close()


# The start reminder (the start button and the count to the ready kick) against each seat's panel.
_COVERED_PANELS = """
const reminder = [...document.querySelectorAll('.center-message > *')].map((el) => el.getBoundingClientRect());
return [...document.querySelectorAll('.felt-big .panel')].filter((panel) => {
  const p = panel.getBoundingClientRect();
  return reminder.some((r) => Math.min(r.right, p.right) - Math.max(r.left, p.left) > 1
                           && Math.min(r.bottom, p.bottom) - Math.max(r.top, p.top) > 1);
}).map((panel) => panel.innerText.replace(/\\s+/g, ' '));
"""


def test_on_a_phone_the_start_reminder_leaves_every_seats_name_in_view(web_server, browsers, artifacts):
    """At 390×844 the reminder to press start, with its count to the ready kick, was drawn over
    the name of the player across the table."""
    address = web_server.need_grpc()
    room = f"hunzhan-stake10-{EVENING_ROOM - 1:02d}"
    tag = secrets.token_hex(3)
    others = [PaijuClient.connect(address, f"ph{tag}{i}", PASSWORD, register=True) for i in range(3)]
    try:
        ann = Player(browsers.open(390, 844), web_server.url, artifacts, "phone")
        ann.register_and_sit("hunzhan", "stake10", room)
        for other in others:
            other.sit(room)
            other.ready(room)
        wait_until("the count to the ready kick", lambda: one(ann.driver, "[data-testid=my-kick]"))
        wait_until("every seat's name", lambda: len(css(ann.driver, ".felt-big .pname")) == 3)
        ann.shot("phone-start-reminder")
        assert ann.driver.execute_script(_COVERED_PANELS) == []
    finally:
        for other in others:
            other.close()
