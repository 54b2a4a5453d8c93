"""Shapes of plays: single, pair (two identical cards), tractor (pairs connected in a line).

>>> from paiju.cards import parse_cards
>>> from paiju.games.tricks.order import TrumpOrder
>>> order = TrumpOrder.build({"H": [parse_cards(r + "H") for r in "579J"]})
>>> classify(parse_cards("7H 7H 5H 5H"), order).kind
'tractor'
>>> classify(parse_cards("7H 9H"), order) is None
True
>>> [str(part) for part in decompose(parse_cards("5H 5H 7H 7H JH JH 9H"), order)]
['tractor 5H 5H 7H 7H', 'pair JH JH', 'single 9H']
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from paiju.cards import Card, format_cards
from paiju.games.tricks.order import TrumpOrder

SINGLE, PAIR, TRACTOR = "single", "pair", "tractor"

Play = tuple[Card, ...]
"""A play: its cards in code order, so that equal plays are equal tuples."""


@dataclass(frozen=True, slots=True)
class Shape:
    """What a play is: its kind, how many pairs (0 for a single), its suit class, and its key.

    Plays compare only when kind and ``pairs`` agree; then by ``key`` (a single's or pair's
    strength, a tractor's top pair) within a class, and any trump shape beats a plain one.
    """

    kind: str
    pairs: int
    suit_class: str
    key: int

    @property
    def size(self) -> int:
        return max(1, 2 * self.pairs)

    def same_form(self, other: Shape) -> bool:
        return self.kind == other.kind and self.pairs == other.pairs


@dataclass(frozen=True, slots=True)
class Component:
    """One part of a multi-card play (a throw) with its cards."""

    shape: Shape
    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return f"{self.shape.kind} {format_cards(self.cards)}"


def counts_of(cards: Iterable[Card]) -> Counter[Card]:
    return Counter(cards)


def multiset_choices(items: Sequence[tuple[Card, int]], size: int) -> Iterator[Play]:
    """Every distinct choice of ``size`` cards from ``(card, copies)`` items, in code order.

    >>> from paiju.cards import parse_cards, format_cards
    >>> [format_cards(p) for p in multiset_choices([(parse_cards("5H")[0], 2), (parse_cards("7H")[0], 1)], 2)]
    ['5H 5H', '5H 7H']
    """
    items = sorted(items)
    available = [0] * (len(items) + 1)
    for index in range(len(items) - 1, -1, -1):
        available[index] = available[index + 1] + items[index][1]

    def walk(index: int, left: int, taken: list[Card]) -> Iterator[Play]:
        if left == 0:
            yield tuple(taken)
            return
        if index == len(items) or available[index] < left:
            return
        card, copies = items[index]
        for take in range(min(copies, left), -1, -1):
            taken.extend([card] * take)
            yield from walk(index + 1, left - take, taken)
            del taken[len(taken) - take :]

    yield from walk(0, size, [])


def classify(cards: Sequence[Card], order: TrumpOrder) -> Shape | None:
    """The shape of ``cards`` as one single, pair or tractor; ``None`` if it is none of them."""
    size = len(cards)
    if size == 1:  # the most common play: no class to agree on
        card = cards[0]
        single_class = order.suit_class[card]
        return None if single_class is None else Shape(SINGLE, 0, single_class, order.strength[card])
    if size == 0:
        return None
    suit_class = order.class_of(cards)
    if suit_class is None:
        return None
    if size % 2:
        return None
    counts = counts_of(cards)
    if any(count != 2 for count in counts.values()):
        return None
    if size == 2:
        return Shape(PAIR, 1, suit_class, order.strength[cards[0]])
    key = order.run_key([order.strength[card] for card in counts])
    if key is None:
        return None
    return Shape(TRACTOR, size // 2, suit_class, key)


def pair_cards(counts: Counter[Card] | dict[Card, int], order: TrumpOrder, suit_class: str) -> list[Card]:
    """The cards of ``suit_class`` held at least twice, in code order."""
    return sorted(card for card, count in counts.items() if count >= 2 and order.suit_class[card] == suit_class)


def tractors_in(
    counts: Counter[Card] | dict[Card, int], order: TrumpOrder, suit_class: str, length: int
) -> list[tuple[Card, ...]]:
    """Every distinct tractor of ``length`` pairs in the held cards, each as its pair cards.

    A group of equal cards (the "other 10s") can supply its pair with any of its cards, so one
    run of strengths may give several tractors.
    """
    if length < 2:
        return []
    found: set[tuple[Card, ...]] = set()
    for line in order.lines:
        strengths = line.strengths
        if not strengths or order.suit_class[order.cards_of_strength[strengths[0]][0]] != suit_class:
            continue
        options = [
            [card for card in order.cards_of_strength[value] if counts.get(card, 0) >= 2]
            for value in strengths
        ]
        for start in range(len(strengths) - length + 1):
            window = options[start : start + length]
            if all(window):
                for choice in itertools.product(*window):
                    found.add(tuple(sorted(choice)))
    return sorted(found)


def decompose(cards: Sequence[Card], order: TrumpOrder) -> list[Component]:
    """A multi-card play split greedily: longest tractors first, then pairs, then singles.

    This is how a throw (甩牌) is read; the cards must share one suit class.
    """
    suit_class = order.class_of(cards)
    if suit_class is None:
        raise ValueError(f"{format_cards(cards)} mixes suit classes: it has no single reading")
    counts = counts_of(cards)
    parts: list[Component] = []
    while True:
        best: tuple[Card, ...] | None = None
        pairs_held = len(pair_cards(counts, order, suit_class))
        for length in range(pairs_held, 1, -1):
            tractors = tractors_in(counts, order, suit_class, length)
            if tractors:
                # The strongest of the longest, so the reading does not depend on card codes.
                best = max(tractors, key=lambda run: _tractor_key(run, order))
                break
        if best is None:
            break
        for card in best:
            counts[card] -= 2
        run_cards = tuple(sorted(card for card in best for _ in range(2)))
        parts.append(Component(Shape(TRACTOR, len(best), suit_class, _tractor_key(best, order)), run_cards))
    for card in sorted(counts, key=lambda c: -order.strength[c]):
        while counts[card] >= 2:
            counts[card] -= 2
            parts.append(Component(Shape(PAIR, 1, suit_class, order.strength[card]), (card, card)))
    for card in sorted(counts, key=lambda c: -order.strength[c]):
        for _ in range(counts[card]):
            parts.append(Component(Shape(SINGLE, 0, suit_class, order.strength[card]), (card,)))
    return parts


def _tractor_key(pairs: Sequence[Card], order: TrumpOrder) -> int:
    key = order.run_key([order.strength[card] for card in pairs])
    assert key is not None
    return key
