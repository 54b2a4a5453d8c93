"""What a hand may lead and follow with, as pure functions of the cards (no game state).

Following a single, pair or tractor (the standard Tractor rules, ``spec/hunzhan.md`` §3):

1. play as many cards as were led;
2. play as many cards of the led suit class as you hold, up to that number;
3. a pair led: a pair of that class if you hold one; a tractor led: a tractor of the same
   length of that class if you hold one, otherwise as many pairs of that class as you can;
   the rest singles of that class, then anything.

>>> from paiju.cards import parse_cards, format_cards
>>> from paiju.games.tricks.order import TrumpOrder
>>> order = TrumpOrder.build({"H": [parse_cards(r + "H") for r in "5789"],
...                           "C": [parse_cards(r + "C") for r in "5789"]})
>>> hand = parse_cards("5H 7H 7H 9H 5C")
>>> [format_cards(p) for p in follow_plays(hand, parse_cards("8H 8H"), order)]
['7H 7H']
>>> is_legal_follow(hand, parse_cards("8H 8H"), parse_cards("5H 9H"), order)
False
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from paiju.cards import Card
from paiju.games.tricks.order import TRUMP, TrumpOrder
from paiju.games.tricks.shapes import (
    PAIR,
    SINGLE,
    TRACTOR,
    Play,
    Shape,
    classify,
    counts_of,
    multiset_choices,
    pair_cards,
    tractors_in,
)
from paiju.games.tricks.structure import (
    is_legal_structured_follow,
    structure_of,
    structured_follows,
)


def lead_plays(hand: Sequence[Card], order: TrumpOrder) -> list[Play]:
    """Every distinct single, pair and tractor in ``hand`` (what a leader may play in Hunzhan)."""
    counts = counts_of(hand)
    plays: list[Play] = [(card,) for card in sorted(counts)]
    plays += [(card, card) for card in sorted(counts) if counts[card] >= 2]
    classes = sorted({order.suit_class[card] for card in counts if counts[card] >= 2}, key=str)
    for suit_class in classes:
        assert suit_class is not None
        most = len(pair_cards(counts, order, suit_class))
        for length in range(2, most + 1):
            for run in tractors_in(counts, order, suit_class, length):
                plays.append(tuple(sorted(card for card in run for _ in range(2))))
    return plays


def _class_items(counts: Counter[Card], order: TrumpOrder, suit_class: str, inside: bool) -> list[tuple[Card, int]]:
    return [(card, count) for card, count in counts.items() if (order.suit_class[card] == suit_class) == inside]


def follow_plays(hand: Sequence[Card], lead: Sequence[Card], order: TrumpOrder) -> list[Play]:
    """Every distinct play that follows ``lead`` by the rules above.

    A lead of several parts of one suit class (a throw) is followed by the rules of
    :mod:`~paiju.games.tricks.structure`; a lead mixing classes is a ``ValueError``.
    """
    lead_shape = classify(lead, order)
    if lead_shape is None:
        plays, _ = structured_follows(hand, structure_of(lead, order), order)
        return sorted(plays)
    counts = counts_of(hand)
    size = lead_shape.size
    if len(hand) < size:
        raise ValueError(f"a hand of {len(hand)} cards cannot follow a lead of {size}")
    suit_class = lead_shape.suit_class
    inside = _class_items(counts, order, suit_class, True)
    held = sum(count for _, count in inside)
    if held < size:
        # Short in the led class: all of it, the rest anything.
        forced = tuple(card for card, count in inside for _ in range(count))
        rest = _class_items(counts, order, suit_class, False)
        return [tuple(sorted(forced + extra)) for extra in multiset_choices(rest, size - held)]
    if lead_shape.kind == SINGLE:
        return [(card,) for card, _ in sorted(inside)]
    pairs_needed = lead_shape.pairs
    if lead_shape.kind == TRACTOR:
        tractors = tractors_in(counts, order, suit_class, pairs_needed)
        if tractors:
            return [tuple(sorted(card for card in run for _ in range(2))) for run in tractors]
    pairs = pair_cards(counts, order, suit_class)
    take = min(pairs_needed, len(pairs))
    plays: set[Play] = set()
    for chosen in multiset_choices([(card, 1) for card in pairs], take):
        left = Counter(dict(inside))
        for card in chosen:
            left[card] -= 2
        extras = [(card, count) for card, count in left.items() if count > 0]
        for extra in multiset_choices(extras, size - 2 * take):
            plays.add(tuple(sorted(tuple(card for card in chosen for _ in range(2)) + extra)))
    return sorted(plays)


def is_legal_follow(hand: Sequence[Card], lead: Sequence[Card], play: Sequence[Card], order: TrumpOrder) -> bool:
    """Whether ``play`` (from ``hand``) follows ``lead`` by the rules above, judged directly
    (a throw lead by :func:`~paiju.games.tricks.structure.is_legal_structured_follow`)."""
    lead_shape = classify(lead, order)
    if lead_shape is None:
        return is_legal_structured_follow(hand, structure_of(lead, order), play, order)
    counts = counts_of(hand)
    played = counts_of(play)
    size = lead_shape.size
    if len(play) != size or any(counts[card] < count for card, count in played.items()):
        return False
    suit_class = lead_shape.suit_class
    held = sum(count for card, count in counts.items() if order.suit_class[card] == suit_class)
    in_class = sum(count for card, count in played.items() if order.suit_class[card] == suit_class)
    if in_class != min(size, held):
        return False
    if held < size or lead_shape.kind == SINGLE:
        return True
    if lead_shape.kind == TRACTOR and tractors_in(counts, order, suit_class, lead_shape.pairs):
        shape = classify(play, order)
        return shape is not None and shape.kind == TRACTOR and shape.pairs == lead_shape.pairs
    pairs_played = len(pair_cards(played, order, suit_class))
    return pairs_played >= min(lead_shape.pairs, len(pair_cards(counts, order, suit_class)))


def beats(play: Shape | None, winner: Shape) -> bool:
    """Whether a play of shape ``play`` takes the trick from the current ``winner``.

    Same form (kind and number of pairs) is needed; then a stronger play of the same class wins,
    and a trump play wins against a plain one. Equal strength: the earlier play keeps it.
    """
    if play is None or not play.same_form(winner):
        return False
    if play.suit_class == winner.suit_class:
        return play.key > winner.key
    return play.suit_class == "T"


def trick_winner(plays: Sequence[Sequence[Card]], order: TrumpOrder) -> int:
    """The index of the play that wins a trick (the first is the lead); plays judged as given."""
    if not plays:
        raise ValueError("a trick needs at least the lead")
    if len(plays[0]) == 1 and all(len(play) == 1 for play in plays):
        return _single_trick_winner([play[0] for play in plays], order)
    best = classify(plays[0], order)
    if best is None:
        raise ValueError("the lead of a trick must be one single, pair or tractor")
    winner = 0
    for index in range(1, len(plays)):
        shape = classify(plays[index], order)
        if beats(shape, best):
            best, winner = shape, index  # type: ignore[assignment]
    return winner


def _single_trick_winner(cards: Sequence[Card], order: TrumpOrder) -> int:
    """:func:`trick_winner` of a trick of single cards, without building their shapes."""
    suit_class, strength = order.suit_class, order.strength
    if suit_class[cards[0]] is None:
        raise ValueError("the lead of a trick must be one single, pair or tractor")
    winner = 0
    for index in range(1, len(cards)):
        card, best = cards[index], cards[winner]
        card_class = suit_class[card]
        stronger_of_its_class = card_class == suit_class[best] and strength[card] > strength[best]
        if stronger_of_its_class or (card_class == TRUMP and suit_class[best] != TRUMP):
            winner = index
    return winner


__all__ = [
    "PAIR",
    "Play",
    "beats",
    "follow_plays",
    "is_legal_follow",
    "lead_plays",
    "multiset_choices",
    "trick_winner",
]
