"""The card order of a 炒地皮 hand as data for the trick core (``spec/chaodipi.md`` §2, §4).

Trumps, weakest first: the trump suit's natural ranks (without the level rank and without 5♥),
the level cards of the other suits (equal to each other), the trump suit's level card, SJ, BJ,
5♥. No-trump: level cards (all equal), SJ, BJ, 5♥. Plain suits: 2 … A without the level rank
(hearts without 5♥). A flag hand (扛旗) has no level rank: only SJ, BJ and 5♥ are trump.

Tractors are lines of the :class:`~paiju.games.tricks.TrumpOrder`: a plain suit's ranks (the
level rank skipped or a gap, by variant; the 5♥ gap in plain hearts always a gap), once with
the A high and once with the A low; the trump suit's natural ranks with its level card at its
natural place and compared there; ``SJ SJ BJ BJ``. Nothing else connects.

>>> from paiju.cards import parse_cards
>>> from paiju.games.tricks import classify
>>> from paiju.games.chaodipi.variants import variant_rules
>>> order = chaodipi_order("7", "S", variant_rules("yangzhou"))
>>> [classify(parse_cards(c), order).kind for c in ("6C 6C 8C 8C", "6S 6S 7S 7S 8S 8S", "SJ SJ BJ BJ")]
['tractor', 'tractor', 'tractor']
>>> classify(parse_cards("6C 6C 8C 8C"), chaodipi_order("7", "S", variant_rules("nantong"))) is None
True
>>> s = order.strength
>>> s[parse_cards("5H")[0]] > s[parse_cards("BJ")[0]] > s[parse_cards("7S")[0]] > s[parse_cards("7D")[0]] > s[parse_cards("AS")[0]]
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from paiju.cards import ALL_CARDS, BIG_JOKER_CODE, SMALL_JOKER_CODE, Card, card_of
from paiju.games.chaodipi.variants import LEVEL_RANKS, VariantRules
from paiju.games.tricks import TRUMP, Line, TrumpOrder

SUITS = "SHCD"
RED_FIVE = card_of(5, "H")
SMALL_JOKER = ALL_CARDS[SMALL_JOKER_CODE]
BIG_JOKER = ALL_CARDS[BIG_JOKER_CODE]
TRUMP_SUITS = ("S", "H", "C", "D")

# Tractor keys of the trump lines: the trump suit's tractors by natural rank (A low is 1), the
# joker tractor above all of them.
_JOKER_KEYS = (98, 99)


def level_number(level: str | None) -> int | None:
    """The rank number (2..14) of a level rank ``"2"`` … ``"A"``; ``None`` stays ``None``."""
    if level is None:
        return None
    text = "T" if level == "10" else str(level).upper()
    if len(text) != 1 or text not in LEVEL_RANKS:
        raise ValueError(f"bad level rank {level!r}: one of 2 3 4 5 6 7 8 9 T J Q K A")
    return LEVEL_RANKS.index(text) + 2


def check_trump(trump: str | None) -> str | None:
    if trump is not None and trump not in TRUMP_SUITS:
        raise ValueError(f"a trump suit is one of S, H, C, D or None (no-trump), not {trump!r}")
    return trump


def chaodipi_order(level: str | None, trump: str | None, rules: VariantRules) -> TrumpOrder:
    """The order of a hand at ``level`` (``None``: a flag hand) with ``trump`` (``None``: no-trump)."""
    return _order(
        level_number(level),
        check_trump(trump),
        rules.plain_tractor_skips_level,
        rules.ace_high_tractor,
        rules.ace_low_tractor,
        rules.joker_tractor,
    )


@lru_cache(maxsize=512)
def _order(
    level: int | None,
    trump: str | None,
    skip_level: bool,
    ace_high: bool,
    ace_low: bool,
    joker_tractor: bool,
) -> TrumpOrder:
    trumps: list[list[Card]] = []
    if trump is not None:
        trumps += [
            [card_of(rank, trump)]
            for rank in range(2, 15)
            if rank != level and card_of(rank, trump) != RED_FIVE
        ]
    if level is not None:
        others = [
            card_of(level, suit)
            for suit in SUITS
            if suit != trump and card_of(level, suit) != RED_FIVE
        ]
        if others:
            trumps.append(others)
        if trump is not None and card_of(level, trump) != RED_FIVE:
            trumps.append([card_of(level, trump)])
    trumps += [[SMALL_JOKER], [BIG_JOKER], [RED_FIVE]]
    ranking: dict[str, list[list[Card]]] = {TRUMP: trumps}
    for suit in SUITS:
        if suit != trump:
            ranking[suit] = [
                [card_of(rank, suit)]
                for rank in range(2, 15)
                if rank != level and card_of(rank, suit) != RED_FIVE
            ]
    built = TrumpOrder.build(ranking)
    strength = built.strength
    lines: list[Line] = []
    for suit in SUITS:
        if suit == trump:
            continue
        for run in _runs(suit, level, skip_level, ace_high, ace_low, trump_suit=False):
            lines.append(
                Line(tuple(strength[card_of(14 if rank == 1 else rank, suit)] for rank in run))
            )
    if trump is not None:
        for run in _runs(trump, level, True, ace_high, ace_low, trump_suit=True):
            cards = [card_of(14 if rank == 1 else rank, trump) for rank in run]
            lines.append(Line(tuple(strength[card] for card in cards), keys=tuple(run)))
    if joker_tractor:
        lines.append(Line((strength[SMALL_JOKER], strength[BIG_JOKER]), keys=_JOKER_KEYS))
    return TrumpOrder.build(ranking, lines)


def _runs(
    suit: str, level: int | None, skip_level: bool, ace_high: bool, ace_low: bool, trump_suit: bool
) -> list[list[int]]:
    """The connected runs of natural ranks of a suit (A low written 1), each at least 2 long.

    In a plain suit the level rank is absent: skipped (joined over) or a gap; in the trump suit
    the level card keeps its place. 5♥ is never part of a run (红桃5对不能与其他对形成连对).
    """
    sequences: list[list[int]] = []
    if ace_high:
        sequences.append(list(range(2, 15)))
    if ace_low:
        sequences.append([1, *range(2, 14)])
    runs: list[list[int]] = []
    for sequence in sequences:
        current: list[int] = []
        for rank in sequence:
            natural = 14 if rank == 1 else rank
            if suit == "H" and natural == 5:
                gap = True  # Decision: the 5♥ gap is never skipped, even when 5 is the level rank.
            elif natural == level and not trump_suit:
                if skip_level:
                    continue
                gap = True
            else:
                gap = False
            if gap:
                if len(current) >= 2:
                    runs.append(current)
                current = []
                continue
            current.append(rank)
        if len(current) >= 2:
            runs.append(current)
    return runs


@dataclass(frozen=True, slots=True)
class FiveTenKing:
    """A 5-10-K (五十K): its suit, whether it is the trump one, whether it is of pairs."""

    suit: str
    trump: bool
    pairs: bool

    @property
    def size(self) -> int:
        return 6 if self.pairs else 3


def five_ten_king_of(
    cards: Sequence[Card], level: str | None, trump: str | None, rules: VariantRules
) -> FiveTenKing | None:
    """The 5-10-K that ``cards`` are exactly (a 5, a 10 and a K of a suit, or a pair of each),
    or ``None``. Decision (spec §4): none of them a level card; 5♥ for a plain hearts one only
    where the variant allows, always for trump hearts.

    >>> from paiju.cards import parse_cards
    >>> from paiju.games.chaodipi.variants import variant_rules
    >>> five_ten_king_of(parse_cards("5S TS KS"), "2", "S", variant_rules("yangzhou"))
    FiveTenKing(suit='S', trump=True, pairs=False)
    >>> five_ten_king_of(parse_cards("5H TH KH"), "2", "S", variant_rules("yangzhou")) is None
    True
    >>> five_ten_king_of(parse_cards("5H 5H TH TH KH KH"), "2", None, variant_rules("nantong"))
    FiveTenKing(suit='H', trump=False, pairs=True)
    """
    if len(cards) not in (3, 6):
        return None
    counts = Counter(cards)
    copies = len(cards) // 3
    if len(counts) != 3 or any(count != copies for count in counts.values()):
        return None
    suits = {card.suit for card in counts}
    if len(suits) != 1 or None in suits:
        return None
    suit = suits.pop()
    assert suit is not None
    if sorted(card.rank for card in counts) != [5, 10, 13]:
        return None
    number = level_number(level)
    if number in (5, 10, 13):
        return None
    if suit == "H" and trump != "H" and not rules.plain_hearts_five_ten_king:
        return None
    return FiveTenKing(suit, suit == trump, copies == 2)


_FIVE_TEN_KINGS = tuple((card_of(5, suit), card_of(10, suit), card_of(13, suit)) for suit in SUITS)


def held_five_ten_kings(
    hand: Sequence[Card], level: str | None, trump: str | None, rules: VariantRules, pairs: bool
) -> list[tuple[Card, ...]]:
    """The 5-10-Ks (of pairs, if ``pairs``) that ``hand`` could play, each in code order."""
    counts = Counter(hand)
    need = 2 if pairs else 1
    found = []
    for cards in _FIVE_TEN_KINGS:
        if counts[cards[0]] >= need and counts[cards[1]] >= need and counts[cards[2]] >= need:
            play = tuple(sorted(card for card in cards for _ in range(need)))
            if five_ten_king_of(play, level, trump, rules) is not None:
                found.append(play)
    return found
