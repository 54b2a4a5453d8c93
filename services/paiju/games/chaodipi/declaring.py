"""What a declaration shows and what it makes trump (``spec/chaodipi.md`` §3).

A single level card (亮主) makes its suit trump; a pair of level cards of a suit likewise; a
pair of SJ or of BJ makes the hand no-trump; a 红5对 (both 5♥) lets its holder name a suit or
no-trump; 回头望 is the pair of a single its holder showed earlier, shown after being
overridden. Decision: at level 5 a 5♥ is the 红5, not a level card: it declares nothing alone,
and its pair is a 红5对 (there is no hearts pair).

>>> from paiju.cards import parse_cards
>>> read_declaration(parse_cards("7S"), "7")
('single', 'S')
>>> read_declaration(parse_cards("BJ BJ"), "7"), read_declaration(parse_cards("5H 5H"), "5")
(('big_joker_pair', None), ('red_five_pair', None))
>>> read_declaration(parse_cards("7S 7H"), "7") is None
True
>>> kitty_trump(parse_cards("3C 5H 7D 7S BJ 2C 2C 9D"), "7"), kitty_trump(parse_cards("BJ 7D"), "7")
('D', None)
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.cards import Card
from paiju.games.chaodipi.order import RED_FIVE, level_number
from paiju.games.chaodipi.variants import Declaration

SUIT_PAIRS = {
    "S": Declaration.SPADES_PAIR,
    "H": Declaration.HEARTS_PAIR,
    "C": Declaration.CLUBS_PAIR,
    "D": Declaration.DIAMONDS_PAIR,
}


def read_declaration(cards: Sequence[Card], level: str) -> tuple[str, str | None] | None:
    """``(kind, trump)`` of a declaration by its cards (look-back aside), ``None`` if none.

    ``trump`` is the suit, or ``None`` for no-trump and for a 红5对 (its holder names it).
    """
    number = level_number(level)
    if len(cards) == 1:
        card = cards[0]
        if card.rank == number and card != RED_FIVE:
            return (str(Declaration.SINGLE), card.suit)
        return None
    if len(cards) != 2 or cards[0] != cards[1]:
        return None
    card = cards[0]
    if card == RED_FIVE:
        return (str(Declaration.RED_FIVE_PAIR), None)
    if card.is_joker:
        kind = Declaration.BIG_JOKER_PAIR if card.rank == 16 else Declaration.SMALL_JOKER_PAIR
        return (str(kind), None)
    if card.rank == number:
        assert card.suit is not None
        return (str(SUIT_PAIRS[card.suit]), card.suit)
    return None


def kitty_trump(kitty: Sequence[Card], level: str) -> str | None:
    """Nobody declared: the kitty turned up in order; the first level card (5♥ skipped) names
    the trump suit; a joker first, or no level card, makes the hand no-trump."""
    number = level_number(level)
    for card in kitty:
        if card.is_joker:
            return None
        if card.rank == number and card != RED_FIVE:
            return card.suit
    return None


def declaration_options(hand: Sequence[Card], level: str) -> list[tuple[Card, ...]]:
    """Every distinct declaration's cards ``hand`` could show (look-back aside), in code order."""
    number = level_number(level)
    held = sorted(set(hand))
    options: list[tuple[Card, ...]] = []
    for card in held:
        if card.rank == number and card != RED_FIVE:
            options.append((card,))
    for card in held:
        if hand.count(card) >= 2 and read_declaration((card, card), level) is not None:
            options.append((card, card))
    return options
