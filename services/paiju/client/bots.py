"""Bots that play from a seat's view alone, exactly what a frontend receives.

A bot is a callable ``(view, rng) -> action text or None``; it is asked whenever its seat has
legal actions (its turn, or something allowed out of turn such as declaring while cards are
dealt) and answers with one of ``view["legal_actions"]``, or ``None`` to wait.

>>> import random
>>> view = {"seat": 1, "to_act": 1, "legal_actions": ["look", "call", "fold"],
...         "players": [{"cards": None}, {"cards": None}]}
>>> random_bot(view, random.Random(0)) in view["legal_actions"]
True
>>> sensible_bot(view, random.Random(0))   # a blind bot looks first
'look'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from paiju.games.zhajinhua import hand_category, is_special_235

Bot = Callable[[Mapping[str, Any], random.Random], str | None]


def _my_turn(view: Mapping[str, Any]) -> bool:
    return view.get("to_act") == view.get("seat")


def random_bot(view: Mapping[str, Any], rng: random.Random) -> str | None:
    """On its turn, any legal action, each kind equally likely (so raises do not crowd out
    the rest); out of turn it waits."""
    if not _my_turn(view):
        return None
    by_kind: dict[str, list[str]] = {}
    for action in view["legal_actions"]:
        by_kind.setdefault(action.split()[0], []).append(action)
    return rng.choice(by_kind[rng.choice(sorted(by_kind))])


# How much a 炸金花 hand is worth to the sensible bot, 0 (nothing) .. 5 (trips).
_CATEGORY_WORTH = {"high_card": 0, "pair": 2, "straight": 3, "flush": 3, "straight_flush": 4, "trips": 5}


def _worth(cards: str) -> int:
    worth = _CATEGORY_WORTH[hand_category(cards)]
    if worth == 0 and cards.split()[0][0] in "AK" and not is_special_235(cards):
        return 1  # an ace- or king-high is worth a call
    return worth


def sensible_bot(view: Mapping[str, Any], rng: random.Random) -> str | None:
    """炸金花: looks, then plays by hand category: folds rubbish, calls middling hands, raises
    good ones, compares or opens once a showdown is likely to pay."""
    if not _my_turn(view):
        return None
    legal = view["legal_actions"]
    cards = view["players"][view["seat"]]["cards"]
    if cards is None:
        return "look" if "look" in legal else rng.choice(legal)
    worth = _worth(cards)
    raises = [action for action in legal if action.startswith("raise")]
    compares = [action for action in legal if action.startswith("compare")]
    if "open" in legal and worth >= 2:
        return "open"
    if worth >= 4 and raises:
        return raises[min(len(raises) - 1, rng.randrange(1, 4))]
    if worth >= 2 and compares and rng.random() < 0.4:
        return rng.choice(compares)
    if worth >= 3 and raises and rng.random() < 0.5:
        return raises[0]
    if worth >= 1 or rng.random() < 0.15:  # a little bluffing keeps the table honest
        return "call" if "call" in legal else rng.choice(legal)
    return "fold" if "fold" in legal else rng.choice(legal)


def trick_bot(view: Mapping[str, Any], rng: random.Random) -> str | None:
    """Trick games: declares now and then while the cards come, then plays its lowest allowed
    play most of the time (``legal_actions`` lists plays lowest first)."""
    legal = view["legal_actions"]
    declarations = [action for action in legal if action.startswith("declare")]
    if declarations:
        return rng.choice(declarations) if rng.random() < 0.3 else None
    if not _my_turn(view):
        return None
    for kind in ("bury", "play"):
        chosen = [action for action in legal if action.startswith(kind)]
        if chosen:
            return chosen[0] if kind == "bury" or rng.random() < 0.7 else rng.choice(chosen)
    robs = [action for action in legal if action.startswith("rob")]
    if robs and rng.random() < 0.2:
        return rng.choice(robs)
    if "pass" in legal:
        return "pass"
    others = [action for action in legal if not action.startswith("multiple")]
    return rng.choice(others) if others else None


BOTS: dict[str, Bot] = {"random": random_bot, "sensible": sensible_bot, "trick": trick_bot}
