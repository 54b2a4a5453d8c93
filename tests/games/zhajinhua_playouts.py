"""Random 炸金花 playouts that check every invariant in every state (OpenSpiel style).

Shared by the suite (a few thousand hands) and ``make soak`` (10^5 hands).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field

from paiju.games.engine import Event, IllegalAction
from paiju.games.zhajinhua import Action, ActionKind, Game, Hand, Rules, Special235
from tests.games.canonical import canonical_bytes

CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][SHCD]|SJ|BJ)\b")


def cards_in(data: object) -> set[str]:
    return set(CARD_TOKEN.findall(json.dumps(data, ensure_ascii=False)))


@dataclass
class Knowledge:
    """Whose cards each seat may know, worked out from the moves alone, not from the engine."""

    hand: Hand
    knows: dict[int, set[int]] = field(default_factory=dict)

    def note(self, seat: int, action: Action | str) -> None:
        action = Action.coerce(action)
        if action.kind is ActionKind.LOOK:
            self.knows.setdefault(seat, set()).add(seat)
        elif action.kind is ActionKind.COMPARE:
            for one in (seat, action.target):
                self.knows.setdefault(one, set()).update((seat, action.target))

    def allowed(self, viewer: int | None) -> set[str]:
        if self.hand.is_over:  # the reveal shows the whole deck
            return {str(card) for card in self.hand.order}
        seats = self.knows.get(viewer, set()) if viewer is not None else set()
        return {str(card) for seat in seats for card in self.hand.cards[seat]}


def random_rules(rng: random.Random) -> tuple[Rules, list[int]]:
    players = rng.randint(2, 5)
    if rng.random() < 0.5:  # the spec's defaults: floating ante, 100-ante cap
        return Rules(special_235=rng.choice(list(Special235))), [rng.randint(1_010, 30_000) for _ in range(players)]
    # Small purses and a high cap, so that players run short of coins.
    rules = Rules(
        special_235=rng.choice(list(Special235)),
        ante=10,
        pot_cap_antes=rng.choice([5, 30, 1_000]),
        max_stake_antes=rng.choice([3, 10]),
    )
    return rules, [rng.randint(10, 600) for _ in range(players)]


def candidate_actions(hand: Hand) -> list[Action]:
    """Legal and illegal moves of every kind, to check that verify and legal_actions agree."""
    stakes = range(0, hand.max_stake + 2 * hand.ante + 1, max(1, hand.ante // 2))
    return [
        Action(ActionKind.LOOK),
        Action(ActionKind.CALL),
        Action(ActionKind.FOLD),
        Action(ActionKind.OPEN),
        *(Action(ActionKind.RAISE, stake=stake) for stake in stakes),
        *(Action(ActionKind.COMPARE, target=target) for target in range(-1, hand.seat_count + 1)),
    ]


def check_state(hand: Hand, knowledge: Knowledge, thorough: bool = True) -> None:
    blob = hand.to_bytes()
    copy = Game.load(blob)
    assert copy == hand and copy.to_bytes() == blob, "to_bytes/load is not exact"
    assert blob == canonical_bytes(hand), "a hand's bytes are not its canonical JSON"

    # Coins: the pot is what was paid; nobody pays more than they hold.
    assert hand.pot == sum(hand.paid)
    assert all(hand.remaining(seat) >= 0 for seat in range(hand.seat_count))
    if hand.is_over:
        result = hand.result
        assert sum(result.coins) + result.fee == 0
        assert all(hand.coins[s] + result.coins[s] >= 0 for s in range(hand.seat_count))
        assert hand.to_act is None and len(hand.live_seats()) == 1
    else:
        assert hand.to_act is not None and hand.in_hand(hand.to_act)
        assert hand.remaining(hand.to_act) >= hand.call_amount(hand.to_act)

    for viewer in [None, *range(hand.seat_count)]:
        view = hand.view(viewer)
        json.dumps(view)
        leaked = cards_in(view) - knowledge.allowed(viewer)
        assert not leaked, f"seat {viewer} sees {leaked} in its view"

    if not thorough:
        return
    for seat in range(hand.seat_count):
        legal = hand.legal_actions(seat)
        assert len(set(legal)) == len(legal)
        for action in legal:
            trial = Game.load(blob)
            trial.apply(seat, action)  # every listed action really applies
        legal_set = set(legal)
        for action in candidate_actions(hand):
            if action in legal_set:
                continue
            try:
                hand.apply(seat, action)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"seat {seat}: {action} applied but was not listed as legal")
            assert hand.to_bytes() == blob, f"refused {action} changed the state"


def check_events(events: list[Event], hand: Hand, knowledge: Knowledge) -> None:
    for event in events:
        for viewer in [None, *range(hand.seat_count)]:
            if event.visible(viewer):
                leaked = cards_in(event.data) - knowledge.allowed(viewer)
                assert not leaked, f"seat {viewer} receives {leaked} in {event.type}"


def play_random_hand(rng: random.Random, thorough: bool = True) -> Hand:
    rules, coins = random_rules(rng)
    game = Game(rules)
    hand = game.new_hand(coins=coins, dealer=rng.randrange(len(coins)), seed=rng.randbytes(16))
    holds = [hand.max_loss(seat) for seat in range(hand.seat_count)]
    knowledge = Knowledge(hand)
    check_events(hand.opening_events, hand, knowledge)
    steps = 0
    while not hand.is_over:
        check_state(hand, knowledge, thorough)
        roll = rng.random()
        if roll < 0.03:
            events = hand.timeout()
        elif roll < 0.06:
            events = hand.leave(rng.choice(hand.live_seats()))
        else:
            seat = hand.to_act
            if roll < 0.15:  # someone looks out of turn
                seat = rng.choice(hand.live_seats())
            choices = hand.legal_actions(seat) or hand.legal_actions(hand.to_act)
            seat = seat if hand.legal_actions(seat) else hand.to_act
            by_kind: dict[ActionKind, list[Action]] = {}
            for action in choices:
                by_kind.setdefault(action.kind, []).append(action)
            action = rng.choice(by_kind[rng.choice(list(by_kind))])
            knowledge.note(seat, action)
            events = hand.apply(seat, action)
        check_events(events, hand, knowledge)
        steps += 1
        assert steps < 1_000, "a hand that never ends"
    check_state(hand, knowledge, thorough)
    assert all(-hand.result.coins[s] <= holds[s] for s in range(hand.seat_count)), "lost beyond the hold"
    replayed = game.replay(list(hand.coins), hand.dealer, hand.seed, hand.history)
    assert replayed == hand, "the hand does not replay from its seed and move log"
    return hand
