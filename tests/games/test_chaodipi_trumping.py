"""炒地皮: trumping a plain throw, judged as one split of the trumping play's cards into the lead's
parts (``spec/chaodipi.md`` §5, one card, one part), checked against a brute-force search."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from paiju.cards import Card, format_cards
from paiju.games import chaodipi
from paiju.games.chaodipi import variant_rules
from paiju.games.chaodipi.play import THROW, Context, read_lead, winner
from paiju.games.tricks import PAIR, TRACTOR, TRUMP, Structure, TrumpOrder, classify
from tests.volume import volume

VARIANTS = ["yancheng", "yangzhou", "yangzhong", "nantong"]


def trick_winner(level: str, trump: str | None, plays: list[str], variant: str) -> int:
    return chaodipi.trick_winner(level=level, trump=trump, plays=plays, variant=variant)


# --- the Decision's examples ------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_bug_four_trump_pairs_stood_whole_for_the_led_tractor_and_also_answered_the_led_pairs(
    variant: str,
) -> None:
    # TH..KH is four pairs in a line, but the lead's two pairs need two of them: the tractor
    # answering the led tractor is only QH QH KH KH, so the jokers' tractor wins.
    lead = "8C 8C 9C 9C 3C 3C QC QC TC"
    four_pairs, jokers = "TH TH JH JH QH QH KH KH 5H", "SJ SJ BJ BJ AH AH 4H 4H 7D"
    discard = "2D 3D 4D 5D 6D 8D 9D JD KD"
    assert trick_winner("7", "H", [lead, four_pairs, jokers, discard], variant) == 2
    assert trick_winner("7", "H", [lead, jokers, four_pairs, discard], variant) == 1
    assert trick_winner("7", "H", [lead, discard, four_pairs, jokers], variant) == 3


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_longer_trump_tractor_takes_the_singles_places_and_beats_a_shorter_one(variant: str) -> None:
    lead, longer, shorter = "3C 3C 4C 4C 9C JC", "2S 2S 3S 3S 4S 4S", "KS KS AS AS 5S 6S"
    assert trick_winner("7", "S", [lead, longer, shorter, "2D 3D 4D 6D 8D 9D"], variant) == 1
    assert trick_winner("7", "S", [lead, shorter, longer, "2D 3D 4D 6D 8D 9D"], variant) == 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_equal_over_trumps_the_first_played_wins(variant: str) -> None:
    assert trick_winner("2", "S", ["AC KC", "3S 4S", "3S 4S", "5D 6D"], variant) == 1
    # The same against pairs and against a tractor with a pair: equal answers, the first wins.
    assert trick_winner("2", "S", ["AC AC KC", "3S 3S 4S", "3S 3S 4S", "5D 6D 7D"], variant) == 1
    lead, trumps = "9C 9C TC TC 4C 4C", "5S 5S 6S 6S 8S 8S"
    assert trick_winner("2", "S", [lead, trumps, trumps, "5D 6D 7D 8D 9D TD"], variant) == 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_trumping_play_whose_tractor_would_need_a_led_pairs_pair_is_a_discard(variant: str) -> None:
    # A led tractor of two and two led pairs need four pairs; three pairs in a line are not enough.
    lead = "8C 8C 9C 9C 3C 3C QC QC"
    assert trick_winner("7", "H", [lead, "TH TH JH JH QH QH 4H 6H", "2D 3D 4D 5D 6D 8D 9D JD"], variant) == 0


# --- the property: the judge against every split ------------------------------------------------


def _pair_subsets(counts: Counter[Card]) -> Iterator[tuple[Card, ...]]:
    """Every set of distinct cards held twice or more: the pair cards a tractor or pair may take."""
    doubled = sorted(card for card, count in counts.items() if count >= 2)
    for size in range(1, len(doubled) + 1):
        yield from combinations(doubled, size)


def _splits(counts: Counter[Card], parts: Sequence[int], order: TrumpOrder) -> Iterator[list[tuple[int, int]]]:
    """Every split of ``counts`` into ``parts`` (a tractor of at least that many pairs, or a pair
    for 1), the rest singles, as each part's (pairs, key)."""
    if not parts:
        yield []
        return
    wanted = parts[0]
    for chosen in _pair_subsets(counts):
        cards = [card for card in chosen for _ in range(2)]
        shape = classify(cards, order)
        if shape is None or shape.kind not in (PAIR, TRACTOR) or shape.pairs < wanted:
            continue
        if wanted == 1 and shape.kind != PAIR:
            continue
        rest = Counter(counts)
        for card in chosen:
            rest[card] -= 2
        for more in _splits(rest, parts[1:], order):
            yield [(shape.pairs, shape.key), *more]


