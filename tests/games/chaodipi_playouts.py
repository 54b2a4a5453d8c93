"""Random 炒地皮 playouts that check invariants in the states they pass through.

Shared by the suite (a few hundred hands per variant) and the soak test (10^4 per variant).
What a seat may see is worked out from the deck order, the receiving order and the moves,
not from what the engine computed.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field

from paiju.cards import Card, format_cards
from paiju.games.chaodipi import (
    Action,
    ActionKind,
    Game,
    Hand,
    MatchState,
    Phase,
    Rules,
    TeamLevel,
    card_points,
    team_of,
)
from paiju.games.chaodipi.hand import SEATS
from paiju.games.engine import Event, IllegalAction
from tests.games.canonical import canonical_bytes

CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][SHCD]|SJ|BJ)\b")
LEVELS = "23456789TJQKA"


def tokens_in(data: object) -> set[str]:
    return set(CARD_TOKEN.findall(json.dumps(data, ensure_ascii=False)))


def random_match(rules: Rules, rng: random.Random) -> MatchState:
    """A match state a table could be in: a first hand, or any levels and banker."""
    if rng.random() < 0.15:
        return MatchState()
    variant = rules.variant
    levels = []
    for _ in range(2):
        rank = rng.choice(LEVELS)
        if rank in variant.must_play_ranks or rng.random() < 0.3:
            rank = rng.choice("2579JKA")
        levels.append(TeamLevel(rng.randint(1, variant.laps), rank))
    banker = rng.randrange(SEATS)
    flag = variant.flag_hand and rng.random() < 0.1
    if flag:
        levels[team_of(banker)] = TeamLevel(variant.laps, "A")
    return MatchState((levels[0], levels[1]), banker, rng.randint(0, 2), flag)


@dataclass
class Oracle:
    """The card texts each seat may know, from the deal order and the moves alone."""

    hand: Hand
    public: set[str] = field(default_factory=set)
    private: list[set[str]] = field(default_factory=lambda: [set() for _ in range(SEATS)])
    blind_cards: list[set[str]] = field(default_factory=lambda: [set() for _ in range(SEATS)])
    deal_index: int = 0

    def refresh(self) -> None:
        hand = self.hand
        if len(hand.orders) - 1 != self.deal_index:
            # A redeal: cards of earlier deals stay known, harmlessly (they are all of them).
            self.deal_index = len(hand.orders) - 1
        for index in range(hand.dealt):
            self.private[(hand.first_receiver + index) % SEATS].add(str(hand.order[index]))
        # Played cards are public (a timeout's default play too).
        self.public.update(str(card) for _, cards in hand.trick for card in cards)
        if hand.tricks:
            for _, text in hand.tricks[-1]["plays"]:
                self.public.update(text.split())
        if hand.kitty_turned:
            self.public.update(str(card) for card in hand.order[hand.deal_size :])
        if hand.revealed:
            for cards in self.blind_cards:
                self.public.update(cards)

    def note(
        self, seat: int, action: Action, kitty_before: list[Card], holder_before: int | None
    ) -> None:
        texts = {str(card) for card in action.cards}
        if action.kind is ActionKind.PLAY:
            self.public |= texts
        elif action.kind in (ActionKind.DECLARE, ActionKind.ROB):
            if self.hand.variant.blind_declaring:
                self.blind_cards[seat] |= texts
            else:
                self.public |= texts

    def took_kitty(self, seat: int) -> None:
        self.private[seat].update(str(card) for card in self.hand.kitty_received)

    def allowed(self, viewer: int | None) -> set[str] | None:
        if self.hand.is_over:
            return None
        known = set(self.public)
        if viewer is not None:
            known |= self.private[viewer]
        return known


def check_view(hand: Hand, oracle: Oracle, viewer: int | None) -> None:
    view = hand.view(viewer)
    allowed = oracle.allowed(viewer)
    if allowed is None:
        assert view["reveal"] is not None and view["result"] is not None
        return
    leaked = tokens_in(view) - allowed
    assert not leaked, f"seat {viewer} sees {leaked} in phase {hand.phase}"
    text = json.dumps(view, ensure_ascii=False)
    assert hand.seed.hex() not in text, "the seed shows before the end"
    assert view["reveal"] is None
    for player in view["players"]:
        if player["seat"] == viewer:
            assert Counter(player["cards"].split()) == Counter(str(c) for c in hand.hands[viewer])
        else:
            assert player["cards"] is None, f"seat {viewer} sees seat {player['seat']}'s hand"
    if view["kitty"] is not None:
        assert viewer == hand.kitty_holder, "the kitty shows to a seat that does not hold it"
    if hand.variant.blind_declaring and not hand.revealed:
        for entry in view["declarations"]:
            if entry["seat"] != viewer:
                assert set(entry) == {"seat", "stage"}, "a blind declaration shows"
            else:
                assert "effective" not in entry, "a blind declaration's effect shows early"


def check_events(events: list[Event], oracle: Oracle) -> None:
    for event in events:
        tokens = tokens_in(event.data)
        if not tokens:
            continue
        for viewer in [None, *range(SEATS)]:
            known = oracle.allowed(viewer)
            if known is not None and event.visible(viewer):
                leaked = tokens - known
                assert not leaked, f"seat {viewer} receives {leaked} in {event.type}"


def check_cards(hand: Hand) -> None:
    """No card lost or made: hands, kitty, the trick and the tricks played are the deal."""
    if hand.phase in (Phase.DEALING, Phase.DECLARING):
        in_hands = Counter(card for cards in hand.hands for card in cards)
        dealt = Counter(hand.order[: hand.dealt])
        assert in_hands == dealt, "dealt cards went astray"
        return
    seen: Counter[str] = Counter(str(card) for cards in hand.hands for card in cards)
    seen.update(str(card) for card in hand.kitty)
    seen.update(str(card) for _, cards in hand.trick for card in cards)
    for trick in hand.tricks:
        for _, text in trick["plays"]:
            seen.update(text.split())
    assert seen == Counter(str(card) for card in hand.order), "cards were lost or made"


def check_points(hand: Hand) -> None:
    """200 points in the deck, wherever they are; the attackers' count from the tricks."""
    if hand.banker is None or hand.phase in (Phase.DEALING, Phase.DECLARING):
        return
    won = sum(card_points(cards) for cards in hand.point_cards)
    rest = sum(card_points(cards) for cards in hand.hands) + card_points(hand.kitty)
    rest += sum(card_points(cards) for _, cards in hand.trick)
    assert won + rest == 200, "points were lost or made"
    attackers = 0
    for trick in hand.tricks:
        if team_of(trick["winner"]) != team_of(hand.banker):
            attackers += sum(card_points(text) for _, text in trick["plays"])
    assert hand.attacker_points().tricks == attackers


