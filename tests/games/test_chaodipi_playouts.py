"""Random 炒地皮 playouts in every variant and channel kind, with invariants in the states.

The suite: per variant, hands checked thoroughly (views, legal and illegal actions, exact
serialisation in a sample of states) and more hands checked at their end (coins, points,
replay); ``make soak`` plays four times as many, and the soak test 10^4 hands per variant.
"""

from __future__ import annotations

import pytest

from tests.games.chaodipi_playouts import run
from tests.volume import volume

VARIANTS = ["yancheng", "yangzhou", "yangzhong", "nantong"]
THOROUGH_HANDS = volume(suite=10, soak=40)
LIGHT_HANDS = volume(suite=20, soak=70)


@pytest.mark.parametrize("variant", VARIANTS)
def test_thorough_playouts(variant: str) -> None:
    tally = run(variant, hands=THOROUGH_HANDS, seed=1000 + VARIANTS.index(variant), check_every=0.12)
    assert tally.hands == THOROUGH_HANDS
    assert tally.kinds["play"] > THOROUGH_HANDS * 20


@pytest.mark.parametrize("channel", ["score_normal", "score_pass", "fortune_normal"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_light_playouts(variant: str, channel: str) -> None:
    tally = run(
        variant, hands=LIGHT_HANDS, seed=2000 + VARIANTS.index(variant), channel=channel, check_every=0.0
    )
    assert tally.hands == LIGHT_HANDS
    assert tally.kinds["played"] > LIGHT_HANDS * 5 // 7  # most hands are played out, not escaped


@pytest.mark.soak
@pytest.mark.parametrize("variant", VARIANTS)
def test_soak_playouts(variant: str) -> None:
    tally = run(variant, hands=10_000, seed=3000 + VARIANTS.index(variant), check_every=0.002)
    assert tally.hands == 10_000
