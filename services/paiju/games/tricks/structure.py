"""Multi-component leads (throws, 甩牌): their structure, following them, trumping them.

A lead of one suit class is read as a :class:`Structure`: the lengths of its tractors, how many
more pairs, how many singles (the greedy reading of :func:`~paiju.games.tricks.shapes.decompose`).
The rules for a follower, the standard Tractor ones generalised (``spec/chaodipi.md`` §5):

1. play as many cards as were led, as many of the led class as you hold (up to that number);
2. holding more of the class than was led: match as many of the led tractors as you can with
   tractors of the same length (:func:`tractor_cover`, counted in pairs), then play as many
   pairs as the lead holds in all, where you can; the rest singles of the class.

A play *covers* a structure (:func:`covers`: it may trump a plain lead) when its cards split
into the lead's parts, one card in one part: a tractor of its own for every led tractor (at
least as long), a pair of its own for every further led pair, the rest for the singles.
Covering plays compare by :func:`structure_key`, read off the play's best split: against
tractors, the tractor standing for the lead's longest (its length, then its top pair); else the
highest pair; else the highest card.

>>> from paiju.cards import parse_cards
>>> from paiju.games.tricks.order import TrumpOrder
>>> order = TrumpOrder.build({"T": [parse_cards(r + "S") for r in "2456789"],
...                           "C": [parse_cards(r + "C") for r in "3456789TJQKA"]})
>>> lead = structure_of(parse_cards("AC KC 5C 5C 4C 4C"), order)
>>> lead.tractors, lead.pairs, lead.singles
((2,), 0, 2)
>>> covers(parse_cards("9S 9S 8S 8S 7S 2S"), lead, order)
True
>>> covers(parse_cards("9S 9S 8S 8S 7S 2S"), structure_of(parse_cards("AC AC 5C 5C 4C 4C"), order), order)
False
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from paiju.cards import Card
from paiju.games.tricks.order import TrumpOrder
from paiju.games.tricks.shapes import (
    PAIR,
    TRACTOR,
    counts_of,
    decompose,
    multiset_choices,
    pair_cards,
    tractors_in,
)


@dataclass(frozen=True, slots=True)
class Structure:
    """A lead's parts: ``tractors`` (their lengths in pairs, longest first), further ``pairs``,
    ``singles``, all of ``suit_class``."""

    suit_class: str
    tractors: tuple[int, ...]
    pairs: int
    singles: int

    @property
    def size(self) -> int:
        return 2 * (sum(self.tractors) + self.pairs) + self.singles

    @property
    def all_pairs(self) -> int:
        """Pairs in the lead in all, those of its tractors included."""
        return sum(self.tractors) + self.pairs

    @property
    def longest(self) -> int:
        return self.tractors[0] if self.tractors else 0


def structure_of(cards: Sequence[Card], order: TrumpOrder) -> Structure:
    """The greedy reading of ``cards`` (one suit class) as a structure."""
    parts = decompose(cards, order)
    tractors = tuple(
        sorted((part.shape.pairs for part in parts if part.shape.kind == TRACTOR), reverse=True)
    )
    pairs = sum(1 for part in parts if part.shape.kind == PAIR)
    singles = len(cards) - 2 * (sum(tractors) + pairs)
    return Structure(parts[0].shape.suit_class, tractors, pairs, singles)


def tractor_cover(
    counts: Counter[Card] | dict[Card, int],
    lengths: Sequence[int],
    order: TrumpOrder,
    suit_class: str,
) -> int:
    """The most pairs of led tractors (``lengths``) the held ``counts`` can match, each led
    tractor by a distinct tractor of the same length (a sub-run of a longer one counts)."""
    if not lengths:
        return 0
    pool = {
        card: count
        for card, count in counts.items()
        if count >= 2 and order.suit_class[card] == suit_class
    }
    total = sum(lengths)
    best = 0

    def search(index: int, taken: int) -> None:
        nonlocal best
        best = max(best, taken)
        if index == len(lengths) or best == total:
            return
        if taken + sum(lengths[index:]) <= best:
            return
        length = lengths[index]
        for run in tractors_in(pool, order, suit_class, length):
            for card in run:
                pool[card] -= 2
            search(index + 1, taken + length)
            for card in run:
                pool[card] += 2
        search(index + 1, taken)

    search(0, 0)
    return best


def pairs_in(counts: Counter[Card] | dict[Card, int], order: TrumpOrder, suit_class: str) -> int:
    """How many pairs of ``suit_class`` the counts hold (two identical cards each)."""
    return sum(count // 2 for card, count in counts.items() if order.suit_class[card] == suit_class)


def covers(play: Sequence[Card], lead: Structure, order: TrumpOrder) -> bool:
    """Whether ``play`` (of one suit class) splits into the lead's parts: a tractor of its own
    for every led tractor and a pair of its own for every further led pair — what trumping a
    plain lead needs."""
    return structure_key(play, lead, order) is not None


def structure_key(play: Sequence[Card], lead: Structure, order: TrumpOrder) -> tuple[int, int] | None:
    """What a play is compared by as an answer to ``lead``, as ``(tractor length, strength)``,
    or ``None`` when it does not split into the lead's parts (``spec/chaodipi.md`` §5, one card,
    one part).

    The play is split into the lead's parts: each led tractor a tractor of its own, at least as
    long; each further led pair a pair of its own; the rest stand for the singles. Against a
    lead with tractors the key is that of the tractor standing for the lead's longest, in the
    play's best split: its length, then its top pair. A longer tractor may take the singles'
    places, never a pair that a led pair needs. Against pairs only: ``(0, the highest pair)``;
    against singles only: ``(0, the highest card)``.

    >>> from paiju.cards import parse_cards
    >>> from paiju.games.tricks.order import TrumpOrder
    >>> order = TrumpOrder.build({"T": [parse_cards(r + "S") for r in "23456789"],
    ...                           "C": [parse_cards(r + "C") for r in "3456789TJQKA"]})
    >>> lead = structure_of(parse_cards("8C 8C 9C 9C 3C 3C QC QC TC"), order)
    >>> structure_key(parse_cards("4S 4S 5S 5S 6S 6S 7S 7S 2S"), lead, order)[0]  # not 4: the pairs need two
    2
    """
    suit_class = order.class_of(play) if play else None
    if suit_class is None or len(play) != lead.size:
        return None
    counts = counts_of(play)
    pairs_held = pairs_in(counts, order, suit_class)
    if pairs_held < lead.all_pairs:
        return None
    if not lead.tractors:
        if lead.pairs:
            return (0, max(order.strength[card] for card in pair_cards(counts, order, suit_class)))
        return (0, max(order.strength[card] for card in play))
    longest, others = lead.tractors[0], lead.tractors[1:]
    # Taking two of a card takes one of its pairs, whichever tractor takes them: what the
    # longest led tractor's answer may use is what the other parts leave of the pairs.
    spare = pairs_held - sum(others) - lead.pairs
    for length in range(spare, longest - 1, -1):
        keyed = [
            (key, run)
            for run in tractors_in(counts, order, suit_class, length)
            if (key := order.run_key([order.strength[card] for card in run])) is not None
        ]
        for key, run in sorted(keyed, reverse=True):
            if not others or _covers_rest(counts, run, others, order, suit_class):
                return (length, key)
    return None


def _covers_rest(
    counts: Counter[Card], run: Sequence[Card], lengths: Sequence[int], order: TrumpOrder, suit_class: str
) -> bool:
    rest = Counter(counts)
    for card in run:
        rest[card] -= 2
    return tractor_cover(rest, lengths, order, suit_class) == sum(lengths)


def is_legal_structured_follow(
    hand: Sequence[Card], lead: Structure, play: Sequence[Card], order: TrumpOrder
) -> bool:
    """Whether ``play`` from ``hand`` follows a lead of structure ``lead`` (rules above)."""
    counts = counts_of(hand)
    played = counts_of(play)
    if len(play) != lead.size or any(counts[card] < count for card, count in played.items()):
        return False
    suit_class = lead.suit_class
    held = {card: count for card, count in counts.items() if order.suit_class[card] == suit_class}
    held_total = sum(held.values())
    in_class = sum(count for card, count in played.items() if order.suit_class[card] == suit_class)
    if in_class != min(lead.size, held_total):
        return False
    if held_total <= lead.size:
        return True
    if tractor_cover(played, lead.tractors, order, suit_class) != tractor_cover(
        held, lead.tractors, order, suit_class
    ):
        return False
    wanted = min(lead.all_pairs, pairs_in(held, order, suit_class))
    return min(lead.all_pairs, pairs_in(played, order, suit_class)) == wanted


def structured_follows(
    hand: Sequence[Card], lead: Structure, order: TrumpOrder, limit: int | None = None
) -> tuple[list[tuple[Card, ...]], bool]:
    """The distinct legal follows of a structured lead, at most ``limit`` of them, and whether
    the list is complete. Each play's cards are in code order."""
    found: dict[tuple[Card, ...], None] = {}
    for base, extras, count in follow_bases(hand, lead, order):
        for extra in multiset_choices(extras, count):
            if limit is not None and len(found) >= limit:
                return list(found), False
            found[tuple(sorted(base + extra))] = None
    return list(found), True


