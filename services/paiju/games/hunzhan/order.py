"""混战 card order, point cards and declarations (``spec/hunzhan.md`` §1, §2, §4).

>>> from paiju.cards import parse_cards
>>> order = hunzhan_order("S")
>>> [order.suit_class[c] for c in parse_cards("TH 2D AS AH")]
['T', 'T', 'T', 'H']
>>> s = order.strength
>>> s[parse_cards("TH")[0]] == s[parse_cards("TC")[0]] < s[parse_cards("TS")[0]]
True
>>> nt = hunzhan_order(None)
>>> nt.strength[parse_cards("2S")[0]] > nt.strength[parse_cards("2H")[0]]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from paiju.cards import (
    ALL_CARDS,
    BIG_JOKER_CODE,
    SMALL_JOKER_CODE,
    Card,
    card_of,
    format_cards,
    parse_cards,
)
from paiju.games.tricks import TRUMP, TrumpOrder

SUITS = "SHCD"
"""Suits from strongest to weakest where suits are ordered (no-trump: 黑、红、梅、方)."""
PLAIN_RANKS = (5, 7, 8, 9, 11, 12, 13, 14)
"""Ranks of a plain suit, weakest first: 3, 4, 6 are not in the deck; 2 and 10 are trumps."""

SMALL_JOKER = ALL_CARDS[SMALL_JOKER_CODE]
BIG_JOKER = ALL_CARDS[BIG_JOKER_CODE]

POINTS: tuple[int, ...] = tuple(
    5 if card.rank == 5 else 10 if card.rank in (10, 13) or card.is_joker else 0 for card in ALL_CARDS
)
"""Points of each card code: 5 = 5; 10, K and each joker = 10. 240 in the deck."""

TOTAL_POINTS = 240
BASE_POINTS = 60
"""A player's result is their points less this (four players, 240 points: results sum to 0)."""


def points_of(cards: Sequence[Card]) -> int:
    """The points in some cards.

    >>> points_of(parse_cards("5H TD KS BJ 9C"))
    35
    """
    return sum(POINTS[card] for card in cards)


@cache
def hunzhan_order(trump: str | None) -> TrumpOrder:
    """The order of a hand whose trump suit is ``trump`` (``None``: no-trump, 无主)."""
    if trump is not None and trump not in SUITS:
        raise ValueError(f"a trump suit is one of S, H, C, D or None, not {trump!r}")
    plain = {
        suit: [[card_of(rank, suit)] for rank in PLAIN_RANKS] for suit in SUITS if suit != trump
    }
    trumps: list[list[Card]]
    if trump is None:
        # 无主: 2s below 10s, each suit its own level ♠ > ♥ > ♣ > ♦.
        trumps = [[card_of(rank, suit)] for rank in (2, 10) for suit in reversed(SUITS)]
    else:
        others = [suit for suit in SUITS if suit != trump]
        trumps = [[card_of(rank, trump)] for rank in PLAIN_RANKS]
        trumps += [
            [card_of(2, suit) for suit in others],  # the other 2s, all equal
            [card_of(2, trump)],
            [card_of(10, suit) for suit in others],  # the other 10s, all equal
            [card_of(10, trump)],
        ]
    trumps += [[SMALL_JOKER], [BIG_JOKER]]
    return TrumpOrder.build({TRUMP: trumps, **plain})


# --- declarations (叫主) ---------------------------------------------------------------------

DECLARATIONS: tuple[str, ...] = ("TD", "TC", "TH", "TS", "SJ SJ", "BJ BJ")
"""Every declaration, weakest first: a single 10 names its suit; a joker pair is no-trump."""


def declaration_rank(cards: Sequence[Card]) -> int | None:
    """How strong a declaration is (0 = 10♦ … 5 = BJ BJ); ``None`` if the cards are none.

    >>> declaration_rank(parse_cards("BJ BJ")), declaration_rank(parse_cards("TS"))
    (5, 3)
    >>> declaration_rank(parse_cards("BJ SJ")) is None
    True
    """
    text = format_cards(sorted(cards))
    return DECLARATIONS.index(text) if text in DECLARATIONS else None


def declared_trump(cards: Sequence[Card]) -> str | None:
    """The trump suit a valid declaration sets; ``None`` for jokers (no-trump)."""
    first = cards[0]
    return None if first.is_joker else first.suit


def declaration_cards(rank: int) -> list[Card]:
    return parse_cards(DECLARATIONS[rank])
