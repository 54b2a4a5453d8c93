"""Random 炒地皮 playouts in every variant and channel kind, with invariants in the states.

The suite: per variant, hands checked thoroughly (views, legal and illegal actions, exact
serialisation in a sample of states) and more hands checked at their end (coins, points,
replay). The soak test (``-m soak``) plays 10^4 hands per variant.
"""

from __future__ import annotations

import pytest

from tests.games.chaodipi_playouts import run

VARIANTS = ["yancheng", "yangzhou", "yangzhong", "nantong"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_thorough_playouts(variant: str) -> None:
    tally = run(variant, hands=40, seed=1000 + VARIANTS.index(variant), check_every=0.12)
    assert tally.hands == 40
    assert tally.kinds["play"] > 40 * 20


@pytest.mark.parametrize("channel", ["score_normal", "score_pass", "fortune_normal"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_light_playouts(variant: str, channel: str) -> None:
    tally = run(
        variant, hands=70, seed=2000 + VARIANTS.index(variant), channel=channel, check_every=0.0
    )
    assert tally.hands == 70
    assert tally.kinds["played"] > 50


@pytest.mark.soak
@pytest.mark.parametrize("variant", VARIANTS)
def test_soak_playouts(variant: str) -> None:
    tally = run(variant, hands=10_000, seed=3000 + VARIANTS.index(variant), check_every=0.002)
    assert tally.hands == 10_000
