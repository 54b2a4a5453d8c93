"""A finished hand replays move by move, each step exactly what the viewer saw live then: random
hands of every game (timeouts, leaves and system steps included), compared view by view."""

from __future__ import annotations

import random

import pytest

from paiju.games.engine import IllegalAction
from paiju.games.replays import replay
from tests.test_views_and_events_doc import random_hand

CASES = [("zhajinhua", "zhajinhua", 20), ("hunzhan", "hunzhan", 4), ("chaodipi", "yancheng", 3), ("chaodipi", "yangzhou", 3)]


def play_recording(hand, rng: random.Random, viewer: int) -> dict[int, dict]:
    """The hand played at random to its end; the viewer's view after each move-log entry."""
    live = {0: hand.view(viewer)}
    seats = range(len(hand.coins))
    while not hand.is_over:
        try:
            if hand.to_act is None:
                # While dealing, anyone may declare; with nobody declaring the deal goes on for ever.
                others = [(s, a) for s in seats for a in hand.legal_actions(s)]
                if others and rng.random() < 0.1:
                    hand.apply(*rng.choice(others))
                    live[len(hand.history)] = hand.view(viewer)
                hand.system_step()
            elif rng.random() < 0.03:
                hand.timeout()
            elif rng.random() < 0.003:
                hand.leave(rng.choice(seats))
            else:
                hand.apply(hand.to_act, rng.choice(hand.legal_actions(hand.to_act)))
        except IllegalAction:
            continue
        live[len(hand.history)] = hand.view(viewer)
    return live


@pytest.mark.parametrize(("game", "variant", "hands"), CASES)
def test_a_replay_shows_each_step_as_the_viewer_saw_it_live(game: str, variant: str, hands: int) -> None:
    rng = random.Random(f"replay-{game}-{variant}")
    for _ in range(hands):
        hand = random_hand(game, rng, variant)
        viewer = rng.randrange(len(hand.coins))
        live = play_recording(hand, rng, viewer)
        steps = replay(game, hand.to_bytes(), viewer)
        assert len(steps) == len(hand.history) + 1
        for index, seen in live.items():
            assert steps[index]["view"] == seen, f"step {index} of {len(steps) - 1}"
        assert steps[-1]["view"]["result"] is not None


def test_a_replay_that_does_not_end_where_the_hand_did_is_refused() -> None:
    from paiju.games import zhajinhua

    hand = zhajinhua.Game().new_hand(coins=[5000, 5000, 5000], dealer=0, seed=b"tampered")
    hand.apply(1, "fold")
    hand.apply(2, "fold")
    data = hand.to_data()
    data["history"] = data["history"][:1]  # a log cut short: the replay stops before the end
    tampered = zhajinhua.Hand.from_data(data).to_bytes()
    with pytest.raises(ValueError, match="did not replay"):
        replay("zhajinhua", tampered, 0)
