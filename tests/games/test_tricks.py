"""The trick-taking core, named after its hard cases; Hunzhan's order supplies the trumps."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.cards import double_deck_without_346, format_cards, parse_cards
from paiju.games.hunzhan import hunzhan_order
from paiju.games.tricks import (
    TRACTOR,
    TRUMP,
    Line,
    TrumpOrder,
    classify,
    decompose,
    follow_plays,
    is_legal_follow,
    lead_plays,
    multiset_choices,
    tractors_in,
    trick_winner,
)
from tests.volume import volume

SPADES = hunzhan_order("S")
NO_TRUMP = hunzhan_order(None)


def shape_of(text: str, order: TrumpOrder = SPADES):
    return classify(parse_cards(text), order)


def winner(plays: list[str], order: TrumpOrder = SPADES) -> int:
    return trick_winner([parse_cards(play) for play in plays], order)


def follows(hand: str, lead: str, order: TrumpOrder = SPADES) -> list[str]:
    return sorted(format_cards(play) for play in follow_plays(parse_cards(hand), parse_cards(lead), order))


# --- shapes -------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "cards",
    [
        "9H 9H JH JH",  # the 10 is a trump, so J sits right above 9
        "7H 7H 8H 8H 9H 9H",
        "5C 5C 7C 7C",  # no 6 in the deck
        "AS AS 2H 2H",  # trump A and a pair of other-suit 2s
        "BJ BJ SJ SJ",  # 大小王可以连
        "2H 2H 2S 2S",  # other 2s, then the trump-suit 2
        "2S 2S TD TD TS TS",
        "KS KS AS AS 2C 2C 2S 2S",
    ],
)
def test_tractors_of_the_spec(cards):
    shape = shape_of(cards)
    assert shape is not None and shape.kind == TRACTOR and shape.pairs == len(cards.split()) // 2


def test_equal_strength_pairs_are_not_consecutive():
    assert shape_of("2H 2H 2C 2C") is None  # two pairs of "other 2s": one level
    assert shape_of("TH TH TD TD") is None
    assert shape_of("2H 2H TH TH") is None  # 2♠ sits between
    # In no-trump each suit is its own level, so the same cards connect.
    assert shape_of("2D 2D 2C 2C", NO_TRUMP).kind == TRACTOR
    assert shape_of("2S 2S TD TD", NO_TRUMP).kind == TRACTOR


@pytest.mark.parametrize("cards", ["JH QH KH AH", "AH AH KH", "9H 9H 9C 9C", "5H 5H 8H 8H", "SJ BJ", "AS AS BJ BJ"])
def test_not_plays(cards):
    assert shape_of(cards) is None


def test_a_tractor_is_compared_by_its_top_pair():
    low = shape_of("7H 7H 8H 8H")
    high = shape_of("8H 8H 9H 9H")
    assert high.key > low.key and shape_of("AS AS 2C 2C").key == shape_of("2D 2D").key


def test_throws_split_longest_tractors_first():
    parts = decompose(parse_cards("AH AH KH KH QH QH 9H 9H 7H 5H 5H"), SPADES)
    assert [str(part) for part in parts] == ["tractor QH QH KH KH AH AH", "pair 9H 9H", "pair 5H 5H", "single 7H"]
    with pytest.raises(ValueError, match="mixes suit classes"):
        decompose(parse_cards("AH AC"), SPADES)


def test_lines_express_permanent_trumps_and_skipped_ranks():
    # A Chao Di Pi-like order: level 7 skipped in plain hearts (66 88 connect), 5♥ on top of the
    # trumps but in no line, and an ace that may be low in a second line.
    h = {rank: parse_cards(rank + "H") for rank in "2345689TJQKA"}
    ranking = {"H": [h[r] for r in "2345689TJQKA"], TRUMP: [parse_cards("7S 7C 7D"), parse_cards("BJ"), parse_cards("5S")]}
    base = TrumpOrder.build(ranking)
    hearts = base.lines[0].strengths
    order = TrumpOrder.build(
        ranking,
        lines=[Line(hearts), Line((hearts[-1],) + hearts[:-1], keys=(0,) + hearts[:-1]), Line(base.lines[1].strengths[:2])],
    )
    assert classify(parse_cards("6H 6H 8H 8H"), order).kind == TRACTOR
    assert classify(parse_cards("AH AH 2H 2H"), order).key == order.strength[parse_cards("2H")[0]]
    assert classify(parse_cards("KH KH AH AH 2H 2H"), order) is None  # A high or low, never both
    assert classify(parse_cards("BJ BJ 5S 5S"), order) is None  # not in one line
    assert classify(parse_cards("7S 7S BJ BJ"), order).kind == TRACTOR


# --- following ----------------------------------------------------------------------------------

def test_a_followers_cards_that_parse_several_ways():
    hand = "5H 5H 7H 7H 8H 8H 9H 9H 8C"
    assert follows(hand, "QH QH KH KH AH AH") == ["5H 5H 7H 7H 8H 8H", "7H 7H 8H 8H 9H 9H"]
    assert follows(hand, "QH QH KH KH") == ["5H 5H 7H 7H", "7H 7H 8H 8H", "8H 8H 9H 9H"]
    # With the 8s missing nothing connects across the gap: any three pairs.
    assert follows("5H 5H 7H 7H 9H 9H JH JH", "QH QH KH KH AH AH") == [
        "5H 5H 7H 7H 9H 9H", "5H 5H 7H 7H JH JH", "5H 5H 9H 9H JH JH", "7H 7H 9H 9H JH JH"]
    # A group of equal cards gives one run two readings: 2♠ with either "other 10" pair.
    assert follows("2S 2S TH TH TC TC 5D", "QS QS KS KS") == ["2S 2S TC TC", "2S 2S TH TH"]


def test_equal_pairs_must_still_be_played_as_pairs():
    # No tractor (TH and TC are one level), so as many pairs as possible: both.
    assert follows("TH TH TC TC 5S 5D", "QS QS KS KS") == ["TH TH TC TC"]
    assert follows("TH TH 5S 7S 5D", "QS QS KS KS") == ["5S 7S TH TH"]


def test_a_pair_led_forces_a_pair():
    assert follows("5H 5H 7H 9H 2S", "KH KH") == ["5H 5H"]
    assert follows("5H 7H 9H 2S", "KH KH") == ["5H 7H", "5H 9H", "7H 9H"]


def test_short_in_the_led_suit():
    assert follows("5H 2S 2S 7C", "KH KH") == ["2S 5H", "5H 7C"]
    # Void: anything, trumps included.
    assert follows("2S 7C 7C", "KH") == ["2S", "7C"]


def test_short_hand_is_refused():
    with pytest.raises(ValueError):
        follow_plays(parse_cards("5H"), parse_cards("KH KH"), SPADES)


def test_trumps_follow_a_trump_lead():
    assert follows("AS TD 5H BJ", "5S") == ["AS", "BJ", "TD"]


def test_lead_plays_are_singles_pairs_and_tractors_only():
    plays = {format_cards(p) for p in lead_plays(parse_cards("7H 7H 8H 8H 9H JH"), SPADES)}
    assert plays == {"7H", "8H", "9H", "JH", "7H 7H", "8H 8H", "7H 7H 8H 8H"}


# --- who wins -----------------------------------------------------------------------------------

def test_first_played_wins_among_equals():
    assert winner(["9H", "TC", "TD", "TH"]) == 1  # other 10s are equal
    assert winner(["TD", "TC"]) == 0
    assert winner(["5H", "KH", "KH", "AC"]) == 1  # two identical cards
    assert winner(["5S", "TH TH"[:2], "TC"]) == 1
    assert winner(["TH TH", "TC TC", "TD TD"]) == 0
    assert winner(["9H", "TC", "TD", "TH"], NO_TRUMP) == 3 and winner(["9H", "TD", "TC"], NO_TRUMP) == 2


def test_trumping_and_over_trumping():
    assert winner(["9H", "JH", "5S", "KH"]) == 2
    assert winner(["9H", "5S", "2D", "AS"]) == 2  # other 2s above the trump-suit A
    assert winner(["9H", "5S", "2D", "2S"]) == 3
    assert winner(["9H", "AC", "AD"]) == 0  # a plain card competes only with its own suit


def test_shapes_must_match_to_win():
    assert winner(["9H 9H", "AH KH", "5S 7S"]) == 0  # not pairs
    assert winner(["9H 9H JH JH", "5S 5S", "AS AS 2C 2C"]) == 2
    assert winner(["9H 9H JH JH", "AH AH KH KH", "5S 5S 7S 7S", "BJ BJ SJ SJ"]) == 3
    assert winner(["7H 7H 8H 8H", "KS KS QS QS"]) == 1  # trump tractor beats plain


# --- properties ---------------------------------------------------------------------------------

DECK = double_deck_without_346()


def brute_force_follows(hand, lead, order):
    counts = Counter(hand)
    return sorted(
        play
        for play in multiset_choices(list(counts.items()), len(lead))
        if is_legal_follow(hand, lead, play, order)
    )


@st.composite
def hands_and_leads(draw):
    trump = draw(st.sampled_from(["S", "H", "C", "D", None]))
    order = hunzhan_order(trump)
    # Few suits, so that pairs, tractors and voids all happen.
    pool = [card for card in DECK if card.suit in ("H", "S", None) or card.rank in (2, 10)]
    cards = draw(st.permutations(pool))
    hand = sorted(cards[: draw(st.integers(4, 10))])
    leads = [play for play in lead_plays(cards[10:], order)]
    lead = draw(st.sampled_from(leads))
    return order, hand, list(lead)


@settings(max_examples=volume(suite=60, soak=300), deadline=None)
@given(hands_and_leads())
def test_enumerated_follows_are_exactly_the_legal_ones(case):
    order, hand, lead = case
    if len(hand) < len(lead):
        return
    assert sorted(follow_plays(hand, lead, order)) == brute_force_follows(hand, lead, order)


@settings(max_examples=volume(suite=60, soak=300), deadline=None)
@given(hands_and_leads())
def test_tractors_found_in_a_hand_classify_as_tractors(case):
    order, hand, _ = case
    counts = Counter(hand)
    for suit_class in {order.suit_class[card] for card in hand}:
        for length in (2, 3):
            for run in tractors_in(counts, order, suit_class, length):
                shape = classify([card for card in run for _ in range(2)], order)
                assert shape is not None and shape.kind == TRACTOR and shape.pairs == length


@settings(max_examples=volume(suite=200, soak=2000), deadline=None)
@given(
    trump=st.sampled_from(["S", "H", "C", "D", None]),
    cards=st.lists(st.sampled_from(sorted(double_deck_without_346())), min_size=1, max_size=4),
)
def test_a_trick_of_singles_is_won_as_the_shapes_say(trump, cards):
    # Singles are judged without building their shapes; the shapes must agree.
    from paiju.games.tricks import beats

    order = hunzhan_order(trump)
    winner, best = 0, classify([cards[0]], order)
    for index in range(1, len(cards)):
        shape = classify([cards[index]], order)
        if beats(shape, best):
            winner, best = index, shape
    assert trick_winner([[card] for card in cards], order) == winner
