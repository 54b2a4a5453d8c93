"""Engine benchmarks: 炸金花 compares/s and random-playout hands/s (5 players, one core).

Targets on the 2-core dev machine: >= 300,000 compares/s and >= 3,000 hands/s.
Run: ``make bench`` (or ``.venv/bin/python bench/engines.py --seconds 3``).
"""

from __future__ import annotations

import argparse
import random
import time
from itertools import combinations

from paiju.cards import format_cards, parse_cards, standard_deck
from paiju.games.zhajinhua import Game, Rules, compare
from paiju.games.zhajinhua.ranking import beats, strength
from targets import beside


def rate(work, seconds: float) -> float:
    """Calls of ``work`` (which does ``n`` units and returns n) per second over ``seconds``."""
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += work()
    return done / elapsed


def bench_compares(seconds: float) -> tuple[float, float]:
    rng = random.Random(1)
    hands = [format_cards(hand) for hand in combinations(standard_deck(), 3)]
    pairs = [(rng.choice(hands), rng.choice(hands)) for _ in range(10_000)]
    strengths = [(strength(parse_cards(a)), strength(parse_cards(b))) for a, b in pairs]

    def text_api() -> int:
        for first, second in pairs:
            compare(first, second)
        return len(pairs)

    def engine_path() -> int:
        for first, second in strengths:
            beats(first, second)
        return len(strengths)

    return rate(text_api, seconds), rate(engine_path, seconds)


def bench_playouts(seconds: float, players: int = 5) -> tuple[float, float]:
    rng = random.Random(2)
    game = Game(Rules())
    actions = 0

    def one_hand() -> int:
        nonlocal actions
        hand = game.new_hand(coins=[20_000] * players, dealer=rng.randrange(players), seed=rng.randbytes(16))
        while hand.to_act is not None:
            seat = hand.to_act
            hand.apply(seat, rng.choice(hand.legal_actions(seat)))
            actions += 1
        return 1

    hands_per_second = rate(one_hand, seconds)
    return hands_per_second, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per figure")
    args = parser.parse_args()
    text_rate, engine_rate = bench_compares(args.seconds)
    print(f"zhajinhua compare (text API, cached parse): {text_rate:12,.0f} compares/s  {beside(text_rate, 300_000)}")
    print(f"zhajinhua compare (engine strengths)      : {engine_rate:12,.0f} compares/s")
    start = time.perf_counter()
    hands_rate, actions = bench_playouts(args.seconds)
    elapsed = time.perf_counter() - start
    print(f"zhajinhua random playouts, 5 players      : {hands_rate:12,.0f} hands/s     {beside(hands_rate, 3_000)}"
          f"  [{actions / elapsed:,.0f} actions/s]")


if __name__ == "__main__":
    main()
