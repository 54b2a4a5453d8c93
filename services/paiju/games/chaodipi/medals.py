"""The 100 fortune medals (财富勋章) of 炒地皮 (``spec/chaodipi.md`` §9).

The seed's list of levels is missing. Decision (spec §9): medal level k (1–100) needs
``100 × (k − 1)³`` coins, so level 1 is from 0 coins and level 100 from 97,029,900.

>>> medal_for(0), medal_for(99), medal_for(100), medal_for(800), medal_for(10**12)
(1, 1, 2, 3, 100)
"""

from __future__ import annotations

from bisect import bisect_right

MEDAL_LEVELS = 100

MEDAL_THRESHOLDS: tuple[int, ...] = tuple(100 * (k - 1) ** 3 for k in range(1, MEDAL_LEVELS + 1))
"""``MEDAL_THRESHOLDS[k - 1]``: the fewest coins of medal level k."""


def medal_threshold(level: int) -> int:
    """The coins medal ``level`` needs.

    >>> medal_threshold(2), medal_threshold(100)
    (100, 97029900)
    """
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= MEDAL_LEVELS:
        raise ValueError(f"a medal level is 1..{MEDAL_LEVELS}, not {level!r}")
    return MEDAL_THRESHOLDS[level - 1]


def medal_for(coins: int) -> int:
    """The fortune medal level (1..100) of a balance; it rises and falls with the coins.

    >>> medal_for(-1)
    Traceback (most recent call last):
    ...
    ValueError: a balance is never negative, got -1
    """
    if coins < 0:
        raise ValueError(f"a balance is never negative, got {coins}")
    return bisect_right(MEDAL_THRESHOLDS, coins)
