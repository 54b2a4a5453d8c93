"""混战 rule options and actions, with their text form (``"declare TS"``, ``"play 5H 5H"``)."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from paiju.cards import Card, format_cards, parse_cards
from paiju.games.engine import IllegalAction, rule_options, verify_action_text
from paiju.games.hunzhan.settlement import exact_rate
from paiju.quoting import quoted


@dataclass(frozen=True, slots=True)
class Rules:
    """Rule options, each defaulting to the spec.

    >>> Rules().coins_per_5, Rules().fee_rate, Rules().deal_interval, Rules().declare_window
    (50, 0.02, 0.25, 5.0)
    """

    coins_per_5: int = 50
    """Coins per 5 points of result (the room's stake; the seed's settlement table uses 50)."""
    fee_rate: float = 0.02
    """House fee on a winner's winnings, rounded half up to whole coins (read as exact decimal)."""
    deal_interval: float = 0.25
    """Seconds between two dealt cards (the table service paces :meth:`Hand.system_step`)."""
    declare_window: float = 5.0
    """Seconds after the last card, restarted by each declaration, before declaring closes."""
    turn_seconds: int = 20
    """The turn timer; on expiry the service calls :meth:`Hand.timeout`."""
    timeouts_to_escape: int = 4
    """The n-th consecutive timeout of a seat is an escape (超时 4 次踢出)."""

    def __post_init__(self) -> None:
        if not isinstance(self.coins_per_5, int) or self.coins_per_5 < 0:
            raise ValueError(f"coins_per_5 is a whole number of at least 0, not {self.coins_per_5!r}")
        exact_rate(self.fee_rate)
        if self.deal_interval < 0 or self.declare_window < 0 or self.turn_seconds <= 0:
            raise ValueError("deal_interval and declare_window are >= 0 and turn_seconds > 0")
        if self.timeouts_to_escape < 1:
            raise ValueError("timeouts_to_escape is at least 1")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        return rule_options(cls, data, "混战")


class ActionKind(enum.StrEnum):
    DECLARE = "declare"
    PLAY = "play"


@dataclass(frozen=True, slots=True)
class Action:
    """A declaration or a play; its cards are kept in code order, so equal moves are equal.

    >>> str(Action.parse("play 5H 9H 5H"))
    'play 5H 5H 9H'
    >>> Action.parse("declare BJ BJ").cards == tuple(parse_cards("BJ BJ"))
    True
    """

    kind: ActionKind
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        if type(self.kind) is not ActionKind:
            object.__setattr__(self, "kind", ActionKind(self.kind))
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))
        if not self.cards:
            raise ValueError(f"a {self.kind} names its cards")

    def __str__(self) -> str:
        return f"{self.kind} {format_cards(self.cards)}"

    @classmethod
    def of_sorted(cls, kind: ActionKind, cards: tuple[Card, ...]) -> Action:
        """An action from cards already in code order, without re-checking (hot paths)."""
        action = object.__new__(cls)
        object.__setattr__(action, "kind", kind)
        object.__setattr__(action, "cards", cards)
        return action

    @classmethod
    def play(cls, cards: Sequence[Card] | str) -> Action:
        return cls(ActionKind.PLAY, tuple(parse_cards(cards) if isinstance(cards, str) else cards))

    @classmethod
    def declare(cls, cards: Sequence[Card] | str) -> Action:
        return cls(ActionKind.DECLARE, tuple(parse_cards(cards) if isinstance(cards, str) else cards))

    @classmethod
    def parse(cls, text: str) -> Action:
        """An action from its text form; :class:`IllegalAction` (code ``malformed``) if bad."""
        words = verify_action_text(text).split(maxsplit=1)
        if len(words) != 2 or words[0] not in tuple(ActionKind):
            raise IllegalAction(f"malformed action {quoted(text)}: write 'play <cards>' or 'declare <cards>'", "malformed")
        try:
            cards = parse_cards(words[1])
        except ValueError as error:
            raise IllegalAction(str(error), "malformed") from None
        return cls(ActionKind(words[0]), tuple(cards))

    @classmethod
    def coerce(cls, action: Action | str) -> Action:
        return action if isinstance(action, Action) else cls.parse(action)