def illegal_candidates(hand: Hand, seat: int, rng: random.Random, count: int) -> list[Action]:
    held = list(hand.hands[seat]) or [Card(0)]
    candidates: list[Action] = []
    for _ in range(count):
        size = rng.choice([1, 2, 2, 3, 4, 6, 8])
        cards = tuple(rng.choice(held) for _ in range(size))
        if rng.random() < 0.2:
            cards = (Card(rng.randrange(54)), *cards[1:])
        kind = rng.choice(
            [ActionKind.PLAY, ActionKind.PLAY, ActionKind.DECLARE, ActionKind.ROB, ActionKind.BURY]
        )
        candidates.append(Action(kind, cards))
    candidates.append(Action(ActionKind.PASS))
    candidates.append(Action(ActionKind.MULTIPLE, value=rng.choice([1, 2, 3, 4, 8])))
    return candidates


def check_actions(hand: Hand, rng: random.Random) -> None:
    blob = hand.to_bytes()
    seats = {rng.randrange(SEATS)} | ({hand.to_act} if hand.to_act is not None else set())
    for seat in sorted(seats):
        legal = hand.legal_actions(seat)
        assert len(set(legal)) == len(legal), "an action is listed twice"
        if hand.phase is Phase.PLAYING and seat != hand.to_act:
            assert all(action.kind is ActionKind.MULTIPLE for action in legal)
        for action in legal if len(legal) <= 4 else rng.sample(legal, 4):
            trial = Game.load(blob)
            trial.apply(seat, action)
        complete = hand.phase is not Phase.BURYING and not (
            hand.phase is Phase.PLAYING
            and seat == hand.to_act
            and not hand.plays_listed_completely(seat)
        )
        listed = set(legal)
        for action in illegal_candidates(hand, seat, rng, 5):
            if action in listed:
                continue
            allowed = hand.can(seat, action)
            if complete:
                assert not allowed, f"seat {seat} may {action} though it is not listed"
            trial = Game.load(blob)
            try:
                trial.apply(seat, action)
            except IllegalAction:
                assert not allowed
                assert trial.to_bytes() == blob, f"a refused {action} changed the state"
            else:
                assert allowed


