"""The engine contract (``spec/engine-api.md``, :class:`paiju.games.engine.HandState`) checked
in every state of seeded random playouts of every registered game and every tier (炒地皮: every
regional variant in its score and fortune channels), with nothing known of any game's rules.

In every state a playout passes through:

- the bytes load back to an equal state, with equal bytes and equal views for every seat;
- every listed legal action passes ``verify_action``, and a sample of them applies (on a copy);
- what one seat may do, tried by another that may not, and nonsense, and a seat the table
  does not have, raise :class:`IllegalAction` with a reason and change nothing;
- no view shows a card the viewer was never shown by an event it may see (its own cards come
  by such events too), nor the deck before the end, and a spectator's view no hand or kitty;
- the hand is never stuck: someone is to act or a system step is due, until it is over;
- system steps and timeouts alone, from any state, end the hand or deal it again (a redeal:
  nobody declared, and only a player can; ``spec/hunzhan.md`` §1, ``spec/chaodipi.md`` §3).

And at every end: the settlement conserves coins (its lines sum to each seat's change; the
changes and the house fee sum to zero; the fee is at least 0) and no seat loses more than the
``max_loss`` held for it at the start.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from paiju.games.engine import BaseHand, Event, HandState, IllegalAction
from paiju.games.registry import GameSpec, Tier, game_spec

GAMES = ("zhajinhua", "hunzhan", "chaodipi")
"""The games the registry builds in (tests may register fakes that keep no contract)."""

SEEDS = {"zhajinhua": (1, 2, 3, 4, 5, 6), "hunzhan": (1,), "chaodipi": (1,)}
"""Playouts per tier: 炸金花 hands are short; a trick game's hand passes ~300 states."""
HANDS_PER_PLAYOUT = 2
"""Hands played in a row at one table: the second carries what the first left (炒地皮's match)."""
SAMPLED_VERIFIES = 12
"""Listed legal actions of each seat verified in each state (炒地皮 lists up to 400 follows)."""
SAMPLED_APPLIES = 1
"""Listed legal actions applied on a copy in each state, besides the one the playout takes."""
RUN_OUTS_PER_HAND = 2
"""States of each hand from which the clock alone is run to the end."""
MAX_STEPS = 5000
"""More steps than any hand takes (炒地皮: 108 deal steps, ~100 plays, redeals, robbing)."""

CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][SHCD]|SJ|BJ)\b")


def cases() -> Iterator[object]:
    for name in GAMES:
        spec = game_spec(name)
        for tier in spec.tiers:
            for seed in SEEDS[name]:
                yield pytest.param(name, tier.name, seed, id=f"{name}-{tier.name}-{seed}")


def card_tokens(data: object) -> set[str]:
    """The card texts anywhere in ``data`` (a view, an event's data)."""
    return set(CARD_TOKEN.findall(json.dumps(data, ensure_ascii=False, default=str)))


@dataclass
class Witness:
    """What each viewer (a seat, or ``None``: a spectator) has been shown, by the events it
    may see: the only cards its view may name."""

    seats: int

    def __post_init__(self) -> None:
        self.shown: dict[int | None, set[str]] = {viewer: set() for viewer in [None, *range(self.seats)]}

    def see(self, events: list[Event]) -> None:
        for event in events:
            tokens = card_tokens(dict(event.data))
            for viewer, shown in self.shown.items():
                if event.visible(viewer):
                    shown |= tokens


