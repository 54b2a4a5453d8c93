"""What a 混战 player may play: follow rules, then the two point rules (``spec/hunzhan.md`` §3).

>>> from paiju.cards import parse_cards, format_cards
>>> order = hunzhan_order("S")
>>> [format_cards(p) for p in allowed_plays(parse_cards("5H 9H KH"), [parse_cards("9C"), parse_cards("JC")], order)]
['9H']
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from paiju.cards import Card
from paiju.games.hunzhan.order import POINTS, hunzhan_order
from paiju.games.tricks import (
    TRUMP,
    Play,
    Shape,
    TrumpOrder,
    beats,
    classify,
    follow_plays,
    lead_plays,
    lowest,
    trick_winner,
)
from paiju.games.tricks.lowest import DefaultKey

__all__ = ["allowed_plays", "default_key", "hunzhan_order", "is_winning"]


def is_winning(play: Sequence[Card], trick: Sequence[Sequence[Card]], order: TrumpOrder) -> bool:
    """Whether ``play`` would beat the current winning play of ``trick`` (not empty)."""
    best = classify(trick[trick_winner(trick, order)], order)
    assert best is not None
    return beats(classify(play, order), best)


def allowed_plays(hand: Sequence[Card], trick: Sequence[Sequence[Card]], order: TrumpOrder) -> list[Play]:
    """Every distinct play allowed now, lowest first (:func:`default_key`).

    The leader (``trick`` empty) may play any single, pair or tractor; the point rules do not
    bind it. A follower follows suit, then: **must take points** — if the trick holds a point
    card and a winning play is allowed, only winning plays are; **no feeding points** — then, if
    a *safe* play (winning, or holding no point card) is allowed, only safe plays are.
    """
    if not trick:
        plays = lead_plays(hand, order)
    elif len(trick[0]) == 1:
        return _allowed_singles(hand, trick, order)
    else:
        plays = follow_plays(hand, trick[0], order)
        best = classify(trick[trick_winner(trick, order)], order)
        assert best is not None
        winning = {play for play in plays if _beats(play, best, order)}
        trick_has_points = any(POINTS[card] for cards in trick for card in cards)
        if trick_has_points and winning:
            plays = [play for play in plays if play in winning]
        else:
            safe = [play for play in plays if play in winning or not any(POINTS[card] for card in play)]
            plays = safe or plays
    return sorted(plays, key=lambda play: default_key(play, order))


def _allowed_singles(hand: Sequence[Card], trick: Sequence[Sequence[Card]], order: TrumpOrder) -> list[Play]:
    """:func:`allowed_plays` after a single lead: the same rules, without building shapes."""
    suit_class, strength = order.suit_class, order.strength
    led = suit_class[trick[0][0]]
    best_card = trick[0][0]
    for (card,) in trick[1:]:
        card_class = suit_class[card]
        best_class = suit_class[best_card]
        if card_class == best_class:
            if strength[card] > strength[best_card]:
                best_card = card
        elif card_class == TRUMP:
            best_card = card
    best_class, best_strength = suit_class[best_card], strength[best_card]
    cards = sorted({card for card in hand if suit_class[card] == led}) or sorted(set(hand))
    winning = [
        card
        for card in cards
        if (strength[card] > best_strength if suit_class[card] == best_class else suit_class[card] == TRUMP)
    ]
    if winning and any(POINTS[card] for (card,) in trick):
        chosen = winning
    else:
        chosen = [card for card in cards if card in winning or not POINTS[card]] or cards
    chosen.sort(key=_card_keys(order).__getitem__)
    return [(card,) for card in chosen]


def default_key(play: Play, order: TrumpOrder) -> DefaultKey:
    """The order of the timeout's default move: point value, then the strength of the
    highest card, then the card text (spec §5 **Decision**, :mod:`~paiju.games.tricks.lowest`)."""
    return lowest.default_key(play, _card_keys(order), POINTS)


@cache
def _card_keys(order: TrumpOrder) -> tuple[DefaultKey, ...]:
    """Per card code: its :func:`default_key` as a single (orders live for the process)."""
    return lowest.card_keys(order, POINTS)


def _beats(play: Play, best: Shape, order: TrumpOrder) -> bool:
    """:func:`~paiju.games.tricks.beats` with a fast path for singles and pairs."""
    if best.pairs < 2:
        if len(play) != best.size or (best.pairs == 1 and play[0] != play[1]):
            return False
        card = play[0]
        suit_class = order.suit_class[card]
        if suit_class == best.suit_class:
            return order.strength[card] > best.key
        return suit_class == TRUMP
    return beats(classify(play, order), best)
