"""炸金花 ranking: the spec's examples, all 22,100 hands, and comparison properties."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paiju.cards import format_cards, parse_cards, standard_deck
from paiju.games import zhajinhua
from paiju.games.zhajinhua import Special235, compare, hand_category, is_special_235

ALL_HANDS = [format_cards(hand) for hand in combinations(standard_deck(), 3)]
hands = st.sampled_from(ALL_HANDS)
options = st.sampled_from(list(Special235))


def test_there_are_22100_hands_in_the_expected_categories():
    counts = Counter(hand_category(hand) for hand in ALL_HANDS)
    assert len(ALL_HANDS) == 22_100
    # A23 is no run, so 11 runs (432 … AKQ): 44 straight flushes, 11 × 60 straights.
    assert counts == {
        "trips": 52,
        "straight_flush": 44,
        "flush": 4 * 286 - 44,
        "straight": 660,
        "pair": 13 * 6 * 48,
        "high_card": 16_500,
    }
    assert sum(is_special_235(hand) for hand in ALL_HANDS) == 60


@pytest.mark.parametrize(
    "hand, category",
    [
        ("AS AH AD", "trips"),
        ("AS KS QS", "straight_flush"),
        ("4D 3D 2D", "straight_flush"),
        ("AS 2S 3S", "flush"),  # A23 is no run, even suited
        ("AS 2H 3D", "high_card"),
        ("QS KH AD", "straight"),
        ("9C 9D 2S", "pair"),
        ("2S 3H 5D", "high_card"),  # the special 235 is a high card against all but AAA
        ("2S 3S 5S", "flush"),
    ],
)
def test_spec_categories(hand, category):
    assert hand_category(hand) == category


GOLDEN = [
    # (first, second, result) — from spec/zhajinhua.md §1
    ("2S 3H 5D", "AS AH AD", 1),  # 235 > 3条A
    ("2S 3H 5D", "KS KH KD", -1),  # 小于其他豹子
    ("2S 3H 5D", "2C 2H 2D", -1),
    ("2S 3H 5D", "4S 2H 3D", -1),  # the lowest high card there is … loses to a straight
    ("2S 3H 5D", "2H 3D 6C", -1),  # … and to the next high card up
    ("2S 3S 5S", "AS AH AD", -1),  # a suited 235 is a flush, no special
    ("AS KH QD", "KS QH JD", 1),  # AKQ is the top straight
    ("4S 3H 2D", "AS KH JD", 1),  # the lowest straight beats any high card
    ("AS 2H 3D", "KS QH JD", -1),  # A23 is A-3-2 high card, not a straight
    ("KS KH 2D", "KC KD AS", -1),  # pair: then the kicker
    ("QS QH AD", "KS KC 2D", -1),  # pair rank before kicker
    ("AS KS 9S", "AH KH 8H", 1),  # flush: highest card, then second, then third
    ("AS KH QD", "AH KS QC", 0),  # suits never break ties
    ("AS AH AD", "KS QS JS", 1),
    ("KS QS JS", "AS KS QH", 1),  # straight flush over straight
    ("JS 8S 3S", "AS KH QD", 1),  # flush over straight
    ("2S 2H 3D", "AS KH JD", 1),  # pair over high card
]


@pytest.mark.parametrize("first, second, result", GOLDEN)
def test_golden_comparisons(first, second, result):
    assert compare(first, second) == result
    assert compare(second, first) == -result


def test_special_235_rule_options():
    assert compare("2S 3H 5D", "AS AH AD", special_235="beats_aaa") == 1
    assert compare("2S 3H 5D", "KS KH KD", special_235="beats_aaa") == -1
    assert compare("2S 3H 5D", "KS KH KD", special_235="beats_all_trips") == 1
    assert compare("2S 3H 5D", "AS AH AD", special_235="off") == -1
    assert compare("2S 3H 5D", "AS KS QS", special_235="beats_all_trips") == -1


@given(hands, hands, options)
def test_compare_is_antisymmetric(first, second, option):
    assert compare(first, second, option) == -compare(second, first, option)


@given(hands, hands, hands)
def test_compare_is_transitive_without_the_special_235(a, b, c):
    if compare(a, b, "off") >= 0 and compare(b, c, "off") >= 0:
        assert compare(a, c, "off") >= 0


@given(hands)
def test_a_hand_ties_itself_and_its_suit_relabelling(hand):
    relabel = str.maketrans("SHCD", "HCDS")
    assert compare(hand, hand) == 0
    assert compare(hand, hand.translate(relabel)) == 0


def test_the_order_without_special_235_sorts_every_hand_consistently():
    from functools import cmp_to_key

    ordered = sorted(ALL_HANDS, key=cmp_to_key(lambda a, b: compare(a, b, "off")))
    for lower, higher in pairwise(ordered):
        assert compare(lower, higher, "off") <= 0
    assert hand_category(ordered[-1]) == "trips" and ordered[-1].startswith("A")
    # Equal-strength classes: hands with the same ranks and the same category.
    classes = {(hand_category(h), tuple(sorted(c.rank for c in parse_cards(h)))) for h in ALL_HANDS}
    distinct = 1 + sum(compare(a, b, "off") != 0 for a, b in pairwise(ordered))
    assert distinct == len(classes)


@pytest.mark.parametrize("bad", ["AS AS AH", "AS KS", "AS KS QS JS", "AS KS BJ", "AS KS 1S", ""])
def test_a_bad_hand_is_refused_with_a_reason(bad):
    with pytest.raises(ValueError):
        compare(bad, "AS KH QD")


def test_rooms_ante_and_levels():
    assert zhajinhua.ante_for(min_coins=15_000) == 100
    assert [zhajinhua.ante_for(c) for c in (1_010, 10_099, 10_100, 100_999, 101_000, 1_009_999,
                                             1_010_000, 10_099_999, 10_100_000)] == [
        10, 10, 100, 100, 1_000, 1_000, 10_000, 10_000, 100_000]
    with pytest.raises(ValueError, match="1,010"):
        zhajinhua.ante_for(1_009)
    assert zhajinhua.level_for(coins=1_700_000) == (15, "副总裁")
    assert zhajinhua.level_for(1_638_399) == (14, "总裁助理")
    assert zhajinhua.level_for(6_710_886_400) == (27, "全球首富")
    assert len(zhajinhua.LEVEL_TITLES) == 27
    assert zhajinhua.Room.FREE.tier.min_coins == 1_010 and zhajinhua.Room.EXPERT.tier.base_ante == 100
    with pytest.raises(ValueError):
        zhajinhua.level_for(-1)