class Playout:
    """One table's seeded random hands, checked in every state."""

    def __init__(self, name: str, tier_name: str, seed: int) -> None:
        self.spec: GameSpec = game_spec(name)
        self.tier: Tier = self.spec.tier(tier_name)
        self.rng = random.Random(f"{name}/{tier_name}/{seed}")
        self.seed = seed

    def run(self) -> None:
        carry = None
        for number in range(HANDS_PER_PLAYOUT):
            hand = self.play_hand(number, carry)
            match = hand.result.details.get("match")  # type: ignore[union-attr]
            carry = None if match is None else {"match": match}

    # --- one hand ---------------------------------------------------------------------------

    def start(self, number: int, carry: object) -> tuple[HandState, list[int]]:
        spec, rng = self.spec, self.rng
        players = rng.randint(spec.min_players, spec.max_players)
        floor = max(self.tier.min_coins, 1)
        coins = [floor * rng.choice((1, 2, 5)) + rng.randrange(floor) for _ in range(players)]
        seed = f"conformance/{self.seed}/{number}".encode()
        hand = spec.start_hand(spec.tier_rules(self.tier), coins, rng.randrange(players), seed, carry)
        return hand, coins

    def play_hand(self, number: int, carry: object) -> HandState:
        hand, coins = self.start(number, carry)
        assert isinstance(hand, BaseHand) and isinstance(hand, HandState)
        seats = len(coins)
        held = [hand.max_loss(seat) for seat in range(seats)]
        assert all(0 <= amount <= coin for amount, coin in zip(held, coins)), (held, coins)
        witness = Witness(seats)
        witness.see(list(hand.opening_events))
        run_outs = {self.rng.randrange(150) for _ in range(RUN_OUTS_PER_HAND)}
        for step in range(MAX_STEPS):
            self.check_state(hand, seats, witness, run_out=step in run_outs)
            if hand.is_over:
                break
            witness.see(self.step(hand, seats))
        else:
            pytest.fail(f"the hand did not end in {MAX_STEPS} steps")
        self.check_settlement(hand, coins, held)
        return hand

    def step(self, hand: HandState, seats: int) -> list[Event]:
        """One move as a table would make it: the due system step while nobody is to act,
        otherwise mostly a random legal move, now and then a timeout or an escape."""
        rng = self.rng
        # Whoever may move now: mostly the seat to act, sometimes another (a look, a declaration).
        movers = [seat for seat in range(seats) if hand.legal_actions(seat)]
        if hand.to_act is None:  # a paced deal: the clock deals, and now and then a seat declares
            if movers and rng.random() < 0.1:
                seat = rng.choice(movers)
                return hand.apply(seat, rng.choice(hand.legal_actions(seat)))
            return hand.system_step()
        roll = rng.random()
        if roll < 0.002:
            return hand.leave(rng.randrange(seats))
        if roll < 0.04:
            return hand.timeout()
        seat = hand.to_act if hand.to_act in movers and rng.random() < 0.8 else rng.choice(movers)
        return hand.apply(seat, rng.choice(hand.legal_actions(seat)))

    # --- the checks -------------------------------------------------------------------------

    def check_state(self, hand: HandState, seats: int, witness: Witness, run_out: bool) -> None:
        blob = hand.to_bytes()
        views = {viewer: hand.view(viewer) for viewer in [None, *range(seats)]}
        self.check_round_trip(hand, blob, views)
        self.check_views(hand, views, witness)
        self.check_progress(hand)
        if hand.is_over:
            for seat in range(seats):
                assert hand.legal_actions(seat) == []
            with pytest.raises(IllegalAction):
                hand.timeout()
            return
        self.check_actions(hand, blob, seats)
        if run_out:
            self.check_runs_out(blob)

    def check_round_trip(self, hand: HandState, blob: bytes, views: dict[int | None, dict[str, object]]) -> None:
        loaded = self.spec.load_hand(blob)
        assert loaded == hand
        assert loaded.to_bytes() == blob
        for viewer, view in views.items():
            assert loaded.view(viewer) == view

    def check_views(self, hand: HandState, views: dict[int | None, dict[str, object]], witness: Witness) -> None:
        for viewer, view in views.items():
            json.dumps(view)  # JSON-ready, as the table sends it
            if hand.is_over:
                assert view["result"] is not None
                continue
            leaked = card_tokens(view) - witness.shown[viewer]
            assert not leaked, f"{viewer=} sees {sorted(leaked)} it was never shown"
            assert view.get("reveal") is None, "the deck shows before the end"
            if viewer is None:
                # A seat may be shown another's hand (炸金花's compare: the witness checks that);
                # a spectator sees no hand before the end.
                assert all(player.get("cards") is None for player in view["players"]), "a spectator sees a hand"
                assert view.get("kitty") is None, "a spectator sees the kitty"
                assert view["legal_actions"] == []

    def check_progress(self, hand: HandState) -> None:
        """Someone is to act, or the clock is: a hand is never stuck waiting for nothing."""
        pending = hand.pending_system_step
        if hand.is_over:
            assert hand.to_act is None and pending is None
            return
        assert hand.to_act is not None or pending is not None, "nobody to act and no system step due"
        if pending is None:
            with pytest.raises(IllegalAction) as refused:
                self.spec.load_hand(hand.to_bytes()).system_step()
            assert refused.value.reason
        else:
            name, seconds = pending
            assert isinstance(name, str) and seconds >= 0
        if hand.to_act is None:
            with pytest.raises(IllegalAction) as refused:
                self.spec.load_hand(hand.to_bytes()).timeout()
            assert refused.value.reason

    def check_actions(self, hand: HandState, blob: bytes, seats: int) -> None:
        rng = self.rng
        listed = {seat: hand.legal_actions(seat) for seat in range(seats)}
        for seat, actions in listed.items():
            for action in rng.sample(actions, min(SAMPLED_VERIFIES, len(actions))):
                hand.verify_action(seat, action)
                hand.verify_action(seat, str(action))  # its text is the same action
            for action in rng.sample(actions, min(SAMPLED_APPLIES, len(actions))):
                copy = self.spec.load_hand(blob)
                events = copy.apply(seat, str(action))
                assert copy.to_bytes() != blob and all(isinstance(event, Event) for event in events)
        for seat in range(seats):
            others = {str(a) for other, actions in listed.items() if other != seat for a in actions}
            tried = sorted(others - {str(a) for a in listed[seat]})
            for text in rng.sample(tried, min(3, len(tried))):
                try:
                    hand.verify_action(seat, text)
                except IllegalAction:
                    self.check_refused(hand, seat, text)
                # else: legal though not listed (a 炒地皮 throw): applying it is no error either
            self.check_refused(hand, seat, "conjure 9Z", malformed=True)
        anything = next((str(a) for actions in listed.values() for a in actions), "fold")
        self.check_refused(hand, seats + 3, anything, malformed=True)
        assert hand.to_bytes() == blob, "a refused action changed the hand"

    @staticmethod
    def check_refused(hand: HandState, seat: int, text: str, malformed: bool = False) -> None:
        """``seat`` trying ``text`` gets IllegalAction with a reason (that it changed nothing,
        the caller checks once all its refusals are tried)."""
        with pytest.raises(IllegalAction) as refused:
            hand.apply(seat, text)
        assert refused.value.reason and refused.value.code
        if malformed:
            assert refused.value.malformed, (text, refused.value.code)

    def check_runs_out(self, blob: bytes) -> None:
        """From here, the clock alone (system steps and timeouts) ends the hand, or deals it
        again because nobody declared (only a player can: the rules' way on from there)."""
        hand = self.spec.load_hand(blob)
        for _ in range(MAX_STEPS):
            if hand.is_over:
                return
            events = hand.system_step() if hand.to_act is None else hand.timeout()
            assert events, "a system step or timeout did nothing"
            if any(event.type == "redeal" for event in events):
                return
        pytest.fail("system steps and timeouts did not end the hand")

    def check_settlement(self, hand: HandState, coins: list[int], held: list[int]) -> None:
        result = hand.result
        assert result is not None and len(result.coins) == len(coins)
        assert result.fee >= 0
        assert sum(result.coins) + result.fee == 0
        for seat, net in enumerate(result.coins):
            assert sum(line.amount for line in result.lines if line.seat == seat) == net
            assert -net <= held[seat], f"seat {seat} lost {-net}, more than the {held[seat]} held"
        assert all(0 <= line.seat < len(coins) for line in result.lines)
        assert set(result.winners) <= set(range(len(coins)))


@pytest.mark.parametrize(("name", "tier_name", "seed"), list(cases()))
def test_every_state_of_a_random_playout_keeps_the_engine_contract(name: str, tier_name: str, seed: int) -> None:
    Playout(name, tier_name, seed).run()