def random_throw(hand: Hand, seat: int, rng: random.Random) -> Action | None:
    order = hand.context.order
    by_class: dict[str | None, list[Card]] = {}
    for card in hand.hands[seat]:
        by_class.setdefault(order.suit_class[card], []).append(card)
    cards = rng.choice(list(by_class.values()))
    if len(cards) < 2:
        return None
    return Action.play(rng.sample(cards, rng.randint(2, min(7, len(cards)))))


def choose(hand: Hand, rng: random.Random) -> tuple[str, int, Action | None]:
    """The next move of random players: ("system"|"timeout"|"leave"|"act", seat, action)."""
    if hand.pending_system_step is not None:
        if rng.random() < 0.06:
            seat = rng.randrange(SEATS)
            offers = [a for a in hand.legal_actions(seat) if a.kind is ActionKind.DECLARE]
            if offers:
                return ("act", seat, rng.choice(offers))
        if rng.random() < 0.01:
            seat = rng.randrange(SEATS)
            offers = [a for a in hand.legal_actions(seat) if a.kind is ActionKind.MULTIPLE]
            if offers:
                return ("act", seat, rng.choice(offers))
        return ("system", -1, None)
    seat = hand.to_act
    assert seat is not None
    roll = rng.random()
    if roll < 0.0005:
        return ("leave", rng.randrange(SEATS), None)
    if roll < 0.02:
        return ("timeout", seat, None)
    if hand.phase is Phase.PLAYING and not hand.trick and roll < 0.12:
        throw = random_throw(hand, seat, rng)
        if throw is not None and hand.can(seat, throw):
            return ("act", seat, throw)
    if hand.phase is Phase.BURYING and roll < 0.6:
        return (
            "act",
            seat,
            Action(ActionKind.BURY, tuple(rng.sample(hand.hands[seat], hand.variant.kitty_size))),
        )
    offers = [a for a in hand.legal_actions(seat) if a.kind is not ActionKind.MULTIPLE]
    if hand.phase is Phase.ROBBING and len(offers) > 1 and rng.random() < 0.5:
        offers = offers[:1]  # mostly decline, so robbing ends
    return ("act", seat, rng.choice(offers))


@dataclass
class Tally:
    hands: int = 0
    states: int = 0
    kinds: Counter[str] = field(default_factory=Counter)


