"""炒地皮 table options and the actions of a hand, with their text form.

Actions: ``declare 7S`` (亮主/反主 while dealing), ``declare 5H 5H NT`` (a 红5对 names the
trump suit or ``NT``), ``bury 3C 4D …`` (eight cards), ``rob 7S 7S`` / ``pass`` (抄底 or
decline), ``play 5H 5H``, ``multiple 2`` (胜负倍数, before the banker's first lead).

>>> str(Action.parse("declare 5H 5H nt")), str(Action.parse("play 9H 5H 9H"))
('declare 5H 5H NT', 'play 5H 9H 9H')
>>> Action.parse("multiple 4").value, Action.parse("pass").kind
(4, <ActionKind.PASS: 'pass'>)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paiju.cards import Card, format_cards, parse_cards
from paiju.games.chaodipi.fortune import ChannelKind
from paiju.games.chaodipi.variants import VariantRules, variant_rules
from paiju.games.engine import IllegalAction, verify_action_text, whole_number
from paiju.quoting import quoted

TRUMP_CHOICES = ("S", "H", "C", "D", "NT")
"""What a 红5对 may name: a suit, or ``NT`` for no-trump."""


@dataclass(frozen=True, slots=True)
class Rules:
    """A table's options: the variant's rules, the channel and its base stake, the clock.

    >>> Rules().variant.name, Rules().channel, Rules(variant="nantong").variant.jack_to_bottom
    ('yangzhou', <ChannelKind.SCORE_NORMAL: 'score_normal'>, True)
    >>> Rules.from_dict(Rules(variant="yancheng", channel="fortune_pass").to_dict()) == Rules(variant="yancheng", channel="fortune_pass")
    True
    """

    variant: VariantRules = field(default_factory=VariantRules)
    """Every rule difference of the four variants (a variant id is accepted too)."""
    channel: ChannelKind = ChannelKind.SCORE_NORMAL
    """积分 (no coins move) or 财富 (coins), normal or pass: which stake multiples may be picked."""
    base_stake: int = 100
    """X, the fortune channel's base stake (platform Decision: 10, 100 or 1000)."""
    deal_interval: float = 0.25
    """Seconds between two dealt cards (the table paces :meth:`Hand.system_step`)."""
    declare_window: float = 5.0
    """Seconds after the last card, restarted by each declaration, before declaring closes."""
    turn_seconds: int = 20
    timeouts_to_escape: int = 4
    """The n-th consecutive timeout of a seat is an escape."""

    def __post_init__(self) -> None:
        if isinstance(self.variant, str):
            object.__setattr__(self, "variant", variant_rules(self.variant))
        elif isinstance(self.variant, Mapping):
            object.__setattr__(self, "variant", VariantRules.from_dict(self.variant))
        elif not isinstance(self.variant, VariantRules):
            raise TypeError(f"variant is a variant id or VariantRules, not {self.variant!r}")
        object.__setattr__(self, "channel", ChannelKind(self.channel))
        if (
            isinstance(self.base_stake, bool)
            or not isinstance(self.base_stake, int)
            or self.base_stake < 1
        ):
            raise ValueError(f"base_stake is a positive number of coins, not {self.base_stake!r}")
        if self.deal_interval < 0 or self.declare_window < 0 or self.turn_seconds <= 0:
            raise ValueError("deal_interval and declare_window are >= 0 and turn_seconds > 0")
        if self.timeouts_to_escape < 1:
            raise ValueError("timeouts_to_escape is at least 1")

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant.to_dict(),
            "channel": str(self.channel),
            "base_stake": self.base_stake,
            "deal_interval": self.deal_interval,
            "declare_window": self.declare_window,
            "turn_seconds": self.turn_seconds,
            "timeouts_to_escape": self.timeouts_to_escape,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown 炒地皮 table options: {sorted(unknown)}")
        return cls(**data)


class ActionKind(enum.StrEnum):
    DECLARE = "declare"
    BURY = "bury"
    ROB = "rob"
    PASS = "pass"
    PLAY = "play"
    MULTIPLE = "multiple"


_WITH_CARDS = (ActionKind.DECLARE, ActionKind.BURY, ActionKind.ROB, ActionKind.PLAY)


@dataclass(frozen=True, slots=True)
class Action:
    """One move; cards in code order so that equal moves are equal.

    ``choice`` is the trump a 红5对 names (``S H C D NT``); ``value`` the stake multiple.
    """

    kind: ActionKind
    cards: tuple[Card, ...] = ()
    choice: str | None = None
    value: int | None = None

    def __post_init__(self) -> None:
        if type(self.kind) is not ActionKind:
            object.__setattr__(self, "kind", ActionKind(self.kind))
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))
        if self.kind in _WITH_CARDS and not self.cards:
            raise ValueError(f"a {self.kind} names its cards")
        if self.kind not in _WITH_CARDS and self.cards:
            raise ValueError(f"a {self.kind} names no cards")
        if self.choice is not None:
            choice = self.choice.upper()
            if choice not in TRUMP_CHOICES or self.kind not in (ActionKind.DECLARE, ActionKind.ROB):
                raise ValueError(
                    f"a trump choice is one of {' '.join(TRUMP_CHOICES)}, named by a declare or rob"
                )
            object.__setattr__(self, "choice", choice)
        if (self.value is not None) != (self.kind is ActionKind.MULTIPLE):
            raise ValueError("a multiple action, and only it, names its value")

    def __str__(self) -> str:
        words = [str(self.kind)]
        if self.cards:
            words.append(format_cards(self.cards))
        if self.choice is not None:
            words.append(self.choice)
        if self.value is not None:
            words.append(str(self.value))
        return " ".join(words)

    @classmethod
    def of_sorted(cls, kind: ActionKind, cards: tuple[Card, ...]) -> Action:
        """An action from cards already in code order, without re-checking (hot paths)."""
        action = object.__new__(cls)
        object.__setattr__(action, "kind", kind)
        object.__setattr__(action, "cards", cards)
        object.__setattr__(action, "choice", None)
        object.__setattr__(action, "value", None)
        return action

    @classmethod
    def play(cls, cards: Sequence[Card] | str) -> Action:
        return cls(ActionKind.PLAY, tuple(parse_cards(cards) if isinstance(cards, str) else cards))

    @classmethod
    def parse(cls, text: str) -> Action:
        """An action from its text form; :class:`IllegalAction` (code ``malformed``) if bad."""
        words = verify_action_text(text).split()
        if not words or words[0] not in tuple(ActionKind):
            raise IllegalAction(
                f"malformed action {quoted(text)}: declare/bury/rob/play <cards>, pass, or multiple <n>",
                "malformed",
            )
        kind = ActionKind(words[0])
        rest = words[1:]
        try:
            if kind is ActionKind.MULTIPLE:
                value = whole_number(rest[0]) if len(rest) == 1 else None
                if value is None:
                    raise ValueError(f"write 'multiple <n>', not {quoted(text)}")
                return cls(kind, value=value)
            choice = None
            # A trump choice is a lone suit letter or NT after the cards (cards are two letters).
            if (
                kind in (ActionKind.DECLARE, ActionKind.ROB)
                and rest
                and rest[-1].upper() in TRUMP_CHOICES
            ):
                choice = rest.pop().upper()
            return cls(kind, tuple(parse_cards(" ".join(rest))), choice)
        except ValueError as error:
            raise IllegalAction(str(error), "malformed") from None

    @classmethod
    def coerce(cls, action: Action | str) -> Action:
        return action if isinstance(action, Action) else cls.parse(action)
