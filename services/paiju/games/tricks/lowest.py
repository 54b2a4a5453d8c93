"""Which legal play is "lowest": the timeout's default move in both trick games.

``spec/hunzhan.md`` §5 (and ``spec/chaodipi.md`` §8, which refers to it): the lowest legal play
by point value, then the strength of its highest card, then the card text — the play written
with its cards by rank ascending, S H C D within a rank (``7C 7D 8C JD``), which is code order.
Strength here is the card's place within its suit class, trumps above every plain card, so a
plain 8 of one suit and of another weigh the same. Each game passes its own point values.

>>> from paiju.cards import ALL_CARDS, parse_cards
>>> from paiju.games.tricks.order import TrumpOrder
>>> order = TrumpOrder.build({"C": [parse_cards(r + "C") for r in "3456"]})
>>> points = tuple(5 if card.rank == 5 else 0 for card in ALL_CARDS)
>>> keys = card_keys(order, points)
>>> min([parse_cards("5C"), parse_cards("6C")], key=lambda play: default_key(play, keys, points))
[Card('6C')]
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.cards import ALL_CARDS, Card
from paiju.games.tricks.order import TRUMP, TRUMP_BASE, TrumpOrder

DefaultKey = tuple[int, int, tuple[str, ...]]
"""(point value, strength of the highest card, the card texts in code order)."""


def default_key(play: Sequence[Card], keys: Sequence[DefaultKey], points: Sequence[int]) -> DefaultKey:
    """How low ``play`` (cards in code order) ranks as a default move; lower is lower.

    ``keys`` are the per-card keys of :func:`card_keys` for the hand's order and ``points``.
    The text compares as the tuple of its two-character tokens, which orders exactly as the
    space-separated text does.
    """
    if len(play) == 1:
        return keys[play[0]]
    return (
        sum([points[card] for card in play]),
        max([keys[card][1] for card in play]),
        tuple([_TEXT[card] for card in play]),
    )


def card_keys(order: TrumpOrder, points: Sequence[int]) -> tuple[DefaultKey, ...]:
    """Per card code: its :func:`default_key` as a single play (build once per order)."""
    return tuple(
        (
            points[card],
            order.level[card] + (TRUMP_BASE if order.suit_class[card] == TRUMP else 0),
            (_TEXT[card],),
        )
        for card in range(len(ALL_CARDS))
    )


_TEXT = tuple(str(card) for card in ALL_CARDS)
