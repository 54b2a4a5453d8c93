"""Properties of 炒地皮 following: the listed follows are exactly the plays the judge accepts."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.cards import Card, double_deck_with_jokers
from paiju.games.chaodipi import variant_rules
from paiju.games.chaodipi.play import Context, follows, is_legal_follow, read_lead, winner
from paiju.games.tricks import multiset_choices
from tests.volume import volume

DECK = sorted(double_deck_with_jokers())
CONTEXTS = [
    Context.of(level, trump, variant_rules(variant))
    for variant in ("yancheng", "yangzhou", "yangzhong", "nantong")
    for level, trump in (("2", "S"), ("7", "H"), ("5", None), ("T", "C"))
]


@st.composite
def deals(draw: st.DrawFn) -> tuple[Context, list[Card], list[Card]]:
    context = draw(st.sampled_from(CONTEXTS))
    picked = draw(st.permutations(range(len(DECK))))
    hand = [DECK[i] for i in picked[:10]]
    pool = [DECK[i] for i in picked[10:40]]
    # A lead of one suit class from the other cards: up to six of the class of its first card.
    suit_class = context.order.suit_class[pool[0]]
    same = [card for card in pool if context.order.suit_class[card] == suit_class]
    size = draw(st.integers(1, min(6, len(same))))
    return context, sorted(hand), sorted(same[:size])


@settings(max_examples=volume(suite=40, soak=150), deadline=None)
@given(deals())
def test_listed_follows_are_exactly_the_legal_ones(deal: tuple[Context, list[Card], list[Card]]) -> None:
    context, hand, lead = deal
    listed, complete = follows(context, hand, lead, limit=None)
    assert complete
    everything = set(multiset_choices(sorted(Counter(hand).items()), len(lead)))
    judged = {play for play in everything if is_legal_follow(context, hand, lead, play)}
    assert set(listed) == judged
    assert judged, "some follow is always legal"


@settings(max_examples=volume(suite=40, soak=150), deadline=None)
@given(deals())
def test_the_winner_is_a_play_that_could_stand(deal: tuple[Context, list[Card], list[Card]]) -> None:
    context, hand, lead = deal
    listed, _ = follows(context, hand, lead, limit=None)
    for play in listed[:5]:
        won = winner(context, [lead, play])
        if won == 1:
            # Only a same-class stronger play, a trumping play or a trump 5-10-K takes a trick.
            lead_class = read_lead(context, lead).structure.suit_class
            classes = {context.order.suit_class[card] for card in play}
            assert classes in ({lead_class}, {"T"})


@settings(max_examples=60, deadline=None)
@given(
    context=st.sampled_from(CONTEXTS),
    picked=st.permutations(range(len(DECK))),
    held=st.sampled_from([12, 16, 20]),
    size=st.integers(2, 6),
)
def test_timeout_plays_the_lowest_follow_even_beyond_the_listed_follows(context, picked, held, size):
    # The list of follows stops at LIST_LIMIT; the default move is the lowest of them all.
    from paiju.games.chaodipi.play import _default_keys, lowest_follow

    hand = sorted(DECK[i] for i in picked[:held])
    pool = [DECK[i] for i in picked[held:]]
    same = sorted([card for card in pool if context.order.suit_class[card] == context.order.suit_class[pool[0]]][:size])
    plays, _ = follows(context, hand, same, limit=None)
    assert lowest_follow(context, hand, same) == min(plays, key=_default_keys(context.order))
