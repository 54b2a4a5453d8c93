"""What a 混战 player may play: follow rules, then the two point rules (``spec/hunzhan.md`` §3).

>>> from paiju.cards import parse_cards, format_cards
>>> order = hunzhan_order("S")
>>> [format_cards(p) for p in allowed_plays(parse_cards("5H 9H KH"), [parse_cards("9C"), parse_cards("JC")], order)]
['9H']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache

from paiju.cards import Card, format_cards
from paiju.games.hunzhan.order import POINTS, hunzhan_order
from paiju.games.tricks import (
    PAIR,
    SINGLE,
    TRACTOR,
    TRUMP,
    Play,
    Shape,
    TrumpOrder,
    beats,
    classify,
    follow_plays,
    is_legal_follow,
    lead_plays,
    lowest,
    pair_cards,
    tractors_in,
    trick_winner,
)
from paiju.games.tricks.lowest import DefaultKey

__all__ = ["allowed_plays", "default_key", "hunzhan_order", "is_winning", "why_not_allowed"]


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
    keys = _card_keys(order)
    return sorted(plays, key=lambda play: lowest.default_key(play, keys, POINTS))


def why_not_allowed(
    hand: Sequence[Card], trick: Sequence[Sequence[Card]], play: Sequence[Card], order: TrumpOrder
) -> str | None:
    """``None`` if ``play`` is one of :func:`allowed_plays`, else the rule it breaks — judged
    directly, without listing the plays (a void follower may have thousands).

    A winning play that follows suit is always allowed; another is refused only when the
    trick holds points and a winning play exists (must take points), or when it holds points
    and a safe play exists (no feeding points). Both are questions of existence, answered
    from the shapes the hand holds.
    """
    play = tuple(sorted(play))
    if len(play) == 1 and trick and len(trick[0]) == 1 and play in _allowed_singles(hand, trick, order):
        return None  # listing a single lead's answers (held cards only) is cheaper than judging one
    held = Counter(hand)
    if not play or any(held[card] < count for card, count in Counter(play).items()):
        return f"you do not hold {format_cards(play)}"
    if not trick:
        if classify(play, order) is None:
            return f"{format_cards(play)} is not a single, a pair or a tractor"
        return None
    lead = trick[0]
    if not is_legal_follow(hand, lead, play, order):
        return f"{format_cards(play)} does not follow {format_cards(lead)}: follow suit, pairs and tractors"
    best = classify(trick[trick_winner(trick, order)], order)
    assert best is not None
    if _beats(play, best, order):
        return None
    lead_shape = classify(lead, order)
    assert lead_shape is not None
    if any(POINTS[card] for cards in trick for card in cards) and _winning_exists(held, lead_shape, best, order):
        return "the trick holds points and you can win it: you must take them (有分必须要管)"
    if any(POINTS[card] for card in play) and (
        _winning_exists(held, lead_shape, best, order) or _pointless_follow_exists(held, lead_shape, order)
    ):
        return f"{format_cards(play)} gives points away when you need not (不能主动贴分)"
    return None


def _winning_exists(held: Counter[Card], lead: Shape, best: Shape, order: TrumpOrder) -> bool:
    """Whether a play that follows ``lead`` from ``held`` beats ``best``. Such a play is one
    shape of one class: the led class when at least a lead's worth of it is held (following
    forces it), the trumps when the led class is void, nothing in between."""
    in_class = sum(count for card, count in held.items() if order.suit_class[card] == lead.suit_class)
    if 0 < in_class < lead.size:
        return False
    if lead.kind == SINGLE:
        cards = [card for card in held if in_class == 0 or order.suit_class[card] == lead.suit_class]
        return any(beats(classify((card,), order), best) for card in cards)
    suit_class = lead.suit_class if in_class else TRUMP
    if lead.kind == PAIR:
        candidates = [(card, card) for card in pair_cards(held, order, suit_class)]
    else:
        candidates = [
            tuple(card for card in run for _ in range(2))
            for run in tractors_in(held, order, suit_class, lead.pairs)
        ]
    return any(beats(classify(cards, order), best) for cards in candidates)


def _pointless_follow_exists(held: Counter[Card], lead: Shape, order: TrumpOrder) -> bool:
    """Whether some play that follows ``lead`` from ``held`` holds no point card: the rules of
    :func:`~paiju.games.tricks.is_legal_follow` asked of the pointless cards alone."""
    suit_class = lead.suit_class
    inside = Counter({card: n for card, n in held.items() if order.suit_class[card] == suit_class})
    quiet = Counter({card: n for card, n in inside.items() if not POINTS[card]})
    in_class, size = sum(inside.values()), lead.size
    if in_class < size:
        quiet_outside = sum(n for card, n in held.items() if order.suit_class[card] != suit_class and not POINTS[card])
        return quiet == inside and quiet_outside >= size - in_class
    if lead.kind == SINGLE:
        return bool(quiet)
    if lead.kind == TRACTOR and tractors_in(inside, order, suit_class, lead.pairs):
        return bool(tractors_in(quiet, order, suit_class, lead.pairs))
    pairs_needed = min(lead.pairs, len(pair_cards(inside, order, suit_class)))
    return len(pair_cards(quiet, order, suit_class)) >= pairs_needed and sum(quiet.values()) >= size


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
