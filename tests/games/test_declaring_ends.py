"""Declaring and robbing always end (issue: blind declaring never ended): no sequence of moves
keeps a declaring window open or a robbing round going without bound, in either trick game."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.games import chaodipi, hunzhan
from paiju.games.chaodipi import Phase
from paiju.games.engine import IllegalAction
from tests.games.test_chaodipi_hand import arranged, new_hand

VARIANTS = ["yancheng", "yangzhou", "yangzhong", "nantong"]

PAIRS_EVERYWHERE = {0: "2S 2S 2H 2H BJ BJ", 1: "2C 2C 2D 2D SJ SJ 5H 5H"}
"""Seats 0 and 1 hold many declarations each: blind, they could answer each other for ever."""

MOST_SHOWS = 4 * 8
"""Every seat shows each of its declarations at most once: a single and seven kinds of pair
(four suit pairs, SJ SJ, BJ BJ, 5H 5H), declaring and robbing together."""


def test_blind_declaring_never_ended_now_each_pair_is_shown_once_per_hand() -> None:
    hand = new_hand("yancheng", arranged(PAIRS_EVERYWHERE), channel="fortune_normal")
    hand.deal_all()
    hand.apply(0, "declare 2S 2S")
    hand.apply(1, "declare 2C 2C")  # too low, accepted blind
    with pytest.raises(IllegalAction) as again:
        hand.apply(0, "declare 2S 2S")
    assert again.value.code == "shown_before"
    assert "declare 2S 2S" not in {str(a) for a in hand.legal_actions(0)}
    hand.apply(0, "declare BJ BJ")
    hand.apply(1, "declare SJ SJ")
    hand.apply(0, "declare 2H 2H")
    hand.apply(1, "declare 2D 2D")
    assert [a for a in hand.legal_actions(0) if a.kind == "declare"] == []
    assert [a for a in hand.legal_actions(1) if a.kind == "declare"] == []
    hand.system_step()  # the window closes; seat 0's BJ BJ stands: it banks
    hand.timeout()  # buries
    assert hand.asked == 1
    with pytest.raises(IllegalAction) as rob:
        hand.apply(1, "rob 2C 2C")  # shown while declaring: not again as a rob
    assert rob.value.code == "shown_before"


def test_a_blind_declaration_without_effect_does_not_restart_the_window() -> None:
    hand = new_hand("yancheng", arranged(PAIRS_EVERYWHERE), channel="fortune_normal")
    hand.deal_all()
    hand.apply(0, "declare BJ BJ")
    waiting = hand.system_wait_key
    hand.apply(1, "declare 2C 2C")  # below BJ BJ: no effect
    assert hand.system_wait_key == waiting
    hand.apply(2, "multiple 2")  # a stake multiple is no declaration either
    hand.apply(0, "declare 2S 2S")  # below its own BJ BJ: no effect
    assert hand.system_wait_key == waiting
    hand.apply(1, "declare 5H 5H NT")  # 红5对 outranks BJ BJ: the window starts again
    assert hand.system_wait_key != waiting


@pytest.mark.parametrize("variant", VARIANTS)
def test_stake_multiples_do_not_restart_the_deal_or_the_declaring_window(variant: str) -> None:
    hand = new_hand(variant, arranged(PAIRS_EVERYWHERE), channel="fortune_normal")
    hand.system_step()
    waiting = hand.system_wait_key
    for value in (2, 1, 2, 1):
        hand.apply(3, f"multiple {value}")
    assert hand.system_wait_key == waiting
    hand.deal_all()
    waiting = hand.system_wait_key
    hand.apply(3, "multiple 2")
    assert hand.system_wait_key == waiting


def _declare_at_random(hand, rng: random.Random) -> int:
    """Declarations at random until nobody may declare; how many restarted the window."""
    restarts = 0
    for _ in range(10 * MOST_SHOWS):
        options = [
            (seat, action)
            for seat in range(4)
            for action in hand.legal_actions(seat)
            if str(action).startswith("declare")
        ]
        if not options:
            return restarts
        seat, action = rng.choice(options)
        before = hand.system_wait_key
        hand.apply(seat, action)
        restarts += hand.system_wait_key != before
    raise AssertionError("declaring did not run out of declarations")


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32), arranged_deal=st.booleans())
def test_any_declarations_and_robs_end_their_phases_within_a_bound(
    variant: str, seed: int, arranged_deal: bool
) -> None:
    rng = random.Random(seed)
    deck = arranged(PAIRS_EVERYWHERE) if arranged_deal else None
    hand = chaodipi.Game(chaodipi.Rules(variant=variant)).new_hand(
        [0] * 4, dealer=seed % 4, seed=seed.to_bytes(8, "big"), deck=deck
    )
    while hand.phase is Phase.DEALING:  # declare during the deal too
        hand.system_step()
        if rng.random() < 0.1:
            _declare_at_random(hand, rng)
    assert _declare_at_random(hand, rng) <= MOST_SHOWS
    hand.system_step()
    if hand.phase is Phase.DEALING:
        return  # nobody declared in a first hand: dealt again
    moves = 0
    while hand.phase in (Phase.BURYING, Phase.ROBBING):
        seat = hand.to_act
        robs = [a for a in hand.legal_actions(seat) if a.kind == "rob"]
        if hand.phase is Phase.ROBBING and robs:
            hand.apply(seat, rng.choice(robs))  # rob whenever the rules let
        else:
            hand.timeout()
        moves += 1
        assert moves <= 2 * MOST_SHOWS + 3, "robbing did not end"
    assert hand.phase is Phase.PLAYING


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_hunzhan_declarations_rise_so_declaring_ends(seed: int) -> None:
    rng = random.Random(seed)
    hand = hunzhan.Game().new_hand([1000] * 4, dealer=seed % 4, seed=seed.to_bytes(8, "big"))
    restarts = 0
    while hand.phase is hunzhan.Phase.DEALING:
        hand.system_step()
        before = hand.system_wait_key
        restarts += _declare_at_random(hand, rng) if rng.random() < 0.2 else 0
        assert hand.system_wait_key[2] - before[2] <= len(hunzhan.DECLARATIONS)
    restarts += _declare_at_random(hand, rng)
    assert restarts <= len(hunzhan.DECLARATIONS)
