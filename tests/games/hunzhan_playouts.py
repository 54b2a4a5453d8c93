"""Random 混战 playouts that check every invariant in every state (OpenSpiel style).

Shared by the suite (a thousand-odd hands) and the soak test (10^4 hands and more).
The views are checked against an oracle that knows only what the deck order, the receiving
order and the moves imply, not what the engine computed.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field

from paiju.cards import Card, format_cards
from paiju.games.engine import Event, IllegalAction
from paiju.games.hunzhan import POINTS, SEATS, Action, ActionKind, Game, Hand, Phase, Rules
from tests.games.canonical import canonical_bytes

CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][SHCD]|SJ|BJ)\b")


def tokens_in(data: object) -> set[str]:
    return set(CARD_TOKEN.findall(json.dumps(data, ensure_ascii=False)))


@dataclass
class Oracle:
    """What each seat may know, from the deal order and the moves alone."""

    hand: Hand
    played: Counter[str] = field(default_factory=Counter)
    declared: set[str] = field(default_factory=set)
    own_played: list[Counter[str]] = field(default_factory=lambda: [Counter() for _ in range(SEATS)])
    plays: int = 0
    _stamp: tuple[int, int] = (-1, -1)
    _dealt: list[Counter[str]] = field(default_factory=list)

    def new_deal(self) -> None:
        self.declared.clear()

    def dealt_to(self, seat: int) -> Counter[str]:
        hand = self.hand
        stamp = (len(hand.orders), hand.dealt)
        if self._stamp != stamp:
            self._stamp = stamp
            self._dealt = [Counter() for _ in range(SEATS)]
            for i in range(hand.dealt):
                self._dealt[(hand.first_receiver + i) % SEATS][str(hand.order[i])] += 1
        return self._dealt[seat]

    def holding(self, seat: int) -> Counter[str]:
        return self.dealt_to(seat) - self.own_played[seat]

    def note(self, seat: int, action: Action) -> None:
        if action.kind is ActionKind.DECLARE:
            self.declared.update(str(card) for card in action.cards)
        else:
            texts = [str(card) for card in action.cards]
            self.played.update(texts)
            self.plays += 1
            self.own_played[seat].update(texts)

    def allowed(self, viewer: int | None) -> set[str] | None:
        """Card texts ``viewer`` may see; ``None``: everything (the hand is over)."""
        if self.hand.is_over:
            return None
        known = set(self.played) | self.declared
        if viewer is not None:
            known |= set(self.dealt_to(viewer))
        return known


def check_view(hand: Hand, oracle: Oracle, viewer: int | None) -> None:
    view = hand.view(viewer)
    text = json.dumps(view, ensure_ascii=False)
    allowed = oracle.allowed(viewer)
    if allowed is None:
        assert view["reveal"] is not None
        return
    leaked = tokens_in(view) - allowed
    assert not leaked, f"seat {viewer} sees {leaked}"
    assert hand.seed.hex() not in text, "the seed shows before the end"
    assert view["reveal"] is None
    for player in view["players"]:
        if player["seat"] == viewer:
            assert Counter(player["cards"].split()) == oracle.holding(viewer), "own hand is wrong"
        else:
            assert player["cards"] is None, f"seat {viewer} sees seat {player['seat']}'s hand"


def check_events(events: list[Event], hand: Hand, oracle: Oracle) -> None:
    allowed = {viewer: oracle.allowed(viewer) for viewer in [None, *range(SEATS)]}
    for event in events:
        tokens = tokens_in(event.data)
        if not tokens:
            continue
        for viewer, known in allowed.items():
            if known is not None and event.visible(viewer):
                leaked = tokens - known
                assert not leaked, f"seat {viewer} receives {leaked} in {event.type}"


def illegal_candidates(hand: Hand, seat: int, rng: random.Random, count: int) -> list[Action]:
    """Random plays and declarations, mostly from the seat's own cards."""
    held = list(hand.hands[seat]) or [Card(0)]
    candidates: list[Action] = []
    for _ in range(count):
        size = rng.choice([1, 2, 2, 3, 4, 4, 6])
        cards = [rng.choice(held) for _ in range(size)]
        if rng.random() < 0.2:
            cards[0] = Card(rng.randrange(54))
        kind = ActionKind.DECLARE if rng.random() < 0.2 else ActionKind.PLAY
        candidates.append(Action(kind, tuple(cards)))
    return candidates


def check_state(hand: Hand, oracle: Oracle, rng: random.Random, thorough: bool) -> None:
    blob = hand.to_bytes()
    copy = Game.load(blob)
    assert copy == hand and copy.to_bytes() == blob, "to_bytes/load is not exact"
    assert blob == canonical_bytes(hand), "a hand's bytes are not its canonical JSON"
    # Cards: every dealt card is in a hand, played, or in the trick; none appears twice.
    in_hands = sum(len(cards) for cards in hand.hands)
    played_total = sum(oracle.played.values())
    assert in_hands + played_total == hand.dealt, "cards were lost or made"
    if hand.phase is Phase.PLAYING:
        assert hand.to_act is not None
        assert sum(hand.points) + sum(POINTS[c] for _, cards in hand.trick for c in cards) + sum(
            POINTS[c] for cards in hand.hands for c in cards
        ) == 240, "points were lost or made"
        assert len(hand.trick) == oracle.plays - SEATS * sum(hand.tricks_won)
    else:
        assert hand.to_act is None
    for viewer in [None, *range(SEATS)]:
        check_view(hand, oracle, viewer)
    if not thorough:
        return
    for seat in range(SEATS):
        legal = hand.legal_actions(seat)
        assert len(set(legal)) == len(legal)
        if seat != hand.to_act and hand.phase is Phase.PLAYING:
            assert not legal
        sample = legal if len(legal) <= 12 else rng.sample(legal, 12)
        for action in sample:
            trial = Game.load(blob)
            trial.apply(seat, action)  # every listed action really applies
        legal_set = set(legal)
        for action in illegal_candidates(hand, seat, rng, 6):
            if action in legal_set:
                continue
            try:
                hand.apply(seat, action)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"seat {seat}: {action} applied but was not listed as legal")
            assert hand.to_bytes() == blob, f"refused {action} changed the state"