def play_one(rules: Rules, rng: random.Random, tally: Tally, check_every: float = 0.1) -> Hand:
    game = Game(rules)
    match = random_match(rules, rng)
    coins = [rng.choice([0, 500, 10_000, 1_000_000]) for _ in range(SEATS)]
    dealer = match.banker if match.banker is not None else rng.randrange(SEATS)
    seed = rng.randbytes(16)
    hand = game.new_hand(coins, dealer, seed, match=match)
    oracle = Oracle(hand)
    check_events(hand.opening_events, oracle)
    moves = 0
    while not hand.is_over:
        moves += 1
        assert moves < 5000, "a hand that never ends"
        oracle.refresh()
        thorough = rng.random() < check_every
        if thorough or rng.random() < 2 * check_every:
            blob = hand.to_bytes()
            copy = Game.load(blob)
            assert copy == hand and copy.to_bytes() == blob, "to_bytes/load is not exact"
            assert blob == canonical_bytes(hand), "a hand's bytes are not its canonical JSON"
        check_cards(hand)
        check_points(hand)
        if thorough:
            for viewer in [None, *range(SEATS)]:
                check_view(hand, oracle, viewer)
            check_actions(hand, rng)
        turn = hand.turn_number
        how, seat, action = choose(hand, rng)
        holder = hand.kitty_holder
        kitty = list(hand.kitty)
        if how == "system":
            events = hand.system_step()
        elif how == "timeout":
            events = hand.timeout()
        elif how == "leave":
            events = hand.leave(seat)
        else:
            assert action is not None
            events = hand.apply(seat, action)
            oracle.note(seat, action, kitty, holder)
            tally.kinds[str(action.kind)] += 1
        tally.kinds[how] += 1
        if hand.kitty_holder is not None and hand.phase is Phase.BURYING:
            oracle.took_kitty(hand.kitty_holder)
        oracle.refresh()
        tally.states += 1
        assert hand.turn_number >= turn
        check_events(events, oracle)
    check_finished(hand, game, coins, dealer, seed, match)
    tally.hands += 1
    tally.kinds[str(hand.result.details["how"])] += 1  # type: ignore[union-attr]
    if hand.result.details.get("heaven_and_earth"):  # type: ignore[union-attr]
        tally.kinds["heaven_and_earth"] += 1
    return hand


def check_finished(
    hand: Hand, game: Game, coins: list[int], dealer: int, seed: bytes, match: MatchState
) -> None:
    result = hand.result
    assert result is not None and hand.to_act is None
    assert sum(result.coins) + result.fee == 0, "coins not conserved"
    assert all(coins[seat] + result.coins[seat] >= 0 for seat in range(SEATS)), (
        "a seat paid more than it held"
    )
    if not hand.rules.channel.moves_coins:
        assert result.coins == (0, 0, 0, 0)
    details = result.details
    following = MatchState.from_dict(details["match"])
    if details["how"] == "played":
        points = details["points"]
        parts = ("tricks", "dig", "red_fives", "failed_throws", "failed_robs")
        assert sum(points[part] for part in parts) == points["total"]
        assert points["counted"] == max(0, points["total"])
        total = sum(
            card_points(text) for trick in hand.tricks for _, text in trick["plays"]
        ) + card_points(hand.kitty)
        assert total == 200, "the point cards do not add up to 200"
        if details["winner"] == "banker":
            assert following.banker == hand.banker or details.get("match_winner") is not None
        if result.scores is not None:
            assert sum(result.scores) == 0 or len(set(hand.multiples)) > 1
    else:
        assert following == match or (match.banker is None and following.banker == hand.banker)
    assert details["next_first_receiver"] == (
        following.banker if following.banker is not None else dealer
    )
    replayed = game.replay(coins, dealer, seed, hand.history, match=match)
    assert replayed == hand, "the move log does not replay to the same hand"


def run(
    variant: str, hands: int, seed: int, channel: str = "fortune_pass", check_every: float = 0.1
) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    rules = Rules(variant=variant, channel=channel, base_stake=rng.choice([10, 100, 1000]))
    for _ in range(hands):
        play_one(rules, rng, tally, check_every)
    return tally


__all__ = ["Oracle", "Tally", "check_view", "format_cards", "play_one", "run"]
