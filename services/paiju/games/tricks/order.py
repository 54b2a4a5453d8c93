"""Which cards are trump and how strong each card is, as data built once per hand.

A :class:`TrumpOrder` answers three questions about a card code: its *suit class* (``"T"``
for every trump, else its plain suit letter), its *strength* (an int; higher is stronger;
equal cards share one strength, a "group") and, for tractors, which strengths are adjacent.
Adjacency is given as :class:`Line` s: a tractor is a run of pairs at consecutive positions of
one line. A game's special cards (permanent trumps such as 5♥, jokers, level cards, the
skipped level rank of a plain suit, an ace that may be low) are all expressed in this data,
so the shape and trick code has no special cases.

>>> from paiju.cards import parse_cards
>>> order = TrumpOrder.build({
...     "T": [parse_cards("2S"), parse_cards("2H 2C 2D"), parse_cards("BJ")],
...     "H": [parse_cards("5H"), parse_cards("7H")],
... })
>>> [order.suit_class[c] for c in parse_cards("2H 7H BJ")]
['T', 'H', 'T']
>>> order.strength[parse_cards("2H")[0]] == order.strength[parse_cards("2D")[0]]
True
>>> order.is_trump(parse_cards("5H")[0])
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from paiju.cards import Card

TRUMP = "T"
"""The suit class of every trump card."""

TRUMP_BASE = 1000
"""Trump strengths start here, so that any trump is stronger than any plain card."""

PLAIN_SPAN = 100
"""Strengths of one plain class lie in ``[PLAIN_SPAN × i, PLAIN_SPAN × (i + 1))``, i its index."""

ABSENT = -1
"""The strength of a card that is not in this game's deck."""


@dataclass(frozen=True, slots=True)
class Line:
    """Strengths that connect into tractors, lowest first; ``keys`` compare a tractor by its top.

    ``keys[i]`` is what a tractor whose top pair sits at position ``i`` is compared by; by
    default the strength itself. (Chao Di Pi's trump-suit level pair keeps its natural place in
    the trump suit's line and is compared there by that place.)
    """

    strengths: tuple[int, ...]
    keys: tuple[int, ...] | None = None

    def key_at(self, position: int) -> int:
        return self.strengths[position] if self.keys is None else self.keys[position]


@dataclass(frozen=True, slots=True, eq=False)
class TrumpOrder:
    """Per card code (0..53): suit class, strength; plus the tractor lines. Build with :meth:`build`."""

    suit_class: tuple[str | None, ...]
    strength: tuple[int, ...]
    level: tuple[int, ...]
    """Position of the card's group within its suit class (0 weakest), comparable across suits."""
    lines: tuple[Line, ...]
    cards_of_strength: Mapping[int, tuple[Card, ...]] = field(repr=False)
    positions: Mapping[int, tuple[tuple[int, int], ...]] = field(repr=False)
    """strength -> every (line index, position) it takes in the lines."""

    @classmethod
    def build(
        cls,
        ranking: Mapping[str, Sequence[Sequence[Card]]],
        lines: Sequence[Line] | None = None,
    ) -> TrumpOrder:
        """An order from, per suit class, its groups of equal cards from weakest to strongest.

        Strengths are unique per group: ``TRUMP_BASE`` plus the group's position for trumps,
        ``PLAIN_SPAN`` times the class's index plus the position for plain classes. Without ``lines``, each class is one line of its groups in order, so any two
        neighbouring groups connect.
        """
        suit_class: list[str | None] = [None] * 54
        strength = [ABSENT] * 54
        level = [ABSENT] * 54
        cards_of: dict[int, tuple[Card, ...]] = {}
        default_lines: list[Line] = []
        for class_index, (class_name, groups) in enumerate(ranking.items()):
            if len(groups) > PLAIN_SPAN:
                raise ValueError(f"a suit class has at most {PLAIN_SPAN} groups")
            base = TRUMP_BASE if class_name == TRUMP else PLAIN_SPAN * class_index
            line: list[int] = []
            for index, group in enumerate(groups):
                value = base + index
                for card in group:
                    if suit_class[card] is not None:
                        raise ValueError(f"{card} is ranked twice")
                    suit_class[card] = class_name
                    strength[card] = value
                    level[card] = index
                cards_of[value] = tuple(sorted(Card(c) for c in group))
                line.append(value)
            default_lines.append(Line(tuple(line)))
        chosen = tuple(default_lines if lines is None else lines)
        positions: dict[int, list[tuple[int, int]]] = {}
        for line_index, one in enumerate(chosen):
            for position, value in enumerate(one.strengths):
                positions.setdefault(value, []).append((line_index, position))
        return cls(
            suit_class=tuple(suit_class),
            strength=tuple(strength),
            level=tuple(level),
            lines=chosen,
            cards_of_strength=cards_of,
            positions={value: tuple(places) for value, places in positions.items()},
        )

    def is_trump(self, card: Card) -> bool:
        return self.suit_class[card] == TRUMP

    def class_of(self, cards: Sequence[Card]) -> str | None:
        """The one suit class of all ``cards``, or ``None`` if they mix classes."""
        classes = {self.suit_class[card] for card in cards}
        return classes.pop() if len(classes) == 1 else None

    def run_key(self, strengths: Sequence[int]) -> int | None:
        """The key of the tractor whose pairs have these strengths, ``None`` if they do not connect.

        The strengths must sit at consecutive positions of one line (in any order given); with
        several lines fitting, the strongest reading counts.
        """
        wanted = set(strengths)
        if len(wanted) != len(strengths) or len(wanted) < 2:
            return None
        best: int | None = None
        for value in strengths:
            for line_index, position in self.positions.get(value, ()):
                line = self.lines[line_index]
                end = position + len(wanted)
                # Only try runs that start at this pair, so each run is tried once.
                if end <= len(line.strengths) and set(line.strengths[position:end]) == wanted:
                    key = line.key_at(end - 1)
                    best = key if best is None or key > best else best
        return best