def check_over(hand: Hand, oracle: Oracle) -> None:
    result = hand.result
    assert result is not None and hand.is_over
    assert sum(result.coins) + result.fee == 0, "coins not conserved"
    assert result.fee >= 0 and all(fee >= 0 for fee in result.details["fees"])
    assert all(hand.coins[s] + result.coins[s] >= 0 for s in range(SEATS)), "a seat paid more than it held"
    assert all(-result.coins[s] <= hand.max_loss(s) for s in range(SEATS)), "lost beyond max_loss"
    results = result.details["results"]
    if result.details["how"] == "played":
        assert sum(hand.points) == 240, "a finished hand has 240 points"
        assert sum(results) == 0, "results do not sum to zero"
        assert results == [x - 60 for x in hand.points]
        assert result.details["leftover"] == 0
    else:
        escaper = result.details["escaper"]
        assert results[escaper] < 0
        assert all(r >= 0 for s, r in enumerate(results) if s != escaper)
    for seat in range(SEATS):
        gained = result.coins[seat] + result.details["fees"][seat]
        assert (gained > 0) <= (results[seat] > 0) and (gained < 0) <= (results[seat] < 0)


def random_rules(rng: random.Random) -> tuple[Rules, list[int]]:
    rules = Rules(coins_per_5=rng.choice([1, 25, 50, 100]), fee_rate=rng.choice([0.0, 0.02, 0.05]))
    if rng.random() < 0.3:  # small purses, so losers cannot always pay
        return rules, [rng.randrange(0, 40 * rules.coins_per_5) for _ in range(SEATS)]
    return rules, [10_000_000] * SEATS


def play_random_hand(rng: random.Random, every_state: bool = True, thorough_rate: float = 0.05) -> Hand:
    """One random hand. ``every_state``: check the state (round trip, views, cards, points)
    before every step, else before 5% of them; ``thorough_rate``: the share of states in which
    every seat's listed actions are applied (12 at most) and random unlisted ones refused."""
    rules, coins = random_rules(rng)
    game = Game(rules)
    hand = game.new_hand(coins=coins, dealer=rng.randrange(SEATS), seed=rng.randbytes(16))
    oracle = Oracle(hand)
    check_events(hand.opening_events, hand, oracle)
    declare_rate = rng.choice([0.0, 0.02, 0.1])  # 0: nobody declares the first deal, a redeal
    escape_rate = rng.choice([0.0, 0.0, 0.003])
    timeout_rate = rng.choice([0.0, 0.05, 0.5])
    steps = turns = 0
    while not hand.is_over:
        if every_state or rng.random() < 0.05:
            check_state(hand, oracle, rng, thorough=rng.random() < thorough_rate)
        roll = rng.random()
        if roll < escape_rate:
            events = hand.leave(rng.randrange(SEATS))
        elif hand.phase in (Phase.DEALING, Phase.DECLARING):
            seat = rng.randrange(SEATS)
            options = hand.legal_actions(seat)
            if options and rng.random() < declare_rate:
                action = rng.choice(options)
                oracle.note(seat, action)
                events = hand.apply(seat, action)
            else:
                was_dealing = len(hand.orders)
                events = hand.system_step()
                if len(hand.orders) != was_dealing:
                    oracle.new_deal()
                    declare_rate = max(declare_rate, 0.1)
        elif roll < escape_rate + timeout_rate * 0.1:
            seat = hand.to_act
            default = hand.legal_actions(seat)[0]
            strikes = hand.strikes[seat]
            events = hand.timeout()
            if strikes + 1 < rules.timeouts_to_escape:
                oracle.note(seat, default)
                assert events[1].data["cards"] == format_cards(default.cards)
            else:
                assert hand.is_over and hand.result.details["escaper"] == seat
        else:
            seat = hand.to_act
            action = rng.choice(hand.legal_actions(seat))
            oracle.note(seat, action)
            events = hand.apply(seat, action)
        check_events(events, hand, oracle)
        turns += sum(event.type == "turn" for event in events)
        assert hand.turn_number == turns, "turn_number does not count the turns begun"
        steps += 1
        assert steps < 20_000, "a hand that never ends"
    check_state(hand, oracle, rng, thorough=False)
    check_over(hand, oracle)
    replayed = game.replay(list(hand.coins), hand.first_receiver, hand.seed, hand.history)
    assert replayed == hand, "the hand does not replay from its seed and move log"
    return hand
