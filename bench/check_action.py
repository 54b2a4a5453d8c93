"""What judging one selection costs (``Hand.verify_action``, behind ``TableService.CheckAction``).

A frontend asks whether the cards a player selected make a legal play now, at every click.
The answer must not list every legal play (a void 混战 follower can have thousands), so its
cost is bounded: target worst case <= 2 ms. Over the play states of random hands of 混战 and
of 炒地皮 (every variant), each state is judged, uncached, for the play about to be made and
for random selections of the led size from the hand (void followers included); a few built
worst cases are added: a 混战 follower void against a three-pair tractor with the points
rules in force. Prints mean, p99 and max CPU time per game (the least of three
repeats of each judgement, with the collector paused).

Run: ``.venv/bin/python bench/check_action.py [--hands 60]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable

from paiju.cards import format_cards
from paiju.games import chaodipi, hunzhan
from paiju.games.engine import IllegalAction
from targets import beside

TARGET_MS = 2.0


def judged(hand, seat: int, text: str, samples: list[float], repeats: int = 3) -> None:
    """The CPU time of one uncached judgement of ``text`` for ``seat``: the least of a few
    repeats, so that a busy machine's cache misses and the collector are not counted."""
    best = float("inf")
    for _ in range(repeats):
        for cache in ("_allowed", "_allowed_sets", "_listed"):
            getattr(hand, cache, {}).clear()
        tick = time.thread_time()
        try:
            hand.verify_action(seat, text)
        except IllegalAction:
            pass
        best = min(best, time.thread_time() - tick)
    samples.append(best)


def selections(rng: random.Random, hand, seat: int) -> list[str]:
    size = len(hand.trick[0][1]) if hand.trick else rng.choice([1, 2, 4, 6])
    cards = hand.hands[seat]
    picks = [format_cards(sorted(rng.sample(cards, min(size, len(cards))))) for _ in range(8)]
    return [f"play {pick}" for pick in picks]


def play_out(rng: random.Random, hand, samples: list[float]) -> None:
    while not hand.is_over:
        seat = hand.to_act
        if seat is None:
            hand.system_step()
            continue
        actions = hand.legal_actions(seat)
        plays = [a for a in actions if str(a).startswith("play")]
        if not plays:
            hand.timeout()
            continue
        chosen = rng.choice(plays)
        for text in [str(chosen), *selections(rng, hand, seat)]:
            judged(hand, seat, text, samples)
        hand.apply(seat, chosen)


def hunzhan_hands(rng: random.Random, count: int, samples: list[float]) -> None:
    for _ in range(count):
        hand = hunzhan.Game().new_hand([1_000_000] * 4, dealer=rng.randrange(4), seed=rng.randbytes(16))
        hand.deal_all()
        seat = next((s for s in range(4) if hand.legal_actions(s)), None)
        if seat is None:
            continue
        hand.apply(seat, hand.legal_actions(seat)[0])
        hand.system_step()
        play_out(rng, hand, samples)


def chaodipi_hands(rng: random.Random, count: int, samples: list[float]) -> None:
    for number in range(count):
        variant = ("yancheng", "yangzhou", "yangzhong", "nantong")[number % 4]
        hand = chaodipi.Game(chaodipi.Rules(variant=variant)).new_hand(
            [0] * 4, dealer=rng.randrange(4), seed=rng.randbytes(16), match=chaodipi.MatchState(banker=0)
        )
        hand.deal_all()
        hand.system_step()
        play_out(rng, hand, samples)


def built_worst_cases(samples: list[float]) -> None:
    """States where listing would be slowest: a void follower with many cards."""
    deck = hunzhan.deck_dealing(
        [
            "7H 7H 8H 8H 9H 9H TS 5C 5C KC KC 5D 5D KD KD 2S 2C 2D TH TC SJ",
            "5S 5S 7S 7S 8S 8S 9S 9S JS JS QS QS KS KS AS AS 7C 7C 8C 8C 9C",
            "9C JC JC QC QC AC AC 7D 7D 8D 8D 9D 9D JD JD QD QD AD AD 2H 2H",
            "5H 5H JH JH QH QH KH KH AH AH 2S 2C 2D TS TH TC TD TD SJ BJ BJ",
        ]
    )
    hand = hunzhan.Game().new_hand([1_000_000] * 4, dealer=0, seed=b"worst", deck=deck)
    hand.deal_all()
    hand.apply(0, "declare TS")
    hand.system_step()
    hand.apply(0, "play 7H 7H 8H 8H 9H 9H")
    hand.apply(1, "play 5S 5S 7S 7S 8S 8S")  # seat 2, void in hearts, follows with points in the trick
    rng = random.Random(1)
    for _ in range(200):
        judged(hand, 2, f"play {format_cards(sorted(rng.sample(hand.hands[2], 6)))}", samples)


def report(name: str, samples: list[float]) -> float:
    values = sorted(samples)
    worst = values[-1] * 1e3
    print(
        f"{name}: mean {statistics.fmean(values) * 1e6:.0f} us, p99 {values[int(len(values) * 0.99)] * 1e6:.0f} us,"
        f" max {worst:.2f} ms over {len(values):,} judgements {beside(worst, TARGET_MS, at_most=True, unit=' ms')}"
    )
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=60)
    args = parser.parse_args()
    rng = random.Random(11)
    runs: list[tuple[str, Callable[[list[float]], None]]] = [
        ("混战 verify_action", lambda s: hunzhan_hands(rng, args.hands, s)),
        ("炒地皮 verify_action", lambda s: chaodipi_hands(rng, args.hands // 2, s)),
        ("混战 void follower, built", built_worst_cases),
    ]
    for name, run in runs:
        samples: list[float] = []
        gc.disable()
        try:
            run(samples)
        finally:
            gc.enable()
        report(name, samples)


if __name__ == "__main__":
    main()
