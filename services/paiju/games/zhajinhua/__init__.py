"""炸金花 Zha Jin Hua (three-card brag), 2–5 players, one deck: ``spec/zhajinhua.md``.

>>> from paiju.games import zhajinhua
>>> zhajinhua.hand_category("AS AH AD"), zhajinhua.compare("2S 3H 5D", "AS AH AD")
('trips', 1)
>>> zhajinhua.ante_for(min_coins=15_000), zhajinhua.level_for(coins=1_700_000)
(100, (15, '副总裁'))
"""

from paiju.games.zhajinhua.actions import Action, ActionKind, Rules
from paiju.games.zhajinhua.hand import Game, Hand, SeatStatus, deck_dealing
from paiju.games.zhajinhua.ranking import (
    CATEGORIES,
    Special235,
    compare,
    hand_category,
    is_special_235,
)
from paiju.games.zhajinhua.rooms import LEVEL_TITLES, Room, ante_for, level_for

__all__ = [
    "CATEGORIES",
    "LEVEL_TITLES",
    "Action",
    "ActionKind",
    "Game",
    "Hand",
    "Room",
    "Rules",
    "SeatStatus",
    "Special235",
    "ante_for",
    "compare",
    "deck_dealing",
    "hand_category",
    "is_special_235",
    "level_for",
]
