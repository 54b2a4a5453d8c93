"""Card notation, decks, seeded shuffles and commitments."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paiju.cards import (
    ALL_CARDS,
    commitment,
    double_deck_with_jokers,
    double_deck_without_346,
    format_cards,
    parse_card,
    parse_cards,
    shuffled,
    stacked_deck,
    standard_deck,
    verify_commitment,
)

cards_lists = st.lists(st.sampled_from(ALL_CARDS), max_size=40)


@given(cards_lists)
def test_format_then_parse_gives_the_same_cards(cards):
    assert parse_cards(format_cards(cards)) == cards


@given(cards_lists)
def test_parse_then_format_gives_the_same_text(cards):
    text = format_cards(cards)
    assert format_cards(parse_cards(text)) == text


def test_every_card_has_its_rank_and_suit():
    assert [str(card) for card in ALL_CARDS[:5]] == ["2S", "2H", "2C", "2D", "3S"]
    assert parse_card("TD").rank == 10 and parse_card("TD").suit == "D"
    assert parse_card("AS").rank == 14
    assert parse_card("SJ").suit is None and parse_card("BJ").rank > parse_card("SJ").rank
    assert len(set(ALL_CARDS)) == 54


@pytest.mark.parametrize("text, token", [("AS 1H", "1H"), ("as", "as"), ("AS KX", "KX"), ("10S", "10S"), ("RJ", "RJ")])
def test_malformed_text_names_the_bad_token(text, token):
    with pytest.raises(ValueError, match=repr(token)):
        parse_cards(text)


def test_two_copies_of_a_card_are_one_value():
    first, second = parse_cards("5H 5H")
    assert first == second and hash(first) == hash(second)


def test_decks_hold_the_right_cards():
    assert Counter(standard_deck()) == Counter(ALL_CARDS[:52])
    double = Counter(double_deck_with_jokers())
    assert len(double_deck_with_jokers()) == 108 and set(double.values()) == {2} and len(double) == 54
    no_346 = double_deck_without_346()
    assert len(no_346) == 84
    assert not {card.rank for card in no_346} & {3, 4, 6}
    assert Counter(no_346)[parse_card("BJ")] == 2


def test_shuffle_golden_vector_pins_the_algorithm():
    # The same on every platform and Python version: a frontend's verifier relies on it.
    order = shuffled(standard_deck(), b"paiju")
    assert format_cards(order[:8]) == GOLDEN_PAIJU_TOP8
    assert sorted(order) == standard_deck()


GOLDEN_PAIJU_TOP8 = "KH 2C 8C 3C 9C 6H JC AD"


@given(st.binary(min_size=1, max_size=64))
def test_shuffle_is_a_permutation_and_deterministic(seed):
    deck = double_deck_with_jokers()
    first = shuffled(deck, seed)
    assert first == shuffled(deck, seed)
    assert Counter(first) == Counter(deck)


def test_shuffle_is_close_to_uniform_over_small_decks():
    deck = parse_cards("AS KS QS JS")
    counts = Counter(tuple(shuffled(deck, i.to_bytes(4, "big"))) for i in range(4800))
    assert len(counts) == 24  # every order appears
    assert all(140 <= count <= 260 for count in counts.values()), counts  # expected 200 each


def test_different_seeds_give_different_orders():
    orders = {tuple(shuffled(standard_deck(), bytes([i]))) for i in range(200)}
    assert len(orders) == 200


def test_commitment_checks_seed_and_order():
    seed = b"\x01" * 32
    order = shuffled(standard_deck(), seed)
    digest = commitment(seed, order)
    assert verify_commitment(digest, seed, order)
    assert not verify_commitment(digest, b"\x02" * 32, order)
    swapped = [order[1], order[0], *order[2:]]
    assert not verify_commitment(digest, seed, swapped)


def test_stacked_deck_puts_the_top_first_and_keeps_every_card():
    deck = stacked_deck("AS AH AD")
    assert format_cards(deck[:3]) == "AS AH AD"
    assert sorted(deck) == standard_deck()
    with pytest.raises(ValueError, match="not in the deck"):
        stacked_deck("AS AS")


def test_shuffle_refuses_a_text_seed():
    with pytest.raises(TypeError):
        shuffled(standard_deck(), "seed")  # type: ignore[arg-type]


def test_card_pairs_sort_by_code():
    assert all(a < b for a, b in itertools.pairwise(ALL_CARDS))
