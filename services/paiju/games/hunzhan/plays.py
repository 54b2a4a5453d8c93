"""What a 混战 player may play: follow rules, then the two point rules (``spec/hunzhan.md`` §3).

>>> from paiju.cards import parse_cards, format_cards
>>> order = hunzhan_order("S")
>>> [format_cards(p) for p in allowed_plays(parse_cards("5H 9H KH"), [parse_cards("9C"), parse_cards("JC")], order)]
['9H']
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.cards import Card, format_cards
from paiju.games.hunzhan.order import POINTS, hunzhan_order
from paiju.games.tricks import Play, TrumpOrder, beats, classify, follow_plays, lead_plays, trick_winner

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
    else:
        plays = follow_plays(hand, trick[0], order)
        best = classify(trick[trick_winner(trick, order)], order)
        assert best is not None
        winning = {play for play in plays if beats(classify(play, order), best)}
        trick_has_points = any(POINTS[card] for cards in trick for card in cards)
        if trick_has_points and winning:
            plays = [play for play in plays if play in winning]
        else:
            safe = [play for play in plays if play in winning or not any(POINTS[card] for card in play)]
            plays = safe or plays
    return sorted(plays, key=lambda play: default_key(play, order))


def default_key(play: Play, order: TrumpOrder) -> tuple[int, int, str]:
    """The order of the timeout's default move: point value, then the strength of the
    highest card, then the card text (spec §5 **Decision**)."""
    return (
        sum(POINTS[card] for card in play),
        max(order.strength[card] for card in play),
        format_cards(play),
    )
