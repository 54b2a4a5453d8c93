"""炸金花 rooms, the floating ante and the 27 coin levels (``spec/zhajinhua.md`` §2, §4).

>>> ante_for(min_coins=15_000)
100
>>> level_for(coins=1_700_000)
(15, '副总裁')
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RoomTier:
    name: str
    title: str
    base_ante: int
    min_coins: int


class Room(enum.Enum):
    """The two room tiers; a player may sit with at least ``min_coins``."""

    FREE = RoomTier("free", "自由场", base_ante=10, min_coins=1_010)
    EXPERT = RoomTier("expert", "高手场", base_ante=100, min_coins=10_100)

    @property
    def tier(self) -> RoomTier:
        return self.value


# (fewest coins at the table, ante) — each row holds from its threshold up to the next one.
FLOATING_ANTE: tuple[tuple[int, int], ...] = (
    (1_010, 10),
    (10_100, 100),
    (101_000, 1_000),
    (1_010_000, 10_000),
    (10_100_000, 100_000),
)


def ante_threshold(min_coins: int) -> int:
    """The fewest coins of the floating-ante row a hand's poorest player is in: the "everyone
    holds at least this" that explains the ante.

    >>> ante_threshold(15_000), ante_threshold(1_010)
    (10100, 1010)
    """
    ante_for(min_coins)  # the same refusal below the lowest row
    return max(threshold for threshold, _ in FLOATING_ANTE if threshold <= min_coins)


def ante_for(min_coins: int) -> int:
    """The ante of a hand whose poorest player holds ``min_coins`` (每注计算).

    >>> ante_for(1_010), ante_for(10_099), ante_for(10_100), ante_for(50_000_000)
    (10, 10, 100, 100000)
    """
    if min_coins < FLOATING_ANTE[0][0]:
        raise ValueError(
            f"no ante for {min_coins:,} coins: a player needs at least "
            f"{FLOATING_ANTE[0][0]:,} to sit (or give the hand a fixed ante)"
        )
    thresholds = [threshold for threshold, _ in FLOATING_ANTE]
    return FLOATING_ANTE[bisect_right(thresholds, min_coins) - 1][1]


LEVEL_TITLES: tuple[str, ...] = (
    "穷光蛋", "靠救济", "临时工", "正式工", "主管助理", "副主管", "主管", "经理助理", "副经理",
    "经理", "总经理助理", "副总经理", "总经理", "总裁助理", "副总裁", "总裁", "董事", "副董事长",
    "董事长", "娱乐明星", "体育巨星", "船业巨子", "石油大亨", "财团主席", "中国首富", "亚洲首富",
    "全球首富",
)
# Level 1 from 0 coins; level k >= 2 from 100 * 2**(k-1): 200, 400, … 6,710,886,400.
LEVEL_THRESHOLDS: tuple[int, ...] = (0,) + tuple(100 * 2 ** (k - 1) for k in range(2, 28))


def level_for(coins: int) -> tuple[int, str]:
    """The coin level (1..27) and its title for a balance.

    >>> level_for(0), level_for(199), level_for(200), level_for(10**12)
    ((1, '穷光蛋'), (1, '穷光蛋'), (2, '靠救济'), (27, '全球首富'))
    """
    if coins < 0:
        raise ValueError(f"a balance is never negative, got {coins}")
    number = bisect_right(LEVEL_THRESHOLDS, coins)
    return number, LEVEL_TITLES[number - 1]
