"""Random 混战 hands with every invariant checked: 240 points, results sum to 0, coins conserved
with fees to the house, exact round trips, views that leak nothing, legal moves apply and others
are refused."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.games.hunzhan_playouts import play_random_hand
from tests.volume import volume

ALL_STATE_HANDS = volume(suite=20, soak=60)
"""Hands checked in every state (round trip, five views against the oracle, card and point
counts), with listed and unlisted moves tried in 5% of the states."""
SAMPLED_HANDS = volume(suite=180, soak=1_000)
"""Hands checked in a random 5% of their states, and fully at the end."""
SOAK_HANDS = 10_000


def test_random_playouts_keep_every_invariant():
    rng = random.Random(20261130)
    endings: Counter[str] = Counter()
    redeals = 0
    hands = ALL_STATE_HANDS + SAMPLED_HANDS
    for played in range(hands):
        hand = play_random_hand(rng, every_state=played < ALL_STATE_HANDS)
        endings[hand.result.details["how"]] += 1
        redeals += len(hand.orders) > 1
    # The playouts must reach each way a hand ends, and redeals, or they prove little.
    assert endings["played"] > hands / 2 and endings["escape"] > hands / 20, endings
    assert redeals > hands / 100


@pytest.mark.soak
def test_soak_random_playouts():
    rng = random.Random()
    seed = rng.randrange(2**32)
    rng.seed(seed)
    endings: Counter[str] = Counter()
    for played in range(1, SOAK_HANDS + 1):
        hand = play_random_hand(rng, every_state=played % 20 == 0)
        endings[hand.result.details["how"]] += 1
        if played % 1_000 == 0:
            print(f"soak seed {seed}: {played:,} hands, endings {dict(endings)}", flush=True)
