"""炒地皮 engine benchmark: random hands per variant on one core (CPU time).

Each hand is dealt card by card through the engine's system steps; the first seat that can
declares once all is dealt; the banker buries the kitty as received; robbing seats mostly
decline; every play is a random pick of the listed legal actions, with an occasional throw
attempt (no invariant checks). A random match state per hand (levels, banker, flag hands).
Prints hands/s per variant (target >= 200 on one core).

Run: ``.venv/bin/python bench/chaodipi.py [--hands 300]``.
"""

from __future__ import annotations

import argparse
import random
import time

from paiju.games.chaodipi import Action, ActionKind, Game, Hand, MatchState, Phase, Rules, TeamLevel
from targets import beside

TARGET_HANDS_PER_SECOND = 200
"""炒地皮 random playouts per variant on one core (CPU time)."""

VARIANTS = ("yancheng", "yangzhou", "yangzhong", "nantong")


def random_match(rng: random.Random, rules: Rules) -> MatchState:
    variant = rules.variant
    banker = rng.randrange(4)
    levels = [TeamLevel(1, rng.choice("2345679JQKA")), TeamLevel(1, rng.choice("2345679JQKA"))]
    if variant.must_play_ranks:
        levels = [TeamLevel(1, rng.choice("2579JK")), TeamLevel(1, rng.choice("2579JK"))]
    flag = variant.flag_hand and rng.random() < 0.05
    if flag:
        levels[banker % 2] = TeamLevel(variant.laps, "A")
    return MatchState((levels[0], levels[1]), banker, 0, flag)


def play_hand(rng: random.Random, game: Game) -> Hand:
    hand = game.new_hand(
        coins=[1_000_000] * 4, dealer=0, seed=rng.randbytes(16), match=random_match(rng, game.rules)
    )
    while not hand.is_over:
        if hand.pending_system_step is not None:
            if hand.phase is Phase.DECLARING and not hand.declarations:
                for seat in range(4):
                    options = [a for a in hand.legal_actions(seat) if a.kind is ActionKind.DECLARE]
                    if options:
                        hand.apply(seat, options[0])
                        break
            hand.system_step()
            continue
        seat = hand.to_act
        assert seat is not None
        if hand.phase is Phase.PLAYING and not hand.trick and rng.random() < 0.05:
            suit = [
                c
                for c in hand.hands[seat]
                if hand.context.order.suit_class[c]
                == hand.context.order.suit_class[hand.hands[seat][-1]]
            ]
            if len(suit) >= 3:
                throw = Action.play(suit[-3:])
                if hand.can(seat, throw):
                    hand.apply(seat, throw)
                    continue
        options = [a for a in hand.legal_actions(seat) if a.kind is not ActionKind.MULTIPLE]
        if hand.phase is Phase.ROBBING and rng.random() < 0.8:
            options = options[:1]
        hand.apply(seat, rng.choice(options))
    return hand


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(11)
    for variant in VARIANTS:
        game = Game(Rules(variant=variant, channel="fortune_normal"))
        for _ in range(10):
            play_hand(rng, game)  # warm-up (caches of orders)
        started = time.process_time()
        for _ in range(args.hands):
            play_hand(rng, game)
        elapsed = time.process_time() - started
        print(
            f"{variant:10s} hands/s (one core, CPU time): {args.hands / elapsed:,.0f}  ({elapsed / args.hands * 1000:.2f} ms a hand)  "
            f"{beside(args.hands / elapsed, TARGET_HANDS_PER_SECOND)}"
        )


if __name__ == "__main__":
    main()
