"""Random 混战 hands with every invariant checked: 240 points, results sum to 0, coins conserved
with fees to the house, exact round trips, views that leak nothing, legal moves apply and others
are refused."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.games.hunzhan_playouts import play_random_hand

ALL_STATE_HANDS = 60
"""Hands checked in every state (round trip, five views against the oracle, card and point
counts), with listed and unlisted moves tried in 5% of the states."""
SAMPLED_HANDS = 1_000
"""Hands checked in a random 5% of their states, and fully at the end."""
SOAK_HANDS = 10_000


def test_random_playouts_keep_every_invariant():
    rng = random.Random(20261130)
    endings: Counter[str] = Counter()
    redeals = 0
    for played in range(ALL_STATE_HANDS + SAMPLED_HANDS):
        hand = play_random_hand(rng, every_state=played < ALL_STATE_HANDS)
        endings[hand.result.details["how"]] += 1
        redeals += len(hand.orders) > 1
    # The playouts must reach each way a hand ends, and redeals, or they prove little.
    assert endings["played"] > 500 and endings["escape"] > 50, endings
    assert redeals > 10


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
