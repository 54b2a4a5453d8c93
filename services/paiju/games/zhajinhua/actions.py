"""炸金花 rule options and actions, with their text form (``"raise 300"``, ``"compare 2"``)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from paiju.games.engine import IllegalAction, rule_options, verify_action_text, whole_number
from paiju.games.zhajinhua.ranking import Special235
from paiju.quoting import quoted


@dataclass(frozen=True, slots=True)
class Rules:
    """Rule options, each defaulting to the spec's decision.

    >>> Rules().pot_cap_antes, Rules().max_stake_antes, Rules().special_235.value
    (100, 10, 'beats_aaa')
    """

    special_235: Special235 = Special235.BEATS_AAA
    pot_cap_antes: int = 100
    """封顶: the system opens every hand once the pot reaches this many antes."""
    max_stake_antes: int = 10
    """The stake may be raised to at most this many antes (a seen player pays twice the stake)."""
    ante: int | None = None
    """A fixed ante; ``None`` floats it from the poorest player's coins (每注计算)."""
    fee_permille: int = 0
    """House fee, in thousandths of the winner's net gain; none by default for this game."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "special_235", Special235(self.special_235))
        if self.pot_cap_antes < 1 or self.max_stake_antes < 1:
            raise ValueError("pot_cap_antes and max_stake_antes are at least 1")
        if self.ante is not None and self.ante < 1:
            raise ValueError(f"a fixed ante is a positive number of coins, not {self.ante}")
        if not 0 <= self.fee_permille < 1000:
            raise ValueError(f"fee_permille is 0..999, not {self.fee_permille}")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "special_235": self.special_235.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        return rule_options(cls, data, "炸金花")


class ActionKind(enum.StrEnum):
    LOOK = "look"
    CALL = "call"
    RAISE = "raise"
    FOLD = "fold"
    COMPARE = "compare"
    OPEN = "open"


@dataclass(frozen=True, slots=True)
class Action:
    """One move. ``stake`` is the new stake of a raise; ``target`` the seat a compare challenges.

    >>> Action.parse("raise 300")
    Action(kind=<ActionKind.RAISE: 'raise'>, stake=300, target=None)
    >>> str(Action(ActionKind.COMPARE, target=2))
    'compare 2'
    """

    kind: ActionKind
    stake: int | None = None
    target: int | None = None

    def __post_init__(self) -> None:
        if type(self.kind) is not ActionKind:
            object.__setattr__(self, "kind", ActionKind(self.kind))
        if (self.kind is ActionKind.RAISE) != (self.stake is not None):
            raise ValueError("a raise, and only a raise, names its new stake")
        if (self.kind is ActionKind.COMPARE) != (self.target is not None):
            raise ValueError("a compare, and only a compare, names the seat it challenges")

    def __str__(self) -> str:
        if self.stake is not None:
            return f"{self.kind} {self.stake}"
        if self.target is not None:
            return f"{self.kind} {self.target}"
        return str(self.kind)

    @classmethod
    def parse(cls, text: str) -> Action:
        """An action from its text form; :class:`IllegalAction` (code ``malformed``) if bad."""
        words = verify_action_text(text).split()
        try:
            kind = ActionKind(words[0]) if words else None
        except ValueError:
            kind = None
        if kind is None:
            raise IllegalAction(
                f"unknown action {quoted(text)}: say one of {', '.join(ActionKind)}", "malformed"
            )
        needs_number = kind in (ActionKind.RAISE, ActionKind.COMPARE)
        number = whole_number(words[1]) if needs_number and len(words) == 2 else None
        if len(words) != (2 if needs_number else 1) or (needs_number and number is None):
            shape = {"raise": "raise <stake>", "compare": "compare <seat>"}.get(kind, kind)
            raise IllegalAction(f"malformed action {quoted(text)}: write {shape!r}", "malformed")
        if kind is ActionKind.RAISE:
            return cls(kind, stake=number)
        if kind is ActionKind.COMPARE:
            return cls(kind, target=number)
        return cls(kind)

    @classmethod
    def coerce(cls, action: Action | str) -> Action:
        return action if isinstance(action, Action) else cls.parse(action)


LOOK = Action(ActionKind.LOOK)
CALL = Action(ActionKind.CALL)
FOLD = Action(ActionKind.FOLD)
OPEN = Action(ActionKind.OPEN)


@cache
def raise_to(stake: int) -> Action:
    """The (shared, immutable) action raising the stake to ``stake``."""
    return Action(ActionKind.RAISE, stake=stake)


@cache
def compare_with(target: int) -> Action:
    """The (shared, immutable) action comparing with seat ``target``."""
    return Action(ActionKind.COMPARE, target=target)