def follow_bases(
    hand: Sequence[Card], lead: Structure, order: TrumpOrder
) -> Iterator[tuple[tuple[Card, ...], list[tuple[Card, int]], int]]:
    """The legal follows of a structured lead as ``(base, extras, count)``: each is the cards
    ``base`` with any ``count`` of the ``(card, copies)`` ``extras`` (every such choice legal)."""
    counts = counts_of(hand)
    size = lead.size
    if len(hand) < size:
        raise ValueError(f"a hand of {len(hand)} cards cannot follow a lead of {size}")
    suit_class = lead.suit_class
    inside = [
        (card, count) for card, count in counts.items() if order.suit_class[card] == suit_class
    ]
    held_total = sum(count for _, count in inside)
    if held_total <= size:
        forced = tuple(card for card, count in inside for _ in range(count))
        rest = [
            (card, count) for card, count in counts.items() if order.suit_class[card] != suit_class
        ]
        yield forced, rest, size - held_total
        return
    held = dict(inside)
    best_cover = tractor_cover(held, lead.tractors, order, suit_class)
    want_pairs = min(lead.all_pairs, pairs_in(held, order, suit_class))
    pair_options = [(card, 1) for card in pair_cards(held, order, suit_class)]
    for chosen in multiset_choices(pair_options, want_pairs):
        chosen_counts = Counter({card: 2 for card in chosen})
        if tractor_cover(chosen_counts, lead.tractors, order, suit_class) != best_cover:
            continue
        left = Counter(held)
        for card in chosen:
            left[card] -= 2
        extras = [(card, count) for card, count in left.items() if count > 0]
        yield tuple(card for card in chosen for _ in range(2)), extras, size - 2 * want_pairs


__all__ = [
    "Structure",
    "covers",
    "follow_bases",
    "is_legal_structured_follow",
    "pairs_in",
    "structure_key",
    "structure_of",
    "structured_follows",
    "tractor_cover",
]