def brute_force_key(play: Sequence[Card], lead: Structure, order: TrumpOrder) -> tuple[int, int] | None:
    """The key of a trumping play's best split found by trying every split, ``None`` if none."""
    if len(play) != lead.size or any(order.suit_class[card] != TRUMP for card in play):
        return None
    counts = Counter(play)
    parts = [*lead.tractors, *[1] * lead.pairs]
    keys: list[tuple[int, int]] = []
    for split in _splits(counts, parts, order):
        if lead.tractors:
            keys.append(split[0])
        elif lead.pairs:
            keys.append((0, max(key for _, key in split)))
        else:
            keys.append((0, max(order.strength[card] for card in play)))
    return max(keys) if keys else None


def brute_force_winner(context: Context, plays: Sequence[Sequence[Card]]) -> int:
    lead = read_lead(context, plays[0]).structure
    won, best = 0, None
    for index, play in enumerate(plays[1:], start=1):
        key = brute_force_key(play, lead, context.order)
        if key is not None and (best is None or key > best):
            won, best = index, key
    return won


CONTEXTS = [
    Context.of(level, trump, variant_rules(variant))
    for variant in VARIANTS
    for level, trump in (("2", "S"), ("7", "H"), ("5", None), ("T", "C"), ("A", "D"))
]


def _groups(order: TrumpOrder, suit_class: str) -> list[list[Card]]:
    """The cards of ``suit_class`` by strength, weakest first, equal cards together."""
    values = sorted({order.strength[card] for card in range(54) if order.suit_class[card] == suit_class})
    return [[Card(card) for card in order.cards_of_strength[value]] for value in values]


@st.composite
def pairs_and_singles(draw: st.DrawFn, groups: list[list[Card]], pairs: int, singles: int) -> list[Card]:
    """``pairs`` pairs from a window of neighbouring groups (so lines often form) and
    ``singles`` other cards of the class, never more than two of one card."""
    # A no-trump hand has six trump cards in four groups: not every size of play can be made.
    assume(pairs + singles <= sum(len(group) for group in groups))
    width = min(len(groups), pairs + draw(st.integers(0, 3)))
    while sum(len(group) for group in groups[:width]) < pairs:
        width += 1
    start = draw(st.integers(0, len(groups) - width))
    window = [card for group in groups[start : start + width] for card in group]
    chosen = draw(st.lists(st.sampled_from(window), min_size=pairs, max_size=pairs, unique=True))
    left = [card for group in groups for card in group if card not in chosen]
    extra = draw(st.lists(st.sampled_from(left), min_size=singles, max_size=singles, unique=True))
    return sorted([card for card in chosen for _ in range(2)] + extra)


@st.composite
def trumped_throws(draw: st.DrawFn) -> tuple[Context, list[list[Card]]]:
    context = draw(st.sampled_from(CONTEXTS))
    order = context.order
    plain = sorted({order.suit_class[card] for card in range(54)} - {TRUMP, None})
    suit_class = draw(st.sampled_from(plain))
    led_pairs = draw(st.integers(2, 4))
    lead = draw(pairs_and_singles(_groups(order, suit_class), led_pairs, draw(st.integers(0, 3))))
    trumps = _groups(order, TRUMP)
    plays = [lead]
    for _ in range(3):
        pairs = draw(st.integers(led_pairs - 1, len(lead) // 2))
        plays.append(draw(pairs_and_singles(trumps, pairs, len(lead) - 2 * pairs)))
    return context, plays


@settings(max_examples=volume(suite=400, soak=5000), deadline=None)
@given(trumped_throws())
def test_the_judge_agrees_with_every_split_of_a_trumped_throw(deal: tuple[Context, list[list[Card]]]) -> None:
    context, plays = deal
    lead = read_lead(context, plays[0])
    assume(lead.kind == THROW)  # a single pair or tractor is answered by shape, not by a split
    expected = brute_force_winner(context, plays)
    assert winner(context, plays) == expected, [format_cards(play) for play in plays]
    # Whoever plays first among the trumping plays, the strongest split still wins.
    swapped = [plays[0], plays[2], plays[1], plays[3]]
    assert winner(context, swapped) == brute_force_winner(context, swapped)
