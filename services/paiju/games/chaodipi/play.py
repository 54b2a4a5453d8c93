"""Leading, following and winning a 炒地皮 trick (``spec/chaodipi.md`` §4, §5), as pure functions.

A :class:`Context` is what judging needs: the hand's order, level rank, trump and rules. A lead
is one single, pair or tractor (``simple``), a 5-10-K (``five_ten_king``), or a throw: several
parts of one suit class (``throw``). Following is the trick core's structured rule, except
after a trump 5-10-K where a holder of the trump 5-10-K must play it and others their highest
trumps (where the variant says so).

>>> from paiju.cards import parse_cards
>>> from paiju.games.chaodipi.variants import variant_rules
>>> context = Context.of("2", "S", variant_rules("yangzhou"))
>>> winner(context, [parse_cards(p) for p in ("5C 4C 4C", "9S 7S 7S", "8S 8S 4S", "AC KC QC")])
2
>>> winner(context, [parse_cards(p) for p in ("7C 6C 5C", "9S 7S 7S", "8S 8S 4S", "AC KC QC")])
1
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb

from paiju.cards import Card
from paiju.games.chaodipi.order import (
    FiveTenKing,
    chaodipi_order,
    five_ten_king_of,
    held_five_ten_kings,
)
from paiju.games.chaodipi.scoring import POINTS
from paiju.games.chaodipi.variants import VariantRules
from paiju.games.tricks import (
    TRACTOR,
    TRUMP,
    Shape,
    Structure,
    TrumpOrder,
    beats,
    classify,
    follow_bases,
    is_legal_structured_follow,
    lead_plays,
    lowest,
    multiset_choices,
    structure_key,
    structure_of,
    structured_follows,
    tractors_in,
)
from paiju.games.tricks.lowest import DefaultKey

Play = tuple[Card, ...]

SIMPLE, FIVE_TEN_KING, THROW = "simple", "five_ten_king", "throw"

LIST_LIMIT = 400
"""At most this many follows are listed as legal actions (the judge accepts every legal one)."""


@dataclass(frozen=True, slots=True)
class Context:
    """The facts that judging a play needs. ``level`` is ``None`` in a flag hand."""

    order: TrumpOrder
    level: str | None
    trump: str | None
    rules: VariantRules

    @classmethod
    def of(cls, level: str | None, trump: str | None, rules: VariantRules) -> Context:
        return cls(chaodipi_order(level, trump, rules), level, trump, rules)


@dataclass(frozen=True, slots=True)
class Lead:
    """How a lead is read: its kind, the structure followers answer, its shape or 5-10-K."""

    kind: str
    structure: Structure
    shape: Shape | None = None
    five_ten_king: FiveTenKing | None = None


def read_lead(context: Context, cards: Sequence[Card]) -> Lead:
    """The reading of a lead; ``ValueError`` when the cards are no lead (mixed suit classes)."""
    if not cards:
        raise ValueError("a lead has cards")
    ftk = five_ten_king_of(cards, context.level, context.trump, context.rules)
    if ftk is not None:
        suit_class = TRUMP if ftk.trump else ftk.suit
        structure = (
            Structure(suit_class, (), 3, 0) if ftk.pairs else Structure(suit_class, (), 0, 3)
        )
        return Lead(FIVE_TEN_KING, structure, five_ten_king=ftk)
    order = context.order
    shape = classify(cards, order)
    if shape is not None:
        if shape.kind == TRACTOR:
            structure = Structure(shape.suit_class, (shape.pairs,), 0, 0)
        else:
            structure = Structure(shape.suit_class, (), shape.pairs, 1 - shape.pairs)
        return Lead(SIMPLE, structure, shape=shape)
    if order.class_of(cards) is None:
        raise ValueError("a lead is of one suit class (or a 5-10-K)")
    return Lead(THROW, structure_of(cards, order))


def winner(context: Context, plays: Sequence[Sequence[Card]]) -> int:
    """The index of the winning play (the first is the lead), plays judged as given."""
    if not plays:
        raise ValueError("a trick needs at least the lead")
    lead = read_lead(context, plays[0])
    order = context.order
    if lead.kind == FIVE_TEN_KING:
        assert lead.five_ten_king is not None
        if lead.five_ten_king.trump:
            return 0  # the trump 5-10-K is the top play; an equal one later loses
        for index in range(1, len(plays)):
            answer = five_ten_king_of(plays[index], context.level, context.trump, context.rules)
            if answer is not None and answer.trump and answer.pairs == lead.five_ten_king.pairs:
                return index
        return 0
    if lead.kind == SIMPLE:
        best = lead.shape
        assert best is not None
        won = 0
        for index in range(1, len(plays)):
            shape = classify(plays[index], order)
            if beats(shape, best):
                best, won = shape, index  # type: ignore[assignment]
        return won
    if lead.structure.suit_class == TRUMP:
        return 0  # a standing trump throw cannot be trumped
    won, best_key = 0, None
    for index in range(1, len(plays)):
        play = plays[index]
        trumping = len(play) == lead.structure.size and all(
            order.suit_class[card] == TRUMP for card in play
        )
        key = structure_key(play, lead.structure, order) if trumping else None
        if key is not None and (best_key is None or key > best_key):
            won, best_key = index, key
    return won


def _in_hand(hand: Sequence[Card], play: Sequence[Card]) -> bool:
    held = Counter(hand)
    return all(held[card] >= count for card, count in Counter(play).items())


def forced_by_trump_five_ten_king(
    context: Context, hand: Sequence[Card], lead: Lead
) -> list[Play] | None:
    """After a led trump 5-10-K (where it forces): every allowed play; ``None`` if no duty."""
    ftk = lead.five_ten_king
    if ftk is None or not ftk.trump or not context.rules.trump_five_ten_king_forces:
        return None
    size = ftk.size
    own = held_five_ten_kings(hand, context.level, context.trump, context.rules, ftk.pairs)
    own = [play for play in own if play[0].suit == context.trump]
    if own:
        return own
    order = context.order
    trumps = sorted(
        (card for card in hand if order.suit_class[card] == TRUMP), key=lambda c: -order.strength[c]
    )
    if len(trumps) <= size:
        rest = Counter(card for card in hand if order.suit_class[card] != TRUMP)
        return [
            tuple(sorted(trumps + list(extra)))
            for extra in multiset_choices(sorted(rest.items()), size - len(trumps))
        ]
    edge = order.strength[trumps[size - 1]]
    above = [card for card in trumps if order.strength[card] > edge]
    tied = [card for card in trumps if order.strength[card] == edge]
    plays = {
        tuple(sorted(above + list(chosen))) for chosen in combinations(tied, size - len(above))
    }
    return sorted(plays)


def is_legal_follow(
    context: Context, hand: Sequence[Card], lead_cards: Sequence[Card], play: Sequence[Card]
) -> bool:
    """Whether ``play`` from ``hand`` may follow ``lead_cards``."""
    lead = read_lead(context, lead_cards)
    if len(play) != lead.structure.size or not _in_hand(hand, play):
        return False
    forced = forced_by_trump_five_ten_king(context, hand, lead)
    if forced is not None:
        return tuple(sorted(play)) in forced
    return is_legal_structured_follow(hand, lead.structure, play, context.order)


def follows(
    context: Context,
    hand: Sequence[Card],
    lead_cards: Sequence[Card],
    limit: int | None = LIST_LIMIT,
) -> tuple[list[Play], bool]:
    """The legal follows (at most ``limit``), lowest first, and whether that is all of them."""
    if len(lead_cards) == 1:
        return _single_follows(context.order, hand, lead_cards[0]), True
    lead = read_lead(context, lead_cards)
    forced = forced_by_trump_five_ten_king(context, hand, lead)
    if forced is not None:
        complete = limit is None or len(forced) <= limit
        plays = forced if complete else forced[:limit]
    else:
        plays, complete = structured_follows(hand, lead.structure, context.order, limit)
    return sorted(plays, key=_default_keys(context.order)), complete


MOST_TIES_SEARCHED = 20_000
"""Completions compared card text by card text when many cards tie on points and strength
(beyond this, the weakest of the tied cards, then the lowest text, are taken one by one)."""


def lowest_follow(context: Context, hand: Sequence[Card], lead_cards: Sequence[Card]) -> Play:
    """The lowest legal follow by :func:`default_key` — the timeout's move — also when there
    are too many follows to list: each family of follows (:func:`follow_bases`: fixed cards
    and a free choice of the rest) gives its lowest directly."""
    plays, complete = follows(context, hand, lead_cards)
    if complete:
        return plays[0]
    lead = read_lead(context, lead_cards)
    forced = forced_by_trump_five_ten_king(context, hand, lead)
    key = _default_keys(context.order)
    if forced is not None:
        return min(forced, key=key)
    keys = _card_keys(context.order)
    return min(
        (
            _lowest_completion(base, extras, count, keys)
            for base, extras, count in follow_bases(hand, lead.structure, context.order)
        ),
        key=key,
    )


def _lowest_completion(
    base: Play, extras: Sequence[tuple[Card, int]], count: int, keys: Sequence[DefaultKey]
) -> Play:
    """``base`` with the ``count`` of ``extras`` that make the lowest play: the fewest points
    (every cheaper card, then the weakest of the boundary value), then the lowest text among
    the choices that tie on both."""
    pool = sorted((card for card, copies in extras for _ in range(copies)), key=keys.__getitem__)
    if count == 0:
        return tuple(sorted(base))
    boundary = keys[pool[count - 1]][0]
    taken = [card for card in pool if keys[card][0] < boundary]
    group = [card for card in pool if keys[card][0] == boundary]
    need = count - len(taken)
    ceiling = max([keys[card][1] for card in (*base, *taken, *group[:need])])
    eligible = Counter(card for card in group if keys[card][1] <= ceiling)
    fixed = (*base, *taken)
    if need and comb(sum(eligible.values()), need) > MOST_TIES_SEARCHED:
        return tuple(sorted((*fixed, *group[:need])))
    choices = multiset_choices(sorted(eligible.items()), need)
    return min((tuple(sorted((*fixed, *extra))) for extra in choices), key=lambda play: lowest.default_key(play, keys, POINTS))


def leads(context: Context, hand: Sequence[Card]) -> list[Play]:
    """The leads worth listing, lowest first: every single, pair, tractor and 5-10-K held.
    Throws are legal too but not listed (too many to name)."""
    plays = set(lead_plays(hand, context.order))
    for pairs in (False, True):
        plays.update(held_five_ten_kings(hand, context.level, context.trump, context.rules, pairs))
    return sorted(plays, key=_default_keys(context.order))


def throw_fails(context: Context, cards: Sequence[Card], others: Sequence[Sequence[Card]]) -> bool:
    """Whether a throw fails: some other hand (the partner's too) holds a strictly higher
    combination of the same shape as one of its parts, in its suit class."""
    from paiju.games.tricks import decompose

    order = context.order
    parts = decompose(cards, order)
    suit_class = parts[0].shape.suit_class
    held = [
        Counter(card for card in hand if order.suit_class[card] == suit_class) for hand in others
    ]
    for part in parts:
        shape = part.shape
        for counts in held:
            if shape.kind == "single":
                if any(order.strength[card] > shape.key for card in counts):
                    return True
            elif shape.kind == "pair":
                if any(
                    count >= 2 and order.strength[card] > shape.key
                    for card, count in counts.items()
                ):
                    return True
            else:
                for run in tractors_in(counts, order, suit_class, shape.pairs):
                    key = order.run_key([order.strength[card] for card in run])
                    if key is not None and key > shape.key:
                        return True
    return False


def lowest_card(context: Context, cards: Sequence[Card]) -> Card:
    """The single card a failed throw is forced to: the weakest attempted card."""
    return min(cards, key=lambda card: (context.order.strength[card], card))


def default_key(order: TrumpOrder, play: Sequence[Card]) -> DefaultKey:
    """The order of "lowest" plays (the timeout's default move is the first): Hunzhan §5's
    point value, then the strength of the highest card, then the card text (§8)."""
    return lowest.default_key(play, _card_keys(order), POINTS)


def _default_keys(order: TrumpOrder) -> Callable[[Sequence[Card]], DefaultKey]:
    keys = _card_keys(order)
    return lambda play: lowest.default_key(play, keys, POINTS)


@lru_cache(maxsize=512)
def _card_keys(order: TrumpOrder) -> tuple[DefaultKey, ...]:
    return lowest.card_keys(order, POINTS)


def _single_follows(order: TrumpOrder, hand: Sequence[Card], led: Card) -> list[Play]:
    """The follows of a single lead: any one card of the led class, or any card when void."""
    suit_class = order.suit_class[led]
    cards = {card for card in hand if order.suit_class[card] == suit_class} or set(hand)
    return [(card,) for card in sorted(cards, key=_card_keys(order).__getitem__)]
