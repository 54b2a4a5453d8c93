"""A bot playing hands through the public API, as a frontend would: look, decide, act."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from paiju.client.bots import Bot
from paiju.client.sdk import IllegalMove, PaijuClient, StaleView
from paiju.client.waiters import PlayWaiter, TableWaiter

SAFETY_NET_SECONDS = 10.0
"""A waiting bot looks again after this long even if no view came (the server sends one whenever
what the bot may do changes, so this only covers a stream that went quiet)."""
COMPANY_LOOK_SECONDS = 1.0
"""How often a bot waiting for someone else to press start looks at the table."""


@dataclass
class BotStats:
    hands: int = 0
    actions: int = 0
    stale: int = 0
    refused: list[str] = field(default_factory=list)


SINCE_SITTING = object()
"""``play_bot``'s default: the hands that end after the bot sat down count."""


def play_bot(
    client: PaijuClient,
    game: str,
    tier: str,
    bot: Bot,
    hands: int,
    stop: threading.Event | None = None,
    rng: random.Random | None = None,
    room_id: str | None = None,
    stats: BotStats | None = None,
    press_start_when: Callable[[dict], bool] | None = None,
    counted_after: str | None | object = SINCE_SITTING,
) -> BotStats:
    """Sit (quick match unless ``room_id``), then press start and play until ``hands`` hands
    have ended at the table, the bot is stood up, or ``stop`` is set. With
    ``press_start_when``, the bot presses start only once that holds of the table's view (a bot
    keeping a person company waits for the person to press start).

    The hands that count are those that end after the one that had last ended when the bot sat,
    or, with ``counted_after``, after that hand id (``None``: every hand of the table). Bots
    that share one such id count the same hands, however late each of them comes."""
    stop = stop or threading.Event()
    rng = rng or random.Random()
    if room_id is None:
        room_id, _ = client.quick_match(game, tier)
    else:
        try:
            client.sit(room_id)
        except IllegalMove as refusal:
            if refusal.error_code != "already_seated":
                raise
    stats = stats if stats is not None else BotStats()
    target = stats.hands + hands
    waiter = PlayWaiter(client, room_id)  # moves and presses on the table's Play stream
    view = client.view(room_id)
    last_hand_id = _finished_hand(view) if counted_after is SINCE_SITTING else counted_after
    try:
        while not stop.is_set() and stats.hands < target:
            if view is None:
                view = client.view(room_id)
            if view["seat"] is None:
                break  # stood up: out of coins or not ready in time
            finished = _finished_hand(view)
            if finished is not None and finished != last_hand_id:  # a view of a hand on has none
                stats.hands += 1
                last_hand_id = finished
                continue  # perhaps that was the last hand to play: do not press start again
            hand = view["hand"]
            if hand is None:
                if press_start_when is not None and not press_start_when(view):
                    # Another seat's start is not something our own view is re-sent for: look again.
                    stop.wait(COMPANY_LOOK_SECONDS)
                    view = None
                    continue
                if not view["table"]["seats"][view["seat"]]["ready"]:
                    try:
                        waiter.ready()
                    except IllegalMove:
                        pass  # a hand started meanwhile
                    view = _wait(waiter, view)  # my readiness, or the hand it started, comes as a view
                    continue
                view = _wait(waiter, view)
                continue
            state = hand["state"]
            action = bot(state, rng) if state["legal_actions"] else None
            if action is None:
                view = _wait(waiter, view)
                continue
            try:
                view = waiter.move(action, view["version"])  # the answer is the new view
                stats.actions += 1
            except StaleView:
                stats.stale += 1
                view = None
            except IllegalMove as refusal:
                stats.refused.append(f"{action}: {refusal.reason}")
                view = None
    finally:
        waiter.stop()
    return stats


def _finished_hand(view: dict) -> str | None:
    return view["last_hand"]["hand_id"] if view["last_hand"] else None


def _wait(waiter: TableWaiter, known: dict) -> dict | None:
    """Wait until the server sends a view newer than ``known`` (what concerns us changed), or a
    while as a safety net: that view, or None (the caller then asks for one)."""
    return waiter.wait(known["version"], SAFETY_NET_SECONDS)
