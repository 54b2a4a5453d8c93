"""Trick-engine benchmark: random 混战 hands on one core, and the cost of one legal_plays call.

Each hand is dealt card by card through the engine's system steps, the first seat holding a
declaration declares once all is dealt, and every play is a random pick of the listed legal
actions (no invariant checks). Prints hands/s (target >= 300 on one core) and the time per
``Hand.legal_actions`` call during play (computed fresh: the per-state cache is cleared), and
per call of the public ``hunzhan.legal_plays`` on card text.

Run: ``.venv/bin/python bench/tricks.py [--hands 500]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from paiju.cards import format_cards
from paiju.games import hunzhan
from paiju.games.hunzhan import Game, Phase
from targets import beside

TARGET_HANDS_PER_SECOND = 300
"""混战 random playouts on one core (CPU time)."""


def play_hand(rng: random.Random, game: Game) -> hunzhan.Hand:
    hand = game.new_hand(coins=[1_000_000] * 4, dealer=rng.randrange(4), seed=rng.randbytes(16))
    while not hand.is_over:
        if hand.phase is Phase.PLAYING:
            seat = hand.to_act
            hand.apply(seat, rng.choice(hand.legal_actions(seat)))
            continue
        if hand.phase is Phase.DECLARING and not hand.declarations:
            for seat in range(4):
                options = hand.legal_actions(seat)
                if options:
                    hand.apply(seat, options[0])
                    break
        hand.system_step()
    return hand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(7)
    game = Game()
    for _ in range(20):
        play_hand(rng, game)  # warm-up

    started = time.process_time()
    for _ in range(args.hands):
        play_hand(rng, game)
    elapsed = time.process_time() - started
    print(f"混战 hands/s (one core, CPU time): {args.hands / elapsed:,.0f}  ({elapsed / args.hands * 1000:.2f} ms a hand)  "
          f"{beside(args.hands / elapsed, TARGET_HANDS_PER_SECOND)}")

    # legal_actions per state, uncached, over the states of fresh hands.
    samples: list[float] = []
    text_samples: list[float] = []
    for _ in range(100):
        hand = game.new_hand(coins=[1_000_000] * 4, dealer=0, seed=rng.randbytes(16))
        hand.deal_all()
        seat = next(s for s in range(4) if hand.legal_actions(s))
        hand.apply(seat, hand.legal_actions(seat)[0])
        hand.system_step()
        while not hand.is_over:
            seat = hand.to_act
            hand._allowed.clear()
            hand._allowed_sets.clear()
            tick = time.perf_counter()
            actions = hand.legal_actions(seat)
            samples.append(time.perf_counter() - tick)
            cards, trick = format_cards(hand.hands[seat]), [format_cards(c) for _, c in hand.trick]
            tick = time.perf_counter()
            hunzhan.legal_plays(cards, trick, hand.trump)
            text_samples.append(time.perf_counter() - tick)
            hand.apply(seat, rng.choice(actions))
    for name, values in (("Hand.legal_actions", samples), ("hunzhan.legal_plays (text)", text_samples)):
        values.sort()
        print(
            f"{name}: mean {statistics.fmean(values) * 1e6:.1f} us, median {values[len(values) // 2] * 1e6:.1f} us,"
            f" p99 {values[int(len(values) * 0.99)] * 1e6:.1f} us, max {values[-1] * 1e3:.2f} ms over {len(values):,} calls"
        )


if __name__ == "__main__":
    main()
