"""Random 炸金花 hands with every invariant checked in every state (hundreds in the suite,
thousands under `make soak`, and the soak test's 10^5)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.games.zhajinhua_playouts import play_random_hand
from tests.volume import volume

HANDS = volume(suite=200, soak=2_000)
"""Every way a hand ends comes up within the first 50 hands of this seed."""
SOAK_HANDS = 100_000


def test_random_playouts_keep_every_invariant():
    rng = random.Random(20261130)
    endings = Counter()
    for _ in range(HANDS):
        hand = play_random_hand(rng)
        endings[hand.result.details["how"]] += 1
    # The playouts must reach every way a hand can end, or they prove little.
    assert set(endings) == {"last_player", "compare", "open", "pot_cap"}, endings


@pytest.mark.soak
def test_soak_random_playouts():
    rng = random.Random()
    seed = rng.randrange(2**32)
    rng.seed(seed)
    endings = Counter()
    for played in range(1, SOAK_HANDS + 1):
        hand = play_random_hand(rng, thorough=played % 10 == 0)
        endings[hand.result.details["how"]] += 1
        if played % 10_000 == 0:
            print(f"soak seed {seed}: {played:,} hands, endings {dict(endings)}", flush=True)
