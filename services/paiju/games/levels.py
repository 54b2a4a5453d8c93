"""The levels a game reads from a balance, in the shape the wallet serves them (``WalletService.Level``).

The wallet knows no particular game: each game's ladder (炸金花's 27 coin levels, 炒地皮's 100
fortune medals) is a :class:`Levels` built from the game's own rules in its registry entry
(``GameSpec.levels``), which the wallet's service reads.

>>> thirds = Levels(top=3, level_of=lambda coins: 1 + min(coins // 100, 2),
...                 fewest=lambda level: 100 * (level - 1), title=lambda level: f"L{level}")
>>> thirds.read(150), thirds.read(1_000)
(Level(level=2, title='L2', next_at=200), Level(level=3, title='L3', next_at=0))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Level:
    """Where a balance stands on a game's ladder."""

    level: int
    """1 for the lowest."""
    title: str
    next_at: int
    """The coins the next level needs; 0 at the top level."""


@dataclass(frozen=True, slots=True)
class Levels:
    """One game's ladder of levels, read from a balance by the game's own rules."""

    top: int
    """The highest level."""
    level_of: Callable[[int], int]
    """The level (1..``top``) of a balance."""
    fewest: Callable[[int], int]
    """The fewest coins a level needs."""
    title: Callable[[int], str]
    """A level's title."""

    def read(self, coins: int) -> Level:
        level = self.level_of(coins)
        return Level(level, self.title(level), self.fewest(level + 1) if level < self.top else 0)
