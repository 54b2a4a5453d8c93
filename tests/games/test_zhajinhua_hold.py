"""炸金花: what a hand holds of each player's coins (``Hand.max_loss``) covers the worst path.

The ledger refuses a settlement whose loss exceeds the hold, so the bound must hold on every
path of every rule set. Random playouts rarely reach the worst one (the pot one step under the
cap, then an open at the top stake by a player who has looked), so these tests search every
path of small rule sets, with caps near twice the stake cap where that open binds.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.games.zhajinhua import Game, Hand, Rules
from paiju.games.zhajinhua.hand import deck_dealing
from tests.volume import volume

RICH = 10**6
"""Coins that never bind, so the bound is the rules' own."""


def _state(hand: Hand) -> tuple[object, ...]:
    """All that decides what a hand's remaining moves can cost (its cards are fixed)."""
    return (hand.pot, tuple(hand.paid), hand.stake, tuple(hand.seen), hand.to_act, tuple(hand.acted), tuple(hand.status))


def worst_losses(hand: Hand, known: dict[tuple[object, ...], tuple[int, ...]] | None = None) -> tuple[int, ...]:
    """The most each seat can lose by the end of ``hand``, over every sequence of moves; checks
    on the way that every state's ``max_loss`` covers what can still be lost from it."""
    if hand.is_over:
        assert hand.result is not None
        return tuple(-change for change in hand.result.coins)
    known = {} if known is None else known
    state = _state(hand)
    if state in known:
        return known[state]
    seat = hand.to_act
    assert seat is not None
    worst = [-RICH] * hand.seat_count
    # Looking out of turn costs nothing that looking at one's own turn does not: only the
    # player to act is searched.
    for action in hand.legal_actions(seat):
        after = copy.deepcopy(hand)
        after.apply(seat, action)
        worst = [max(pair) for pair in zip(worst, worst_losses(after, known))]
    for one in range(hand.seat_count):
        assert worst[one] <= hand.max_loss(one), (
            f"seat {one} can lose {worst[one]} from here but the hand holds {hand.max_loss(one)} "
            f"(moves so far: {hand.history})"
        )
    known[state] = tuple(worst)
    return known[state]


def test_bug_the_hold_was_smaller_than_an_open_at_the_top_stake_just_under_the_cap() -> None:
    # Pot 190 of a 200 cap, then seat 1, having looked, opens at stake 100: it pays 400 more.
    hand = Game(Rules(ante=10, pot_cap_antes=20, max_stake_antes=10)).new_hand(
        coins=[RICH, RICH], dealer=0, seed=b"hold", deck=deck_dealing(["AS KS QS", "2C 3C 5D"])
    )
    holds = [hand.max_loss(seat) for seat in range(2)]
    for seat, move in [(1, "raise 70"), (0, "raise 100"), (1, "look"), (1, "open")]:
        hand.apply(seat, move)
    assert hand.result is not None
    assert hand.paid[1] == 10 + 70 + 400
    assert -hand.result.coins[1] == 480 + 10  # and the straight flush's bonus of 1 ante
    assert all(-hand.result.coins[seat] <= holds[seat] for seat in range(2))


WORST_DECKS = [
    ["AS AH AD", "2C 3C 5D"],  # the loser pays the largest bonus
    ["2C 3C 5D", "AS AH AD"],  # the same from the other seat
    ["2C 3C 5D", "AS AH AD", "KS KH KD"],  # 235 beats AAA and collects its bonus; three seats
]


@pytest.mark.parametrize("stake_cap", [1, 2, 3, 4])
@pytest.mark.parametrize("deck", WORST_DECKS, ids=["aaa-first", "aaa-second", "three-seats"])
def test_the_hold_covers_every_path_with_caps_near_twice_the_stake_cap(stake_cap: int, deck: list[str]) -> None:
    for pot_cap in range(max(1, 2 * stake_cap - 2), 2 * stake_cap + 3):
        game = Game(Rules(ante=10, pot_cap_antes=pot_cap, max_stake_antes=stake_cap))
        hand = game.new_hand(coins=[RICH] * len(deck), dealer=0, seed=b"worst", deck=deck_dealing(deck))
        worst_losses(hand)


def test_the_worst_path_reaches_an_open_at_the_top_stake_beyond_twice_the_stake_cap() -> None:
    # The bound is not loose where it binds: with the cap at 2 × the stake cap a seat can pay
    # more than the cap plus two top-stake calls, which a bound of 2 × (not 4 ×) would miss.
    game = Game(Rules(ante=10, pot_cap_antes=8, max_stake_antes=4))
    hand = game.new_hand(coins=[RICH, RICH], dealer=0, seed=b"worst", deck=deck_dealing(WORST_DECKS[0]))
    worst = worst_losses(hand)
    bonus = 5 * hand.ante
    assert max(worst) > hand.pot_cap - 1 + 2 * hand.max_stake + hand.ante + bonus


@settings(max_examples=volume(suite=20, soak=200), deadline=None)
@given(
    stake_cap=st.integers(1, 5),
    offset=st.integers(-3, 3),
    players=st.integers(2, 3),
    dealer=st.integers(0, 2),
    seed=st.binary(min_size=1, max_size=8),
    ante=st.sampled_from([1, 10, 100]),
)
def test_the_hold_covers_every_path_of_random_deals(stake_cap, offset, players, dealer, seed, ante) -> None:
    if players == 3 and stake_cap > 3:
        stake_cap = 3  # three seats' trees grow fast; the shape of the worst path is the same
    pot_cap = max(1, 2 * stake_cap + offset)
    game = Game(Rules(ante=ante, pot_cap_antes=pot_cap, max_stake_antes=stake_cap))
    worst_losses(game.new_hand(coins=[RICH] * players, dealer=dealer % players, seed=seed))
