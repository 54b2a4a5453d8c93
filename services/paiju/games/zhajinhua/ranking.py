"""炸金花 hand ranking (``spec/zhajinhua.md`` §1): categories, the special 235, comparison.

>>> hand_category("AS AH AD")
'trips'
>>> compare("2S 3H 5D", "AS AH AD")   # the special 235 beats AAA …
1
>>> compare("2S 3H 5D", "KS KH KD")   # … and is the lowest high card against anything else
-1
>>> hand_category("AS 2H 3D")          # A is high only: A23 is no straight
'high_card'
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

from paiju.cards import Card, format_cards, parse_cards, standard_deck

CATEGORIES = ("high_card", "pair", "straight", "flush", "straight_flush", "trips")
"""The six categories, lowest first (单张 对子 顺子 金花 顺金 豹子)."""


class Special235(enum.StrEnum):
    """What a 2-3-5 not all of one suit (特殊 235) does against trips.

    ``BEATS_AAA`` is the default, the seed's "235 > 3条A，小于其他豹子".
    """

    BEATS_AAA = "beats_aaa"
    BEATS_ALL_TRIPS = "beats_all_trips"
    OFF = "off"


class Strength(NamedTuple):
    """A three-card hand reduced to what comparison needs.

    ``key`` orders hands without the special 235: category in bits 12.., then up to three ranks.
    """

    key: int
    category: str
    special_235: bool
    trips_rank: int  # 0 unless trips

    @property
    def is_aaa(self) -> bool:
        return self.trips_rank == 14


def _strength_of(cards: Sequence[Card]) -> Strength:
    ranks = sorted((card.rank for card in cards), reverse=True)
    high, middle, low = ranks
    one_suit = len({card.suit for card in cards}) == 1
    # A is high only (A23 is no straight), so a run is three ranks stepping down by one.
    run = high - middle == 1 and middle - low == 1
    if high == low:
        category, order = "trips", (high, high, high)
    elif run:
        category, order = ("straight_flush" if one_suit else "straight"), (high, middle, low)
    elif one_suit:
        category, order = "flush", (high, middle, low)
    elif high == middle or middle == low:
        pair, kicker = (high, low) if high == middle else (low, high)
        category, order = "pair", (pair, pair, kicker)
    else:
        category, order = "high_card", (high, middle, low)
    key = CATEGORIES.index(category) << 12 | order[0] << 8 | order[1] << 4 | order[2]
    special = ranks == [5, 3, 2] and not one_suit
    return Strength(key, category, special, high if category == "trips" else 0)


def _all_strengths() -> dict[int, Strength]:
    table = {}
    for hand in combinations(standard_deck(), 3):
        table[1 << hand[0] | 1 << hand[1] | 1 << hand[2]] = _strength_of(hand)
    return table


_STRENGTH_OF_MASK: dict[int, Strength] = _all_strengths()


def strength(cards: Sequence[Card]) -> Strength:
    """The strength of three distinct cards of one 52-card deck; ``ValueError`` otherwise."""
    if len(cards) == 3:
        found = _STRENGTH_OF_MASK.get(1 << cards[0] | 1 << cards[1] | 1 << cards[2])
        if found is not None:
            return found
    raise ValueError(
        f"a 炸金花 hand is three different cards without jokers, not {format_cards(cards)!r}"
    )


@lru_cache(maxsize=65536)
def _strength_of_text(text: str) -> Strength:
    return strength(parse_cards(text))


def _as_strength(hand: str | Sequence[Card]) -> Strength:
    if isinstance(hand, str):
        return _strength_of_text(hand)
    return strength(hand)


def beats(first: Strength, second: Strength, special_235: Special235 = Special235.BEATS_AAA) -> int:
    """1 if ``first`` beats ``second``, -1 if it loses, 0 for equal hands."""
    if special_235 is not Special235.OFF:
        if first.special_235 and second.trips_rank and (
            second.trips_rank == 14 or special_235 is Special235.BEATS_ALL_TRIPS
        ):
            return 1
        if second.special_235 and first.trips_rank and (
            first.trips_rank == 14 or special_235 is Special235.BEATS_ALL_TRIPS
        ):
            return -1
    return (first.key > second.key) - (first.key < second.key)


def compare(
    first: str | Sequence[Card],
    second: str | Sequence[Card],
    special_235: Special235 | str = Special235.BEATS_AAA,
) -> int:
    """1 if the first hand beats the second, -1 if the second beats the first, 0 for a tie.

    A tie is never split at the table: whoever opened or compared first loses.

    >>> compare("AS KH QD", "AH KS QC")   # suits never break ties
    0
    >>> compare("2S 3H 5D", "AS AH AD", special_235="off")
    -1
    """
    return beats(_as_strength(first), _as_strength(second), Special235(special_235))


def hand_category(hand: str | Sequence[Card]) -> str:
    """One of :data:`CATEGORIES`. The special 235 is a ``"high_card"``."""
    return _as_strength(hand).category


def is_special_235(hand: str | Sequence[Card]) -> bool:
    """Whether a hand is the special 235 (a 2, 3 and 5 not all of one suit).

    >>> is_special_235("2S 3H 5S"), is_special_235("2S 3S 5S")
    (True, False)
    """
    return _as_strength(hand).special_235
